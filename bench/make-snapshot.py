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
from the size of one repetition, then grown until the file reaches the target size.

usage: make-snapshot.py --source FILE --sizes 100,500 --out DIR [--verify]
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
from typing import Any

# A dict of a snapshot (the root, a segment, block or trace event), as recorded.
Entry = dict[str, Any]

GENERATOR_VERSION = 1
MB = 1000 * 1000
MAX_SAFE_INTEGER = 2**53 - 1
SHIFTED = ('alloc', 'free_requested', 'free_completed')
SEGMENT_EVENTS = ('segment_alloc', 'segment_free', 'segment_map', 'segment_unmap')


class NoClassesUnpickler(pickle.Unpickler):
    """Memory snapshots hold only dicts, lists, tuples, str, int, float, bool and None."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f'refusing to load class {module}.{name}: not a memory snapshot')


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

    def pickled_size(self, reps: int) -> int:
        sink = CountingSink()
        pickle.dump(self.snapshot(reps), sink, protocol=4)
        return sink.bytes

    def write(self, reps: int, path: str) -> int:
        obj = self.snapshot(reps)
        events = len(obj['device_traces'][0])
        tmp = path + '.tmp'
        with open(tmp, 'wb') as f:
            pickle.dump(obj, f, protocol=4)
        os.replace(tmp, path)
        return events


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
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(',') if s.strip()]
    os.makedirs(args.out, exist_ok=True)
    source_hash = sha256(args.source)
    stem = os.path.splitext(os.path.basename(args.source))[0]
    generator: Generator | None = None
    for size in sizes:
        target = size * MB
        path = os.path.join(args.out, f'{stem}-{size}MB.pickle')
        meta_path = path + '.meta.json'
        wanted = {'generator': GENERATOR_VERSION, 'source': os.path.basename(args.source), 'sourceSha256': source_hash, 'targetBytes': target}
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
            one = generator.pickled_size(1)
            per_rep = generator.pickled_size(2) - one
        reps = max(1, 1 + math.ceil((target - one) / per_rep))
        while True:
            events = generator.write(reps, path)
            written = os.path.getsize(path)
            if written >= target:
                break
            reps += max(1, math.ceil((target - written) / per_rep))
        meta = dict(wanted, bytes=written, reps=reps, events=events, addressOffset=generator.offset, timeSpanUs=generator.span)
        with open(meta_path, 'w') as f:
            json.dump(meta, f, indent=1)
        print(json.dumps({'path': path, 'bytes': written, 'reps': reps, 'events': events, 'cached': False}), flush=True)
        if args.verify:
            verify(args.source, path, reps)


if __name__ == '__main__':
    main()
