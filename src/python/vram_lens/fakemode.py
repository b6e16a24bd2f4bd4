"""The prediction's view of every PyTorch operation: a TorchDispatchMode above FakeTensorMode.

Every tensor the program makes is a fake tensor (shapes, dtypes and strides, no data); those whose device says
'cuda' go through PyTorch's own CUDA autocast rules and autograd, as on a GPU. This mode sees each operation
first and tells the Predictor (predictor.py) what the GPU's caching allocator would be asked for:

- every new 'cuda' storage is an allocation (the Python stack that made it; while recording with C++ stacks, a
  frame naming the operation and, in the backward pass, the autograd node), freed when the storage dies;
- a thread's first matrix product makes cuBLAS's workspace, never freed (`Predictor.workspace_bytes`);
- autograd treats fake tensors as a tensor subclass, and for subclasses it sums gradients and runs some backward
  formulas (`zeros().scatter_add_()`) out of place: those are done in place here, as for plain CUDA tensors;
- under `inference_mode`, composite operations (einsum) reach this mode whole: they are decomposed as CUDA would;
- `scaled_dot_product_attention` picks its kernel (flash, memory-efficient, math) as PyTorch does on that GPU
  (`attention_as_on_the_gpu`: PyTorch asks the device before the dispatcher sees a fake tensor);
- values read from data (`.item()`, `bool(t)`) and data-dependent sizes (`nonzero`, boolean masks, `unique`) are
  assumed, and each assumption is named on the line that needed it (`Predictor.assume`);
- an operation with no fake implementation (a custom CUDA or Triton kernel) stops the run, naming it.

Built at run time (`make_mode(torch, predictor)`): the classes it derives from come from the program's torch.
"""
from __future__ import annotations

import os
import sys
import threading
import weakref
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable

from .frames import is_own_file
from .realdata import RealData
from .recording import Torch

if TYPE_CHECKING:
    from .predictor import Frame, Predictor

# SDPBackend values of `_fused_sdp_choice` (torch.nn.attention.SDPBackend).
SDP_MATH, SDP_FLASH, SDP_EFFICIENT = 0, 1, 2


class PredictionStopped(RuntimeError):
    """The prediction cannot go on (an operation it cannot size, a loop on data it does not have)."""


class StackReader:
    """The program's Python stack as snapshot frames, without this package's frames and the fake machinery's."""

    def __init__(self, torch: Torch) -> None:
        torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
        self.hidden = tuple(
            torch_dir + part
            for part in (
                "utils" + os.sep + "_python_dispatch.py",
                "_subclasses" + os.sep,
                "_ops.py",
                "utils" + os.sep + "_stats.py",
                "_library" + os.sep,
                "utils" + os.sep + "weak.py",
                "_dynamo" + os.sep + "eval_frame.py",
                "_compile.py",
            )
        )
        self.engine_files = (torch_dir + "autograd" + os.sep + "graph.py", torch_dir + "autograd" + os.sep + "__init__.py")
        self.cache: dict[str, bool] = {}

    def hides(self, filename: str) -> bool:
        known = self.cache.get(filename)
        if known is None:
            known = (filename.startswith("<frozen runpy") or filename.endswith(os.sep + "weakref.py") or is_own_file(filename)
                     or filename.startswith(self.hidden))
            self.cache[filename] = known
        return known

    def frames(self, skip: int = 2) -> list[Frame]:
        out: list[Frame] = []
        f = _frame(skip + 1)
        while f is not None:
            name = f.f_code.co_filename
            if not self.hides(name):
                out.append({"filename": name, "line": f.f_lineno, "name": f.f_code.co_name})
            f = f.f_back
        return out

    def innermost(self, skip: int = 2) -> FrameType | None:
        f = _frame(skip + 1)
        while f is not None and self.hides(f.f_code.co_filename):
            f = f.f_back
        return f

    def called_by_engine(self, skip: int = 2) -> bool:
        """The operation was called by the autograd engine itself (no Python code of a backward function between)."""
        f = self.innermost(skip + 1)
        return f is None or f.f_code.co_filename in self.engine_files

    def user_frame(self, skip: int = 2) -> Frame | None:
        """The innermost frame of the program's own code (outside torch and the standard library), else the innermost."""
        frames = self.frames(skip + 1)
        for frame in frames:
            path = frame["filename"].replace("\\", "/")
            if "/site-packages/" not in path and "/dist-packages/" not in path and not path.startswith("<"):
                return frame
        return frames[0] if frames else None


def _frame(depth: int) -> FrameType | None:
    """sys._getframe(depth), or None where the stack is not that deep (an autograd thread's few frames)."""
    try:
        return sys._getframe(depth)
    except ValueError:
        return None


def make_mode(torch: Torch, predictor: Predictor) -> Any:
    """The recording mode (enter it inside a FakeTensorMode: it must be above it on the mode stack)."""
    from torch.utils import _pytree as pytree
    from torch.utils._python_dispatch import TorchDispatchMode

    fake_tensor = sys.modules["torch._subclasses.fake_tensor"]
    Unsupported = fake_tensor.UnsupportedOperatorException
    DynamicShape = getattr(fake_tensor, "DynamicOutputShapeException", ())
    DataDependent = getattr(fake_tensor, "DataDependentOutputException", ())
    aten = torch.ops.aten
    stacks = StackReader(torch)
    current_node: Callable[[], Any] = getattr(torch._C, "_current_autograd_node", lambda: None)

    blas = _packets(aten, ("mm", "addmm", "bmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "vdot", "_addmm_activation", "_scaled_mm", "_int_mm"))
    # functional op -> its in-place form, or (for x_scatter) the view it writes through
    inplace: dict[Any, Any] = {}
    for name, target in (("scatter_add", "scatter_add_"), ("scatter", "scatter_"), ("index_put", "index_put_"), ("index_add", "index_add_"),
                         ("index_copy", "index_copy_"), ("masked_scatter", "masked_scatter_"), ("select_scatter", "select"),
                         ("slice_scatter", "slice"), ("diagonal_scatter", "diagonal"), ("as_strided_scatter", "as_strided")):
        if hasattr(aten, name) and hasattr(aten, target):
            inplace[getattr(aten, name)] = getattr(aten, target) if target.endswith("_") else target
    # ops whose boolean answer the prediction assumes ("is anything wrong?" no; "is everything fine?" yes)
    answers = {p: v for p, v in _packet_values(aten, (("any", 0), ("all", 1), ("is_nonzero", 0), ("isnan", 0), ("isinf", 0), ("isfinite", 1),
                                                      ("isneginf", 0), ("isposinf", 0)))}
    keeps_value = _packets(aten, ("_to_copy", "clone", "detach", "alias", "view", "reshape", "_reshape_alias", "squeeze", "unsqueeze",
                                  "select", "expand", "t", "lift_fresh", "lift_fresh_copy", "contiguous", "copy"))
    fills = {p: v for p, v in _packet_values(aten, (("zeros", 0), ("ones", 1), ("zeros_like", 0), ("ones_like", 1)))}
    full_ops = _packets(aten, ("full", "full_like", "scalar_tensor", "new_full"))
    record_enter = [getattr(torch.ops.profiler, n, None) for n in ("_record_function_enter_new", "_record_function_enter")]
    record_exit = getattr(torch.ops.profiler, "_record_function_exit", None)
    composite_key = "CompositeImplicitAutograd"
    has_kernel = getattr(torch._C, "_dispatch_has_kernel_for_dispatch_key", None)
    amp_check = getattr(aten, "_amp_foreach_non_finite_check_and_unscale_", None)
    amp_update = getattr(aten, "_amp_update_scale_", None)
    local_scalar = aten._local_scalar_dense.default
    nonzero = _packets(aten, ("nonzero",))
    unique = _packets(aten, ("_unique2", "_unique", "unique_dim", "unique_consecutive"))
    masked_select = _packets(aten, ("masked_select",))
    index = _packets(aten, ("index",))
    pin = _packets(aten, ("_pin_memory",))
    equal = _packets(aten, ("equal",))
    composites: dict[Any, bool] = {}
    real = None
    if predictor.data == "cpu":

        def cannot_compute(name: str, why: str) -> None:
            predictor.assume("value", stacks.user_frame(2), "%s has no CPU kernel for these inputs (%s): its results have no "
                             "values, and what is read from them later is assumed" % (name, why))

        real = RealData(torch, fake_tensor, cannot_compute)
        real.readable()

    def composite(func: Any) -> bool:
        """An aten op with a CompositeImplicitAutograd kernel (asked once per op: the dispatcher's answer is fixed)."""
        known = composites.get(func)
        if known is None:
            known = composites[func] = bool(has_kernel is not None and func.namespace == "aten" and has_kernel(func.name(), composite_key))
        return known

    try:
        import importlib

        prims_common: Any = importlib.import_module("torch._prims_common")
    except ImportError:
        prims_common = None
    non_overlapping_and_dense = getattr(prims_common, "is_non_overlapping_and_dense", None) or getattr(
        prims_common, "is_non_overlapping_and_dense_or_false", None)

    def dense(t: Any) -> bool:
        """Non-overlapping and dense (a transposed gradient is): what autograd asks before summing in place."""
        return bool(non_overlapping_and_dense(t)) if non_overlapping_and_dense is not None else bool(t.is_contiguous())

    def is_gpu(t: object) -> bool:
        return isinstance(t, torch.Tensor) and t.device.type == "cuda"

    def value_of(t: Any) -> object:
        return getattr(t, "_vram_lens_value", None)

    def set_value(t: Any, value: object) -> None:
        try:
            t._vram_lens_value = value
        except Exception:
            pass

    class PredictionMode(TorchDispatchMode):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.last_storage: object = None
            self.open_ranges: dict[int, str] = {}

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            packet = func.overloadpacket
            if func is local_scalar:
                known = real.value(args[0]) if real is not None else None
                return known if known is not None else self.read_value(args[0])
            if packet in record_enter and packet is not None:
                out = func(*args, **kwargs)
                self.open_ranges[id(out)] = str(args[0])
                predictor.annotate("START", str(args[0]))
                return out
            if record_exit is not None and packet is record_exit:
                name = self.open_ranges.pop(id(args[0]), None)
                if name is not None:
                    predictor.annotate("END", name)
                return func(*args, **kwargs)
            if composite(func) and packet not in index:
                with self:  # a composite op reached us whole (inference_mode): its parts go through us, as on CUDA
                    out = func.decompose(*args, **kwargs)
                if out is not NotImplemented:
                    return out
            if packet in index and any(isinstance(i, torch.Tensor) and i.dtype == torch.bool for i in (args[1] if len(args) > 1 else ())):
                return self.index_with_mask(func, args, kwargs)
            if packet in pin:  # page-locked host memory: a copy on the host (the fake mode has no kernel for it)
                out = aten.clone.default(args[0])
                if real is not None:
                    real.run(aten.clone.default, args[:1], {}, out)
                return out
            if packet in nonzero or packet in masked_select or packet in unique:
                return self.data_dependent(func, packet, args, kwargs)
            if func is aten.add.Tensor and not kwargs and self.gradient_sum(args):
                out = aten.add_.Tensor(*args)  # the engine sums two gradients in place
                if real is not None:
                    real.run(aten.add_.Tensor, args, {}, out)
                return out
            target = inplace.get(packet)
            if target is not None and self.fresh(args[0]):  # zeros(...).scatter_add_(...) in a backward formula
                if isinstance(target, str):
                    getattr(aten, target)(args[0], *args[2:], **kwargs).copy_(args[1])
                else:
                    target(*args, **kwargs)
                if real is not None:
                    real.run(func, args, kwargs, args[0])  # the functional result, written into args[0]'s twin
                return args[0]
            try:
                out = func(*args, **kwargs)
            except Unsupported as e:
                raise self.stop_unsupported(func, e) from None
            except (DynamicShape, DataDependent) as e:  # type: ignore[misc]
                sized = self.sized_by_data(func, packet, args, kwargs) if real is not None else None
                if sized is not None:
                    return sized
                if packet in equal:  # torch.equal: "are they the same?" yes, as any() and isfinite() are answered
                    predictor.assume("value", stacks.user_frame(2), "torch.equal: fake tensors hold no data, so the prediction "
                                     "assumed the tensors are equal (True)")
                    return True
                raise self.stop_data_dependent(func, e) from None
            known = real.run(func, args, kwargs, out) if real is not None else False
            self.after(func, packet, args, kwargs, out, known)
            return out

        # --- memory -----------------------------------------------------------------------------------------

        def after(self, func: Any, packet: Any, args: Any, kwargs: Any, out: Any, known: bool = False) -> None:
            for t in pytree.tree_leaves(out):
                if is_gpu(t):
                    self.track(t.untyped_storage(), func, packet)
            if packet in blas and predictor.needs_workspace(threading.get_ident()):
                predictor.allocate(("cublas-workspace", threading.get_ident()), predictor.workspace_bytes,
                                   self.frames("at::cuda::getNewWorkspace()") if predictor.recording is not None else None)
            if not known:  # with real data (RealData) the values are the twins'
                self.carry_values(func, packet, args, kwargs, out)

        def track(self, storage: Any, func: Any, packet: Any) -> None:
            key = storage._cdata
            size = int(storage.nbytes())
            self.last_storage = key
            if size == 0 or key in predictor.live:
                return
            frames = self.frames(str(packet)) if predictor.recording is not None else None
            predictor.allocate(key, size, frames)
            weakref.finalize(storage, self.release, key)

        def release(self, key: object) -> None:
            recording = predictor.recording
            frames = stacks.frames(3) if recording is not None and recording.context == "all" else None
            predictor.free(key, frames)

        def frames(self, operation: str) -> list[Frame]:
            python = stacks.frames(4)
            recording = predictor.recording
            if recording is None or recording.stacks != "all":
                return python
            native: list[Frame] = [{"filename": "??", "line": 0, "name": "aten::%s (predicted)" % operation.replace("aten.", "")}]
            node = current_node()
            if node is not None:
                name = str(node.name()).split("::")[-1]
                scope = "torch::autograd::generated::" if "Backward" in name else "torch::autograd::"
                native.append({"filename": "??", "line": 0, "name": "%s%s::apply (predicted)" % (scope, name)})
            if node is not None or not python:
                native.append({"filename": "??", "line": 0, "name": "torch::autograd::Engine::evaluate_function (predicted)"})
            return native + python

        # --- autograd on fake tensors ----------------------------------------------------------------------

        def gradient_sum(self, args: Any) -> bool:
            """A sum of two gradients by the engine, which PyTorch does in place on a plain dense tensor that
            nothing else holds (a tensor subclass, as our fake tensors are, gets an out-of-place sum)."""
            if len(args) != 2:
                return False
            a, b = args
            return (is_gpu(a) and isinstance(b, torch.Tensor) and a.shape == b.shape and a.dtype == b.dtype and dense(a)
                    and a.storage_offset() == 0 and a.untyped_storage().nbytes() == a.numel() * a.element_size()
                    and stacks.called_by_engine(3))

        def fresh(self, t: Any) -> bool:
            """The output of the operation just before (a zeros or clone made for this one), called by the engine."""
            return is_gpu(t) and t.untyped_storage()._cdata == self.last_storage and stacks.called_by_engine(3)

        # --- what the prediction must assume ----------------------------------------------------------------

        def read_value(self, t: Any) -> object:
            constant = getattr(t, "constant", None)
            if constant is not None:  # a small CPU tensor the fake mode keeps real values of (an optimizer's step count)
                return constant.item()
            known = value_of(t)
            floating = bool(t.dtype.is_floating_point) or bool(t.dtype.is_complex)
            frame = stacks.user_frame(3)
            if known is not None:
                return _typed(known, t.dtype, torch)
            if t.dtype == torch.bool:
                value: object = True
                text = "True"
            else:
                value = 1.0 if floating else 1
                text = str(value)
            predictor.assume("value", frame, "read a value from a tensor (.item(), bool(), int(), a comparison); fake tensors hold no "
                             "data, so the prediction used %s" % text)
            return value

        def carry_values(self, func: Any, packet: Any, args: Any, kwargs: Any, out: Any) -> None:
            if not isinstance(out, torch.Tensor) and not (packet is amp_check or packet is amp_update):
                return
            if packet in answers:
                set_value(out, answers[packet])
            elif packet in fills:
                set_value(out, fills[packet])
            elif packet in full_ops:
                fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
                if packet is getattr(aten, "scalar_tensor", None):
                    fill = args[0] if args else None
                if isinstance(fill, (int, float, bool)):
                    set_value(out, fill)
            elif packet in keeps_value and args and isinstance(args[0], torch.Tensor):
                known = value_of(args[-1] if packet is getattr(aten, "copy", None) else args[0])
                if known is not None:
                    set_value(out, known)
            elif amp_check is not None and packet is amp_check:
                # assumed finite: found_inf keeps its value (0), the gradients are unscaled, the step runs
                predictor.assume("value", stacks.user_frame(4), "GradScaler: assumed the gradients are finite (no inf or NaN), "
                                 "so the optimizer step runs and the scale grows as PyTorch grows it")
                return
            elif amp_update is not None and packet is amp_update:
                self.update_scale(args)
            elif isinstance(packet, object) and str(func).endswith("_") and args and isinstance(args[0], torch.Tensor):
                set_value(args[0], None)  # changed in place by something this does not follow

        def update_scale(self, args: Any) -> None:
            """GradScaler's update with no inf found: the tracker counts up, the scale grows every `interval` steps."""
            scale, tracker, found, growth, _backoff, interval = args[:6]
            if value_of(found) not in (0, 0.0, False):
                set_value(scale, None)
                set_value(tracker, None)
                return
            count = value_of(tracker)
            current = value_of(scale)
            if isinstance(count, int) and isinstance(current, (int, float)):
                count += 1
                if count >= interval:
                    count, current = 0, current * growth
                set_value(tracker, count)
                set_value(scale, current)

        def index_with_mask(self, func: Any, args: Any, kwargs: Any) -> Any:
            """x[mask]: every element assumed selected (the most memory a mask can take)."""
            indices: list[Any] = []
            for i in args[1]:
                if isinstance(i, torch.Tensor) and i.dtype in (torch.bool, torch.uint8):
                    positions = self.data_dependent(aten.nonzero.default, aten.nonzero, (i,), {})
                    indices.extend(positions.unbind(1))
                else:
                    indices.append(i)
            with self:
                return func(args[0], indices, *args[2:], **kwargs)

        def data_dependent(self, func: Any, packet: Any, args: Any, kwargs: Any) -> Any:
            """nonzero, masked_select, unique: sizes that depend on data; the largest they can be is assumed."""
            x = args[0]
            device = x.device
            sized = self.sized_by_data(func, packet, args, kwargs) if real is not None else None
            if sized is not None:
                return sized
            frame = stacks.user_frame(3)
            if packet in nonzero:
                predictor.assume("size", frame, "nonzero() (or a boolean mask): the result's size depends on data; assumed every "
                                 "element is selected (the most memory)")
                out = aten.empty.memory_format([x.numel(), x.dim()], dtype=torch.long, device=device)
            elif packet in masked_select:
                mask = args[1]
                shape = torch.broadcast_shapes(x.shape, mask.shape)
                count = 1
                for n in shape:
                    count *= int(n)
                predictor.assume("size", frame, "masked_select(): the result's size depends on data; assumed every element is selected")
                out = aten.empty.memory_format([count], dtype=x.dtype, device=device)
            else:
                predictor.assume("size", frame, "unique(): the result's size depends on data; assumed every element is unique")
                with self:
                    return _unique_outputs(torch, aten, func, args, kwargs)
            self.after(func, packet, args, kwargs, out)
            return out

        def sized_by_data(self, func: Any, packet: Any, args: Any, kwargs: Any) -> Any:
            """With real data (RealData): an operation whose output depends on data, computed on the twins; its fake
            outputs take the sizes the data gives (numbers and booleans are returned as they are). None: unknown."""
            assert real is not None
            computed = real.compute(func, args, kwargs)
            if computed is None:
                return None
            if not any(isinstance(r, torch.Tensor) for r in computed.leaves):
                return computed.output  # torch.equal and the like: a Python value
            device = next((a.device for a in pytree.tree_leaves((args, kwargs)) if is_gpu(a)), torch.device("cpu"))
            outs = [aten.empty.memory_format(list(r.shape), dtype=r.dtype, device=device) if isinstance(r, torch.Tensor) else r
                    for r in computed.leaves]
            real.adopt(outs, computed)
            sized = pytree.tree_unflatten(outs, pytree.tree_flatten(computed.output)[1])
            self.after(func, packet, args, kwargs, sized, True)
            return sized

        def stop_unsupported(self, func: Any, error: BaseException) -> PredictionStopped:
            frame = stacks.user_frame(3)
            name = str(func)
            predictor.assume("unsupported", frame, "%s has no fake implementation: its output sizes are unknown, so the prediction stopped "
                             "here" % name)
            return PredictionStopped(
                "Predict VRAM cannot size the outputs of %s (a custom CUDA or Triton operator with no fake implementation). Register "
                "one with torch.library.register_fake, then predict again. (%s)" % (name, str(error)[:300]))

        def stop_data_dependent(self, func: Any, error: BaseException) -> PredictionStopped:
            frame = stacks.user_frame(3)
            name = str(func)
            ask = "" if real is not None else "; predict on the program's data to follow it (--data cpu, or vramLens.profile.predictData)"
            predictor.assume("unsupported", frame, "%s: what it returns depends on the tensors' data, so the prediction stopped here%s"
                             % (name, ask))
            return PredictionStopped("Predict VRAM stopped at %s: what it returns depends on the tensors' data, which %s%s. (%s)" % (
                name, "the CPU could not compute here" if real is not None else "fake tensors do not hold", ask, str(error)[:300]))

    return PredictionMode()


def attention_as_on_the_gpu(torch: Torch, predictor: Predictor) -> None:
    """`scaled_dot_product_attention` on 'cuda' tensors takes the kernel PyTorch takes on the chosen GPU (its
    fused kernels' own outputs: the logsumexp of flash and memory-efficient attention), and says which."""
    functional = torch.nn.functional
    original = functional.scaled_dot_product_attention
    aten = torch.ops.aten
    stacks = StackReader(torch)

    def scaled_dot_product_attention(query: Any, key: Any, value: Any, attn_mask: Any = None, dropout_p: float = 0.0,
                                     is_causal: bool = False, scale: Any = None, **more: Any) -> Any:
        if not all(isinstance(t, torch.Tensor) and t.device.type == "cuda" for t in (query, key, value)) or more.get("enable_gqa"):
            return original(query, key, value, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal, scale=scale, **more)
        choice, why = sdp_backend(torch, predictor.gpu.capability, (query, key, value, attn_mask), {})
        predictor.assume("sdpa", stacks.user_frame(1), "scaled_dot_product_attention: %s" % why)
        if choice == SDP_FLASH:
            return aten._scaled_dot_product_flash_attention(query, key, value, dropout_p, is_causal, False, scale=scale)[0]
        if choice == SDP_EFFICIENT:
            need_lse = bool(query.requires_grad or key.requires_grad or value.requires_grad) and torch.is_grad_enabled()
            bias = attn_mask
            if bias is not None and bias.dtype == torch.bool:  # as convert_boolean_attn_mask: 0 where kept, -inf elsewhere
                bias = torch.zeros_like(bias, dtype=query.dtype).masked_fill_(bias.logical_not(), float("-inf"))
            return aten._scaled_dot_product_efficient_attention(query, key, value, bias, need_lse, dropout_p, is_causal, scale=scale)[0]
        # The math kernel, as PyTorch's composite calls it (asking it to choose would ask a CUDA build's driver).
        mask = attn_mask
        if mask is not None and mask.dtype == torch.bool:
            mask = torch.zeros_like(mask, dtype=query.dtype).masked_fill_(mask.logical_not(), float("-inf"))
        return aten._scaled_dot_product_attention_math(query, key, value, mask, dropout_p, is_causal, scale=scale)[0]

    functional.scaled_dot_product_attention = scaled_dot_product_attention


def recurrent_layers_without_cudnn(torch: Torch, predictor: Predictor) -> None:
    """nn.LSTM, nn.GRU and nn.RNN run PyTorch's own kernels: cuDNN's (its flat weight buffer, workspace and
    reserve, sized by cuDNN itself) cannot be predicted. Said on the line that runs the layer."""
    cudnn = getattr(torch.backends, "cudnn", None)
    if cudnn is not None:
        cudnn.is_acceptable = lambda tensor: False  # no flat weight buffer (the C++ side already sees no cuDNN)
    stacks = StackReader(torch)
    rnn = torch.nn.modules.rnn
    for name in ("LSTM", "GRU", "RNN"):
        layer = getattr(rnn, name, None)
        if layer is None:
            continue
        forward = layer.forward

        def predicted_forward(self: Any, *args: Any, __forward: Any = forward, __name: str = name, **kwargs: Any) -> Any:
            first = args[0] if args else None
            if isinstance(first, torch.Tensor) and first.device.type == "cuda":
                predictor.assume("cudnn", stacks.user_frame(1), "nn.%s: on a GPU it runs cuDNN's kernels, whose workspace and reserve cuDNN "
                                 "sizes itself; predicted with PyTorch's own kernels" % __name)
            return __forward(self, *args, **kwargs)

        layer.forward = predicted_forward


def sdp_backend(torch: Torch, capability: tuple[int, int], args: Any, kwargs: Any) -> tuple[int, str]:
    """The kernel `scaled_dot_product_attention` takes on a CUDA GPU of `capability`, by PyTorch's main rules
    (sdp_utils.cpp): flash attention from sm80 for fp16/bf16, no attention mask and head sizes up to 256; else
    memory-efficient attention from sm50; else math. Respects the program's torch.backends.cuda.enable_*_sdp."""
    query, key, value = args[:3]
    mask = args[3] if len(args) > 3 else kwargs.get("attn_mask")
    backends = torch.backends.cuda
    flash_on = bool(getattr(backends, "flash_sdp_enabled", lambda: True)())
    efficient_on = bool(getattr(backends, "mem_efficient_sdp_enabled", lambda: True)())
    half = query.dtype in (torch.float16, torch.bfloat16)
    head = int(query.shape[-1])
    same_head = head == int(value.shape[-1]) == int(key.shape[-1])
    dims_ok = query.dim() == 4 and key.dim() == 4 and value.dim() == 4
    if flash_on and capability >= (8, 0) and half and mask is None and same_head and head % 8 == 0 and head <= 256 and dims_ok:
        dtype = str(query.dtype).replace("torch.", "")
        return SDP_FLASH, "PyTorch picks flash attention on this GPU for these inputs (no mask, %s, head size %d)" % (dtype, head)
    if efficient_on and capability >= (5, 0) and dims_ok and head % 8 == 0 and query.dtype in (torch.float16, torch.bfloat16, torch.float32):
        return SDP_EFFICIENT, "PyTorch picks memory-efficient attention on this GPU for these inputs"
    return SDP_MATH, "PyTorch falls back to the math kernel for these inputs (it materialises the attention matrix)"


def _unique_outputs(torch: Torch, aten: Any, func: Any, args: Any, kwargs: Any) -> Any:
    """unique's outputs at their largest (every element unique), in the form this overload returns."""
    x = args[0]
    n = x.numel()
    values = aten.empty.memory_format([n], dtype=x.dtype, device=x.device)
    name = str(func)
    return_inverse = bool(kwargs.get("return_inverse", args[2] if len(args) > 2 else False))
    return_counts = bool(kwargs.get("return_counts", args[3] if len(args) > 3 else False))
    inverse = aten.empty.memory_format(list(x.shape) if return_inverse else [0], dtype=torch.long, device=x.device)
    counts = aten.empty.memory_format([n] if return_counts else [0], dtype=torch.long, device=x.device)
    if "_unique." in name or name.endswith("_unique"):
        return values, inverse
    return values, inverse, counts


def _typed(value: object, dtype: Any, torch: Torch) -> object:
    if dtype == torch.bool:
        return bool(value)
    if getattr(dtype, "is_floating_point", False):
        return float(value)  # type: ignore[arg-type]
    return int(value)  # type: ignore[call-overload]


def _packets(aten: Any, names: tuple[str, ...]) -> set[Any]:
    return {getattr(aten, n) for n in names if hasattr(aten, n)}


def _packet_values(aten: Any, pairs: tuple[tuple[str, object], ...]) -> list[tuple[Any, object]]:
    return [(getattr(aten, n), v) for n, v in pairs if hasattr(aten, n)]
