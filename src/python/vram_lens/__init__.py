"""VRAM Lens's Python side: runs a program under PyTorch's CUDA memory recording and writes the memory
snapshot when it ends (the ``VRAM Lens: Profile VRAM`` command starts it; usable by hand too)::

    python src/python/vram_lens --snapshot out.pickle [options] --script train.py -- --epochs 1
    python src/python/vram_lens --snapshot out.pickle [options] --module pkg.train -- --epochs 1
    python src/python/vram_lens --snapshot out.pickle [options] --notebook train.ipynb

The program runs as ``__main__`` with its own ``sys.argv``, ``sys.path[0]`` and working directory. Nothing of
ours imports torch or touches CUDA before the program does: recording starts inside the program's first CUDA
initialisation. The snapshot (pickle protocol 4) is written when the program returns, raises, exits, runs out
of GPU memory (at the failure) or is cancelled. Small JSON records (one per line) go to the channel given by
``--channel`` (a Unix socket or a Windows named pipe), never to the program's stdout or stderr. Python 3.7+.

Modules (importing one never imports torch):

- ``recording``: which form of ``torch.cuda.memory._record_memory_history`` a PyTorch has, and the call that
  starts recording. Reusable outside the runner (a notebook magic):

  - ``recording_form(torch) -> "2.1" | "2.0" | None``: ``"2.1"`` has ``enabled``/``context``/``stacks``/
    ``max_entries`` (free stacks, timestamps); ``"2.0"`` is the boolean form with ``trace_alloc_*``; None: this
    PyTorch cannot record (older than 2.0, or no ``torch.cuda.memory._snapshot``).
  - ``recording_arguments(torch, form, max_entries, stacks) -> (args, kwargs)``: the call's arguments, with the
    newest optional ones this PyTorch has (``global_record_annotations``, ``compile_context``); ``stacks`` is
    ``"python"`` or ``"all"``.
  - ``start_recording(torch, form, max_entries, stacks)``: makes the call (raises what PyTorch raises, e.g.
    under the cudaMallocAsync allocator). Call it once CUDA initialises (``torch.cuda._lazy_call``) or later.
  - ``parameters(function)``: a function's parameters, or none when Python cannot tell.
  - ``Torch``: the type this package gives the torch module (``Any``: its API varies by version).

- ``snapshot``: ``take_snapshot(torch)`` (with torch.compile's FX traces where PyTorch can add them),
  ``write_snapshot(data, path) -> size`` (atomic: a ``.partial`` file renamed), ``rank_path(path)``.
  Reusable outside the runner.
- ``importhook``: ``watch_torch_import(on_import)``: a callback once the program's own ``import torch`` has
  finished, before its next line. Reusable outside the runner.
- ``ranges``: backward ranges: backward on the calling thread and a ``record_function`` range per module call
  over its part of the backward pass (PyTorch 2.0+), and the lines that called each module.
- ``channel``: the progress channel, one method per record type.
- ``protocol``: exit codes and the names in the records (mirrored by src/protocol/profile.ts; a test compares).
- ``options``: the command line. ``session``: the recording state, torch's arrival and CUDA's initialisation.
  ``run``: run and exit (``main``). ``frames``: which frames are ours (the program's traceback never shows them,
  and the analysis counts them as library code: ``PROFILER_LIBRARY_PATHS`` in src/engine/analysis/frameFilter.ts).
- ``notebookrun``: ``--notebook PATH``: a notebook's code cells run top to bottom in an IPython shell, named as
  ipykernel names them (``cellnames``: the file name ipykernel gives a cell's code, MurmurHash2 of its text).
- ``notebook``: the kernel extension for the user's own Jupyter kernel (``%load_ext vram_lens.notebook``):
  ``%%vram`` records a cell, ``%vram start`` / ``%vram stop`` a span of cells; it reuses ``recording``,
  ``snapshot`` and ``importhook``.
- ``__main__``: the entry the runner starts.

Checked by ``mypy --strict`` and ``flake8`` in ``npm test`` (scripts/check-python.mjs, setup.cfg).
"""
