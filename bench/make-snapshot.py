#!/usr/bin/env python3
"""Builds large memory-snapshot pickles for `npm run bench` from a real corpus snapshot.

Standard library only. The source is read with an Unpickler that refuses every class, so nothing in
it runs. Device 0's trace is repeated K times, as if the recorded training loop had run K times:

* repetition k shifts every block address by k * OFFSET (a power of two larger than the address
  range of the file, so repetitions never share a block) and every `time_us` by k * (trace span);
* the entries stay the same kind of Python objects PyTorch writes: each repeated entry is a new
  dict, but its `frames` value is the very list object of the original entry (and its key and
  string values the very same str objects), so `pickle` writes them as memo references
  (BINGET/LONG_BINGET), exactly as in a real file where one frames list is shared by the
  `free_requested` and `free_completed` of a block, and frame dicts are shared by every stack;
* a `free_requested`/`free_completed` of a block allocated before the trace (no earlier `alloc`
  in the repetition) frees, in repetitions k >= 1, a block left live by repetition k - 1 (same
  address and size when there is one, else another leftover block of the same size), so a
  steady-state training loop stays steady instead of growing or shrinking with every repetition;
* segment events (`segment_alloc`/`free`/`map`/`unmap`) are kept in the first repetition only,
  so reserved memory means what it meant in the source;
* `segments` (the allocator state at the end) are the source's, shifted by (K - 1) * OFFSET: the
  blocks left live by the last repetition are the live blocks of `segments`, as in the source.

Written with `pickle.dump(obj, f, protocol=4)`, the protocol of every corpus file. K is estimated
from the size of one repetition, then grown until the file reaches the target size. Files above
STREAM_ABOVE_MB (the 2 GB and 4.5 GB files of `npm run bench:large`) would need tens of GB of memory
that way; they are written by `StreamingPickler` instead, which writes the same opcodes as CPython's
pickler for the same objects (memoizing every str, list, dict and tuple, memo references for repeats,
FRAME opcodes every 64 KiB) while the repetitions are made one entry at a time.

Shape variants (`--variant`, for the bench's no-cliff check) hold the same events as the plain file of
the same source and size (the same repetitions), written in another shape PyTorch's readers must take:

* `high-addresses`: every block and segment address raised by 2^52 (the highest range the model holds
  exactly: addresses stay below 2^53);
* `key-order`: every trace entry's keys in reverse order (`frames` first, `action` last);
* `unshared-lists`: every trace entry has a frames list of its own (a new list of memo references to the
  shared frame dicts, as PyTorch writes an `alloc`'s), where the plain file shares one list object;
* `unshared-frames`: every trace entry has a frames list of new frame dicts (only their strings shared,
  as PyTorch 2.0 writes frames).

usage: make-snapshot.py --source FILE --sizes 100,500 --out DIR [--variant NAME] [--verify]
Prints one JSON object per line and file: {"path", "bytes", "reps", "events", "cached"}; with
--verify, then one more with the replay of the source and of the file (same per-repetition peak,
same initial and final active bytes for a steady-state source) and any problems found.
Files are cached in DIR under a name keyed by source and size, with a .meta.json beside them.
"""

import argparse
import hashlib
import json
import math
import os
import pickle
import struct
from typing import Any, Iterator, Protocol, Union

# A dict of a snapshot (the root, a segment, block or trace event), as recorded.
Entry = dict[str, Any]

GENERATOR_VERSION = 1
VARIANTS = ('high-addresses', 'key-order', 'unshared-lists', 'unshared-frames')
HIGH_ADDRESS_SHIFT = 2**52
# Files above this size are written by StreamingPickler (a version of their own, STREAM_VERSION).
STREAM_ABOVE_MB = 1000
STREAM_VERSION = 1
MB = 1000 * 1000
MAX_SAFE_INTEGER = 2**53 - 1
SHIFTED = ('alloc', 'free_requested', 'free_completed')
SEGMENT_EVENTS = ('segment_alloc', 'segment_free', 'segment_map', 'segment_unmap')


class NoClassesUnpickler(pickle.Unpickler):
    """Memory snapshots hold only dicts, lists, tuples, str, int, float, bool and None."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f'refusing to load class {module}.{name}: not a memory snapshot')


class Sink(Protocol):
    def write(self, data: bytes) -> int: ...


class CountingSink:
    """A write-only file that only counts bytes: sizes a pickle without writing it."""

    def __init__(self) -> None:
        self.bytes = 0

    def write(self, data: bytes) -> int:
        self.bytes += len(data)
        return len(data)


def load_source(path: str) -> Entry:
    with open(path, 'rb') as f:
        root = NoClassesUnpickler(f).load()
    if not isinstance(root, dict) or not root.get('device_traces') or not root['device_traces'][0]:
        raise SystemExit(f'{path}: needs a dict snapshot with a non-empty device 0 trace')
    return root


def address_offset(trace: list[Entry], segments: list[Entry]) -> tuple[int, int]:
    """A power of two above the span of every address in the file (blocks and segments)."""
    low: int | None = None
    high: int | None = None
    for e in trace:
        if e.get('action') in SHIFTED:
            low = e['addr'] if low is None else min(low, e['addr'])
            high = e['addr'] + e['size'] if high is None else max(high, e['addr'] + e['size'])
    for s in segments:
        if s.get('device', 0) != 0:
            continue
        low = s['address'] if low is None else min(low, s['address'])
        high = s['address'] + s['total_size'] if high is None else max(high, s['address'] + s['total_size'])
    if low is None or high is None:
        raise SystemExit('no block or segment address on device 0')
    return 1 << max(1, (high - low)).bit_length(), high


def leftover_pairing(trace: list[Entry]) -> dict[int, int]:
    """Maps the address of each block freed before being allocated in the trace to the address of a
    block the trace leaves live, which the next repetition will free in its place."""
    live: dict[int, int] = {}
    freed_first: dict[int, int] = {}
    for e in trace:
        action = e.get('action')
        if action == 'alloc':
            live[e['addr']] = e['size']
        elif action == 'free_completed':
            if e['addr'] in live:
                del live[e['addr']]
            else:
                freed_first.setdefault(e['addr'], e['size'])
    pairing: dict[int, int] = {}
    for addr, size in freed_first.items():
        if live.get(addr) == size:
            pairing[addr] = addr
    taken = set(pairing.values())
    by_size: dict[int, list[int]] = {}
    for addr in sorted(live):
        if addr not in taken:
            by_size.setdefault(live[addr], []).append(addr)
    for addr in sorted(freed_first):
        if addr in pairing:
            continue
        candidates = by_size.get(freed_first[addr])
        if candidates:
            pairing[addr] = candidates.pop(0)
    return pairing


def repeated_trace(trace: list[Entry], reps: int, offset: int, span: int, pairing: dict[int, int]) -> list[Entry]:
    """The trace repeated `reps` times; repetition 0 is the source's own entry dicts."""
    out = list(trace)
    for k in range(1, reps):
        shift = k * offset
        live: set[int] = set()
        for e in trace:
            action = e.get('action')
            if action in SEGMENT_EVENTS:
                continue
            copy = dict(e)  # same key objects, same frames list object: pickle memoizes them
            if 'time_us' in e:
                copy['time_us'] = e['time_us'] + k * span
            if action in SHIFTED:
                addr = e['addr']
                if action == 'alloc':
                    live.add(addr)
                    copy['addr'] = addr + shift
                elif addr in live:
                    if action == 'free_completed':
                        live.discard(addr)
                    copy['addr'] = addr + shift
                elif addr in pairing:
                    copy['addr'] = pairing[addr] + shift - offset
                else:
                    copy['addr'] = addr + shift
            out.append(copy)
    return out


def shifted_segments(segments: list[Entry], shift: int) -> list[Entry]:
    out = []
    for s in segments:
        if s.get('device', 0) != 0 or shift == 0:
            out.append(s)
            continue
        seg = dict(s)
        seg['address'] = s['address'] + shift
        blocks = []
        for b in s.get('blocks', []):
            block = dict(b)
            if 'address' in b:
                block['address'] = b['address'] + shift
            blocks.append(block)
        seg['blocks'] = blocks
        out.append(seg)
    return out


def with_shape(root: Entry, variant: str) -> Entry:
    """The snapshot `root` in the shape `variant` (see the module's docstring); `root` is left as it is."""
    out = dict(root)
    trace = root['device_traces'][0]
    if variant == 'high-addresses':
        def shifted(e: Entry, key: str) -> Entry:
            copy = dict(e)
            copy[key] = e[key] + HIGH_ADDRESS_SHIFT
            return copy
        out['device_traces'] = [[shifted(e, 'addr') if 'addr' in e else e for e in trace]] + list(root['device_traces'][1:])
        segments = []
        for seg in root.get('segments', []):
            seg = shifted(seg, 'address')
            seg['blocks'] = [shifted(b, 'address') if 'address' in b else b for b in seg.get('blocks', [])]
            segments.append(seg)
        out['segments'] = segments
        if max((e['addr'] for e in out['device_traces'][0] if 'addr' in e), default=0) > MAX_SAFE_INTEGER:
            raise SystemExit('high-addresses: addresses would pass 2^53; choose a smaller size')
    elif variant == 'key-order':
        out['device_traces'] = [[dict(reversed(list(e.items()))) for e in trace]] + list(root['device_traces'][1:])
    elif variant in ('unshared-lists', 'unshared-frames'):
        def own_frames(e: Entry) -> Entry:
            if not isinstance(e.get('frames'), list):
                return e
            copy = dict(e)
            copy['frames'] = [dict(f) for f in e['frames']] if variant == 'unshared-frames' else list(e['frames'])
            return copy
        out['device_traces'] = [[own_frames(e) for e in trace]] + list(root['device_traces'][1:])
    else:
        raise SystemExit(f'unknown variant {variant!r} (one of {", ".join(VARIANTS)})')
    return out


class Generator:
    def __init__(self, root: Entry) -> None:
        self.root = root
        self.trace: list[Entry] = root['device_traces'][0]
        self.segments: list[Entry] = root.get('segments', [])
        self.offset, self.high = address_offset(self.trace, self.segments)
        times = [e['time_us'] for e in self.trace if 'time_us' in e]
        self.span = 0
        if len(times) > 1:
            self.span = times[-1] - times[0] + max(1, (times[-1] - times[0]) // (len(times) - 1))
        self.pairing = leftover_pairing(self.trace)

    def snapshot(self, reps: int) -> Entry:
        if self.high + (reps - 1) * self.offset > MAX_SAFE_INTEGER:
            raise SystemExit(f'{reps} repetitions would push addresses beyond 2^53; choose a smaller size')
        root = dict(self.root)
        root['device_traces'] = [repeated_trace(self.trace, reps, self.offset, self.span, self.pairing)] + list(
            self.root['device_traces'][1:]
        )
        root['segments'] = shifted_segments(self.segments, (reps - 1) * self.offset)
        return root

    def pickled_size(self, reps: int, streamed: bool = False) -> int:
        sink = CountingSink()
        if streamed:
            self.stream(reps, sink)
        else:
            pickle.dump(self.snapshot(reps), sink, protocol=4)
        return sink.bytes

    def stream(self, reps: int, out: Sink) -> int:
        """Writes the snapshot of `reps` repetitions as `write` does, one entry at a time; returns the events."""
        if self.high + (reps - 1) * self.offset > MAX_SAFE_INTEGER:
            raise SystemExit(f'{reps} repetitions would push addresses beyond 2^53; choose a smaller size')
        root = dict(self.root)
        root['segments'] = shifted_segments(self.segments, (reps - 1) * self.offset)
        per_rep = [e for e in self.trace if e.get('action') not in SEGMENT_EVENTS]
        events = len(self.trace) + (reps - 1) * len(per_rep)
        pickler = StreamingPickler(out)
        pickler.dump(root, self.entries(pickler, reps, per_rep), events)
        return events

    def entries(self, pickler: 'StreamingPickler', reps: int, per_rep: list[Entry]) -> Iterator[Union[Entry, bytes]]:
        """The entries of `repeated_trace`, the repeated ones as bytes (see `StreamingPickler.entry_template`)."""
        yield from self.trace
        templates = [pickler.entry_template(e) for e in per_rep]
        for k in range(1, reps):
            shift = k * self.offset
            live: set[int] = set()
            for e, (parts, slots) in zip(per_rep, templates):
                action = e.get('action')
                values: dict[str, int] = {}
                if 'time_us' in e:
                    values['time_us'] = e['time_us'] + k * self.span
                if 'addr' in e:
                    addr = e['addr']
                    if action not in SHIFTED:
                        values['addr'] = addr
                    elif action == 'alloc':
                        live.add(addr)
                        values['addr'] = addr + shift
                    elif addr in live:
                        if action == 'free_completed':
                            live.discard(addr)
                        values['addr'] = addr + shift
                    elif addr in self.pairing:
                        values['addr'] = self.pairing[addr] + shift - self.offset
                    else:
                        values['addr'] = addr + shift
                out = bytearray(parts[0])
                for slot, part in zip(slots, parts[1:]):
                    out += encode_scalar(values[slot])
                    out += part
                yield bytes(out)

    def stream_write(self, reps: int, path: str) -> int:
        tmp = path + '.tmp'
        with open(tmp, 'wb', buffering=1 << 22) as f:
            events = self.stream(reps, f)
        os.replace(tmp, path)
        return events

    def write(self, reps: int, path: str, variant: str | None = None) -> int:
        obj = self.snapshot(reps)
        if variant is not None:
            obj = with_shape(obj, variant)
        events = len(obj['device_traces'][0])
        tmp = path + '.tmp'
        with open(tmp, 'wb') as f:
            pickle.dump(obj, f, protocol=4)
        os.replace(tmp, path)
        return events


FRAME_SIZE = 64 * 1024
BATCH = 1000


class StreamingPickler:
    """Protocol 4, written as it goes: what `pickle.dump(obj, f, protocol=4)` writes for the same objects
    (every str, list, dict and tuple memoized with MEMOIZE and written again as a memo reference; ints,
    floats, bools and None inline; lists and dicts in batches of 1000; FRAME opcodes every 64 KiB), except
    that the device 0 trace is written from an iterator of entries, never held. Entries of repetitions
    after the first hold only memoized keys and values besides their ints, so they are written from a
    byte template of the source entry with the address and time filled in."""

    def __init__(self, out: Sink) -> None:
        self.out = out
        self.frame = bytearray()
        self.memo: dict[int, int] = {}
        self.size = 0
        # Memoized objects stay alive while their ids are memo keys.
        self.kept: list[Any] = []

    def dump(self, root: Entry, trace: Iterator[Union[Entry, bytes]], trace_length: int) -> None:
        """Writes `root`, whose device_traces[0] is replaced by the entries of `trace` (dicts, or the
        bytes of an entry already written with `entry_bytes`)."""
        self.out.write(pickle.PROTO + bytes([4]))
        self.save_dict(root, trace, trace_length)
        self.commit()
        self.out.write(pickle.STOP)

    def commit(self) -> None:
        """Writes the frame so far (as CPython does once it holds 64 KiB, between two objects)."""
        if self.frame:
            self.out.write(pickle.FRAME + struct.pack('<Q', len(self.frame)) + bytes(self.frame))
            self.frame = bytearray()

    def boundary(self) -> None:
        if len(self.frame) >= FRAME_SIZE:
            self.commit()

    def memoize(self, obj: Any) -> None:
        self.memo[id(obj)] = self.size
        self.kept.append(obj)
        self.size += 1
        self.frame += pickle.MEMOIZE

    def get(self, index: int) -> bytes:
        return pickle.BINGET + bytes([index]) if index < 256 else pickle.LONG_BINGET + struct.pack('<I', index)

    def save(self, obj: Any) -> None:
        index = self.memo.get(id(obj))
        if index is not None:
            self.frame += self.get(index)
        elif isinstance(obj, dict):
            self.save_dict(obj)
        elif isinstance(obj, list):
            self.save_list(obj)
        elif isinstance(obj, tuple):
            self.save_tuple(obj)
        elif isinstance(obj, str):
            self.frame += encode_str(obj)
            self.memoize(obj)
        else:
            self.frame += encode_scalar(obj)
        self.boundary()

    def save_dict(self, d: Entry, trace: Iterator[Union[Entry, bytes]] | None = None, trace_length: int = 0) -> None:
        self.frame += pickle.EMPTY_DICT
        self.memoize(d)
        items = list(d.items())
        for start in range(0, len(items), BATCH):
            batch = items[start:start + BATCH]
            if len(batch) > 1:
                self.frame += pickle.MARK
            for key, value in batch:
                self.save(key)
                if trace is not None and key == 'device_traces':
                    self.save_traces(value, trace, trace_length)
                else:
                    self.save(value)
            self.frame += pickle.SETITEMS if len(batch) > 1 else pickle.SETITEM

    def save_traces(self, traces: list[Any], trace: Iterator[Union[Entry, bytes]], trace_length: int) -> None:
        """device_traces, its first list written from `trace`."""
        self.frame += pickle.EMPTY_LIST
        self.memoize(traces)
        self.appends([_Streamed(trace, trace_length)] + traces[1:])

    def save_list(self, items: list[Any]) -> None:
        self.frame += pickle.EMPTY_LIST
        self.memoize(items)
        self.appends(items)

    def appends(self, items: list[Any]) -> None:
        for start in range(0, len(items), BATCH):
            batch = items[start:start + BATCH]
            if len(batch) > 1:
                self.frame += pickle.MARK
            for item in batch:
                if isinstance(item, _Streamed):
                    self.save_streamed(item)
                else:
                    self.save(item)
            self.frame += pickle.APPENDS if len(batch) > 1 else pickle.APPEND

    def save_streamed(self, streamed: '_Streamed') -> None:
        self.frame += pickle.EMPTY_LIST
        self.size += 1  # memoized as CPython would; never referenced
        self.frame += pickle.MEMOIZE
        left = streamed.length
        while left > 0:
            n = min(BATCH, left)
            if n > 1:
                self.frame += pickle.MARK
            for _ in range(n):
                entry = next(streamed.entries)
                if isinstance(entry, bytes):
                    self.size += 1  # the entry dict's MEMOIZE is in its bytes
                    self.frame += entry
                    self.boundary()
                else:
                    self.save(entry)
            self.frame += pickle.APPENDS if n > 1 else pickle.APPEND
            left -= n

    def save_tuple(self, items: tuple[Any, ...]) -> None:
        if not items:
            self.frame += pickle.EMPTY_TUPLE
            return
        if len(items) <= 3:
            for item in items:
                self.save(item)
            self.frame += (pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3)[len(items) - 1]
        else:
            self.frame += pickle.MARK
            for item in items:
                self.save(item)
            self.frame += pickle.TUPLE
        self.memoize(items)

    def entry_template(self, e: Entry) -> tuple[list[bytes], list[str]]:
        """The bytes of a repeated copy of source entry `e` (every key and non-int value memoized by
        then), cut where its addr and time_us go: ([bytes before addr, ...], ['addr', ...])."""
        parts: list[bytes] = [pickle.EMPTY_DICT + pickle.MEMOIZE + (pickle.MARK if len(e) > 1 else b'')]
        slots: list[str] = []
        for key, value in e.items():
            part = self.get(self.memo[id(key)])
            if key in ('addr', 'time_us'):
                parts[-1] += part
                slots.append(key)
                parts.append(b'')
                continue
            index = self.memo.get(id(value))
            part += self.get(index) if index is not None else encode_scalar(value)
            parts[-1] += part
        parts[-1] += pickle.SETITEMS if len(e) > 1 else pickle.SETITEM
        return parts, slots


class _Streamed:
    def __init__(self, entries: Iterator[Union[Entry, bytes]], length: int) -> None:
        self.entries = entries
        self.length = length


def encode_str(text: str) -> bytes:
    data = text.encode('utf-8', 'surrogatepass')
    n = len(data)
    if n <= 0xff:
        return pickle.SHORT_BINUNICODE + bytes([n]) + data
    if n > 0xffffffff:
        return pickle.BINUNICODE8 + struct.pack('<Q', n) + data
    return pickle.BINUNICODE + struct.pack('<I', n) + data


def encode_scalar(value: Any) -> bytes:
    """What CPython's pickler writes for None, a bool, an int or a float (protocol 4)."""
    if value is None:
        return pickle.NONE
    if value is True:
        return pickle.NEWTRUE
    if value is False:
        return pickle.NEWFALSE
    if isinstance(value, int):
        if 0 <= value <= 0xff:
            return pickle.BININT1 + bytes([value])
        if 0 <= value <= 0xffff:
            return pickle.BININT2 + struct.pack('<H', value)
        if -0x80000000 <= value <= 0x7fffffff:
            return pickle.BININT + struct.pack('<i', value)
        encoded = pickle.encode_long(value)
        n = len(encoded)
        return pickle.LONG1 + bytes([n]) + encoded if n < 256 else pickle.LONG4 + struct.pack('<i', n) + encoded
    if isinstance(value, float):
        return pickle.BINFLOAT + struct.pack('>d', value)
    raise TypeError(f'cannot write {type(value).__name__} in a snapshot')


def replay_summary(trace: list[Entry], segments: list[Entry], rep_ends: list[int]) -> dict[str, Any]:
    """Active bytes per the spec's replay: initial, final, the peak within each repetition (ending at
    the indices `rep_ends`), and how many blocks live at the end `segments` does not list."""
    live: dict[int, int] = {}
    ever: set[int] = set()
    active, freed_before = 0, 0
    peaks: list[int] = []
    peak: int | None = None
    ends = set(rep_ends)
    for i, e in enumerate(trace):
        action = e.get('action')
        if action == 'alloc':
            active += e['size']
            ever.add(e['addr'])
            live[e['addr']] = e['size']
        elif action == 'free_completed':
            active -= e['size']
            live.pop(e['addr'], None)
            if e['addr'] not in ever:
                freed_before += e['size']
        peak = active if peak is None else max(peak, active)
        if i in ends:
            peaks.append(peak)
            peak = None
    live_blocks = [b for s in segments for b in s.get('blocks', []) if b.get('state') in ('active_allocated', 'active_pending_free')]
    initial = freed_before + sum(b['size'] for b in live_blocks if b['address'] not in live)
    unlisted = len(set(live) - {b['address'] for b in live_blocks})
    return {'initialActive': initial, 'finalActive': initial + active, 'repetitionPeaks': sorted({p + initial for p in peaks}), 'liveNotInSegments': unlisted}


def verify(source_path: str, path: str, reps: int) -> None:
    """Reads a written file back and checks that repeated entries share their frames lists with the
    source's entries and that the event count is right; prints the replay of source and file (for a
    steady-state source: same initial and final active bytes, one peak for every repetition)."""
    source = load_source(source_path)
    with open(path, 'rb') as f:
        built = NoClassesUnpickler(f).load()
    original, trace = source['device_traces'][0], built['device_traces'][0]
    per_rep = sum(1 for e in original if e.get('action') not in SEGMENT_EVENTS)
    problems: list[str] = []
    if len(trace) != len(original) + (reps - 1) * per_rep:
        problems.append(f'{len(trace)} events, expected {len(original) + (reps - 1) * per_rep}')
    shared = {id(e['frames']) for e in trace[: len(original)] if 'frames' in e}
    if any(id(e['frames']) not in shared for e in trace[len(original):] if 'frames' in e):
        problems.append('a repeated entry has a frames list of its own')
    ends = [len(original) - 1 + k * per_rep for k in range(reps)]
    print(json.dumps({'path': path, 'source': replay_summary(original, source.get('segments', []), [len(original) - 1]),
                      'file': replay_summary(trace, built.get('segments', []), ends), 'problems': problems}))
    if problems:
        raise SystemExit(1)


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--source', required=True, help='a corpus snapshot with a device 0 trace')
    parser.add_argument('--sizes', default='100,500', help='target sizes in MB (10^6 bytes), comma-separated')
    parser.add_argument('--out', required=True, help='cache folder')
    parser.add_argument('--verify', action='store_true', help='read each file back and check sharing and the replay (needs ~7x the file size in memory)')
    parser.add_argument('--variant', choices=VARIANTS, help='the same events as the plain file of this size, in another shape')
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(',') if s.strip()]
    os.makedirs(args.out, exist_ok=True)
    source_hash = sha256(args.source)
    stem = os.path.splitext(os.path.basename(args.source))[0]
    generator: Generator | None = None
    for size in sizes:
        target = size * MB
        streamed = size > STREAM_ABOVE_MB
        path = os.path.join(args.out, f'{stem}-{size}MB{"-" + args.variant if args.variant else ""}.pickle')
        meta_path = path + '.meta.json'
        wanted = {'generator': GENERATOR_VERSION, 'source': os.path.basename(args.source), 'sourceSha256': source_hash, 'targetBytes': target}
        if streamed:
            wanted['streamed'] = STREAM_VERSION
        if args.variant:
            if streamed:
                raise SystemExit(f'--variant is for files up to {STREAM_ABOVE_MB} MB')
            wanted['variant'] = args.variant
        try:
            with open(meta_path) as f:
                meta = json.load(f)
            if all(meta.get(k) == v for k, v in wanted.items()) and os.path.getsize(path) == meta['bytes']:
                print(json.dumps({'path': path, 'bytes': meta['bytes'], 'reps': meta['reps'], 'events': meta['events'], 'cached': True}), flush=True)
                if args.verify:
                    verify(args.source, path, meta['reps'])
                continue
        except (OSError, ValueError, KeyError):
            pass
        if generator is None:
            generator = Generator(load_source(args.source))
        one = generator.pickled_size(1, streamed)
        per_rep = generator.pickled_size(2, streamed) - one
        reps = max(1, 1 + math.ceil((target - one) / per_rep))
        while True:
            # A variant's repetitions are the plain file's: sized by the plain pickle, written in its shape.
            events = generator.stream_write(reps, path) if streamed else generator.write(reps, path)
            written = os.path.getsize(path)
            if written >= target:
                break
            reps += max(1, math.ceil((target - written) / per_rep))
        if args.variant:
            events = generator.write(reps, path, args.variant)
            written = os.path.getsize(path)
        meta = dict(wanted, bytes=written, reps=reps, events=events, addressOffset=generator.offset, timeSpanUs=generator.span)
        with open(meta_path, 'w') as f:
            json.dump(meta, f, indent=1)
        print(json.dumps({'path': path, 'bytes': written, 'reps': reps, 'events': events, 'cached': False}), flush=True)
        if args.verify:
            verify(args.source, path, reps)


if __name__ == '__main__':
    main()
