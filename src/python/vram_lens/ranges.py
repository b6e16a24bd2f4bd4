"""Backward ranges: memory allocated by ``loss.backward()`` lands on the program's lines and module names.

PyTorch 2.0+: backward runs on the calling thread (its allocations carry the Python stack of the
``loss.backward()`` line) and every module call of the forward pass gets a ``record_function`` range
"backward: <module>" over its part of the backward pass (see ModuleRanges). Changes no tensor and no
autograd graph; the gradients are the same, bit for bit (test/torch/test_real_torch.py).
"""
from __future__ import annotations

import os
import sys
import weakref
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Tuple

from .frames import is_own_file
from .recording import Torch

if TYPE_CHECKING:
    from typing_extensions import TypedDict

    class ModuleCall(TypedDict):
        """A line that called a module (the snapshot's `vram_lens.module_calls`)."""

        module: str
        filename: str
        line: int

# A module call: its name and a counter that tells two calls of one module apart.
CallKey = Tuple[str, int]
# The calls that end (close) and begin (open) at one autograd node.
NodeKeys = Dict[str, List[CallKey]]
Module = Any  # a torch.nn.Module
Node = Any  # a torch.autograd.graph.Node


class ModuleRanges:
    """Backward memory on lines and module names, without changing a tensor or the autograd graph.

    The program's modules are named from the outermost call (a global forward pre-hook): `model.layers.3.attn`.
    For each call of a module with parameters, a forward hook puts pre-hooks on autograd nodes: the node that made
    the module's output opens a record_function range "backward: <name>" when backward reaches it, and the nodes
    that made its inputs close it (backward has left the module); ranges still open when the backward pass ends
    are closed then. PyTorch records the ranges in the snapshot's external_annotations. The forward call's line
    (the first frame outside torch) is kept for the snapshot's `vram_lens.module_calls`.
    """

    MAX_CALL_LINES = 8

    def __init__(self, torch: Torch) -> None:
        self.torch = torch
        self.record_function = torch.autograd.profiler.record_function
        self.names: weakref.WeakKeyDictionary[Module, str] = weakref.WeakKeyDictionary()
        self.has_parameters: weakref.WeakKeyDictionary[Module, bool] = weakref.WeakKeyDictionary()
        self.calls: dict[str, list[tuple[str, int]]] = {}  # name -> [(filename, line)]
        self.open: dict[CallKey, Any] = {}  # (name, call id) -> record_function
        self.engine = getattr(torch.autograd.Variable, "_execution_engine", None)
        self.callback_queued = False
        self.torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
        self.counter = 0

    def _caller(self) -> FrameType | None:
        """The first frame outside torch and this package, above the hook that asks."""
        f: FrameType | None = sys._getframe(2)
        while f is not None:
            filename = os.path.abspath(f.f_code.co_filename)
            if not filename.startswith(self.torch_dir) and not is_own_file(filename):
                return f
            f = f.f_back
        return None

    def _root_name(self, module: Module, frame: FrameType | None) -> str:
        if frame is not None:
            for scope in (frame.f_locals, frame.f_globals):
                for key, value in list(scope.items()):
                    if value is module and not key.startswith("_"):
                        return key
        return str(type(module).__name__)

    def forward_pre(self, module: Module, args: object) -> None:
        try:
            if module in self.names:
                return None
            root = self._root_name(module, self._caller())
            for name, sub in module.named_modules():
                if sub not in self.names:
                    self.names[sub] = root + ("." + name if name else "")
        except Exception:
            pass
        return None

    def _parameters(self, module: Module) -> bool:
        known = self.has_parameters.get(module)
        if known is None:
            known = next(module.parameters(), None) is not None
            self.has_parameters[module] = known
        return known

    def forward(self, module: Module, args: object, output: object) -> None:
        try:
            if not self.torch.is_grad_enabled() or not self._parameters(module):
                return None
            name = self.names.get(module)
            if name is None:
                return None
            frame = self._caller()
            if frame is not None:
                lines = self.calls.setdefault(name, [])
                site = (frame.f_code.co_filename, frame.f_lineno)
                if site not in lines and len(lines) < self.MAX_CALL_LINES:
                    lines.append(site)
            outputs = [n for n in self._nodes(output)]
            if not outputs:
                return None
            self.counter += 1
            key = (name, self.counter)
            for node in outputs:
                self._on_node(node, "open", key)
            for node in self._nodes(args):
                if node not in outputs:
                    self._on_node(node, "close", key)
        except Exception:
            pass
        return None

    def _nodes(self, value: object) -> list[Node]:
        tensor_type = self.torch.Tensor
        items = value if isinstance(value, (tuple, list)) else (value,)
        nodes: list[Node] = []
        for item in items:
            node = getattr(item, "grad_fn", None) if isinstance(item, tensor_type) else None
            if node is not None and node not in nodes:
                nodes.append(node)
        return nodes

    def _on_node(self, node: Node, action: str, key: CallKey) -> None:
        """One pre-hook per node, holding the module calls that end and begin there (an inner module's output is
        often its parent's output, and one module's output the next one's input). When backward reaches the node,
        ranges close first (innermost first), then open (outermost first: inner calls register first)."""
        metadata = getattr(node, "metadata", None)
        if isinstance(metadata, dict) and "vram_lens" in metadata:
            metadata["vram_lens"][action].append(key)
            return
        keys: NodeKeys = {"open": [], "close": []}
        keys[action].append(key)
        if isinstance(metadata, dict):
            metadata["vram_lens"] = keys
        node.register_prehook(self._node_hook(keys))

    def _node_hook(self, keys: NodeKeys) -> Callable[[object], None]:
        def hook(grad_outputs: object) -> None:
            for key in keys["close"]:
                rf = self.open.pop(key, None)
                if rf is not None:
                    rf.__exit__(None, None, None)
            for key in reversed(keys["open"]):
                if key not in self.open:
                    rf = self.record_function("backward: " + key[0])
                    rf.__enter__()
                    self.open[key] = rf
            if self.open and not self.callback_queued and self.engine is not None:
                self.callback_queued = True
                self.engine.queue_callback(self.close_all)
            return None

        return hook

    def close_all(self) -> None:
        """End of the backward pass: what is still open closes, the latest opened first."""
        self.callback_queued = False
        for key in reversed(list(self.open)):
            self.open.pop(key).__exit__(None, None, None)

    def module_calls(self) -> list[ModuleCall]:
        return [
            {"module": name, "filename": filename, "line": line}
            for name, sites in sorted(self.calls.items())
            for filename, line in sites
        ]


def instrument_backward(torch: Torch) -> ModuleRanges | None:
    """Backward on the calling thread and module ranges (PyTorch 2.0+); None where this PyTorch cannot."""
    set_multithreading = getattr(torch._C, "_set_multithreading_enabled", None)
    if set_multithreading is None:
        return None  # older than 2.0
    module_hooks = torch.nn.modules.module
    node_type = getattr(getattr(torch.autograd, "graph", None), "Node", None)
    if not hasattr(module_hooks, "register_module_forward_pre_hook") or not hasattr(node_type, "register_prehook"):
        return None
    set_multithreading(False)
    ranges = ModuleRanges(torch)
    module_hooks.register_module_forward_pre_hook(ranges.forward_pre)
    module_hooks.register_module_forward_hook(ranges.forward)
    return ranges
