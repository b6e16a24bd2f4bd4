#!/usr/bin/env python3
"""Hand-computed checks of the spec oracle (spec_reference.py) on tiny snapshots.

Run:  python3 test/reference/test_spec_reference.py
 or:  python3 -m unittest discover -s test/reference -p 'test_*.py'
(`python3 -m unittest test/reference/test_spec_reference.py` does not work
from the repo root: unittest turns the path into the module name
`test.reference...`, and the standard library's own `test` package wins.)

Each test builds a small synthetic snapshot dict, pickles it to a temporary
file, runs the oracle on that file, and compares with figures worked out by
hand from the wording of shared/spec/analysis.md.
"""

import collections
import json
import os
import pickle
import subprocess
import sys
import tempfile
import unittest
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import spec_reference as ref  # noqa: E402

# A dict of a synthetic snapshot (an event, block, segment, frame or the snapshot itself) or of the oracle's output.
Entry = dict[str, Any]

U = "/home/me/proj/train.py"      # a user file
M = "/home/me/proj/model.py"      # another user file
LIB = "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py"


def fr(filename: str, line: int, name: str = "f") -> Entry:
    return {"filename": filename, "line": line, "name": name}


CPP = fr("??", 0, "c10::cuda::CUDACachingAllocator::malloc")


def ev(action: str, addr: int = 0, size: int = 0, frames: list[Entry] | None = None, **extra: Any) -> Entry:
    e: Entry = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": 0}
    if frames is not None:
        e["frames"] = frames
    e.update(extra)
    return e


def block(address: int, size: int, state: str, frames: list[Entry] | None = None) -> Entry:
    b: Entry = {"address": address, "size": size, "requested_size": size, "state": state}
    b["frames"] = frames if frames is not None else []
    return b


def segment(address: int, total_size: int, blocks: list[Entry], device: int = 0) -> Entry:
    return {
        "device": device,
        "address": address,
        "total_size": total_size,
        "allocated_size": 0,
        "active_size": 0,
        "requested_size": 0,
        "stream": 0,
        "segment_type": "large",
        "segment_pool_id": (0, 0),
        "is_expandable": False,
        "frames": [],
        "blocks": blocks,
    }


def snapshot(segments: list[Entry], traces: list[list[Entry]]) -> Entry:
    return {"segments": segments, "device_traces": traces}


def analyze(obj: object) -> Entry:
    """Pickle obj to a temp file and analyse it with the oracle, like the CLI."""
    fd, path = tempfile.mkstemp(suffix=".pickle")
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(obj, f, protocol=4)
        return ref.analyze_file(path)
    finally:
        os.unlink(path)


def lines_by_key(device: Entry) -> dict[tuple[str, int], Entry]:
    return {(row["file"], row["line"]): row for row in device["lines"]}


class InitialState(unittest.TestCase):
    def test_free_completed_without_alloc_counts_as_initial(self) -> None:
        # 100 bytes were allocated before recording and freed in the trace.
        snap = snapshot([], [[
            ev("free_requested", 0x1000, 100),
            ev("free_completed", 0x1000, 100),
            ev("alloc", 0x2000, 30),
        ]])
        (d,) = analyze(snap)["devices"]
        self.assertEqual(d["initialActiveBytes"], 100)
        # active after each event: 100, 0, 30
        self.assertEqual(d["peakBytes"], 100)
        self.assertEqual(d["peakEventIndex"], -1)
        self.assertEqual(d["finalActiveBytes"], 30)
        self.assertEqual(d["activeTimelineChecksum"], 100 + 0 + 30)
        self.assertEqual(d["events"], 3)

    def test_free_completed_after_alloc_is_not_initial(self) -> None:
        snap = snapshot([], [[
            ev("alloc", 0x1000, 100),
            ev("free_completed", 0x1000, 100),
            ev("free_completed", 0x3000, 7),  # no earlier alloc at 0x3000
        ]])
        (d,) = analyze(snap)["devices"]
        self.assertEqual(d["initialActiveBytes"], 7)
        # active: 107, 7, 0
        self.assertEqual(d["peakBytes"], 107)
        self.assertEqual(d["peakEventIndex"], 0)
        self.assertEqual(d["finalActiveBytes"], 0)
        self.assertEqual(d["activeTimelineChecksum"], 114)

    def test_block_live_at_end_never_allocated_in_trace(self) -> None:
        # Segment with one block allocated before recording (live at end, not
        # in the trace), one allocated in the trace, one pending free, one
        # inactive.
        seg = segment(0x10000, 4096, [
            block(0x10000, 512, "active_allocated"),       # pre-recording
            block(0x10200, 1024, "active_allocated"),      # allocated in trace
            block(0x10600, 256, "active_pending_free"),    # pre-recording
            block(0x10700, 2304, "inactive"),
        ])
        snap = snapshot([seg], [[ev("alloc", 0x10200, 1024, [fr(U, 5)])]])
        (d,) = analyze(snap)["devices"]
        self.assertEqual(d["initialActiveBytes"], 512 + 256)
        self.assertEqual(d["peakBytes"], 512 + 256 + 1024)
        self.assertEqual(d["peakEventIndex"], 0)
        self.assertEqual(d["finalActiveBytes"], 1792)
        self.assertEqual(d["liveBlocksAtEnd"], 3)
        self.assertEqual(d["finalReservedBytes"], 4096)
        self.assertEqual(d["initialReservedBytes"], 4096)
        self.assertEqual(d["peakReservedBytes"], 4096)

    def test_peak_at_initial_state_uses_segment_blocks(self) -> None:
        # Initial: 1000 (pre-recording block freed) + 300 (live at end, never
        # allocated). The trace only goes down, so the peak is the initial
        # state and live-at-peak comes from the segments' blocks.
        seg = segment(0x50000, 2048, [
            block(0x50000, 300, "active_allocated", [CPP, fr(M, 42), fr(LIB, 1), fr(U, 9)]),
            block(0x5012C, 1748, "inactive", [fr(M, 77)]),
        ])
        snap = snapshot([seg], [[
            ev("free_requested", 0x9000, 1000, [fr(U, 3)]),
            ev("free_completed", 0x9000, 1000, [fr(U, 3)]),
        ]])
        (d,) = analyze(snap)["devices"]
        self.assertEqual(d["initialActiveBytes"], 1300)
        self.assertEqual(d["peakBytes"], 1300)
        self.assertEqual(d["peakEventIndex"], -1)
        self.assertEqual(d["finalActiveBytes"], 300)
        rows = lines_by_key(d)
        self.assertEqual(rows[(M, 42)]["liveAtPeakBytes"], 300)
        self.assertEqual(rows[(M, 42)]["inclusiveLiveAtPeakBytes"], 300)
        self.assertEqual(rows[(U, 9)]["liveAtPeakBytes"], 0)
        self.assertEqual(rows[(U, 9)]["inclusiveLiveAtPeakBytes"], 300)
        self.assertEqual(rows[(U, 3)]["freedBytes"], 1000)
        self.assertNotIn((M, 77), rows)  # inactive block: not live
        self.assertEqual(set(rows), {(M, 42), (U, 9), (U, 3)})

    def test_equal_later_peak_keeps_first(self) -> None:
        snap = snapshot([], [[
            ev("alloc", 1, 10), ev("free_completed", 1, 10),
            ev("alloc", 2, 10), ev("alloc", 3, 5),
        ]])
        (d,) = analyze(snap)["devices"]
        self.assertEqual((d["peakBytes"], d["peakEventIndex"]), (15, 3))
        snap = snapshot([], [[ev("alloc", 1, 10), ev("free_completed", 1, 10), ev("alloc", 2, 10)]])
        (d,) = analyze(snap)["devices"]
        self.assertEqual((d["peakBytes"], d["peakEventIndex"]), (10, 0))


class PerLine(unittest.TestCase):
    def test_self_vs_inclusive_same_line_twice(self) -> None:
        # Recursion: U:10 appears twice in one stack; it counts once inclusively.
        stack = [CPP, fr(LIB, 100), fr(M, 20), fr(U, 10), fr(U, 10), fr(U, 1)]
        snap = snapshot([], [[
            ev("alloc", 0xA, 64, stack),
            ev("alloc", 0xB, 36, [fr(U, 10), fr(U, 1)]),
        ]])
        (d,) = analyze(snap)["devices"]
        rows = lines_by_key(d)
        self.assertEqual(set(rows), {(M, 20), (U, 10), (U, 1)})
        m20, u10, u1 = rows[(M, 20)], rows[(U, 10)], rows[(U, 1)]
        # active after events: 64, 100
        self.assertEqual((m20["allocCount"], m20["allocBytes"], m20["peakBytes"]), (1, 64, 64))
        self.assertEqual((m20["inclusiveAllocBytes"], m20["inclusivePeakBytes"]), (64, 64))
        self.assertEqual((u10["allocCount"], u10["allocBytes"], u10["peakBytes"]), (1, 36, 100))
        self.assertEqual((u10["inclusiveAllocBytes"], u10["inclusivePeakBytes"]), (100, 100))
        self.assertEqual((u1["allocCount"], u1["allocBytes"], u1["peakBytes"]), (0, 0, 0))
        self.assertEqual((u1["inclusiveAllocBytes"], u1["inclusivePeakBytes"]), (100, 100))
        # Peak is the last event; both blocks live.
        self.assertEqual(d["peakEventIndex"], 1)
        self.assertEqual(m20["liveAtPeakBytes"], 64)
        self.assertEqual(u10["liveAtPeakBytes"], 36)
        self.assertEqual(u10["inclusiveLiveAtPeakBytes"], 100)
        self.assertEqual(u1["inclusiveLiveAtPeakBytes"], 100)
        self.assertEqual(u1["liveAtPeakBytes"], 0)
        # Sorted by file then line.
        self.assertEqual([(r["file"], r["line"]) for r in d["lines"]], [(M, 20), (U, 1), (U, 10)])
        self.assertEqual(list(d["lines"][0].keys()), [
            "file", "line", "allocCount", "allocBytes", "freedBytes", "peakBytes",
            "liveAtPeakBytes", "inclusiveAllocBytes", "inclusivePeakBytes",
            "inclusiveLiveAtPeakBytes", "reservedGrowthBytes", "deviceCallCount"])

    def test_reserved_growth_and_device_calls_from_segment_events(self) -> None:
        snap = snapshot([], [[
            ev("segment_alloc", 0x100, 2048, [fr(U, 5)]),
            ev("alloc", 0x100, 100, [fr(U, 5)]),
            ev("segment_map", 0x900, 4096, [fr(U, 5), fr(M, 1)]),
            ev("alloc", 0x900, 300, [fr(U, 5), fr(M, 1)]),
            ev("segment_free", 0x100, 2048, [fr(U, 7)]),
            ev("segment_unmap", 0x900, 4096, [fr(U, 7)]),
            ev("segment_alloc", 0x200, 512, []),
        ]])
        (d,) = analyze(snap)["devices"]
        rows = lines_by_key(d)
        # U:7 made no allocation: it is not a row of the contract's "lines" but of "segmentOnlyLines".
        self.assertNotIn((U, 7), rows)
        self.assertEqual([(r["file"], r["line"]) for r in d["segmentOnlyLines"]], [(U, 7)])
        rows.update({(r["file"], r["line"]): r for r in d["segmentOnlyLines"]})
        # Self line only: U:5 made 2048 + 4096 bytes of segments (two calls); U:7 released both (two calls).
        self.assertEqual((rows[(U, 5)]["reservedGrowthBytes"], rows[(U, 5)]["deviceCallCount"]), (6144, 2))
        self.assertEqual((rows[(U, 7)]["reservedGrowthBytes"], rows[(U, 7)]["deviceCallCount"]), (0, 2))
        self.assertEqual((rows[(M, 1)]["reservedGrowthBytes"], rows[(M, 1)]["deviceCallCount"]), (0, 0))
        # U:7 has a row for its calls alone; a segment event with no frames credits no line.
        self.assertEqual(rows[(U, 7)]["allocCount"], 0)
        self.assertEqual(sum(r["deviceCallCount"] for r in d["lines"] + d["segmentOnlyLines"]), 4)

    def test_freed_bytes_from_free_requested_only(self) -> None:
        snap = snapshot([], [[
            ev("alloc", 0xA, 50, [fr(U, 1)]),
            ev("free_requested", 0xA, 50, [fr(U, 2), fr(M, 3)]),
            ev("free_completed", 0xA, 50, [fr(U, 4)]),
        ]])
        (d,) = analyze(snap)["devices"]
        rows = lines_by_key(d)
        self.assertEqual(rows[(U, 2)]["freedBytes"], 50)
        self.assertNotIn((M, 3), rows)  # free_requested: self line only
        self.assertNotIn((U, 4), rows)  # free_completed carries no figure
        self.assertEqual(rows[(U, 1)]["freedBytes"], 0)
        self.assertEqual(d["finalActiveBytes"], 0)

    def test_live_at_peak_attributed_by_alloc_stack(self) -> None:
        # Block 0xA is allocated by U:1, its free is requested (still live),
        # block 0xB by M:2; peak after event 2 (both live); 0xC allocated
        # later by U:3 after 0xA completes its free.
        snap = snapshot([], [[
            ev("alloc", 0xA, 40, [fr(U, 1)]),
            ev("free_requested", 0xA, 40, [fr(M, 9)]),
            ev("alloc", 0xB, 70, [fr(M, 2), fr(U, 5)]),
            ev("free_completed", 0xA, 40, [fr(M, 9)]),
            ev("alloc", 0xC, 20, [fr(U, 3)]),
        ]])
        (d,) = analyze(snap)["devices"]
        # active: 40, 40, 110, 70, 90
        self.assertEqual((d["peakBytes"], d["peakEventIndex"]), (110, 2))
        self.assertEqual(d["activeTimelineChecksum"], 40 + 40 + 110 + 70 + 90)
        rows = lines_by_key(d)
        self.assertEqual(rows[(U, 1)]["liveAtPeakBytes"], 40)
        self.assertEqual(rows[(M, 2)]["liveAtPeakBytes"], 70)
        self.assertEqual(rows[(U, 5)]["liveAtPeakBytes"], 0)
        self.assertEqual(rows[(U, 5)]["inclusiveLiveAtPeakBytes"], 70)
        self.assertEqual(rows[(U, 3)]["liveAtPeakBytes"], 0)
        self.assertEqual(rows[(U, 3)]["allocCount"], 1)
        self.assertEqual(rows[(U, 3)]["peakBytes"], 90)
        self.assertEqual(rows[(M, 9)]["freedBytes"], 40)

    def test_reused_address_live_at_peak_uses_latest_alloc(self) -> None:
        snap = snapshot([], [[
            ev("alloc", 0xA, 10, [fr(U, 1)]),
            ev("free_completed", 0xA, 10),
            ev("alloc", 0xA, 30, [fr(U, 2)]),
        ]])
        (d,) = analyze(snap)["devices"]
        rows = lines_by_key(d)
        self.assertEqual(d["peakEventIndex"], 2)
        self.assertEqual(rows[(U, 2)]["liveAtPeakBytes"], 30)
        self.assertEqual(rows[(U, 1)]["liveAtPeakBytes"], 0)

    def test_event_without_user_frame_has_no_row(self) -> None:
        snap = snapshot([], [[ev("alloc", 1, 8, [CPP, fr(LIB, 3)]), ev("alloc", 2, 8)]])
        (d,) = analyze(snap)["devices"]
        self.assertEqual(d["lines"], [])
        self.assertEqual(d["peakBytes"], 16)

    def test_zero_size_alloc_still_counts(self) -> None:
        snap = snapshot([], [[ev("alloc", 1, 0, [fr(U, 8)])]])
        (d,) = analyze(snap)["devices"]
        (row,) = d["lines"]
        self.assertEqual((row["allocCount"], row["allocBytes"]), (1, 0))

    def test_uint64_line_is_kept_exactly(self) -> None:
        big = 2 ** 64 - 1
        snap = snapshot([], [[ev("alloc", 1, 8, [fr(U, big)])]])
        out = analyze(snap)
        self.assertEqual(out["devices"][0]["lines"][0]["line"], big)
        self.assertIn('"line": 18446744073709551615', json.dumps(out))


class FrameClassification(unittest.TestCase):
    def user(self, filename: str, line: int = 10) -> bool:
        return ref.is_user_frame(fr(filename, line))

    def test_source_frames(self) -> None:
        self.assertTrue(self.user("/home/me/a.py"))
        self.assertFalse(self.user("/home/me/a.py", 0))
        self.assertFalse(self.user("??", 0))
        self.assertFalse(self.user("CUDACachingAllocator.cpp", 1234))
        self.assertFalse(self.user("/build/python/Python/bytecodes.c", 812))
        self.assertFalse(ref.is_source_frame({"filename": "/home/me/a.py"}))  # no line

    def test_library_frames(self) -> None:
        library = [
            "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py",
            "/usr/local/lib/python3.10/dist-packages/transformers/x.py",
            "/usr/lib/python3/dist-packages/numpy/core.py",
            "/usr/lib/python3.11/contextlib.py",
            "/root/.pyenv/versions/3.11.7/lib/python3.11/runpy.py",
            "/usr/lib/python3/threading.py",              # \d+ without minor
            "/tmp/torchinductor_me/ab/cabcdef.py",
            "C:\\Python311\\Lib\\contextlib.py",
            "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\runpy.py",
            "D:\\envs\\x\\Lib\\site-packages\\torch\\autograd\\function.py",
            "/OPT/VENV/LIB/PYTHON3.11/SITE-PACKAGES/torch/x.py",  # case-insensitive
            "<frozen runpy>.py",
            "<string>.py",
        ]
        for name in library:
            with self.subTest(name=name):
                self.assertTrue(ref.is_source_frame(fr(name, 5)))
                self.assertTrue(ref.is_library_frame(fr(name, 5)))
                self.assertFalse(self.user(name))
        # Frozen modules as PyTorch records them are not even source frames.
        self.assertFalse(ref.is_source_frame(fr("<frozen runpy>", 198)))
        self.assertFalse(self.user("<frozen importlib._bootstrap>", 1))

    def test_user_frames(self) -> None:
        users = [
            "/home/me/proj/train.py",
            "D:\\work\\cs336\\model.py",
            "/home/me/lib/python_utils/x.py",       # not /lib/pythonN/
            "/home/me/mylib/python3.11/x.py",        # not /lib/python...
            "/home/me/python/lib.py",
            "/home/me/site-packages-notes/x.py",     # no /site-packages/
        ]
        for name in users:
            with self.subTest(name=name):
                self.assertTrue(self.user(name))

    def test_library_frames_skipped_for_self_line(self) -> None:
        frames = [
            CPP,
            fr("/usr/lib/python3.11/contextlib.py", 81),
            fr("<frozen runpy>", 88),
            fr("C:\\Python311\\Lib\\functools.py", 12),
            fr("/tmp/torchinductor_me/ab/cabc.py", 40),
            fr("/x/dist-packages/torch/y.py", 3),
            fr(M, 7),
            fr(U, 2),
        ]
        self.assertEqual(ref.self_line(frames), (M, 7))
        self.assertEqual(ref.inclusive_lines(frames), [(M, 7), (U, 2)])
        self.assertIsNone(ref.self_line(frames[:6]))
        self.assertEqual(ref.inclusive_lines([]), [])


class Reserved(unittest.TestCase):
    def test_reserved_from_segment_events(self) -> None:
        # Final segments total 3000 (on device 0) plus one on device 1.
        segs = [
            segment(0x100000, 1000, [block(0x100000, 1000, "inactive")]),
            segment(0x200000, 2000, [block(0x200000, 2000, "inactive")]),
            segment(0x900000, 777, [block(0x900000, 777, "inactive")], device=1),
        ]
        trace = [
            ev("segment_alloc", 0x100000, 1000),   # +1000
            ev("segment_free", 0x300000, 500),     # -500
            ev("segment_map", 0x200000, 2500),     # +2500
            ev("segment_unmap", 0x280000, 500),    # -500
            ev("oom", 0, 4096, device_free=0),
            ev("snapshot", 0, 0),
        ]
        out = analyze(snapshot(segs, [trace, []]))
        d0, d1 = out["devices"]
        # initial = 3000 - (1000 + 2500) + (500 + 500) = 500
        self.assertEqual(d0["finalReservedBytes"], 3000)
        self.assertEqual(d0["initialReservedBytes"], 500)
        # reserved after events: 1500, 1000, 3500, 3000, 3000, 3000
        self.assertEqual(d0["peakReservedBytes"], 3500)
        self.assertEqual(d0["reservedTimelineChecksum"], 1500 + 1000 + 3500 + 3000 * 3)
        self.assertEqual(d0["oomCount"], 1)
        self.assertEqual(d0["events"], 6)
        self.assertEqual(d0["peakBytes"], 0)
        self.assertEqual(d1["device"], 1)
        self.assertEqual(d1["events"], 0)
        self.assertEqual(d1["finalReservedBytes"], 777)
        self.assertEqual(d1["initialReservedBytes"], 777)
        self.assertEqual(d1["peakReservedBytes"], 777)

    def test_peak_reserved_includes_initial_state(self) -> None:
        segs = [segment(0x100000, 1000, [block(0x100000, 1000, "inactive")])]
        out = analyze(snapshot(segs, [[ev("segment_free", 0x200000, 4000)]]))
        (d,) = out["devices"]
        self.assertEqual(d["initialReservedBytes"], 5000)
        self.assertEqual(d["peakReservedBytes"], 5000)


class Layouts(unittest.TestCase):
    def test_torch20_blocks_without_address_and_history(self) -> None:
        seg = {
            "device": 0, "address": 1000, "total_size": 600, "allocated_size": 0,
            "active_size": 0, "requested_size": 0, "stream": 0, "segment_type": "small",
            "blocks": [
                {"size": 100, "requested_size": 100, "state": "active_allocated",
                 "history": [{"addr": 1000, "real_size": 100, "frames": [fr(U, 1)]},
                             {"addr": 1000, "real_size": 100, "frames": [fr(U, 99)]}]},
                {"size": 200, "requested_size": 200, "state": "inactive", "history": []},
                {"size": 300, "requested_size": 300, "state": "active_allocated"},
            ],
        }
        self.assertEqual([a for a, _ in ref.blocks_with_addresses(seg)], [1000, 1100, 1300])
        # The block at 1000 was allocated in the trace; the one at 1300 was not.
        trace = [{"action": "alloc", "addr": 1000, "size": 100, "stream": 0,
                  "frames": [fr(M, 4)]}]
        (d,) = analyze({"segments": [seg], "device_traces": [trace]})["devices"]
        self.assertEqual(d["initialActiveBytes"], 300)
        self.assertEqual(d["peakBytes"], 400)
        self.assertEqual(d["peakEventIndex"], 0)
        self.assertEqual(lines_by_key(d)[(M, 4)]["liveAtPeakBytes"], 100)
        # Peak at initial state: frames from history[0].
        (d,) = analyze({"segments": [seg], "device_traces": [[]]})["devices"]
        self.assertEqual(d["initialActiveBytes"], 400)
        self.assertEqual(d["peakEventIndex"], -1)
        rows = lines_by_key(d)
        self.assertEqual(rows[(U, 1)]["liveAtPeakBytes"], 100)
        self.assertNotIn((U, 99), rows)

    def test_bare_segment_list(self) -> None:
        segs = [segment(0x100, 512, [block(0x100, 512, "active_allocated", [fr(U, 6)])], device=2)]
        (d,) = analyze(segs)["devices"]
        self.assertEqual(d["device"], 2)
        self.assertEqual(d["events"], 0)
        self.assertEqual(d["initialActiveBytes"], 512)
        self.assertEqual(d["peakEventIndex"], -1)
        self.assertEqual(d["activeTimelineChecksum"], 0)
        self.assertEqual(lines_by_key(d)[(U, 6)]["liveAtPeakBytes"], 512)

    def test_devices_from_segments_or_nonempty_traces(self) -> None:
        segs = [segment(0x100, 512, [], device=3)]
        traces: list[list[Entry]] = [[], [ev("alloc", 1, 4)], [], []]
        out = analyze(snapshot(segs, traces))
        self.assertEqual([d["device"] for d in out["devices"]], [1, 3])
        self.assertEqual(analyze(snapshot([], [[], []])), {"devices": []})

    def test_missing_frames_key_and_empty_frames(self) -> None:
        snap = snapshot([], [[
            {"action": "alloc", "addr": 1, "size": 4, "stream": 0},
            ev("alloc", 2, 4, []),
        ]])
        (d,) = analyze(snap)["devices"]
        self.assertEqual(d["lines"], [])
        self.assertEqual(d["finalActiveBytes"], 8)

    def test_refuses_classes(self) -> None:
        fd, path = tempfile.mkstemp(suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump({"segments": collections.OrderedDict(), "device_traces": []}, f)
            with self.assertRaises(pickle.UnpicklingError):
                ref.load_snapshot(path)
        finally:
            os.unlink(path)


MM = fr("??", 0, "torch::autograd::generated::MmBackward0::apply(std::vector<at::Tensor>&&)")
ACC = fr("??", 0, "torch::autograd::AccumulateGrad::apply(std::vector<at::Tensor>&&)")
ENGINE = fr("??", 0, "torch::autograd::Engine::thread_main(std::shared_ptr<torch::autograd::GraphTask> const&)")


def explained_snapshot() -> Entry:
    """One device whose peak holds every kind of bucket (worked out by hand below)."""

    def blk(address: int, size: int, requested: int, state: str, frames: list[Entry]) -> Entry:
        return {"address": address, "size": size, "requested_size": requested, "state": state, "frames": frames}
    seg = segment(0x10000, 8192, [
        blk(0x10000, 512, 500, "active_allocated", [fr(M, 7)]),      # live all along, a user line
        blk(0x10200, 512, 300, "active_allocated", []),             # live all along, no frames
        blk(0x10400, 512, 200, "active_allocated", [fr(LIB, 10)]),  # live all along, library
        blk(0x10600, 1024, 1024, "active_allocated", [fr(U, 1)]),   # allocated in the trace
        blk(0x10A00, 5632, 5632, "inactive", []),
    ])

    def at(e: Entry, t: int) -> Entry:
        e["time_us"] = t
        return e
    trace = [
        at(ev("free_completed", 0x90000, 64), 1),           # before recording, freed before the peak
        at(ev("alloc", 0x10600, 1024, [fr(U, 1)]), 2),
        at(ev("alloc", 0x20000, 100, [CPP, MM, ENGINE]), 3),
        at(ev("alloc", 0x20100, 50, [CPP, ACC, ENGINE]), 4),
        at(ev("alloc", 0x20200, 40, [CPP, ENGINE]), 5),
        at(ev("alloc", 0x20300, 30, [CPP]), 25),             # inside inner (20..30) inside outer (10..)
        at(ev("alloc", 0x20400, 20, [CPP]), 12),             # inside outer only
        at(ev("alloc", 0x20500, 10, [CPP]), 9),              # before any range
        at(ev("alloc", 0x20600, 8, [fr(LIB, 10)]), 50),      # annotation wins over library
        at(ev("free_completed", 0xA0000, 16), 60),           # before recording, freed after the peak
    ]
    snap = snapshot([seg], [trace])
    snap["external_annotations"] = [
        {"stage": "END", "name": "outer", "device": 0, "time_us": 2},      # none open: ignored
        {"stage": "START", "name": "outer", "device": 0, "time_us": 10},   # never closed
        {"stage": "START", "name": "inner", "device": 0, "time_us": 20},
        {"stage": "END", "name": "inner", "device": 0, "time_us": 30},
        {"stage": "START", "name": "elsewhere", "device": 1, "time_us": 0},
    ]
    return snap


EXPLAINED_BREAKDOWN = [
    {"kind": "beforeRecording", "label": "", "bytes": 300 + 16},
    {"kind": "library", "label": "module.py", "bytes": 200},
    {"kind": "backward", "label": "MmBackward0", "bytes": 100},
    {"kind": "backward", "label": "AccumulateGrad", "bytes": 50},
    {"kind": "backward", "label": "autograd", "bytes": 40},
    {"kind": "annotation", "label": "inner", "bytes": 30},
    {"kind": "annotation", "label": "outer", "bytes": 20 + 8},
    {"kind": "noFrames", "label": "", "bytes": 10},
]


class ExplainingThePeak(unittest.TestCase):
    def test_every_bucket_by_hand(self) -> None:
        (d,) = analyze(explained_snapshot())["devices"]
        # initial: pre-recording frees 64 + 16, live all along by requested size 500 + 300 + 200
        self.assertEqual(d["initialActiveBytes"], 80 + 1000)
        self.assertEqual(d["peakEventIndex"], 8)
        self.assertEqual(d["peakBytes"], 1080 - 64 + 1024 + 100 + 50 + 40 + 30 + 20 + 10 + 8)
        rows = lines_by_key(d)
        self.assertEqual(rows[(M, 7)]["liveAtPeakBytes"], 500)   # attributed by its block frames
        self.assertEqual(rows[(U, 1)]["liveAtPeakBytes"], 1024)
        self.assertEqual(d["peakBreakdown"], EXPLAINED_BREAKDOWN)
        held = sum(r["liveAtPeakBytes"] for r in d["lines"])
        self.assertEqual(held + sum(b["bytes"] for b in d["peakBreakdown"]), d["peakBytes"])

    def test_torch_20_block_counts_history_real_size(self) -> None:
        seg = segment(0x10000, 1024, [
            {"size": 512, "state": "active_allocated", "history": [{"addr": 0x10000, "real_size": 70, "frames": []}]},
            {"size": 512, "state": "inactive", "history": []},
        ])
        del seg["frames"]
        (d,) = analyze(snapshot([seg], [[]]))["devices"]
        self.assertEqual(d["initialActiveBytes"], 70)
        self.assertEqual(d["peakBreakdown"], [{"kind": "beforeRecording", "label": "", "bytes": 70}])

    def test_initial_peak_counts_blocks_live_all_along_only(self) -> None:
        # The peak is the initial state: the block the trace allocates later is not live then.
        seg = segment(0x10000, 2048, [
            block(0x10000, 512, "active_allocated", [fr(U, 3)]),
            block(0x10200, 256, "active_allocated", [fr(U, 4)]),
        ])
        snap = snapshot([seg], [[ev("free_completed", 0x50000, 1000), ev("alloc", 0x10200, 256, [fr(U, 4)])]])
        (d,) = analyze(snap)["devices"]
        self.assertEqual(d["peakEventIndex"], -1)
        self.assertEqual(d["peakBytes"], 1512)
        rows = lines_by_key(d)
        self.assertEqual(rows[(U, 3)]["liveAtPeakBytes"], 512)
        self.assertEqual(rows[(U, 4)]["liveAtPeakBytes"], 0)
        self.assertEqual(d["peakBreakdown"], [{"kind": "beforeRecording", "label": "", "bytes": 1000}])


class CommandLine(unittest.TestCase):
    def test_cli_maps_each_path_as_given(self) -> None:
        tmp = tempfile.mkdtemp()
        try:
            paths = []
            for i, obj in enumerate([snapshot([], [[ev("alloc", 1, 5, [fr(U, 1)])]]), []]):
                p = os.path.join(tmp, "s%d.pickle" % i)
                with open(p, "wb") as f:
                    pickle.dump(obj, f, protocol=4)
                paths.append(p)
            proc = subprocess.run(
                [sys.executable, os.path.join(HERE, "spec_reference.py")] + paths,
                check=True, capture_output=True, text=True)
            out = json.loads(proc.stdout)
            self.assertEqual(list(out), paths)
            self.assertEqual(out[paths[0]]["devices"][0]["peakBytes"], 5)
            self.assertEqual(out[paths[1]], {"devices": []})
        finally:
            for name in os.listdir(tmp):
                os.unlink(os.path.join(tmp, name))
            os.rmdir(tmp)


if __name__ == "__main__":
    unittest.main()
