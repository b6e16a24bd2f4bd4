"""Run and exit: the program as ``__main__`` under recording, and how the bootstrap ends.

The snapshot is written when the program returns, raises, calls ``sys.exit`` or ``os._exit``, runs out of GPU
memory (at the failure, by PyTorch's OOM observer, so everything live then is in it) or is cancelled (SIGINT,
SIGTERM, or the cancel file appearing: the sampler thread polls it). The exit code is the program's own, or
one of protocol.py's EXIT_* codes.
"""
from __future__ import annotations

import _thread
import os
import runpy
import signal
import sys
import threading
import traceback
from types import FrameType
from typing import TYPE_CHECKING

from .channel import Channel
from .frames import strip_bootstrap_frames
from .importhook import watch_torch_import
from .notebookrun import NoIPythonError, notebook_folder, run_notebook
from .options import Options, parse
from .protocol import EXIT_CANCELLED, EXIT_EXCEPTION, EXIT_OOM, EXIT_PREDICT_UNAVAILABLE
from .recording import Torch
from .session import Session, on_torch_imported

if TYPE_CHECKING:
    from typing_extensions import NoReturn

    from .protocol import Outcome

_MAIN_PID = os.getpid()


def main(argv: list[str]) -> int:
    """Runs the program that `argv` names under recording; returns the exit code."""
    signal.signal(signal.SIGINT, _cancel_before_start)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, _cancel_before_start)
    options = parse(argv)
    channel = Channel(options.channel)
    session = Session(options, channel)

    def after_fork_in_child() -> None:
        session.forked = True
        channel.close_in_child()

    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=after_fork_in_child)
    ended = _Ended()
    _guard_os_exit(session, ended)
    if options.predict and not _prepare_prediction(session):
        return EXIT_PREDICT_UNAVAILABLE
    stop_sampler = _start_sampler(session)
    _install_cancel_handlers(session)
    session.import_hook = watch_torch_import(lambda torch: on_torch_imported(session, torch))
    outcome: Outcome = "completed"
    code = 0
    exception: str | None = None
    message: str | None = None
    held: list[object] = []  # the program's globals, or its exception and traceback: alive until the end dump
    try:
        _run_target(options, held)
    except SystemExit as e:
        held.append(e)
        code = _exit_code(e)
        outcome = "cancelled" if session.cancelled else ("completed" if code == 0 else "exit")
        if session.cancelled:
            code = EXIT_CANCELLED
    except KeyboardInterrupt as e:
        held.append(e)
        outcome, code = "cancelled", EXIT_CANCELLED
        if not session.cancelled:  # interrupted from a terminal rather than the Cancel button
            session.cancelled = True
    except BaseException as e:
        held.append(e)
        oom = _oom_in_chain(session.torch, e) if session.torch is not None else None
        if session.cancelled:
            outcome, code = "cancelled", EXIT_CANCELLED
        elif oom is not None:
            outcome, code = "oom", EXIT_OOM
        else:
            outcome, code = "exception", EXIT_EXCEPTION
        exception, message = type(e).__name__, str(oom if oom is not None else e)[:2000]
        _report_exception(e)
    finally:
        stop_sampler.set()
    if session.forked or os.getpid() != _MAIN_PID:
        return code  # a raw os.fork() child leaving through the program's own stack: not ours to report
    ended.value = True
    _finish(session, outcome, code, exception, message)
    del held[:]
    sys.stdout.flush()
    sys.stderr.flush()
    return code


def _prepare_prediction(session: Session) -> bool:
    """Predict VRAM: the native library for the program's torch, before the program (and torch) starts."""
    from .nativecuda import PredictUnavailable
    from .prediction import prepare

    try:
        session.prepared = prepare(session.options)
    except PredictUnavailable as e:
        session.report_problem("predict-unavailable", e.message, e.advice)
        session.channel.end(outcome="exit", code=EXIT_PREDICT_UNAVAILABLE, snapshot=session.snapshot_path, recorded=False, t=session.elapsed())
        return False
    return True


def _run_target(options: Options, held: list[object]) -> None:
    """Runs the program; its module globals go into `held` so module-level tensors are live at the end dump."""
    if options.notebook is not None:
        notebook = os.path.abspath(options.notebook)
        sys.argv = [notebook] + list(options.args)
        sys.path[0] = notebook_folder(notebook)
        run_notebook(notebook, held)
    elif options.script is not None:
        script = os.path.abspath(options.script)
        sys.argv = [script] + list(options.args)
        sys.path[0] = os.path.dirname(script)
        held.append(runpy.run_path(script, run_name="__main__"))
    else:
        assert options.module is not None  # parse() requires one of the two
        sys.argv = [options.module] + list(options.args)
        sys.path[0] = os.getcwd()
        held.append(runpy.run_module(options.module, run_name="__main__", alter_sys=True))


def _exit_code(exc: SystemExit) -> int:
    """What `sys.exit(code)` makes the interpreter exit with (printing a non-integer code, as Python does)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write("%s\n" % code)
    return 1


def _oom_in_chain(torch: Torch, exc: BaseException) -> BaseException | None:
    """The CUDA out-of-memory error behind `exc`: itself, or its cause or context (`raise X from oom`)."""
    oom_type = getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None)
    seen = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        typed = oom_type is not None and isinstance(link, oom_type)
        if typed or (isinstance(link, RuntimeError) and "CUDA out of memory" in str(link)):
            return link
        link = link.__cause__ if link.__cause__ is not None else link.__context__
    return None


def _report_exception(exc: BaseException) -> None:
    """The traceback as Python prints it for the program, without the bootstrap's and runpy's frames (a notebook
    cell's was shown by IPython already)."""
    if getattr(exc, "vram_lens_shown", False):
        return
    strip_bootstrap_frames(exc)
    tb = exc.__traceback__  # Python 3.11+ prints the exception's own traceback, not the one passed
    try:
        sys.excepthook(type(exc), exc, tb)
    except Exception:
        traceback.print_exception(type(exc), exc, tb)


def _finish(session: Session, outcome: Outcome, code: int, exception: str | None, message: str | None) -> None:
    """The end dump (unless the OOM dump speaks for an OOM ending) and the end records."""
    if session.dumped_reason is None or (session.dumped_reason == "oom" and outcome != "oom"):
        session.dump("cancel" if outcome == "cancelled" else "oom" if outcome == "oom" else "end")
    if session.recording:
        session.channel.progress(t=session.elapsed(), devices=session.sample())
    elif session.problem is None:
        _explain_unrecorded(session, exception, message)
    session.channel.end(
        outcome=outcome,
        code=code,
        snapshot=session.snapshot_path,
        recorded=session.dumped_reason is not None,
        t=session.elapsed(),
        exception=exception,
        message=message,
    )


def _explain_unrecorded(session: Session, exception: str | None, message: str | None) -> None:
    """The program ended and recording never started: why (it never imported torch or never used CUDA)."""
    torch = session.torch
    if exception == "NoIPythonError":  # a notebook, and no IPython to run its cells in: nothing ran
        session.report_problem("no-ipython", message or "", NoIPythonError.advice, python=sys.executable)
        return
    if torch is None:
        if exception == "ModuleNotFoundError" and "'torch'" in (message or ""):
            session.report_problem(
                "no-torch",
                "PyTorch is not installed for %s." % sys.executable,
                "Select the interpreter of the environment that has PyTorch (Python: Select Interpreter), or set "
                "vramLens.pythonPath.",
                python=sys.executable,
            )
            return
        failed = getattr(session.import_hook, "failed", None)
        if failed is not None:
            session.report_problem(
                "torch-import-failed",
                "PyTorch failed to import: %s: %s" % (type(failed).__name__, failed),
                "Check that `%s -c \"import torch\"` works in a terminal." % sys.executable,
                python=sys.executable,
            )
            return
        session.report_problem("no-torch", "The program never imported torch: there was no GPU memory to record.", "")
        return
    try:
        available = torch.cuda.is_available()  # the program is over: asking now changes nothing for it
    except Exception:
        available = False
    if not available:
        session.report_problem(
            "no-gpu",
            "PyTorch %s sees no GPU: nothing was recorded." % getattr(torch, "__version__", "?"),
            "Check `nvidia-smi` and CUDA_VISIBLE_DEVICES (now %r); on a remote machine, open the folder there "
            "(Remote-SSH) so the program runs where the GPU is." % os.environ.get("CUDA_VISIBLE_DEVICES"),
            cudaVisibleDevices=os.environ.get("CUDA_VISIBLE_DEVICES"),
        )
    else:
        session.report_problem("cuda-unused", "The program never used CUDA: there was no GPU memory to record.", "")


class _Ended:
    """Whether the end records were written (by main or by the os._exit guard): they are written once."""

    value = False


def _guard_os_exit(session: Session, ended: _Ended) -> None:
    """os._exit() skips every `finally`: the snapshot and the end record are written first (recorded process only)."""
    real_exit = os._exit

    def _exit(code: int) -> NoReturn:
        if os.getpid() == _MAIN_PID and not session.forked and not ended.value:
            ended.value = True
            try:
                _finish(session, "completed" if code == 0 else "exit", code, None, None)
                sys.stdout.flush()
                sys.stderr.flush()
            except BaseException:
                pass
        real_exit(code)

    setattr(os, "_exit", _exit)


def _start_sampler(session: Session) -> threading.Event:
    """A daemon thread: a progress record every interval, and the cancel file's check."""
    stop = threading.Event()
    cancel_file = session.options.cancel_file

    def run() -> None:
        while not stop.wait(session.options.interval):
            if cancel_file and not session.cancelled and os.path.exists(cancel_file):
                _thread.interrupt_main()
            session.channel.progress(t=session.elapsed(), devices=session.sample())

    thread = threading.Thread(target=run, name="vram-lens-sampler", daemon=True)
    thread.start()
    return stop


def _install_cancel_handlers(session: Session) -> None:
    def on_signal(signum: int, frame: FrameType | None) -> None:
        if os.getpid() != _MAIN_PID:
            raise KeyboardInterrupt
        if session.dumping:
            return  # finish the snapshot being written; the extension's grace period covers a hang
        if not session.cancelled and not session.forked:
            session.cancelled = True
            session.channel.cancelling(signal=signum, t=session.elapsed())
            session.dump("cancel")
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_signal)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, on_signal)


def _cancel_before_start(signum: int, frame: FrameType | None) -> NoReturn:
    """Cancel while torch is still importing (which can take seconds): nothing ran, nothing to dump."""
    sys.stderr.write("VRAM Lens: cancelled before the program started.\n")
    os._exit(EXIT_CANCELLED)
