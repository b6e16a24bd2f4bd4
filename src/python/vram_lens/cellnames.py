"""The file name ipykernel (6 and later) gives a cell's code, ``<tempdir>/ipykernel_<pid>/<hash>.py``: the hash is
MurmurHash2 (x86, 32-bit) of the cell's text as UTF-8 with the seed 0xC70F6907, in decimal. Written here from
that description (src/engine/notebook/murmur2.ts is the extension's; tests compare both with ipykernel's own),
so that a notebook run by Profile VRAM names its cells as a Jupyter kernel would and the extension finds them
the same way, and so that the kernel extension can tell which text a cell name stands for.
"""
from __future__ import annotations

import os
import tempfile

IPYKERNEL_HASH_SEED = 0xC70F6907
_M = 0x5BD1E995
_MASK = 0xFFFFFFFF


def murmur2_x86(data: bytes, seed: int) -> int:
    """MurmurHash2, x86 32-bit, of `data` with `seed` (an unsigned 32-bit integer)."""
    length = len(data)
    h = (seed ^ length) & _MASK
    end = length & ~3
    for i in range(0, end, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = ((h * _M) & _MASK) ^ k
    tail = length & 3
    if tail:
        k = int.from_bytes(data[end:], "little")
        h = ((h ^ k) * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h


def cell_hash(source: str) -> int:
    """The number ipykernel names the code of a cell with text `source` by."""
    return murmur2_x86(source.encode("utf-8"), IPYKERNEL_HASH_SEED)


def cell_file(source: str) -> str:
    """The file name ipykernel in this process would give a cell with text `source`."""
    return os.path.join(tempfile.gettempdir(), "ipykernel_%d" % os.getpid(), "%d.py" % cell_hash(source))
