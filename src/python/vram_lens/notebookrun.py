"""Profile VRAM on a notebook: its code cells run top to bottom, as "Run All" runs them, in an IPython shell in
this process (so that magics, ``!`` commands and ``get_ipython()`` work), each cell's code named as ipykernel
names it (``cellnames``): the extension finds the cells of the snapshot the same way as a kernel's. Like
"Run All", the first cell that raises ends the run, with its exception (an out-of-memory error included).
Without IPython in the interpreter it says so (``NoIPythonError``) and runs nothing.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any, List

from .cellnames import cell_file


class NoIPythonError(RuntimeError):
    """The interpreter has no IPython to run the notebook's cells in (the run reports a `no-ipython` problem)."""

    advice = "Install ipykernel (or ipython) in that environment, or choose an interpreter that has it (Python: Select Interpreter)."


class NotebookError(ValueError):
    """The file is not a notebook the runner can read."""


def code_cells(path: str) -> List[str]:
    """The text of each code cell of an nbformat 4 notebook, in order (a list of strings joined as they are)."""
    with open(path, encoding="utf-8-sig") as f:
        try:
            notebook = json.load(f)
        except ValueError as e:
            raise NotebookError("%s is not a notebook (not JSON: %s)" % (path, e))
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("%s is not an nbformat 4 notebook (no \"cells\" list)" % path)
    sources: List[str] = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        sources.append(source if isinstance(source, str) else "".join(str(part) for part in source))
    return sources


def _shell() -> Any:
    """An IPython shell for this process, its history kept in memory (the user's history file is not written)."""
    try:
        shell_module: Any = importlib.import_module("IPython.core.interactiveshell")
        config_module: Any = importlib.import_module("traitlets.config")
    except ImportError:
        raise NoIPythonError("Profile VRAM runs a notebook's cells in IPython (so that magics work), and %s has no IPython." % sys.executable)
    config = config_module.Config()
    config.HistoryManager.hist_file = ":memory:"
    config.InteractiveShell.colors = "NoColor"  # tracebacks go to the Output channel, which shows no terminal colours
    return shell_module.InteractiveShell.instance(config=config)


def run_notebook(path: str, held: List[object]) -> None:
    """Runs the notebook's code cells; the shell's namespace goes into `held` (its tensors live at the end dump)."""
    sources = code_cells(path)
    shell = _shell()
    # Every cell's code under the name ipykernel would give it (IPython's own would be <ipython-input-N-...>).
    shell.compile.get_code_name = lambda raw_code, transformed_code, number: cell_file(raw_code)
    held.append(shell.user_ns)
    for source in sources:
        result = shell.run_cell(source, store_history=True)
        error = result.error_before_exec or result.error_in_exec
        if error is not None:
            # IPython has shown the cell's traceback already; the run ends with its exception.
            setattr(error, "vram_lens_shown", True)
            raise error


def notebook_folder(path: str) -> str:
    """The folder Jupyter starts a notebook's kernel in: the notebook's own."""
    return os.path.dirname(os.path.abspath(path))
