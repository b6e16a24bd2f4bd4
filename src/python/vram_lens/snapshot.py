"""Snapshot writing: take PyTorch's memory snapshot and write it as a pickle, atomically. Free of the
Profile VRAM runner (a notebook magic can use it too); it only calls torch when asked for a snapshot.

- ``take_snapshot(torch)``: ``torch.cuda.memory._snapshot()``, with torch.compile's FX traces where this
  PyTorch can add them.
- ``write_snapshot(data, path)``: pickle protocol 4 to ``path + ".partial"``, then renamed over ``path``
  (a reader never sees half a file); returns the file's size.
- ``rank_path(path)``: the file of this process when every rank of a torchrun job writes its own.
"""
from __future__ import annotations

import os
import pickle
from typing import Mapping

from .recording import Torch, parameters


def take_snapshot(torch: Torch) -> object:
    """torch.cuda.memory._snapshot(), with FX traces where this PyTorch can add them (torch.compile'd code)."""
    snapshot = torch.cuda.memory._snapshot
    if "augment_with_fx_traces" in parameters(snapshot):
        try:
            return snapshot(augment_with_fx_traces=True)
        except Exception:
            pass
    return snapshot()


def write_snapshot(data: object, path: str) -> int:
    """Writes `data` to `path` (creating its folder) through a temporary file; returns the file's size."""
    tmp = path + ".partial"
    try:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            os.makedirs(folder)
        with open(tmp, "wb") as f:
            pickle.dump(data, f, protocol=4)
        os.replace(tmp, path)
        return os.path.getsize(path)
    except Exception:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def rank_path(path: str, environ: Mapping[str, str] | None = None) -> str:
    """`snapshot.pickle` -> `snapshot.rank3.pickle` for rank 3 (RANK, else LOCAL_RANK, else 0)."""
    env = os.environ if environ is None else environ
    rank = env.get("RANK") or env.get("LOCAL_RANK") or "0"
    root, ext = os.path.splitext(path)
    return "%s.rank%s%s" % (root, rank, ext or ".pickle")
