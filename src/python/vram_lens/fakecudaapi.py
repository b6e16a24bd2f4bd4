"""``torch.cuda`` as a program sees it during a prediction: one GPU, the chosen one, whose memory figures come
from the Predictor; the program's own ``torch.cuda.memory._record_memory_history`` / ``_snapshot`` /
``_dump_snapshot`` calls open the recording window and write predicted snapshots where it asks.

``install(torch, predictor, dump)`` replaces the functions (on ``torch.cuda`` and ``torch.cuda.memory``); ``dump``
writes a snapshot file and tells the runner. Nothing here touches a real device.
"""
from __future__ import annotations

import sys
import time
import types
from typing import Any, Callable

from .predictor import Predictor
from .recording import Torch

Dump = Callable[[object, str], None]


class DeviceProperties:
    """What torch.cuda.get_device_properties() says of the predicted GPU."""

    def __init__(self, name: str, total_memory: int, capability: tuple[int, int]) -> None:
        self.name = name
        self.total_memory = total_memory
        self.major, self.minor = capability
        self.multi_processor_count = 108
        self.is_integrated = 0
        self.is_multi_gpu_board = 0
        self.uuid = "00000000-0000-0000-0000-000000000000"
        self.L2_cache_size = 40 * 1024 * 1024
        self.warp_size = 32

    def __repr__(self) -> str:
        return "_CudaDeviceProperties(name='%s', major=%d, minor=%d, total_memory=%dMB, predicted=True)" % (
            self.name, self.major, self.minor, self.total_memory // (1024 * 1024))


class Event:
    """torch.cuda.Event: wall-clock time of the prediction (it computes nothing, so times are not the GPU's)."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False, **_: Any) -> None:
        self.t: float | None = None

    def record(self, stream: object = None) -> None:
        self.t = time.perf_counter()

    def elapsed_time(self, end: Event) -> float:
        return ((end.t or 0.0) - (self.t or 0.0)) * 1000.0

    def synchronize(self) -> None:
        pass

    def query(self) -> bool:
        return True

    def wait(self, stream: object = None) -> None:
        pass


class Stream:
    """torch.cuda.Stream: the prediction puts every allocation on the default stream."""

    def __init__(self, device: object = None, priority: int = 0, **_: Any) -> None:
        self.device = device
        self.priority = priority
        self.cuda_stream = 0

    def wait_stream(self, stream: object) -> None:
        pass

    def wait_event(self, event: object) -> None:
        pass

    def record_event(self, event: Event | None = None) -> Event:
        e = event or Event()
        e.record()
        return e

    def synchronize(self) -> None:
        pass

    def query(self) -> bool:
        return True

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


class StreamContext:
    def __init__(self, stream: object) -> None:
        self.stream = stream

    def __enter__(self) -> object:
        return self.stream

    def __exit__(self, *exc: object) -> None:
        pass


class DeviceContext:
    def __init__(self, device: object) -> None:
        self.device = device

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        pass


def install(torch: Torch, predictor: Predictor, dump: Dump, window: Callable[[], str]) -> None:
    """torch.cuda for the predicted run. `dump(data, path)` writes a snapshot the program asked for."""
    cuda = torch.cuda
    memory = getattr(cuda, "memory", cuda)
    gpu = predictor.gpu
    props = DeviceProperties(gpu.name, gpu.memory, gpu.capability)
    default_stream = Stream()
    said: set[str] = set()

    def reserved_is_unknown(name: str) -> None:
        if name not in said:
            said.add(name)
            frame = _caller_frame()
            predictor.assume("reserved", frame, "torch.cuda.%s(): reserved memory is worked out by replaying the caching allocator "
                             "after the run; the program was told the allocated bytes" % name)

    def memory_reserved(device: object = None) -> int:
        reserved_is_unknown("memory_reserved")
        return predictor.block_bytes

    def max_memory_reserved(device: object = None) -> int:
        reserved_is_unknown("max_memory_reserved")
        return predictor.block_peak

    def memory_stats(device: object = None) -> dict[str, int]:
        reserved_is_unknown("memory_stats")
        return {
            "allocated_bytes.all.current": predictor.block_bytes, "allocated_bytes.all.peak": predictor.block_peak,
            "active_bytes.all.current": predictor.block_bytes, "active_bytes.all.peak": predictor.block_peak,
            "reserved_bytes.all.current": predictor.block_bytes, "reserved_bytes.all.peak": predictor.block_peak,
            "requested_bytes.all.current": predictor.allocated, "requested_bytes.all.peak": predictor.peak,
            "num_alloc_retries": 0, "num_ooms": 0, "allocation.all.current": len(predictor.live),
        }

    def reset_peak(device: object = None) -> None:
        predictor.reset_peak()

    def record_memory_history(enabled: object = "all", *args: Any, **kwargs: Any) -> None:
        if not predictor.program_records:
            predictor.hand_window_to_program()
        legacy = isinstance(enabled, bool) or "trace_alloc_max_entries" in kwargs
        if legacy:  # the 2.0 form: _record_memory_history(True, trace_alloc_max_entries=..., record_context_cpp=...)
            on: object = "all" if enabled else None
            stacks = "all" if kwargs.get("record_context_cpp") else "python"
            limit = kwargs.get("trace_alloc_max_entries", 1)
            predictor.record_history(on, "all", stacks, limit, False)
        else:
            context = kwargs.get("context", args[0] if len(args) > 0 else "all")
            stacks = kwargs.get("stacks", args[1] if len(args) > 1 else "all")
            limit = kwargs.get("max_entries", args[2] if len(args) > 2 else sys.maxsize)
            predictor.record_history(enabled, context, stacks, limit, bool(kwargs.get("clear_history", False)))

    def snapshot(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return predictor.snapshot(window())

    def dump_snapshot(filename: str = "dump_snapshot.pickle") -> None:
        dump(predictor.snapshot(window()), filename)

    def set_memory_fraction(fraction: float, device: object = None) -> None:
        predictor.memory_fraction = float(fraction)

    def no_op(*args: Any, **kwargs: Any) -> None:
        return None

    shims: dict[str, Any] = {
        "is_available": lambda: True, "device_count": lambda: 1, "current_device": lambda: 0, "is_initialized": lambda: True,
        "_lazy_init": no_op, "init": no_op, "set_device": no_op, "synchronize": no_op, "ipc_collect": no_op,
        "_exchange_device": lambda device: 0, "_maybe_exchange_device": lambda device: 0,
        "get_device_name": lambda device=None: gpu.name, "get_device_properties": lambda device=None: props,
        "get_device_capability": lambda device=None: gpu.capability,
        "is_bf16_supported": lambda *a, **k: gpu.capability >= (8, 0),
        "get_arch_list": lambda: ["sm_%d%d" % gpu.capability], "get_allocator_backend": lambda: "native",
        "empty_cache": lambda: predictor.empty_cache(), "manual_seed": no_op, "manual_seed_all": no_op, "seed": no_op,
        "seed_all": no_op, "initial_seed": lambda: 0,
        "Event": Event, "Stream": Stream, "current_stream": lambda device=None: default_stream,
        "default_stream": lambda device=None: default_stream, "stream": StreamContext, "device": DeviceContext,
        "memory_allocated": lambda device=None: predictor.block_bytes, "max_memory_allocated": lambda device=None: predictor.block_peak,
        "memory_reserved": memory_reserved, "max_memory_reserved": max_memory_reserved, "memory_stats": memory_stats,
        "reset_peak_memory_stats": reset_peak, "reset_max_memory_allocated": reset_peak, "reset_accumulated_memory_stats": no_op,
        "mem_get_info": lambda device=None: (max(0, gpu.memory - predictor.block_bytes), gpu.memory),
        "set_per_process_memory_fraction": set_memory_fraction,
        "_record_memory_history": record_memory_history, "_snapshot": snapshot, "_dump_snapshot": dump_snapshot,
        "utilization": lambda device=None: 0, "temperature": lambda device=None: 0,
    }
    for name, value in shims.items():
        setattr(cuda, name, value)
        if memory is not cuda and hasattr(memory, name):
            setattr(memory, name, value)
    nvtx_stub = types.SimpleNamespace(rangePushA=lambda *a: 0, rangePop=lambda *a: 0, rangeStartA=lambda *a: 0,
                                      rangeEnd=lambda *a: None, markA=lambda *a: None, deviceRangeStart=lambda *a: 0,
                                      deviceRangeEnd=lambda *a: None)
    nvtx = getattr(cuda, "nvtx", None)
    if nvtx is not None:
        setattr(nvtx, "_nvtx", nvtx_stub)


def _caller_frame() -> Any:
    """The program's frame that called a torch.cuda function (two up: the shim, then the caller)."""
    f = sys._getframe(2)
    return {"filename": f.f_code.co_filename, "line": f.f_lineno, "name": f.f_code.co_name}
