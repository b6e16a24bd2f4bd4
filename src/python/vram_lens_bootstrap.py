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
src/protocol/profile.ts).
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
    backward_lines = True
    script = None
    module = None
    args = ()


def _usage(message):
    sys.stderr.write("vram_lens_bootstrap: %s\n" % message)
    sys.stderr.write(
        "usage: vram_lens_bootstrap.py --snapshot PATH [--channel ADDRESS] [--cancel-file PATH]\n"
        "       [--max-entries N] [--stacks python|all] [--interval SECONDS] [--per-rank] [--backward-lines on|off]\n"
        "       (--script PATH | --module NAME) [-- ARGS...]\n"
    )
    sys.exit(EXIT_USAGE)


def _parse(argv):
    """Options up to `--script`/`--module`; everything after the target (past an optional `--`) is the program's."""
    o = _Options()
    i = 0
    valued = {
        "--snapshot", "--channel", "--cancel-file", "--max-entries", "--stacks", "--interval", "--backward-lines",
        "--script", "--module",
    }
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
            o.snapshot = os.path.abspath(value)  # the program may chdir
        elif flag == "--channel":
            o.channel = value if os.name == "nt" else os.path.abspath(value)
        elif flag == "--cancel-file":
            o.cancel_file = os.path.abspath(value)
        elif flag == "--backward-lines":
            if value not in ("on", "off"):
                _usage("--backward-lines must be 'on' or 'off'")
            o.backward_lines = value == "on"
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
        self._lock = threading.RLock()  # re-entered by a signal handler that interrupts a send on the main thread
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

    def close_in_child(self):
        """After os.fork(): the child is not the recorded process; it says nothing on the parent's channel."""
        self._out = None

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
        self.form = None
        self.recording = False
        self.problem = None
        self.module_ranges = None
        self.forked = False
        self.import_hook = None
        self.peaks = {}
        self.started = time.monotonic()
        self.snapshot_path = _rank_path(options.snapshot) if options.per_rank else options.snapshot
        self.dump_lock = threading.RLock()  # a signal handler may interrupt a dump on the main thread
        self.dumped_reason = None
        self.dumping = False
        self.cancelled = False
        self.oom_dumped = False

    def elapsed(self):
        return round(time.monotonic() - self.started, 3)

    def dump(self, reason):
        """Write the snapshot (only in the recorded process, once recording has started)."""
        if not self.recording or self.forked:
            return
        with self.dump_lock:
            if self.dumping:
                return  # re-entered from a signal handler: the dump under way wins
            self.dumping = True
            self.channel.send("dumping", reason=reason, t=self.elapsed())
            began = time.monotonic()
            tmp = self.snapshot_path + ".partial"
            try:
                data = _take_snapshot(self.torch)
                if self.module_ranges is not None and isinstance(data, dict):
                    data["vram_lens"] = {"module_calls": self.module_ranges.module_calls()}
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
        devices = []
        if not self.recording or self.torch is None:
            return devices
        cuda = self.torch.cuda
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


def _take_snapshot(torch):
    """torch.cuda.memory._snapshot(), with FX traces where this PyTorch can add them (torch.compile'd code)."""
    snapshot = torch.cuda.memory._snapshot
    if "augment_with_fx_traces" in _parameters(snapshot):
        try:
            return snapshot(augment_with_fx_traces=True)
        except Exception:
            pass
    return snapshot()


def _rank_path(path):
    rank = os.environ.get("RANK") or os.environ.get("LOCAL_RANK") or "0"
    root, ext = os.path.splitext(path)
    return "%s.rank%s%s" % (root, rank, ext or ".pickle")


def _problem(session, code, message, advice, **detail):
    """Recording is not possible: one clear paragraph on stderr and one record; the program keeps running."""
    if session.problem is not None:
        return
    session.problem = code
    session.channel.send("error", code=code, message=message, advice=advice, detail=detail)
    sys.stderr.write("VRAM Lens: %s %s\n" % (message, advice))
    sys.stderr.flush()


def _parameters(function):
    import inspect

    try:
        return inspect.signature(function).parameters
    except (TypeError, ValueError):
        return {}


def recording_form(torch):
    """'2.1' (enabled/context/stacks/max_entries), '2.0' (the boolean form with trace_alloc_*) or None (too old)."""
    record = getattr(getattr(getattr(torch, "cuda", None), "memory", None), "_record_memory_history", None)
    if record is None or not hasattr(torch.cuda.memory, "_snapshot"):
        return None
    parameters = _parameters(record)
    if "context" in parameters and "stacks" in parameters and "max_entries" in parameters:
        return "2.1"
    if "trace_alloc_max_entries" in parameters:
        return "2.0"
    return None


def recording_arguments(torch, form, options):
    """The keyword arguments of the recording call, including the newest ones this PyTorch has that help."""
    if form == "2.0":
        return (True,), {"trace_alloc_max_entries": options.max_entries, "trace_alloc_record_context": True}
    kwargs = {"enabled": "all", "context": "all", "stacks": options.stacks, "max_entries": options.max_entries}
    parameters = _parameters(torch.cuda.memory._record_memory_history)
    if "global_record_annotations" in parameters:
        kwargs["global_record_annotations"] = True  # record_function ranges from every thread
    if "compile_context" in parameters:
        kwargs["compile_context"] = True  # torch.compile'd frames keep their model source
    return (), kwargs


def _on_torch_imported(session, torch):
    """Runs once `import torch` has finished, before the program's next line: no CUDA is touched here."""
    try:
        session.torch = torch
        version = getattr(torch, "__version__", "?")
        session.form = recording_form(torch)
        cuda_build = getattr(torch.version, "cuda", None) or getattr(torch.version, "hip", None)
        instrument_anyway = os.environ.get("VRAM_LENS_TEST_INSTRUMENT_CPU") == "1"  # tests on CPU-only builds
        if session.form is None:
            _problem(
                session,
                "no-recording-api",
                "PyTorch %s cannot record memory history (it has no 2.0+ torch.cuda.memory._record_memory_history); "
                "the program runs without recording." % version,
                "Memory snapshots need PyTorch 2.0 or newer (2.1 or newer for free stacks and timestamps).",
                torch=version,
            )
            return
        if not cuda_build:
            _problem(
                session,
                "no-cuda-build",
                "PyTorch %s in %s was built without CUDA, so there is no GPU memory to record; the program runs "
                "without recording." % (version, sys.executable),
                "Install a CUDA build of PyTorch (see pytorch.org, 'Get Started') in this environment.",
                torch=version,
                python=sys.executable,
            )
            if not instrument_anyway:
                return
        if cuda_build:
            torch.cuda._lazy_call(lambda: _on_cuda_init(session))
    except Exception as e:  # never break the program's import
        session.channel.send("notice", code="instrumentation-failed", message="%s: %s" % (type(e).__name__, e))
        return
    for instrument, wanted in ((_instrument_backward, session.options.backward_lines), (_watch_spawn, True)):
        try:
            if wanted:
                instrument(session, torch)
        except Exception as e:
            session.channel.send("notice", code="instrumentation-failed", message="%s: %s" % (type(e).__name__, e))


def _on_cuda_init(session):
    """Queued with torch.cuda._lazy_call: runs inside the program's first CUDA initialisation. Never raises."""
    torch = session.torch
    version = getattr(torch, "__version__", "?")
    try:
        backend = getattr(torch.cuda, "get_allocator_backend", None)
        if backend is not None and backend() == "cudaMallocAsync":
            _problem(
                session,
                "recording-unsupported",
                "PyTorch's cudaMallocAsync allocator (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync) cannot record "
                "memory history; the program runs without recording.",
                "Profile with the native allocator (remove backend:cudaMallocAsync) to see where memory goes.",
                torch=version,
            )
            return
        args, kwargs = recording_arguments(torch, session.form, session.options)
        torch.cuda.memory._record_memory_history(*args, **kwargs)
        session.recording = True
        if session.form == "2.0":
            session.channel.send(
                "notice",
                code="legacy-api",
                message="PyTorch %s records with the 2.0 API: frees have no stacks and events no timestamps." % version,
            )
        _attach_oom_observer(session)
        session.channel.send(
            "hello",
            python=sys.version.split()[0],
            torch=version,
            cuda=getattr(torch.version, "cuda", None),
            api=session.form,
            devices=torch.cuda.device_count(),
            snapshot=session.snapshot_path,
        )
    except Exception as e:
        _problem(
            session,
            "recording-unsupported",
            "PyTorch %s could not start recording (%s: %s); the program runs without recording." % (version, type(e).__name__, e),
            "Check PYTORCH_CUDA_ALLOC_CONF; memory history needs the native caching allocator.",
            torch=version,
        )


class _TorchImportHook(object):
    """A sys.meta_path finder that lets `torch` import normally, then calls back before the program goes on."""

    def __init__(self, on_import):
        self._on_import = on_import
        self._busy = False
        self.failed = None

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" or self._busy:
            return None
        self._busy = True
        try:
            spec = None
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                if finder is self or find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._busy = False
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module
        hook = self

        def exec_module(module):
            try:
                original(module)
            except BaseException as e:
                hook.failed = e
                raise
            try:
                sys.meta_path.remove(hook)
            except ValueError:
                pass
            hook._on_import(module)

        loader.exec_module = exec_module
        return spec


def _install_import_hook(session):
    if "torch" in sys.modules:  # imported by a sitecustomize or .pth file before us
        _on_torch_imported(session, sys.modules["torch"])
        return
    session.import_hook = _TorchImportHook(lambda torch: _on_torch_imported(session, torch))
    sys.meta_path.insert(0, session.import_hook)


class _ModuleRanges(object):
    """Backward memory on lines and module names, without changing a tensor or the autograd graph.

    The program's modules are named from the outermost call (a global forward pre-hook): `model.layers.3.attn`.
    For each call of a module with parameters, a forward hook puts pre-hooks on autograd nodes: the node that made
    the module's output opens a record_function range "backward: <name>" when backward reaches it, and the nodes
    that made its inputs close it (backward has left the module); ranges still open when the backward pass ends
    are closed then. PyTorch records the ranges in the snapshot's external_annotations. The forward call's line
    (the first frame outside torch) is kept for the snapshot's `vram_lens.module_calls`.
    """

    MAX_CALL_LINES = 8

    def __init__(self, torch):
        import weakref

        self.torch = torch
        self.record_function = torch.autograd.profiler.record_function
        self.names = weakref.WeakKeyDictionary()
        self.has_parameters = weakref.WeakKeyDictionary()
        self.calls = {}  # name -> [(filename, line)]
        self.open = {}  # (name, call id) -> record_function
        self.engine = getattr(torch.autograd.Variable, "_execution_engine", None)
        self.callback_queued = False
        self.torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
        self.counter = 0

    def _caller(self):
        f = sys._getframe(2)
        while f is not None:
            filename = os.path.abspath(f.f_code.co_filename)
            if not filename.startswith(self.torch_dir) and filename != _THIS_FILE:
                return f
            f = f.f_back
        return None

    def _root_name(self, module, frame):
        if frame is not None:
            for scope in (frame.f_locals, frame.f_globals):
                for key, value in list(scope.items()):
                    if value is module and not key.startswith("_"):
                        return key
        return type(module).__name__

    def forward_pre(self, module, args):
        try:
            if module in self.names:
                return None
            root = self._root_name(module, self._caller())
            for name, sub in module.named_modules():
                if sub not in self.names:
                    self.names[sub] = root + ("." + name if name else "")
        except Exception:
            pass
        return None

    def _parameters(self, module):
        known = self.has_parameters.get(module)
        if known is None:
            known = next(module.parameters(), None) is not None
            self.has_parameters[module] = known
        return known

    def forward(self, module, args, output):
        try:
            if not self.torch.is_grad_enabled() or not self._parameters(module):
                return None
            name = self.names.get(module)
            if name is None:
                return None
            frame = self._caller()
            if frame is not None:
                lines = self.calls.setdefault(name, [])
                site = (frame.f_code.co_filename, frame.f_lineno)
                if site not in lines and len(lines) < self.MAX_CALL_LINES:
                    lines.append(site)
            outputs = [n for n in self._nodes(output)]
            if not outputs:
                return None
            self.counter += 1
            key = (name, self.counter)
            for node in outputs:
                self._on_node(node, "open", key)
            for node in self._nodes(args):
                if node not in outputs:
                    self._on_node(node, "close", key)
        except Exception:
            pass
        return None

    def _nodes(self, value):
        Tensor = self.torch.Tensor
        items = value if isinstance(value, (tuple, list)) else (value,)
        nodes = []
        for item in items:
            node = getattr(item, "grad_fn", None) if isinstance(item, Tensor) else None
            if node is not None and node not in nodes:
                nodes.append(node)
        return nodes

    def _on_node(self, node, action, key):
        """One pre-hook per node, holding the module calls that end and begin there (an inner module's output is
        often its parent's output, and one module's output the next one's input). When backward reaches the node,
        ranges close first (innermost first), then open (outermost first: inner calls register first)."""
        metadata = getattr(node, "metadata", None)
        if isinstance(metadata, dict) and "vram_lens" in metadata:
            metadata["vram_lens"][action].append(key)
            return
        keys = {"open": [], "close": []}
        keys[action].append(key)
        if isinstance(metadata, dict):
            metadata["vram_lens"] = keys
        node.register_prehook(self._node_hook(keys))

    def _node_hook(self, keys):
        def hook(grad_outputs):
            for key in keys["close"]:
                rf = self.open.pop(key, None)
                if rf is not None:
                    rf.__exit__(None, None, None)
            for key in reversed(keys["open"]):
                if key not in self.open:
                    rf = self.record_function("backward: " + key[0])
                    rf.__enter__()
                    self.open[key] = rf
            if self.open and not self.callback_queued and self.engine is not None:
                self.callback_queued = True
                self.engine.queue_callback(self.close_all)
            return None

        return hook

    def close_all(self):
        """End of the backward pass: what is still open closes, the latest opened first."""
        self.callback_queued = False
        for key in reversed(list(self.open)):
            self.open.pop(key).__exit__(None, None, None)

    def module_calls(self):
        return [
            {"module": name, "filename": filename, "line": line}
            for name, sites in sorted(self.calls.items())
            for filename, line in sites
        ]


def _instrument_backward(session, torch):
    """PyTorch 2.0+: backward on the calling thread (its allocations carry the Python stack of the
    `loss.backward()` line) and record_function ranges per module (see _ModuleRanges)."""
    set_multithreading = getattr(torch._C, "_set_multithreading_enabled", None)
    if set_multithreading is None:
        return  # older than 2.0
    module_hooks = torch.nn.modules.module
    node_type = getattr(getattr(torch.autograd, "graph", None), "Node", None)
    if (
        set_multithreading is None
        or not hasattr(module_hooks, "register_module_forward_pre_hook")
        or not hasattr(node_type, "register_prehook")
    ):
        return
    set_multithreading(False)
    ranges = _ModuleRanges(torch)
    module_hooks.register_module_forward_pre_hook(ranges.forward_pre)
    module_hooks.register_module_forward_hook(ranges.forward)
    session.module_ranges = ranges
    session.channel.send("notice", code="backward-lines", message="backward runs on the calling thread; module ranges are recorded")


def _watch_spawn(session, torch):
    """torch.multiprocessing.spawn starts fresh interpreters that this bootstrap does not record: say so."""
    spawn_module = sys.modules.get("torch.multiprocessing.spawn")
    start = getattr(spawn_module, "start_processes", None)
    if start is None:
        return

    def start_processes(*args, **kwargs):
        session.channel.send(
            "notice",
            code="children-unrecorded",
            message="torch.multiprocessing started child processes: their GPU memory is not in this snapshot "
            "(use nprocPerNode / torchrun to record every rank).",
        )
        sys.stderr.write("VRAM Lens: the child processes torch.multiprocessing started are not recorded.\n")
        return start(*args, **kwargs)

    spawn_module.start_processes = start_processes


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
        if not session.cancelled and not session.forked:
            session.cancelled = True
            session.channel.send("cancelling", signal=signum, t=session.elapsed())
            session.dump("cancel")
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_signal)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, on_signal)


def _oom_in_chain(torch, exc):
    """The CUDA out-of-memory error behind `exc`: itself, or its cause or context (`raise X from oom`)."""
    oom_type = getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None)
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if oom_type is not None and isinstance(exc, oom_type):
            return exc
        if isinstance(exc, RuntimeError) and "CUDA out of memory" in str(exc):
            return exc
        exc = exc.__cause__ if exc.__cause__ is not None else exc.__context__
    return None


def _is_bootstrap_frame(filename):
    import runpy

    if filename.startswith("<frozen runpy"):
        return True
    path = os.path.abspath(filename)
    return path == _THIS_FILE or path == os.path.abspath(getattr(runpy, "__file__", "") or "<none>")


def _without_bootstrap_frames(tb):
    """The traceback minus the bootstrap's, runpy's and (around `import torch`) importlib's frames."""
    import types

    kept = []
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not (_is_bootstrap_frame(filename) or filename.startswith("<frozen importlib")):
            kept.append(tb)
        tb = tb.tb_next
    rebuilt = None
    for entry in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt


def _report_exception(exc):
    """The traceback as Python prints it for the program, without the bootstrap's and runpy's frames."""
    seen = set()
    link = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        link.__traceback__ = _without_bootstrap_frames(link.__traceback__)
        link = link.__cause__ if link.__cause__ is not None else link.__context__
    tb = exc.__traceback__  # Python 3.11+ prints the exception's own traceback, not the one passed
    try:
        sys.excepthook(type(exc), exc, tb)
    except Exception:
        traceback.print_exception(type(exc), exc, tb)


def _run_target(options, held):
    """Runs the program; its module globals go into `held` so module-level tensors are live at the end dump."""
    import runpy

    if options.script is not None:
        script = os.path.abspath(options.script)
        sys.argv = [script] + list(options.args)
        sys.path[0] = os.path.dirname(script)
        held.append(runpy.run_path(script, run_name="__main__"))
    else:
        sys.argv = [options.module] + list(options.args)
        sys.path[0] = os.getcwd()
        held.append(runpy.run_module(options.module, run_name="__main__", alter_sys=True))


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


def _finish(session, outcome, code, details):
    """The end dump (unless the OOM dump speaks for an OOM ending) and the end records."""
    channel = session.channel
    if session.dumped_reason is None or (session.dumped_reason == "oom" and outcome != "oom"):
        session.dump({"cancelled": "cancel", "oom": "oom"}.get(outcome, "end"))
    if session.recording:
        channel.send("progress", t=session.elapsed(), devices=session.sample())
    elif session.problem is None:
        _explain_unrecorded(session, details)
    channel.send(
        "end",
        outcome=outcome,
        code=code,
        snapshot=session.snapshot_path,
        recorded=session.dumped_reason is not None,
        t=session.elapsed(),
        **details
    )


def _explain_unrecorded(session, details):
    """The program ended and recording never started: why (it never imported torch or never used CUDA)."""
    torch = session.torch
    if torch is None:
        if details.get("exception") == "ModuleNotFoundError" and "'torch'" in details.get("message", ""):
            _problem(
                session,
                "no-torch",
                "PyTorch is not installed for %s." % sys.executable,
                "Select the interpreter of the environment that has PyTorch (Python: Select Interpreter), or set "
                "vramLens.pythonPath.",
                python=sys.executable,
            )
            return
        failed = getattr(session.import_hook, "failed", None)
        if failed is not None:
            _problem(
                session,
                "torch-import-failed",
                "PyTorch failed to import: %s: %s" % (type(failed).__name__, failed),
                "Check that `%s -c \"import torch\"` works in a terminal." % sys.executable,
                python=sys.executable,
            )
            return
        _problem(session, "no-torch", "The program never imported torch: there was no GPU memory to record.", "")
        return
    try:
        available = torch.cuda.is_available()  # the program is over: asking now changes nothing for it
    except Exception:
        available = False
    if not available:
        _problem(
            session,
            "no-gpu",
            "PyTorch %s sees no GPU: nothing was recorded." % getattr(torch, "__version__", "?"),
            "Check `nvidia-smi` and CUDA_VISIBLE_DEVICES (now %r); on a remote machine, open the folder there "
            "(Remote-SSH) so the program runs where the GPU is." % os.environ.get("CUDA_VISIBLE_DEVICES"),
            cudaVisibleDevices=os.environ.get("CUDA_VISIBLE_DEVICES"),
        )
    else:
        _problem(session, "cuda-unused", "The program never used CUDA: there was no GPU memory to record.", "")


def _guard_os_exit(session, holder):
    """os._exit() skips every `finally`: the snapshot and the end record are written first (recorded process only)."""
    real_exit = os._exit

    def _exit(code):
        if os.getpid() == _MAIN_PID and not session.forked and not holder.get("ended"):
            holder["ended"] = True
            try:
                _finish(session, "completed" if code == 0 else "exit", code, {})
                sys.stdout.flush()
                sys.stderr.flush()
            except BaseException:
                pass
        real_exit(code)

    os._exit = _exit


def main(argv):
    signal.signal(signal.SIGINT, _cancel_before_start)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, _cancel_before_start)
    options = _parse(argv)
    channel = _Channel(options.channel)
    session = _Session(options, channel)

    def after_fork_in_child():
        session.forked = True
        channel.close_in_child()

    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=after_fork_in_child)
    holder = {}
    _guard_os_exit(session, holder)
    stop_sampler = _start_sampler(session)
    _install_cancel_handlers(session)
    _install_import_hook(session)
    outcome, code, details = "completed", 0, {}
    held = []  # the program's globals, or its exception and traceback: alive until the end dump
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
        details = {"exception": type(e).__name__, "message": str(oom if oom is not None else e)[:2000]}
        _report_exception(e)
    finally:
        stop_sampler.set()
    if session.forked or os.getpid() != _MAIN_PID:
        return code  # a raw os.fork() child leaving through the program's own stack: not ours to report
    holder["ended"] = True
    _finish(session, outcome, code, details)
    del held[:]
    sys.stdout.flush()
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
