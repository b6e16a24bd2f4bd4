"""Run a Python program under PyTorch's CUDA memory recording and dump the snapshot when it ends.

Started by the VRAM Lens extension (``VRAM Lens: Profile VRAM``); usable by hand too::

    python vram_lens_bootstrap.py --snapshot out.pickle [options] --script train.py -- --epochs 1
    python vram_lens_bootstrap.py --snapshot out.pickle [options] --module pkg.train -- --epochs 1

The program runs as ``__main__`` with its own ``sys.argv``, ``sys.path[0]`` and working directory.
The snapshot (pickle protocol 4) is written when the program returns, raises, calls ``sys.exit``,
runs out of GPU memory (at the failure, so everything live then is in it) or is cancelled (SIGINT,
SIGTERM, or the cancel file appearing). Small JSON records (one per line) go to the channel given by
``--channel`` (a Unix socket or a Windows named pipe), never to the program's stdout or stderr.

Exit codes: the program's own, or one of the EXIT_* codes below (mirrored in
src/core/profile/protocol.ts).
"""

import json
import os
import pickle
import signal
import socket
import sys
import threading
import time
import traceback

EXIT_EXCEPTION = 1
EXIT_USAGE = 86
EXIT_NO_TORCH = 87
EXIT_NO_CUDA_BUILD = 88
EXIT_NO_GPU = 89
EXIT_NO_RECORDING_API = 90
EXIT_OOM = 91
EXIT_CANCELLED = 130

_MAIN_PID = os.getpid()
_THIS_FILE = os.path.abspath(__file__)


class _Options:
    snapshot = None
    channel = None
    cancel_file = None
    max_entries = 1000000
    stacks = "python"
    interval = 0.25
    per_rank = False
    script = None
    module = None
    args = ()


def _usage(message):
    sys.stderr.write("vram_lens_bootstrap: %s\n" % message)
    sys.stderr.write(
        "usage: vram_lens_bootstrap.py --snapshot PATH [--channel ADDRESS] [--cancel-file PATH]\n"
        "       [--max-entries N] [--stacks python|all] [--interval SECONDS] [--per-rank]\n"
        "       (--script PATH | --module NAME) [-- ARGS...]\n"
    )
    sys.exit(EXIT_USAGE)


def _parse(argv):
    """Options up to `--script`/`--module`; everything after the target (past an optional `--`) is the program's."""
    o = _Options()
    i = 0
    valued = {"--snapshot", "--channel", "--cancel-file", "--max-entries", "--stacks", "--interval", "--script", "--module"}
    while i < len(argv):
        flag = argv[i]
        if flag == "--per-rank":
            o.per_rank = True
            i += 1
            continue
        if flag not in valued:
            _usage("unknown option %r" % flag)
        if i + 1 >= len(argv):
            _usage("%s needs a value" % flag)
        value = argv[i + 1]
        i += 2
        if flag == "--snapshot":
            o.snapshot = value
        elif flag == "--channel":
            o.channel = value
        elif flag == "--cancel-file":
            o.cancel_file = value
        elif flag == "--max-entries":
            try:
                o.max_entries = int(value)
            except ValueError:
                _usage("--max-entries must be an integer")
        elif flag == "--stacks":
            if value not in ("python", "all"):
                _usage("--stacks must be 'python' or 'all'")
            o.stacks = value
        elif flag == "--interval":
            try:
                o.interval = max(0.02, float(value))
            except ValueError:
                _usage("--interval must be a number of seconds")
        else:
            if flag == "--script":
                o.script = value
            else:
                o.module = value
            rest = argv[i:]
            o.args = tuple(rest[1:] if rest[:1] == ["--"] else rest)
            break
    if o.snapshot is None:
        _usage("--snapshot is required")
    if o.script is None and o.module is None:
        _usage("--script or --module is required")
    return o


class _Channel:
    """Line-delimited JSON records to the extension; silently inert when there is no channel."""

    def __init__(self, address):
        self._lock = threading.Lock()
        self._out = None
        self._base = {"pid": os.getpid()}
        rank = os.environ.get("RANK")
        if rank is not None and rank.isdigit():
            self._base["rank"] = int(rank)
        if not address:
            return
        try:
            if os.name == "nt":
                self._out = open(address, "wb", buffering=0)
            else:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(address)
                self._out = s.makefile("wb", buffering=0)
        except OSError as e:
            sys.stderr.write("vram_lens_bootstrap: cannot reach the progress channel (%s); running without live progress\n" % e)

    def send(self, kind, **fields):
        if self._out is None:
            return
        record = dict(self._base)
        record["type"] = kind
        record.update(fields)
        data = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")
        with self._lock:
            try:
                self._out.write(data)
            except (OSError, ValueError):
                self._out = None


class _Session:
    """Recording state shared by the main thread, the signal handlers, the OOM observer and the sampler."""

    def __init__(self, options, channel):
        self.options = options
        self.channel = channel
        self.torch = None
        self.started = time.monotonic()
        self.snapshot_path = _rank_path(options.snapshot) if options.per_rank else options.snapshot
        self.dump_lock = threading.Lock()
        self.dumped_reason = None
        self.dumping = False
        self.cancelled = False
        self.oom_dumped = False

    def elapsed(self):
        return round(time.monotonic() - self.started, 3)

    def dump(self, reason):
        """Write the snapshot once per reason class; the OOM dump is kept when the program dies of that OOM."""
        with self.dump_lock:
            self.dumping = True
            self.channel.send("dumping", reason=reason, t=self.elapsed())
            began = time.monotonic()
            tmp = self.snapshot_path + ".partial"
            try:
                data = self.torch.cuda.memory._snapshot()
                folder = os.path.dirname(os.path.abspath(self.snapshot_path))
                if not os.path.isdir(folder):
                    os.makedirs(folder)
                with open(tmp, "wb") as f:
                    pickle.dump(data, f, protocol=4)
                os.replace(tmp, self.snapshot_path)
                self.dumped_reason = reason
                self.channel.send(
                    "dumped",
                    reason=reason,
                    path=self.snapshot_path,
                    bytes=os.path.getsize(self.snapshot_path),
                    seconds=round(time.monotonic() - began, 3),
                )
            except Exception as e:  # the program's outcome still matters more than our file
                self.channel.send("dump-failed", reason=reason, message="%s: %s" % (type(e).__name__, e))
                sys.stderr.write("VRAM Lens: could not write the memory snapshot: %s: %s\n" % (type(e).__name__, e))
                try:
                    os.remove(tmp)
                except OSError:
                    pass
            finally:
                self.dumping = False

    def sample(self):
        cuda = self.torch.cuda
        devices = []
        try:
            if not cuda.is_initialized():
                return devices
            for index in range(cuda.device_count()):
                reserved = cuda.memory_reserved(index)
                peak_reserved = cuda.max_memory_reserved(index)
                if peak_reserved == 0 and reserved == 0:
                    continue
                devices.append(
                    {
                        "index": index,
                        "allocated": cuda.memory_allocated(index),
                        "peakAllocated": cuda.max_memory_allocated(index),
                        "reserved": reserved,
                        "peakReserved": peak_reserved,
                    }
                )
        except Exception:
            pass
        return devices


def _rank_path(path):
    rank = os.environ.get("RANK") or os.environ.get("LOCAL_RANK") or "0"
    root, ext = os.path.splitext(path)
    return "%s.rank%s%s" % (root, rank, ext or ".pickle")


def _fail(channel, code, exit_code, message, advice, **detail):
    """An environment problem: one clear paragraph on stderr, one record, a distinct exit code; no traceback."""
    channel.send("error", code=code, message=message, advice=advice, detail=detail)
    sys.stderr.write("VRAM Lens: %s\n%s\n" % (message, advice))
    sys.exit(exit_code)


def _preflight(channel):
    """Imports torch and checks CUDA and the recording API; returns (torch, api) or exits with a clear reason."""
    interpreter = sys.executable
    try:
        import torch
    except ImportError as e:
        if getattr(e, "name", None) == "torch":
            _fail(
                channel,
                "no-torch",
                EXIT_NO_TORCH,
                "PyTorch is not installed for %s." % interpreter,
                "Select the interpreter of the environment that has PyTorch (Python: Select Interpreter), "
                "or set vramLens.pythonPath.",
                python=interpreter,
            )
        _fail(
            channel,
            "torch-import-failed",
            EXIT_NO_TORCH,
            "PyTorch failed to import: %s" % e,
            "Check that `%s -c \"import torch\"` works in a terminal." % interpreter,
            python=interpreter,
        )
    except Exception as e:
        _fail(
            channel,
            "torch-import-failed",
            EXIT_NO_TORCH,
            "PyTorch failed to import: %s: %s" % (type(e).__name__, e),
            "Check that `%s -c \"import torch\"` works in a terminal." % interpreter,
            python=interpreter,
        )
    version = getattr(torch, "__version__", "?")
    cuda_version = getattr(getattr(torch, "version", None), "cuda", None)
    hip_version = getattr(getattr(torch, "version", None), "hip", None)
    if not torch.cuda.is_available():
        if cuda_version is None and hip_version is None:
            _fail(
                channel,
                "no-cuda-build",
                EXIT_NO_CUDA_BUILD,
                "PyTorch %s in %s was built without CUDA, so there is no GPU memory to record." % (version, interpreter),
                "Install a CUDA build of PyTorch (see pytorch.org, 'Get Started') in this environment.",
                torch=version,
                python=interpreter,
            )
        _fail(
            channel,
            "no-gpu",
            EXIT_NO_GPU,
            "PyTorch %s (CUDA %s) sees no GPU." % (version, cuda_version or hip_version),
            "Check `nvidia-smi` and CUDA_VISIBLE_DEVICES (now %r); on a remote machine, open the folder there "
            "(Remote-SSH) so the program runs where the GPU is." % os.environ.get("CUDA_VISIBLE_DEVICES"),
            torch=version,
            cuda=cuda_version or hip_version,
            cudaVisibleDevices=os.environ.get("CUDA_VISIBLE_DEVICES"),
        )
    memory = getattr(torch.cuda, "memory", None)
    record = getattr(memory, "_record_memory_history", None)
    if record is None or not hasattr(memory, "_snapshot"):
        _fail(
            channel,
            "no-recording-api",
            EXIT_NO_RECORDING_API,
            "PyTorch %s has no memory recording API (torch.cuda.memory._record_memory_history)." % version,
            "Memory snapshots need PyTorch 2.0 or newer (2.1 or newer for free stacks and timestamps).",
            torch=version,
        )
    return torch, record


def _start_recording(session, record):
    """PyTorch 2.1+ keyword form; PyTorch 2.0's boolean form when the new keywords are not accepted."""
    o = session.options
    try:
        record(enabled="all", context="all", stacks=o.stacks, max_entries=o.max_entries)
        return "2.1"
    except TypeError:
        record(True, trace_alloc_max_entries=o.max_entries, trace_alloc_record_context=True)
        session.channel.send(
            "notice",
            code="legacy-api",
            message="PyTorch %s records with the 2.0 API: frees have no stacks and events no timestamps."
            % getattr(session.torch, "__version__", "?"),
        )
        return "2.0"


def _attach_oom_observer(session):
    attach = getattr(getattr(session.torch, "_C", None), "_cuda_attach_out_of_memory_observer", None)
    if attach is None:
        return

    def observer(device, alloc, device_alloc, device_free):
        session.channel.send("oom", device=device, requested=alloc, t=session.elapsed())
        session.dump("oom")
        session.oom_dumped = True

    attach(observer)


def _start_sampler(session):
    stop = threading.Event()
    cancel_file = session.options.cancel_file

    def run():
        while not stop.wait(session.options.interval):
            if cancel_file and not session.cancelled and os.path.exists(cancel_file):
                _interrupt_main()
            session.channel.send("progress", t=session.elapsed(), devices=session.sample())

    thread = threading.Thread(target=run, name="vram-lens-sampler", daemon=True)
    thread.start()
    return stop


def _interrupt_main():
    import _thread

    _thread.interrupt_main()


def _install_cancel_handlers(session):
    def on_signal(signum, frame):
        if os.getpid() != _MAIN_PID:
            raise KeyboardInterrupt
        if session.dumping:
            return  # finish the snapshot being written; the extension's grace period covers a hang
        if not session.cancelled:
            session.cancelled = True
            session.channel.send("cancelling", signal=signum, t=session.elapsed())
            session.dump("cancel")
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_signal)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, on_signal)


def _is_oom(torch, exc):
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(exc, oom_type):
        return True
    return isinstance(exc, RuntimeError) and "CUDA out of memory" in str(exc)


def _is_bootstrap_frame(filename):
    import runpy

    if filename.startswith("<frozen runpy"):
        return True
    path = os.path.abspath(filename)
    return path == _THIS_FILE or path == os.path.abspath(getattr(runpy, "__file__", "") or "<none>")


def _report_exception(exc):
    """The traceback as Python prints it for the program, without the bootstrap's and runpy's frames."""
    tb = exc.__traceback__
    while tb is not None and _is_bootstrap_frame(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    exc.__traceback__ = tb  # Python 3.11+ prints the exception's own traceback, not the one passed
    try:
        sys.excepthook(type(exc), exc, tb)
    except Exception:
        traceback.print_exception(type(exc), exc, tb)


def _run_target(options):
    import runpy

    if options.script is not None:
        script = os.path.abspath(options.script)
        sys.argv = [script] + list(options.args)
        sys.path[0] = os.path.dirname(script)
        runpy.run_path(script, run_name="__main__")
    else:
        sys.argv = [options.module] + list(options.args)
        sys.path[0] = os.getcwd()
        runpy.run_module(options.module, run_name="__main__", alter_sys=True)


def _exit_code(exc):
    """What `sys.exit(code)` makes the interpreter exit with (printing a non-integer code, as Python does)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write("%s\n" % code)
    return 1


def _cancel_before_start(signum, frame):
    """Cancel while torch is still importing (which can take seconds): nothing ran, nothing to dump."""
    sys.stderr.write("VRAM Lens: cancelled before the program started.\n")
    os._exit(EXIT_CANCELLED)


def main(argv):
    signal.signal(signal.SIGINT, _cancel_before_start)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, _cancel_before_start)
    options = _parse(argv)
    channel = _Channel(options.channel)
    torch, record = _preflight(channel)
    session = _Session(options, channel)
    session.torch = torch
    api = _start_recording(session, record)
    _attach_oom_observer(session)
    channel.send(
        "hello",
        python=sys.version.split()[0],
        torch=getattr(torch, "__version__", "?"),
        cuda=getattr(getattr(torch, "version", None), "cuda", None),
        api=api,
        devices=torch.cuda.device_count(),
        snapshot=session.snapshot_path,
    )
    stop_sampler = _start_sampler(session)
    _install_cancel_handlers(session)
    outcome, code, details = "completed", 0, {}
    try:
        _run_target(options)
    except SystemExit as e:
        code = _exit_code(e)
        outcome = "cancelled" if session.cancelled else ("completed" if code == 0 else "exit")
        if session.cancelled:
            code = EXIT_CANCELLED
    except KeyboardInterrupt:
        outcome, code = "cancelled", EXIT_CANCELLED
        if not session.cancelled:  # interrupted from a terminal rather than the Cancel button
            session.cancelled = True
    except BaseException as e:
        if session.cancelled:
            outcome, code = "cancelled", EXIT_CANCELLED
        elif _is_oom(torch, e):
            outcome, code = "oom", EXIT_OOM
        else:
            outcome, code = "exception", EXIT_EXCEPTION
        details = {"exception": type(e).__name__, "message": str(e)[:2000]}
        _report_exception(e)
    finally:
        stop_sampler.set()
    if session.dumped_reason is None or (session.dumped_reason == "oom" and outcome != "oom"):
        session.dump({"cancelled": "cancel", "oom": "oom"}.get(outcome, "end"))
    channel.send("progress", t=session.elapsed(), devices=session.sample())
    channel.send("end", outcome=outcome, code=code, snapshot=session.snapshot_path, t=session.elapsed(), **details)
    sys.stdout.flush()
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
