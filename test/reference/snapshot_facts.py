#!/usr/bin/env python3
"""Raw facts about snapshot files, read straight from the pickles, for the advisor's tests.

Independent of the TypeScript code: it reads the trace entries with the oracle's plain-data
unpickler and counts what the advice rules rest on.

Usage: python3 test/reference/snapshot_facts.py FILE [FILE ...]
Prints one JSON object: path -> {"devices": [{
    "device": N,
    "ooms": [{"index": i, "size": bytes, "device_free": bytes or null}],
    "segmentReleases": count of segment_free + segment_unmap entries,
    "releaseBursts": [index of the first release of each burst]  (a burst ends at any alloc,
                     segment_alloc or segment_map entry),
    "reReservedSameSize": count of segment_alloc/segment_map entries whose size equals an
                     earlier, not yet matched release,
    "emptyCacheReleases": releases whose frames include torch/cuda/memory.py empty_cache,
}]}
"""

import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spec_reference import load_snapshot  # noqa: E402


def device_facts(device: int, trace: list[dict[str, Any]]) -> dict[str, Any]:
    ooms: list[dict[str, Any]] = []
    releases = 0
    bursts: list[int] = []
    in_burst = False
    pending: dict[Any, int] = {}
    re_reserved = 0
    empty_cache = 0
    for i, e in enumerate(trace):
        action = e.get("action")
        size = e.get("size", 0)
        if action == "oom":
            ooms.append({"index": i, "size": size, "device_free": e.get("device_free")})
        elif action in ("segment_free", "segment_unmap"):
            releases += 1
            if not in_burst:
                bursts.append(i)
            in_burst = True
            pending[size] = pending.get(size, 0) + 1
            for f in e.get("frames") or []:
                name = str(f.get("filename", "")).replace("\\", "/")
                if f.get("name") == "empty_cache" and name.endswith("torch/cuda/memory.py"):
                    empty_cache += 1
                    break
        elif action in ("segment_alloc", "segment_map"):
            in_burst = False
            if pending.get(size, 0) > 0:
                pending[size] -= 1
                re_reserved += 1
        elif action == "alloc":
            in_burst = False
    return {
        "device": device,
        "ooms": ooms,
        "segmentReleases": releases,
        "releaseBursts": bursts,
        "reReservedSameSize": re_reserved,
        "emptyCacheReleases": empty_cache,
    }


def main(paths: list[str]) -> None:
    out: dict[str, Any] = {}
    for path in paths:
        data = load_snapshot(path)
        traces = [] if isinstance(data, list) else data.get("device_traces") or []
        out[path] = {"devices": [device_facts(d, t) for d, t in enumerate(traces)]}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
