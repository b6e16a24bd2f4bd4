"""Predict VRAM with the program's real data (``--predict-data cpu``): the 'cuda' tensors stay fake (their memory is
predicted exactly as without data), and each fake storage has a real CPU twin of the same size, which every
operation updates with PyTorch's CPU kernels. What the program reads from a tensor (``.item()``, ``bool(t)``,
``nonzero``, boolean masks, ``unique``, GradScaler's inf check) is then what its data gives, so the program takes
its own branches and loops: slower than a fake run, and it needs RAM for every live tensor.

Twins belong to storages, not to tensor objects: a view, ``.data`` or a ``set_`` made outside the dispatcher reads
the same bytes. An operation the CPU cannot run (a CUDA-only kernel without a stand-in here) leaves its outputs
unknown, and what it writes too; a later read of an unknown value falls back to the fake run's assumption, said
on its line.
"""
from __future__ import annotations

import math
import weakref
from typing import Any, Callable

from .recording import Torch


class Unknown(Exception):
    """A tensor whose values the CPU twin does not have."""


class Computed:
    """An operation run on the twins: what it returned, its leaves (real tensors and numbers), and the real
    storages it read (an output that is one of them is copied into a twin of its own, never shared)."""

    __slots__ = ("output", "leaves", "inputs")

    def __init__(self, output: Any, leaves: list[Any], inputs: set[int]) -> None:
        self.output = output
        self.leaves = leaves
        self.inputs = inputs


class RealData:
    """The CPU twins of the fake storages, and the operations run on them."""

    def __init__(self, torch: Torch, fake_tensor: Any, on_failure: Callable[[str, str], None]) -> None:
        from torch.utils import _pytree as pytree

        self.torch = torch
        self.pytree = pytree
        self.fake_class = fake_tensor.FakeTensor
        self.twins: dict[int, Any] = {}  # a fake storage's _cdata -> its real CPU UntypedStorage
        self.failed: dict[str, str] = {}  # operations the CPU could not run: name -> why (the first time)
        self.on_failure = on_failure  # said once per operation, on the program's line
        self.cpu = torch.device("cpu")
        unset: Any = getattr(fake_tensor, "unset_fake_temporarily", None)
        if unset is None:  # PyTorch 2.0
            import importlib

            unset = importlib.import_module("torch.utils._python_dispatch")._disable_current_modes
        self.outside_fake: Callable[[], Any] = unset
        aten = torch.ops.aten
        self.kernels: dict[Any, Callable[[Any, dict[str, Any], int], list[Any]]] = {}
        for name, kernel in (("_scaled_dot_product_flash_attention", self._attention_forward),
                             ("_scaled_dot_product_efficient_attention", self._attention_forward),
                             ("_scaled_dot_product_flash_attention_backward", self._attention_backward),
                             ("_scaled_dot_product_efficient_attention_backward", self._attention_backward)):
            packet = getattr(aten, name, None)
            if packet is not None:
                self.kernels[packet] = kernel

    # --- reading ----------------------------------------------------------------------------------------------

    def value(self, t: Any) -> object:
        """The Python number `t` holds (`.item()`), or None when its twin is unknown."""
        return self._read(t, "item")

    def tensor(self, t: Any) -> Any:
        """A real CPU tensor with `t`'s values (a copy, for `.tolist()` and `.numpy()`), or None when unknown."""
        return self._read(t, "clone")

    def _read(self, t: Any, method: str) -> Any:
        """`method` of the twin, called where the fake mode does not see it."""
        with self.outside_fake(), self.torch.no_grad():
            try:
                return getattr(self._real(t), method)()
            except Unknown:
                return None

    def _real(self, t: Any) -> Any:
        torch = self.torch
        if not isinstance(t, self.fake_class):
            if t.device.type != "cpu":
                raise Unknown()
            return t  # real CPU data the program gave
        if t.layout != torch.strided:
            raise Unknown()
        storage = self.twins.get(t.untyped_storage()._cdata)
        if storage is None:
            constant = getattr(t, "constant", None)  # a small tensor whose real values the fake mode keeps itself
            if constant is None or constant.layout != torch.strided:
                raise Unknown()
            # a twin of its own: the fake mode updates its constant, and an in-place operation here must not do it twice
            self._adopt(t, constant, {constant.untyped_storage().data_ptr()})
            storage = self.twins[t.untyped_storage()._cdata]
        return self._view(storage, t)

    def _argument(self, x: Any) -> Any:
        if isinstance(x, self.torch.Tensor):
            return self._real(x)
        if isinstance(x, self.torch.device) and x.type == "cuda":
            return self.cpu
        return x

    def readable(self) -> None:
        """`.tolist()` and `.numpy()` of a fake tensor give its twin's values."""
        tensor_class = self.torch.Tensor
        fake_class = self.fake_class

        def reading(name: str) -> None:
            plain = getattr(tensor_class, name)

            def read(t: Any, *args: Any, **kwargs: Any) -> Any:
                if isinstance(t, fake_class):
                    values = self.tensor(t)
                    if values is not None:
                        return getattr(values, name)(*args, **kwargs)
                return plain(t, *args, **kwargs)

            setattr(tensor_class, name, read)

        reading("tolist")
        reading("numpy")

    def _argument_or_none(self, x: Any) -> Any:
        """For the stand-in kernels below, which read only some of their inputs."""
        try:
            return self._argument(x)
        except Unknown:
            return None

    # --- running ------------------------------------------------------------------------------------------------

    def run(self, func: Any, args: Any, kwargs: Any, out: Any) -> bool:
        """Runs `func` on the twins of its inputs and gives `out`'s fake tensors their twins; False when unknown."""
        fakes = self.pytree.tree_leaves(out)
        if not any(isinstance(f, self.fake_class) for f in fakes) and not _writes(func):
            return True  # a device, a size: nothing of the data's
        computed = self.compute(func, args, kwargs, len(fakes))
        if computed is None or len(computed.leaves) != len(fakes):
            self._forget(fakes, func, args, kwargs)
            return False
        self.adopt(fakes, computed)
        return True

    def compute(self, func: Any, args: Any, kwargs: Any, count: int = 0) -> Computed | None:
        """`func` on the twins of its inputs (a stand-in kernel gives `count` outputs, one per fake output's
        leaf), or None when the values are unknown."""
        torch = self.torch
        with self.outside_fake(), torch.no_grad():
            kernel = self.kernels.get(func.overloadpacket)
            try:
                real_args, real_kwargs = self.pytree.tree_map(self._argument if kernel is None else self._argument_or_none,
                                                              (tuple(args), dict(kwargs)))
            except Unknown:
                return None
            inputs = {a.untyped_storage().data_ptr() for a in self.pytree.tree_leaves((real_args, real_kwargs))
                      if isinstance(a, torch.Tensor)}
            try:
                if kernel is not None:
                    stood_in = kernel(func, _named(func, real_args, real_kwargs), count)
                    return Computed(stood_in, list(stood_in), inputs)
                output = func(*real_args, **real_kwargs)
                return Computed(output, self.pytree.tree_leaves(output), inputs)
            except Unknown:  # a stand-in kernel without an input it reads
                return None
            except Exception as e:  # no CPU kernel, or one that refuses these inputs
                name = str(func)
                if name not in self.failed:
                    why = self.failed[name] = "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0][:200])
                    self.on_failure(name, why)
                return None

    def adopt(self, fakes: list[Any], computed: Computed) -> None:
        """Each fake tensor of `fakes` now holds the values of the computed output's leaf beside it."""
        with self.outside_fake(), self.torch.no_grad():
            for fake, real in zip(fakes, computed.leaves):
                if isinstance(fake, self.fake_class):
                    self._adopt(fake, real, computed.inputs)

    def _adopt(self, fake: Any, real: Any, inputs: set[int]) -> None:
        """`fake` now holds `real`'s values: its storage's twin is `real`'s storage when laid out alike and not an
        input's, else a new one with `real` copied into `fake`'s place in it."""
        torch = self.torch
        storage = fake.untyped_storage()
        key = storage._cdata
        twin = self.twins.get(key)
        if not isinstance(real, torch.Tensor) or fake.layout != torch.strided or tuple(real.shape) != tuple(fake.shape):
            if twin is not None:
                del self.twins[key]  # written with something this cannot follow
            return
        if twin is not None:
            if real.untyped_storage().data_ptr() != twin.data_ptr() or real.storage_offset() != fake.storage_offset() \
                    or tuple(real.stride()) != tuple(fake.stride()):
                self._view(twin, fake).copy_(real)  # an in-place or out= result the CPU kernel made elsewhere
            return
        real_storage = real.untyped_storage()
        if (real.dtype == fake.dtype and real_storage.nbytes() == storage.nbytes() and real.storage_offset() == fake.storage_offset()
                and tuple(real.stride()) == tuple(fake.stride()) and real_storage.data_ptr() not in inputs):
            self.twins[key] = real_storage
        else:
            twin = self.twins[key] = torch.UntypedStorage(storage.nbytes())
            self._view(twin, fake).copy_(real)
        weakref.finalize(storage, self._drop, key)

    def _drop(self, key: int) -> None:
        self.twins.pop(key, None)

    def _view(self, storage: Any, fake: Any) -> Any:
        view = self.torch.empty(0, dtype=fake.dtype)
        view.set_(storage, fake.storage_offset(), tuple(fake.shape), tuple(fake.stride()))
        return view

    def _forget(self, fakes: list[Any], func: Any, args: Any, kwargs: Any) -> None:
        """The outputs and what the operation writes are unknown from now on."""
        written = list(fakes)
        named = _named(func, args, kwargs)
        for argument in getattr(func, "_schema").arguments:
            alias = argument.alias_info
            if alias is not None and alias.is_write and argument.name in named:
                written.extend(self.pytree.tree_leaves(named[argument.name]))
        for t in written:
            if isinstance(t, self.fake_class):
                self.twins.pop(t.untyped_storage()._cdata, None)

    # --- CUDA-only kernels, computed as PyTorch's math kernel computes them ------------------------------------

    def _scores(self, q: Any, k: Any, bias: Any, causal: bool, scale: Any) -> Any:
        torch = self.torch
        s = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
        scores = torch.matmul(q.float(), k.float().transpose(-2, -1)) * s
        if causal:
            keep = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
            scores = scores.masked_fill(keep.logical_not(), float("-inf"))
        if bias is not None:
            scores = scores + bias.float()
        return scores

    def _attention_forward(self, func: Any, a: dict[str, Any], count: int) -> list[Any]:
        """Flash and memory-efficient attention's output (dropout left out) and its logsumexp."""
        torch = self.torch
        q, k, v = _known(a, "query", "key", "value")
        scores = self._scores(q, k, a.get("attn_bias"), bool(a.get("is_causal", False)), a.get("scale"))
        out = torch.matmul(torch.softmax(scores, -1), v.float()).to(q.dtype)
        lse = torch.logsumexp(scores, -1)
        return [out, lse] + [None] * (count - 2)

    def _attention_backward(self, func: Any, a: dict[str, Any], count: int) -> list[Any]:
        """Their backward, the math kernel's gradients worked out (autograd does not run below the dispatcher):
        P = softmax(S), dV = P^T dO, dS = P * (dO V^T - rowsum(dO * O)), dQ = scale dS K, dK = scale dS^T Q."""
        torch = self.torch
        grad = _known(a, "grad_out" if "grad_out" in a else "grad_out_")[0].float()  # efficient attention's is grad_out_
        q, k, v = (t.float() for t in _known(a, "query", "key", "value"))
        scale = a.get("scale")
        scale = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
        p = torch.softmax(self._scores(q, k, a.get("attn_bias"), bool(a.get("is_causal", False)), scale), -1)
        out = torch.matmul(p, v)
        grad_v = torch.matmul(p.transpose(-2, -1), grad)
        grad_s = p * (torch.matmul(grad, v.transpose(-2, -1)) - (grad * out).sum(-1, keepdim=True))
        grad_q = torch.matmul(grad_s, k) * scale
        grad_k = torch.matmul(grad_s.transpose(-2, -1), q) * scale
        result: list[Any] = [g.to(a[n].dtype) for g, n in ((grad_q, "query"), (grad_k, "key"), (grad_v, "value"))]
        return result + [None] * (count - 3)


def _known(named: dict[str, Any], *names: str) -> list[Any]:
    """The arguments `names` of a stand-in kernel; Unknown when one has no values."""
    values = [named.get(n) for n in names]
    if any(v is None for v in values):
        raise Unknown()
    return values


def _writes(func: Any) -> bool:
    """Whether the operation writes into one of its arguments (in place, out=)."""
    return any(argument.alias_info is not None and argument.alias_info.is_write for argument in func._schema.arguments)


def _named(func: Any, args: Any, kwargs: Any) -> dict[str, Any]:
    """The operation's arguments by their schema names."""
    named = {argument.name: value for argument, value in zip(func._schema.arguments, args)}
    named.update(kwargs)
    return named
