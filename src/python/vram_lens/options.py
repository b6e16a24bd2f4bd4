"""The bootstrap's command line: its options up to ``--script``/``--module``/``--notebook``, then the program's
arguments."""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from .protocol import EXIT_USAGE

if TYPE_CHECKING:
    from typing_extensions import NoReturn

    from .recording import Stacks

USAGE = (
    "usage: python src/python/vram_lens --snapshot PATH [--channel ADDRESS] [--cancel-file PATH]\n"
    "       [--max-entries N] [--stacks python|all] [--interval SECONDS] [--per-rank] [--backward-lines on|off]\n"
    "       [--predict-memory BYTES [--predict-gpu NAME] [--predict-capability X.Y] [--predict-data fake|cpu]\n"
    "        [--native-cache DIR]]\n"
    "       (--script PATH | --module NAME | --notebook PATH) [-- ARGS...]\n"
)


class Options:
    """What the command line asked for (the defaults are the runner's)."""

    def __init__(self) -> None:
        self.snapshot = ""  # absolute: the program may chdir
        self.channel: str | None = None
        self.cancel_file: str | None = None
        self.max_entries = 1000000
        self.stacks: Stacks = "python"
        self.interval = 0.25  # seconds between progress samples
        self.per_rank = False  # one snapshot per torchrun rank (snapshot.rankN.pickle)
        self.backward_lines = True
        self.script: str | None = None
        self.module: str | None = None
        self.notebook: str | None = None  # an .ipynb: its code cells run in an IPython shell (notebookrun.py)
        self.args: tuple[str, ...] = ()  # the program's own arguments
        # Predict VRAM (prediction.py): fake 'cuda' tensors and the snapshot this GPU would record.
        self.predict_memory: int | None = None  # the GPU's memory in bytes; set: predict instead of recording
        self.predict_gpu: str | None = None
        self.predict_capability: tuple[int, int] = (8, 0)
        self.predict_data = "fake"  # "cpu": each fake storage has a real CPU twin (realdata.py)
        self.native_cache: str | None = None  # where the prediction's native library is cached

    @property
    def predict(self) -> bool:
        return self.predict_memory is not None


def usage(message: str) -> NoReturn:
    sys.stderr.write("vram_lens: %s\n" % message)
    sys.stderr.write(USAGE)
    sys.exit(EXIT_USAGE)


_VALUED = {
    "--snapshot", "--channel", "--cancel-file", "--max-entries", "--stacks", "--interval", "--backward-lines",
    "--script", "--module", "--notebook", "--predict-memory", "--predict-gpu", "--predict-capability", "--predict-data", "--native-cache",
}

_STACKS: dict[str, Stacks] = {"python": "python", "all": "all"}


def parse(argv: list[str]) -> Options:
    """Options up to `--script`/`--module`; everything after the target (past an optional `--`) is the program's."""
    o = Options()
    snapshot: str | None = None
    i = 0
    while i < len(argv):
        flag = argv[i]
        if flag == "--per-rank":
            o.per_rank = True
            i += 1
            continue
        if flag not in _VALUED:
            usage("unknown option %r" % flag)
        if i + 1 >= len(argv):
            usage("%s needs a value" % flag)
        value = argv[i + 1]
        i += 2
        if flag == "--snapshot":
            snapshot = os.path.abspath(value)  # the program may chdir
        elif flag == "--channel":
            o.channel = value if os.name == "nt" else os.path.abspath(value)
        elif flag == "--cancel-file":
            o.cancel_file = os.path.abspath(value)
        elif flag == "--backward-lines":
            if value not in ("on", "off"):
                usage("--backward-lines must be 'on' or 'off'")
            o.backward_lines = value == "on"
        elif flag == "--max-entries":
            try:
                o.max_entries = int(value)
            except ValueError:
                usage("--max-entries must be an integer")
        elif flag == "--stacks":
            stacks = _STACKS.get(value)
            if stacks is None:
                usage("--stacks must be 'python' or 'all'")
            o.stacks = stacks
        elif flag == "--predict-memory":
            if not value.isdigit() or int(value) <= 0:
                usage("--predict-memory must be a number of bytes")
            o.predict_memory = int(value)
        elif flag == "--predict-gpu":
            o.predict_gpu = value
        elif flag == "--predict-capability":
            major, _, minor = value.partition(".")
            if not major.isdigit() or not (minor or "0").isdigit():
                usage("--predict-capability must be MAJOR.MINOR (8.0 for an A100, 9.0 for an H100)")
            o.predict_capability = (int(major), int(minor or "0"))
        elif flag == "--predict-data":
            if value not in ("fake", "cpu"):
                usage("--predict-data must be 'fake' (no data: values assumed) or 'cpu' (the program's data, computed on the CPU)")
            o.predict_data = value
        elif flag == "--native-cache":
            o.native_cache = os.path.abspath(value)
        elif flag == "--interval":
            try:
                o.interval = max(0.02, float(value))
            except ValueError:
                usage("--interval must be a number of seconds")
        else:
            if flag == "--script":
                o.script = value
            elif flag == "--notebook":
                o.notebook = value
            else:
                o.module = value
            rest = argv[i:]
            o.args = tuple(rest[1:] if rest[:1] == ["--"] else rest)
            break
    if snapshot is None:
        usage("--snapshot is required")
    o.snapshot = snapshot
    if o.script is None and o.module is None and o.notebook is None:
        usage("--script, --module or --notebook is required")
    return o
