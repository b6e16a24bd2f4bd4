"""The entry the Profile VRAM runner starts: ``python <extension>/src/python/vram_lens/__main__.py OPTIONS``.

Also ``python src/python/vram_lens OPTIONS`` (the folder) or, with src/python on the path,
``python -m vram_lens OPTIONS``. Started as a file or a folder, Python puts this package's own folder first on
sys.path: it is replaced by the folder above (so that ``vram_lens`` imports as a package), and then by the
program's folder (run.py) before the program runs, so the program never imports our modules by their bare names.

This file stays valid Python 3.6 (no ``from __future__ import annotations``), so that an interpreter too old
for the package says so instead of failing on a syntax error.
"""
import os
import sys


def _launch() -> int:
    if not __package__:  # a file or a folder, not `-m vram_lens`
        sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if sys.version_info < (3, 7):
        from vram_lens.protocol import EXIT_NO_RECORDING_API

        sys.stderr.write(
            "VRAM Lens: Profile VRAM needs Python 3.7 or newer, and PyTorch's memory recording PyTorch 2.0 or newer "
            "(Python 3.8 or newer); %s is Python %s.\n" % (sys.executable, sys.version.split()[0])
        )
        return EXIT_NO_RECORDING_API
    # Our modules are read from source and leave no __pycache__ beside them (in the installed extension, or a
    # checkout); the program's own imports write bytecode as they would without us.
    writes_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        from vram_lens.run import main
    finally:
        sys.dont_write_bytecode = writes_bytecode
    return main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(_launch())
