"""The predicted GPU's memory trace: what the caching allocator would be asked for, and when, in PyTorch's snapshot
format. Free of torch (fakemode.py feeds it); everything here is plain Python data.

Every 'cuda' storage the program makes is an allocation (its size in bytes, the Python stack that made it), freed
when the storage dies. Addresses are provisional: one per allocation, never reused, 512-byte aligned; the Profile
VRAM runner (src/runtime/predict) replays the caching allocator over the events to give the addresses, segments
and segment events the chosen GPU would show, and rewrites the file (`vram_lens.predicted.placed`).

Events that are not in the recorded trace (before the program's `_record_memory_history`, while recording is off,
or dropped by `max_entries`) are kept in `history`, flat integers, so that the allocator's state when the trace
begins can be replayed too: an allocation is `address, size`, a free `address, -1`, an `empty_cache()` `0, -2`.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Dict, List

if TYPE_CHECKING:
    from typing_extensions import TypedDict

    class Frame(TypedDict):
        filename: str
        line: int
        name: str

    class Assumption(TypedDict):
        """A value the prediction could not know, and what it assumed, on the line that asked."""

        kind: str
        filename: str
        line: int
        message: str
        count: int
else:
    Frame = Dict[str, Any]
    Assumption = Dict[str, Any]

HISTORY_FREE = -1
HISTORY_EMPTY_CACHE = -2
# Where provisional addresses start (a typical device address); each allocation gets the next free 512 bytes.
FIRST_ADDRESS = 0x7F0000000000
ALIGNMENT = 512
FORMAT_VERSION = 1


class Gpu:
    """The GPU a prediction is for."""

    def __init__(self, name: str, memory: int, capability: tuple[int, int]) -> None:
        self.name = name
        self.memory = memory
        self.capability = capability


class Block:
    __slots__ = ("address", "size", "frames")

    def __init__(self, address: int, size: int, frames: list[Frame] | None) -> None:
        self.address = address
        self.size = size
        self.frames = frames  # None: allocated while not recording


class Recording:
    """What `_record_memory_history` asked for."""

    def __init__(self, context: str, stacks: str, max_entries: int) -> None:
        self.context = context  # 'all': alloc and free stacks; 'alloc': alloc stacks; 'state': none in the trace
        self.stacks = stacks  # 'python' or 'all' (C++ frames too: ours are named, not unwound)
        self.max_entries = max_entries


class Predictor:
    """The allocations of the predicted run, the recording window and what the program was told."""

    def __init__(self, gpu: Gpu, workspace_bytes: int, data: str, torch_version: str) -> None:
        self.gpu = gpu
        self.workspace_bytes = workspace_bytes
        self.data = data
        self.torch_version = torch_version
        self.lock = threading.RLock()
        self.live: dict[object, Block] = {}
        self.allocated = 0  # bytes asked for (the trace's sizes)
        self.peak = 0
        self.block_bytes = 0  # the same rounded as the allocator rounds them (torch.cuda.memory_allocated)
        self.block_peak = 0
        self.memory_fraction: float | None = None  # set_per_process_memory_fraction
        self.next_address = FIRST_ADDRESS
        self.history: list[int] = []
        self.trace: list[dict[str, Any]] | None = None
        self.recording: Recording | None = None
        self.annotations: list[dict[str, Any]] = []
        self.assumptions: dict[tuple[str, str, int], Assumption] = {}
        self.workspace_owners: set[object] = set()
        self.program_records = False  # the program called _record_memory_history itself
        self.dumps = 0

    # --- allocations -------------------------------------------------------------------------------------------

    def allocate(self, key: object, size: int, frames: list[Frame] | None) -> None:
        """A new storage of `size` bytes; `frames` are its stack (asked only while recording)."""
        with self.lock:
            if key in self.live:
                return
            address = self.next_address
            self.next_address += _rounded(size)
            self.live[key] = Block(address, size, frames if self.recording is not None else None)
            self.allocated += size
            if self.allocated > self.peak:
                self.peak = self.allocated
            self.block_bytes += _rounded(size)
            if self.block_bytes > self.block_peak:
                self.block_peak = self.block_bytes
            if self.recording is None or self.trace is None:
                self.history += [address, size]
                return
            entry: dict[str, Any] = {"action": "alloc", "addr": address, "size": size, "stream": 0, "time_us": _now(), "frames": frames or []}
            if self.recording.context == "state":
                entry["frames"] = []
            self._append(entry)

    def free(self, key: object, frames: list[Frame] | None) -> None:
        """The storage died (its block goes back to the allocator)."""
        with self.lock:
            block = self.live.pop(key, None)
            if block is None:
                return
            self.allocated -= block.size
            self.block_bytes -= _rounded(block.size)
            if self.recording is None or self.trace is None:
                self.history += [block.address, HISTORY_FREE]
                return
            stack = (frames or []) if self.recording.context == "all" else []
            now = _now()
            for action in ("free_requested", "free_completed"):
                self._append({"action": action, "addr": block.address, "size": block.size, "stream": 0, "time_us": now, "frames": stack})

    def reset_peak(self) -> None:
        with self.lock:
            self.peak = self.allocated
            self.block_peak = self.block_bytes

    def needs_workspace(self, owner: object) -> bool:
        """cuBLAS: the first matrix product of a thread (one handle and workspace per thread), never freed."""
        with self.lock:
            if self.workspace_bytes <= 0 or owner in self.workspace_owners:
                return False
            self.workspace_owners.add(owner)
            return True

    def empty_cache(self) -> None:
        with self.lock:
            if self.recording is None or self.trace is None:
                self.history += [0, HISTORY_EMPTY_CACHE]
            else:
                # PyTorch records the segments it releases; the placement makes them from this marker.
                self._append({"action": "empty_cache", "addr": 0, "size": 0, "stream": 0, "time_us": _now(), "frames": []})

    def _append(self, entry: dict[str, Any]) -> None:
        trace = self.trace
        assert trace is not None and self.recording is not None
        trace.append(entry)
        excess = len(trace) - self.recording.max_entries
        if excess > 1024 or (excess > 0 and len(trace) < 4096):
            self._drop(excess)

    def _drop(self, count: int) -> None:
        """The oldest `count` trace entries leave the ring (they stay in the history)."""
        trace = self.trace
        assert trace is not None
        for entry in trace[:count]:
            self._to_history(entry)
        del trace[:count]

    def _to_history(self, entry: dict[str, Any]) -> None:
        action = entry["action"]
        if action == "alloc":
            self.history += [entry["addr"], entry["size"]]
        elif action == "free_completed":
            self.history += [entry["addr"], HISTORY_FREE]
        elif action == "empty_cache":
            self.history += [0, HISTORY_EMPTY_CACHE]

    # --- what the program asks of torch.cuda.memory ------------------------------------------------------------

    def record_history(self, enabled: object, context: object, stacks: object, max_entries: object, clear: bool) -> None:
        """`_record_memory_history` (2.1 and 2.0 forms); `enabled` None/False stops recording."""
        with self.lock:
            if enabled in (None, False):
                if self.trace is not None:
                    for entry in self.trace:
                        self._to_history(entry)
                self.trace = None
                self.recording = None
                return
            limit = max_entries if isinstance(max_entries, int) and max_entries > 0 else sys.maxsize
            self.recording = Recording(
                context if isinstance(context, str) and context in ("all", "alloc", "state") else "all",
                stacks if isinstance(stacks, str) and stacks in ("python", "all") else "all",
                limit,
            )
            if self.trace is None or clear:
                if self.trace is not None:
                    for entry in self.trace:
                        self._to_history(entry)
                self.trace = []
            elif len(self.trace) > limit:
                self._drop(len(self.trace) - limit)

    def hand_window_to_program(self) -> None:
        """The program calls `_record_memory_history` itself: its calls set the window from now on. The whole-run
        recording ends as if it had never been: its events go to the history, and the blocks it saw allocated lose
        their stacks (PyTorch keeps no stack for a block allocated before recording began)."""
        with self.lock:
            self.record_history(None, None, None, None, False)
            for block in self.live.values():
                block.frames = None
            self.annotations = []
            self.program_records = True

    def annotate(self, stage: str, name: str) -> None:
        """A record_function range starts or ends (the snapshot's external_annotations)."""
        with self.lock:
            if self.recording is not None:
                self.annotations.append({"stage": stage, "name": name, "device": 0, "time_us": _now()})

    def assume(self, kind: str, frame: Frame | None, message: str) -> None:
        """The run needed a value it could not know; the first time per line and kind it says what it assumed."""
        filename = frame["filename"] if frame is not None else ""
        line = frame["line"] if frame is not None else 0
        with self.lock:
            key = (kind, filename, line)
            known = self.assumptions.get(key)
            if known is not None:
                known["count"] += 1
                return
            self.assumptions[key] = {"kind": kind, "filename": filename, "line": line, "message": message, "count": 1}
        where = "%s:%d: " % (os.path.basename(filename), line) if frame is not None else ""
        sys.stderr.write("VRAM Lens (predict): %s%s\n" % (where, message))

    def snapshot(self, window: str) -> dict[str, Any]:
        """The snapshot as `torch.cuda.memory._snapshot()` returns it, with provisional addresses."""
        with self.lock:
            if self.trace is not None and self.recording is not None and len(self.trace) > self.recording.max_entries:
                self._drop(len(self.trace) - self.recording.max_entries)
            segments = [_segment_of(block) for block in sorted(self.live.values(), key=lambda b: b.address)]
            predicted: dict[str, Any] = {
                "version": FORMAT_VERSION,
                "placed": False,
                "gpu": {"name": self.gpu.name, "memory": self.gpu.memory, "capability": "%d.%d" % self.gpu.capability},
                "torch": self.torch_version,
                "python": sys.version.split()[0],
                "data": self.data,
                "window": window,
                "workspaceBytes": self.workspace_bytes,
                "peakAllocated": self.peak,
                "memoryFraction": self.memory_fraction,
                "history": list(self.history),
                "assumptions": sorted(self.assumptions.values(), key=lambda a: (a["filename"], a["line"], a["kind"])),
            }
            return {
                "segments": segments,
                "device_traces": [list(self.trace or [])],
                "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")},
                "external_annotations": list(self.annotations),
                "vram_lens": {"predicted": predicted},
            }


def _rounded(size: int) -> int:
    """A request as the caching allocator rounds it by default: up to a multiple of 512 bytes, at least 512."""
    return max(ALIGNMENT, (size + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT)


def _segment_of(block: Block) -> dict[str, Any]:
    """A live block as its own segment (the placement lays the real segments out)."""
    rounded = _rounded(block.size)
    frames: List[Frame] = block.frames or []
    return {
        "device": 0,
        "address": block.address,
        "total_size": rounded,
        "allocated_size": rounded,
        "active_size": rounded,
        "requested_size": block.size,
        "stream": 0,
        "segment_type": "large" if rounded > (1 << 20) else "small",
        "segment_pool_id": (0, 0),
        "is_expandable": False,
        "frames": [],
        "blocks": [{"address": block.address, "size": rounded, "requested_size": block.size, "state": "active_allocated", "frames": frames}],
    }


def _now() -> int:
    return int(time.time() * 1e6)
