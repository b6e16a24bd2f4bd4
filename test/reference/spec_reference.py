#!/usr/bin/env python3
"""Reference implementation (test oracle) of shared/spec/analysis.md.

Written from the text of the spec only, step by step, in plain Python 3.11
(standard library only). It is deliberately simple and is NOT derived from the
TypeScript implementation: the TypeScript analysis is tested against it.

Usage:
    python3 test/reference/spec_reference.py FILE [FILE ...]

Prints one JSON object mapping each given path (exactly as given) to the
analysis JSON in the spec's shape, plus these extra per-device keys used by
the tests:
    oomCount                 number of `oom` trace entries of the device
    liveBlocksAtEnd          number of blocks in the device's segments whose
                             state is active_allocated or active_pending_free
    activeTimelineChecksum   sum over events i of active bytes right after i
    reservedTimelineChecksum sum over events i of reserved bytes right after i
"""

import json
import pickle
import re
import sys
from collections.abc import Iterator
from typing import Any

# A value read from a snapshot pickle, as it is: plain data (dict, list, tuple, str, int, float, bool,
# None) whose shape the oracle checks only where the spec says to.
Raw = Any
# A dict of a snapshot (a segment, block, trace event, frame or annotation), as recorded.
Entry = dict[str, Any]
# A source line: (filename, line) as the frame records them.
LineKey = tuple[str, int]
# A live-at-peak block: (size, frames, its alloc event or None, origin).
LiveBlock = tuple[Raw, list[Entry], Entry | None, str]
# An annotation range: (start, end, position of its START, name).
AnnotationRange = tuple[Raw, Raw, int, Raw]

# ---------------------------------------------------------------------------
# Loading: plain data only.
# ---------------------------------------------------------------------------


class PlainDataUnpickler(pickle.Unpickler):
    """An unpickler that refuses every class or function reference.

    Snapshot pickles hold only dict, list, tuple, str, int, float, bool and
    None, none of which needs `find_class`. Anything that asks for a global
    (GLOBAL / STACK_GLOBAL, hence also REDUCE / NEWOBJ / INST / OBJ on a
    class) is refused. Persistent ids are refused by the base class already
    (no persistent_load is defined), but we make that explicit too.
    """

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(
            "refusing to load %s.%s: snapshot pickles must hold plain data only"
            % (module, name)
        )

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refusing persistent id in snapshot pickle")


def load_snapshot(path: str) -> Raw:
    with open(path, "rb") as f:
        return PlainDataUnpickler(f).load()


# ---------------------------------------------------------------------------
# Input normalisation (spec: "Input").
# ---------------------------------------------------------------------------

LIVE_STATES = ("active_allocated", "active_pending_free")


def get_segments_and_traces(data: Raw) -> tuple[Raw, Raw]:
    """A dict with `segments` and `device_traces`, or a bare list of segments."""
    if isinstance(data, list):
        return data, []
    if isinstance(data, dict):
        segments = data.get("segments") or []
        traces = data.get("device_traces") or []
        return segments, traces
    raise ValueError("not a memory snapshot: top level is %s" % type(data).__name__)


def segment_device(segment: Entry) -> Raw:
    # A segment's device is its `device` key (0 if a segment somehow lacks it).
    return segment.get("device", 0)


def block_frames(block: Entry) -> Raw:
    """Frames of a block: its `frames`, or (PyTorch 2.0) `history[0].frames`."""
    if "frames" in block:
        return block["frames"] or []
    history = block.get("history") or []
    if len(history) > 0:
        return history[0].get("frames") or []
    return []


def block_requested_size(block: Entry) -> Raw:
    """Spec "Input": `requested_size` (PyTorch 2.0: `history[0].real_size`; if neither exists, `size`).

    The bytes the program asked for, which is what trace events count; `size` (the allocator's
    rounded block) is never used for active memory.
    """
    if block.get("requested_size") is not None:
        return block["requested_size"]
    history = block.get("history") or []
    if len(history) > 0 and history[0].get("real_size") is not None:
        return history[0]["real_size"]
    return block.get("size", 0)


def blocks_with_addresses(segment: Entry) -> Iterator[tuple[Raw, Entry]]:
    """Yield (address, block) for every block of a segment.

    A block's address is its `address` key, or (old dumps) the segment
    address plus the sizes of the blocks before it.
    """
    offset = segment.get("address", 0)
    for block in segment.get("blocks") or []:
        if "address" in block:
            address = block["address"]
        else:
            address = offset
        yield address, block
        offset += block.get("size", 0)


def event_frames(event: Entry) -> Raw:
    return event.get("frames") or []


# ---------------------------------------------------------------------------
# Frames (spec: "Frames").
# ---------------------------------------------------------------------------

# "matches the regular expression /lib/python\d+(\.\d+)?/ (POSIX) or
#  /python\d+/lib/ (Windows) where the match is not followed by
#  site-packages/ or dist-packages/"
STDLIB_POSIX = re.compile(r"/lib/python\d+(\.\d+)?/(?!site-packages/|dist-packages/)", re.IGNORECASE)
STDLIB_WINDOWS = re.compile(r"/python\d+/lib/(?!site-packages/|dist-packages/)", re.IGNORECASE)


def is_source_frame(frame: Entry) -> bool:
    """A Python frame: line > 0 and a filename ending in `.py`."""
    line = frame.get("line")
    filename = frame.get("filename")
    if not isinstance(line, int) or isinstance(line, bool):
        return False
    if not isinstance(filename, str):
        return False
    return line > 0 and filename.endswith(".py")


_library_cache: dict[str, bool] = {}


def is_library_filename(filename: str) -> bool:
    """Library test on the filename of a source frame (see spec)."""
    cached = _library_cache.get(filename)
    if cached is not None:
        return cached
    # "with \ read as / ... and compared case-insensitively"
    name = filename.replace("\\", "/").lower()
    result = (
        name.startswith("<")
        or "/site-packages/" in name
        or "/dist-packages/" in name
        or "/torchinductor_" in name
        or STDLIB_POSIX.search(name) is not None
        or STDLIB_WINDOWS.search(name) is not None
    )
    _library_cache[filename] = result
    return result


def is_library_frame(frame: Entry) -> bool:
    return is_source_frame(frame) and is_library_filename(frame["filename"])


def is_user_frame(frame: Entry) -> bool:
    return is_source_frame(frame) and not is_library_filename(frame["filename"])


def self_line(frames: list[Entry]) -> LineKey | None:
    """First (innermost) user frame as (filename, line), or None."""
    for frame in frames:
        if is_user_frame(frame):
            return (frame["filename"], frame["line"])
    return None


def inclusive_lines(frames: list[Entry]) -> list[LineKey]:
    """All distinct (filename, line) of the user frames (first-seen order)."""
    seen: dict[LineKey, bool] = {}
    for frame in frames:
        if is_user_frame(frame):
            seen[(frame["filename"], frame["line"])] = True
    return list(seen.keys())


# ---------------------------------------------------------------------------
# Per-line figures.
# ---------------------------------------------------------------------------

LINE_FIGURES = (
    "allocCount",
    "allocBytes",
    "freedBytes",
    "peakBytes",
    "liveAtPeakBytes",
    "inclusiveAllocBytes",
    "inclusivePeakBytes",
    "inclusiveLiveAtPeakBytes",
)

# Beyond the contract: VRAM Lens's own per-line figures of the allocator's segment events
# (docs/numbers.md). Each line object carries them too, but a line is a row of "lines" only when one of
# the contract's figures is non-zero (spec: "one row per (file, line) that has any non-zero figure");
# a line with only these (an empty_cache() call) is a row of "segmentOnlyLines".
EXTRA_FIGURES = (
    "reservedGrowthBytes",
    "deviceCallCount",
)


class LineTable:
    def __init__(self) -> None:
        self.rows: dict[LineKey, dict[str, int]] = {}

    def row(self, key: LineKey) -> dict[str, int]:
        row = self.rows.get(key)
        if row is None:
            row = {name: 0 for name in LINE_FIGURES + EXTRA_FIGURES}
            self.rows[key] = row
        return row

    def to_json(self, contract: bool = True) -> list[dict[str, Any]]:
        """The rows with a non-zero contract figure (contract=True), or those with only extra figures."""
        out = []
        for (filename, line) in sorted(self.rows.keys()):
            row = self.rows[(filename, line)]
            in_contract = any(row[name] != 0 for name in LINE_FIGURES)
            if in_contract != contract or not any(row[name] != 0 for name in LINE_FIGURES + EXTRA_FIGURES):
                continue
            entry: dict[str, Any] = {"file": filename, "line": line}
            for name in LINE_FIGURES + EXTRA_FIGURES:
                entry[name] = row[name]
            out.append(entry)
        return out


# ---------------------------------------------------------------------------
# Explaining the peak (spec: "Explaining the peak").
# ---------------------------------------------------------------------------

AUTOGRAD_APPLY = re.compile(r"torch::autograd::(generated::)?([A-Za-z_][A-Za-z0-9_]*)::apply")


def device_annotation_ranges(annotations: Raw, device: int) -> list[AnnotationRange]:
    """[(start, end, position of START, name)] of this device's annotations.

    "in list order, an END closes the latest still-open START of the same
     name; an unclosed START runs to the end; an END with none open is
     ignored"
    """
    open_starts: dict[Raw, list[tuple[Raw, int]]] = {}  # name -> [(time, position)]
    ranges: list[AnnotationRange] = []
    for position, annotation in enumerate(annotations):
        if not isinstance(annotation, dict) or annotation.get("device", 0) != device:
            continue
        name = annotation.get("name")
        stage = annotation.get("stage")
        time_us = annotation.get("time_us")
        if stage == "START":
            open_starts.setdefault(name, []).append((time_us, position))
        elif stage == "END":
            stack = open_starts.get(name)
            if stack:
                start, start_position = stack.pop()
                ranges.append((start, time_us, start_position, name))
    for name, stack in open_starts.items():
        for start, start_position in stack:
            ranges.append((start, float("inf"), start_position, name))  # runs to the end
    return ranges


def innermost_annotation(ranges: list[AnnotationRange], time_us: Raw) -> Raw:
    """Name of the range holding time_us (bounds inclusive) with the latest
    start; on equal starts the one whose START comes later in the list."""
    if not isinstance(time_us, (int, float)) or isinstance(time_us, bool):
        return None
    best: tuple[Raw, int, Raw] | None = None
    for start, end, position, name in ranges:
        if not isinstance(start, (int, float)) or not isinstance(end, (int, float)):
            continue
        if start <= time_us <= end:
            if best is None or (start, position) > (best[0], best[1]):
                best = (start, position, name)
    return None if best is None else best[2]


def classify_bucket(frames: list[Entry], alloc_event: Entry | None, ranges: list[AnnotationRange]) -> tuple[str, Raw]:
    """(kind, label) of a live-at-peak block that no self line holds."""
    if alloc_event is None and not frames:
        # "Blocks with no frames and no alloc event (allocated before
        #  recording), and pre-recording blocks freed after the peak"
        return ("beforeRecording", "")
    # 1. backward
    for frame in frames:
        match = AUTOGRAD_APPLY.search(frame.get("name") or "")
        if match:
            return ("backward", match.group(2))
    for frame in frames:
        if "torch::autograd::Engine" in (frame.get("name") or ""):
            return ("backward", "autograd")
    # 2. annotation (only an alloc event has a time)
    if alloc_event is not None:
        name = innermost_annotation(ranges, alloc_event.get("time_us"))
        if name is not None:
            return ("annotation", name)
    # 3. library: label = last path part of the innermost source frame
    for frame in frames:
        if is_source_frame(frame):
            return ("library", frame["filename"].replace("\\", "/").split("/")[-1])
    # 4. noFrames
    return ("noFrames", "")


# ---------------------------------------------------------------------------
# Analysis of one device (spec: "Replay", "Per-device figures", "Per-line").
# ---------------------------------------------------------------------------


def analyze_device(device: int, segments: list[Entry], trace: list[Entry], annotations: Raw = ()) -> dict[str, Any]:
    """segments: this device's segments; trace: this device's trace entries."""

    # Blocks live at the end, per `segments`: address -> block.
    live_at_end_blocks: list[tuple[Raw, Entry]] = []  # list of (address, block)
    for segment in segments:
        for address, block in blocks_with_addresses(segment):
            if block.get("state") in LIVE_STATES:
                live_at_end_blocks.append((address, block))

    # --- Pass 1: replay the live set to find the initial active bytes. -----
    # "initialActiveBytes = sum of sizes of free_completed events whose
    #  address has no earlier alloc in the trace (blocks allocated before
    #  recording began), plus sizes of blocks live at the end (from
    #  segments) whose address is not live at the end of the replay (never
    #  allocated in the trace)."
    addresses_allocated_so_far: set[Raw] = set()
    live: dict[Raw, bool] = {}  # address -> True (replay live set)
    freed_before_recording = 0
    for event in trace:
        action = event.get("action")
        if action == "alloc":
            addresses_allocated_so_far.add(event.get("addr"))
            live[event.get("addr")] = True
        elif action == "free_completed":
            if event.get("addr") not in addresses_allocated_so_far:
                freed_before_recording += event.get("size", 0)
            live.pop(event.get("addr"), None)
    # "... plus the *requested sizes* of blocks live at the end (from segments)
    #  whose address is not live at the end of the replay"
    live_all_along = [(address, block) for address, block in live_at_end_blocks if address not in live]
    live_at_end_not_in_replay = 0
    for address, block in live_all_along:
        live_at_end_not_in_replay += block_requested_size(block)
    initial_active = freed_before_recording + live_at_end_not_in_replay

    # --- Reserved: initial from the final and the segment events. ----------
    final_reserved = sum(segment.get("total_size", 0) for segment in segments)
    reserved_added = 0
    reserved_removed = 0
    for event in trace:
        action = event.get("action")
        if action in ("segment_alloc", "segment_map"):
            reserved_added += event.get("size", 0)
        elif action in ("segment_free", "segment_unmap"):
            reserved_removed += event.get("size", 0)
    initial_reserved = final_reserved - reserved_added + reserved_removed

    # --- Pass 2: the timeline, peaks and per-line alloc/free figures. ------
    lines = LineTable()
    active = initial_active
    reserved = initial_reserved
    peak = initial_active
    peak_index = -1
    peak_reserved = initial_reserved
    active_checksum = 0
    reserved_checksum = 0
    oom_count = 0
    for index, event in enumerate(trace):
        action = event.get("action")
        size = event.get("size", 0)
        if action == "alloc":
            active += size
        elif action == "free_completed":
            active -= size
        elif action in ("segment_alloc", "segment_map"):
            reserved += size
        elif action in ("segment_free", "segment_unmap"):
            reserved -= size
        elif action == "oom":
            oom_count += 1

        # Peak: first event where the maximum is reached (strictly greater
        # than everything before, the initial state included).
        if active > peak:
            peak = active
            peak_index = index
        if reserved > peak_reserved:
            peak_reserved = reserved
        active_checksum += active
        reserved_checksum += reserved

        if action == "alloc":
            frames = event_frames(event)
            own = self_line(frames)
            if own is not None:
                row = lines.row(own)
                row["allocCount"] += 1
                row["allocBytes"] += size
                row["peakBytes"] = max(row["peakBytes"], active)
            for key in inclusive_lines(frames):
                row = lines.row(key)
                row["inclusiveAllocBytes"] += size
                row["inclusivePeakBytes"] = max(row["inclusivePeakBytes"], active)
        elif action == "free_requested":
            own = self_line(event_frames(event))
            if own is not None:
                lines.row(own)["freedBytes"] += size
        if action in ("segment_alloc", "segment_map", "segment_free", "segment_unmap"):
            own = self_line(event_frames(event))
            if own is not None:
                row = lines.row(own)
                row["deviceCallCount"] += 1
                if action in ("segment_alloc", "segment_map"):
                    row["reservedGrowthBytes"] += size
    final_active = active

    # --- Pass 3: live at peak. ----------------------------------------------
    # "the blocks live right after event peakEventIndex (or in the initial
    #  state if it is -1) are
    #  - blocks allocated in the trace and not yet freed, each attributed by
    #    the stack of its alloc event;
    #  - blocks live at the end per segments that the trace never allocated
    #    (...): counted by its requested size and attributed by its block frames;
    #  - pre-recording blocks that a later free_completed (with no earlier
    #    alloc) frees: live, but without frames."
    # Each live block: (size, frames, alloc event or None, origin).
    live_blocks: list[LiveBlock] = []
    live_allocs: dict[Raw, Entry] = {}  # address -> alloc event that created the live block
    seen_alloc: set[Raw] = set()
    for event in trace[: peak_index + 1]:
        action = event.get("action")
        if action == "alloc":
            live_allocs[event.get("addr")] = event
            seen_alloc.add(event.get("addr"))
        elif action == "free_completed":
            live_allocs.pop(event.get("addr"), None)
    for event in live_allocs.values():
        live_blocks.append((event.get("size", 0), event_frames(event), event, "trace"))
    for address, block in live_all_along:
        live_blocks.append((block_requested_size(block), block_frames(block), None, "allAlong"))
    # Pre-recording blocks freed after the peak event: a free_completed after
    # the peak whose address had no alloc anywhere earlier in the trace.
    allocated_before: set[Raw] = set()
    for index, event in enumerate(trace):
        action = event.get("action")
        if action == "alloc":
            allocated_before.add(event.get("addr"))
        elif action == "free_completed" and event.get("addr") not in allocated_before and index > peak_index:
            live_blocks.append((event.get("size", 0), [], None, "beforeRecording"))

    annotation_ranges = device_annotation_ranges(annotations, device)
    breakdown: dict[tuple[str, Raw], Raw] = {}
    for size, frames, alloc_event, origin in live_blocks:
        own = self_line(frames)
        if own is not None:
            lines.row(own)["liveAtPeakBytes"] += size
        for key in inclusive_lines(frames):
            lines.row(key)["inclusiveLiveAtPeakBytes"] += size
        if own is None:
            bucket = classify_bucket(frames, alloc_event, annotation_ranges)
            breakdown[bucket] = breakdown.get(bucket, 0) + size
    peak_breakdown = [
        {"kind": kind, "label": label, "bytes": amount}
        for (kind, label), amount in breakdown.items()
        if amount != 0
    ]
    # "ordered by bytes descending, then kind, then label"
    peak_breakdown.sort(key=lambda b: (-b["bytes"], b["kind"], b["label"]))

    return {
        "device": device,
        "events": len(trace),
        "initialActiveBytes": initial_active,
        "peakBytes": peak,
        "peakEventIndex": peak_index,
        "finalActiveBytes": final_active,
        "initialReservedBytes": initial_reserved,
        "peakReservedBytes": peak_reserved,
        "finalReservedBytes": final_reserved,
        "lines": lines.to_json(),
        "segmentOnlyLines": lines.to_json(contract=False),
        "peakBreakdown": peak_breakdown,
        "oomCount": oom_count,
        "liveBlocksAtEnd": len(live_at_end_blocks),
        "activeTimelineChecksum": active_checksum,
        "reservedTimelineChecksum": reserved_checksum,
    }


def analyze_data(data: Raw) -> dict[str, Any]:
    segments, traces = get_segments_and_traces(data)
    annotations = data.get("external_annotations") or [] if isinstance(data, dict) else []

    # "Devices: every device that has segments or a non-empty trace, in
    #  ascending order." The index in device_traces is the device number.
    devices: set[Raw] = set()
    for segment in segments:
        devices.add(segment_device(segment))
    for index, trace in enumerate(traces):
        if trace:
            devices.add(index)

    result = []
    for device in sorted(devices):
        device_segments = [s for s in segments if segment_device(s) == device]
        if 0 <= device < len(traces):
            trace = traces[device] or []
        else:
            trace = []
        result.append(analyze_device(device, device_segments, trace, annotations))
    return {"devices": result}


def analyze_file(path: str) -> dict[str, Any]:
    return analyze_data(load_snapshot(path))


def main(argv: list[str]) -> int:
    paths = argv[1:]
    if not paths:
        sys.stderr.write("usage: spec_reference.py FILE [FILE ...]\n")
        return 2
    out = {}
    for path in paths:
        out[path] = analyze_file(path)
    sys.stdout.write(json.dumps(out))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
