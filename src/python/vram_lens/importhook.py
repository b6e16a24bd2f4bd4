"""The import hook: a callback the moment the program's own ``import torch`` has finished, before its next
line runs. Nothing of ours imports torch or touches CUDA before the program does, so the settings it makes
first (``CUDA_VISIBLE_DEVICES``, ``PYTORCH_CUDA_ALLOC_CONF``, ...) reach CUDA's initialisation as they would
without us. Free of the Profile VRAM runner.

- ``watch_torch_import(on_import)``: calls ``on_import(torch)`` once torch is imported (at once when it
  already is, e.g. by a sitecustomize or .pth file); returns the hook it installed (None in that case),
  whose ``failed`` holds the exception when ``import torch`` raised.
"""
from __future__ import annotations

import importlib.abc
import sys
from types import ModuleType
from typing import Callable, Sequence

from importlib.machinery import ModuleSpec

OnImport = Callable[[ModuleType], None]


class TorchImportHook(importlib.abc.MetaPathFinder):
    """A sys.meta_path finder that lets `torch` import normally, then calls back before the program goes on."""

    def __init__(self, on_import: OnImport) -> None:
        self._on_import = on_import
        self._busy = False
        self.failed: BaseException | None = None

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != "torch" or self._busy:
            return None
        self._busy = True
        try:
            spec: ModuleSpec | None = None
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                if finder is self or find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._busy = False
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original: Callable[[ModuleType], None] = loader.exec_module
        hook = self

        def exec_module(module: ModuleType) -> None:
            try:
                original(module)
            except BaseException as e:
                hook.failed = e
                raise
            try:
                sys.meta_path.remove(hook)
            except ValueError:
                pass
            hook._on_import(module)

        setattr(loader, "exec_module", exec_module)
        return spec


def watch_torch_import(on_import: OnImport) -> TorchImportHook | None:
    """Calls `on_import(torch)` once the program has imported torch (now, if it already is)."""
    torch = sys.modules.get("torch")
    if torch is not None:  # imported by a sitecustomize or .pth file before us
        on_import(torch)
        return None
    hook = TorchImportHook(on_import)
    sys.meta_path.insert(0, hook)
    return hook
