"""Predict VRAM: the program runs on fake 'cuda' tensors (no GPU, no data, no computation) and the snapshot the
chosen GPU would record is written where a recording would be.

- ``prepare(options)``: before the program starts (run.py): finds the interpreter's torch without importing it,
  builds or takes the native library from the cache and, for a CPU-only PyTorch, loads it now. Raises
  ``PredictUnavailable`` when something is missing.
- ``start(session, torch)``: once the program's ``import torch`` has finished (session.py): everything after runs
  under FakeTensorMode and the prediction's mode (fakemode.py), ``torch.cuda`` answers for the chosen GPU
  (fakecudaapi.py), modules move to 'cuda' keeping their Parameter objects, ``torch.compile`` runs eagerly.

Recording covers the whole run unless the program calls ``torch.cuda.memory._record_memory_history`` itself;
then its calls set the window and each ``_dump_snapshot(path)`` writes a predicted snapshot at ``path``.
"""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from . import nativecuda
from .fakemode import attention_as_on_the_gpu, make_mode, recurrent_layers_without_cudnn
from .fakecudaapi import install
from .nativecuda import NativeLibrary, PredictUnavailable
from .predictor import Gpu, Predictor
from .recording import Torch

if TYPE_CHECKING:
    from .options import Options
    from .session import Session

# cuBLAS's default workspace (CublasHandlePool.cpp): 32 MiB on sm90 (Hopper), ":4096:2:16:8" elsewhere.
HOPPER_WORKSPACE = 4096 * 8 * 1024
DEFAULT_WORKSPACE = 4096 * 1024 * 2 + 16 * 1024 * 8


class Prepared:
    """What prepare() found and built, for start()."""

    def __init__(self, library: NativeLibrary, handle: Any, version: str) -> None:
        self.library = library
        self.handle = handle
        self.version = version


def prepare(options: Options) -> Prepared | None:
    """Before the program runs: the native library for its torch (None when there is no torch to find)."""
    found = nativecuda.find_torch()
    if found is None:
        return None  # the program's `import torch` fails as it would without us, and the runner says why
    if _release(found.version) < (2, 0):
        raise PredictUnavailable(
            "PyTorch %s has no fake tensors to predict with: Predict VRAM needs PyTorch 2.0 or newer." % found.version,
            "Predict with an environment that has PyTorch 2.0 or newer.",
        )
    library = nativecuda.prepare(options.native_cache or nativecuda.default_cache(), found)
    return Prepared(library, nativecuda.load(library), found.version)


def _release(version: str) -> tuple[int, int]:
    """(major, minor) of a version string such as "2.6.0+debian"; unreadable ones count as new (start() checks again)."""
    parts = version.split("+")[0].split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (ValueError, IndexError):
        return (99, 0)


def workspace_bytes(capability: tuple[int, int], environ: dict[str, str] | None = None) -> int:
    """cuBLAS's workspace per handle, as PyTorch sizes it: CUBLAS_WORKSPACE_CONFIG (":SIZE_KiB:COUNT" pairs), else
    32 MiB on sm90 and 4096 KiB x 2 + 16 KiB x 8 on other GPUs."""
    env = os.environ if environ is None else environ
    config = env.get("CUBLAS_WORKSPACE_CONFIG")
    if config:
        total = 0
        parts = config.split(":")[1:]
        for size, count in zip(parts[0::2], parts[1::2]):
            if size.isdigit() and count.isdigit():
                total += int(size) * 1024 * int(count)
        if total > 0:
            return total
    return HOPPER_WORKSPACE if capability == (9, 0) else DEFAULT_WORKSPACE


def start(session: Session, torch: Torch, prepared: Prepared | None) -> None:
    """Right after the program's `import torch`: the rest of the program runs under the prediction."""
    options = session.options
    version = str(getattr(torch, "__version__", "?"))  # a TorchVersion (a str subclass that pickles as torch's)
    fake_module = _fake_tensor_module(torch)
    if fake_module is None:
        raise PredictUnavailable(
            "PyTorch %s has no fake tensors (torch._subclasses.fake_tensor): Predict VRAM needs PyTorch 2.0 or newer." % version,
            "Predict with an environment that has PyTorch 2.0 or newer.",
        )
    if prepared is not None:
        nativecuda.check_loaded(prepared.handle, version)
    gpu = Gpu(options.predict_gpu or "GPU", int(options.predict_memory or 0), options.predict_capability)
    predictor = Predictor(gpu, workspace_bytes(gpu.capability), options.predict_data, version)
    session.predictor = predictor

    def window() -> str:
        return "program" if predictor.program_records else "run"

    def dump(data: object, path: str) -> None:
        session.write_program_dump(data, os.path.abspath(path))

    fake = _fake_mode_class(fake_module)(allow_non_fake_inputs=True)  # before the shims: it asks torch.cuda.is_available()
    if hasattr(fake_module, "init_gpu_context"):  # it makes a real 'cuda' tensor for autograd's sake: there is no CUDA here
        fake_module.init_gpu_context = lambda device: None
    install(torch, predictor, dump, window)
    _modules_keep_parameters(torch, fake_module.FakeTensor)
    _foreach_as_on_cuda(fake_module.FakeTensor)
    _compile_runs_eagerly(torch, predictor)
    attention_as_on_the_gpu(torch, predictor)
    recurrent_layers_without_cudnn(torch, predictor)
    mode = make_mode(torch, predictor)
    predictor.record_history("all", "all", options.stacks, options.max_entries, True)
    predictor.program_records = False
    fake.__enter__()
    mode.__enter__()  # stays entered: the rest of the program runs under both
    session.recording = True
    session.channel.predicting(gpu=gpu.name, memory=gpu.memory, capability="%d.%d" % gpu.capability, torch=version,
                               python=sys.version.split()[0], data=options.predict_data, snapshot=session.snapshot_path)


def _fake_mode_class(fake_module: Any) -> Any:
    """FakeTensorMode that never runs a real operation on a 'cuda' device: its constant propagation would, since
    torch.cuda.is_available() now says yes (a BatchNorm's counter moved to 'cuda' is a constant)."""

    class PredictionFakeTensorMode(fake_module.FakeTensorMode):  # type: ignore[misc]
        @property
        def avoid_device_init(self) -> bool:
            return True

    return PredictionFakeTensorMode


def _fake_tensor_module(torch: Torch) -> Any:
    try:
        import importlib

        module = importlib.import_module("torch._subclasses.fake_tensor")
        importlib.import_module("torch.utils._python_dispatch")
    except Exception:
        return None
    return module if hasattr(module, "FakeTensorMode") else None


def _modules_keep_parameters(torch: Torch, fake_tensor: Any) -> None:
    """nn.Module._apply (`.to()`, `.cuda()`, `.half()`) as for plain tensors: a parameter keeps its object and gets
    the moved data (`param.data = moved`), so an optimizer made before the move holds the moved parameters.
    PyTorch swaps fake tensors instead, which the fake mode's weak references refuse."""

    def moved_into(old: Any, new: Any) -> bool:
        if not (isinstance(old, fake_tensor) and isinstance(new, fake_tensor)):
            return False
        old.data = new
        old.fake_device = new.fake_device
        return True

    def _apply(self: Any, fn: Any, recurse: bool = True) -> Any:
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with torch.no_grad():
                applied = fn(param)
            if applied is not param and not moved_into(param, applied):
                self._parameters[key] = torch.nn.Parameter(applied, param.requires_grad)
                param = self._parameters[key]
            grad = param.grad
            if grad is not None:
                with torch.no_grad():
                    grad_applied = fn(grad)
                if grad_applied is not grad and not moved_into(grad, grad_applied):
                    param.grad = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    torch.nn.Module._apply = _apply


def _foreach_as_on_cuda(fake_tensor: Any) -> None:
    """Optimizers and clip_grad_norm_ take their foreach (multi-tensor) kernels for plain CUDA tensors; they check
    `type(p)` against a list, which our fake tensors are added to so that they choose as on a GPU."""
    for name in ("torch.optim.optimizer", "torch.utils._foreach_utils"):
        supported = getattr(sys.modules.get(name), "_foreach_supported_types", None)
        if isinstance(supported, list) and fake_tensor not in supported:
            supported.append(fake_tensor)


def _compile_runs_eagerly(torch: Torch, predictor: Predictor) -> None:
    """torch.compile returns what it was given: the prediction runs eagerly, and says so on the line."""

    def compile(model: Any = None, *args: Any, **kwargs: Any) -> Any:
        f = sys._getframe(1)
        predictor.assume("compile", {"filename": f.f_code.co_filename, "line": f.f_lineno, "name": f.f_code.co_name},
                         "torch.compile: the prediction runs the eager program (compiled code may fuse operations and use "
                         "less memory)")
        if model is None:
            return lambda m: m
        return model

    torch.compile = compile
