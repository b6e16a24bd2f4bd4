"""Which form of ``torch.cuda.memory._record_memory_history`` a PyTorch has, and the call that starts
recording with it. Free of the Profile VRAM runner: anything that records (the bootstrap, a notebook magic)
can use it. It never imports torch and never initialises CUDA: it inspects the torch module it is given.

- ``recording_form(torch)``: ``"2.1"`` (``enabled``/``context``/``stacks``/``max_entries``), ``"2.0"`` (the
  boolean form with ``trace_alloc_*``) or None (older: no memory history to record).
- ``recording_arguments(torch, form, max_entries, stacks)``: the positional and keyword arguments of the call,
  including the newest optional ones this PyTorch has that help (``global_record_annotations``,
  ``compile_context``).
- ``start_recording(torch, form, max_entries, stacks)``: makes that call. Recording needs CUDA; call it from
  inside CUDA's initialisation (``torch.cuda._lazy_call``) or after it, never before the program chose its
  devices and allocator settings. ``clear_history=True`` starts from an empty trace where this PyTorch can say
  so (a recording that follows another in the same process: a notebook's next ``%%vram`` cell).
- ``stop_recording(torch, form)``: turns recording off (the same function, ``enabled=None`` or ``False``), which
  also drops the recorded trace: take the snapshot first.
"""
from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from typing_extensions import Literal

    RecordingForm = Literal["2.1", "2.0"]
    # `stacks` of the 2.1 form: Python frames only (fast dumps) or C++ frames too.
    Stacks = Literal["python", "all"]

# The torch module. Untyped on purpose: its API differs from one version to the next, so every use here
# is looked up (getattr, inspect.signature) or guarded rather than assumed.
Torch = Any


def parameters(function: Callable[..., Any]) -> Mapping[str, inspect.Parameter]:
    """The parameters of a function, or none when Python cannot tell (a builtin without a signature)."""
    try:
        return inspect.signature(function).parameters
    except (TypeError, ValueError):
        return {}


def recording_form(torch: Torch) -> RecordingForm | None:
    """'2.1' (enabled/context/stacks/max_entries), '2.0' (the boolean form with trace_alloc_*) or None (too old)."""
    record = getattr(getattr(getattr(torch, "cuda", None), "memory", None), "_record_memory_history", None)
    if record is None or not hasattr(torch.cuda.memory, "_snapshot"):
        return None
    names = parameters(record)
    if "context" in names and "stacks" in names and "max_entries" in names:
        return "2.1"
    if "trace_alloc_max_entries" in names:
        return "2.0"
    return None


def recording_arguments(
    torch: Torch, form: RecordingForm, max_entries: int, stacks: Stacks, clear_history: bool = False
) -> tuple[tuple[object, ...], dict[str, object]]:
    """The arguments of the recording call, including the newest ones this PyTorch has that help."""
    if form == "2.0":
        return (True,), {"trace_alloc_max_entries": max_entries, "trace_alloc_record_context": True}
    kwargs: dict[str, object] = {"enabled": "all", "context": "all", "stacks": stacks, "max_entries": max_entries}
    names = parameters(torch.cuda.memory._record_memory_history)
    if "global_record_annotations" in names:
        kwargs["global_record_annotations"] = True  # record_function ranges from every thread
    if "compile_context" in names:
        kwargs["compile_context"] = True  # torch.compile'd frames keep their model source
    if clear_history and "clear_history" in names:
        kwargs["clear_history"] = True  # an earlier recording's events are not this one's
    return (), kwargs


def start_recording(torch: Torch, form: RecordingForm, max_entries: int, stacks: Stacks, clear_history: bool = False) -> None:
    """Starts recording memory history (raises what PyTorch raises, e.g. under the cudaMallocAsync allocator)."""
    args, kwargs = recording_arguments(torch, form, max_entries, stacks, clear_history)
    torch.cuda.memory._record_memory_history(*args, **kwargs)


def stop_recording(torch: Torch, form: RecordingForm) -> None:
    """Turns recording off (PyTorch drops the trace it kept: take the snapshot before)."""
    if form == "2.0":
        torch.cuda.memory._record_memory_history(False)
    else:
        torch.cuda.memory._record_memory_history(enabled=None)
