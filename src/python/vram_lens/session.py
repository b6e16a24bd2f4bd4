"""The recording session: the state that the main thread, the signal handlers, the OOM observer and the
sampler share, and what happens when torch arrives (the import hook calls ``on_torch_imported``) and when
the program first initialises CUDA (``on_cuda_init``: recording starts there, lazily).
"""
from __future__ import annotations

import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Callable

from . import ranges
from .channel import Channel
from .importhook import TorchImportHook
from .options import Options
from .recording import Torch, recording_form, start_recording
from .snapshot import rank_path, take_snapshot, write_snapshot

if TYPE_CHECKING:
    from .channel import DeviceSample
    from .prediction import Prepared
    from .predictor import Predictor
    from .protocol import DumpReason, Problem
    from .recording import RecordingForm


class Session:
    """Recording state shared by the main thread, the signal handlers, the OOM observer and the sampler."""

    def __init__(self, options: Options, channel: Channel) -> None:
        self.options = options
        self.channel = channel
        self.torch: Torch = None  # the program's torch, once it imported it
        self.form: RecordingForm | None = None
        self.recording = False
        self.problem: Problem | None = None
        self.module_ranges: ranges.ModuleRanges | None = None
        self.forked = False  # this is a child of the recorded process (os.fork)
        self.import_hook: TorchImportHook | None = None
        self.started = time.monotonic()
        self.snapshot_path = rank_path(options.snapshot) if options.per_rank else options.snapshot
        self.dump_lock = threading.RLock()  # a signal handler may interrupt a dump on the main thread
        self.dumped_reason: DumpReason | None = None
        self.dumping = False
        self.cancelled = False
        self.prepared: Prepared | None = None  # Predict VRAM: the native library prepared before the program ran
        self.predictor: Predictor | None = None  # Predict VRAM: set once the prediction has started

    def elapsed(self) -> float:
        return round(time.monotonic() - self.started, 3)

    def dump(self, reason: DumpReason) -> None:
        """Write the snapshot (only in the recorded process, once recording has started)."""
        if not self.recording or self.forked:
            return
        with self.dump_lock:
            if self.dumping:
                return  # re-entered from a signal handler: the dump under way wins
            self.dumping = True
            self.channel.dumping(reason=reason, t=self.elapsed())
            began = time.monotonic()
            try:
                data = take_snapshot(self.torch)
                if self.module_ranges is not None and isinstance(data, dict):
                    ours = data.get("vram_lens")
                    if not isinstance(ours, dict):
                        ours = data["vram_lens"] = {}
                    ours["module_calls"] = self.module_ranges.module_calls()
                size = write_snapshot(data, self.snapshot_path)
                self.dumped_reason = reason
                self.channel.dumped(reason=reason, path=self.snapshot_path, bytes=size, seconds=round(time.monotonic() - began, 3))
            except Exception as e:  # the program's outcome still matters more than our file
                self.channel.dump_failed(reason=reason, message="%s: %s" % (type(e).__name__, e))
                sys.stderr.write("VRAM Lens: could not write the memory snapshot: %s: %s\n" % (type(e).__name__, e))
            finally:
                self.dumping = False

    def write_program_dump(self, data: object, path: str) -> None:
        """Predict VRAM: the program's own `_dump_snapshot(path)`; raises as PyTorch would when it cannot write."""
        with self.dump_lock:
            self.channel.dumping(reason="program", t=self.elapsed())
            began = time.monotonic()
            size = write_snapshot(data, path)
            self.dumped_reason = "program"
            self.channel.dumped(reason="program", path=path, bytes=size, seconds=round(time.monotonic() - began, 3))

    def sample(self) -> list[DeviceSample]:
        """Memory of every GPU the program used, for the progress records (none before recording starts)."""
        devices: list[DeviceSample] = []
        if not self.recording or self.torch is None:
            return devices
        predictor = self.predictor
        if predictor is not None:  # a prediction: reserved memory is known only after the run (the placement)
            return [{"index": 0, "allocated": predictor.block_bytes, "peakAllocated": predictor.block_peak,
                     "reserved": predictor.block_bytes, "peakReserved": predictor.block_peak}]
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

    def report_problem(self, code: Problem, message: str, advice: str, **detail: str | None) -> None:
        """Recording is not possible: one clear paragraph on stderr and one record; the program keeps running."""
        if self.problem is not None:
            return
        self.problem = code
        self.channel.error(code=code, message=message, advice=advice, detail=detail)
        sys.stderr.write("VRAM Lens: %s %s\n" % (message, advice))
        sys.stderr.flush()

    def instrumentation_failed(self, e: Exception) -> None:
        self.channel.notice(code="instrumentation-failed", message="%s: %s" % (type(e).__name__, e))


def on_torch_imported(session: Session, torch: Torch) -> None:
    """Runs once `import torch` has finished, before the program's next line: no CUDA is touched here."""
    if session.options.predict:
        _start_prediction(session, torch)
        return
    try:
        session.torch = torch
        version = getattr(torch, "__version__", "?")
        session.form = recording_form(torch)
        cuda_build = getattr(torch.version, "cuda", None) or getattr(torch.version, "hip", None)
        instrument_anyway = os.environ.get("VRAM_LENS_TEST_INSTRUMENT_CPU") == "1"  # tests on CPU-only builds
        if session.form is None:
            session.report_problem(
                "no-recording-api",
                "PyTorch %s cannot record memory history (it has no 2.0+ torch.cuda.memory._record_memory_history); "
                "the program runs without recording." % version,
                "Memory snapshots need PyTorch 2.0 or newer (2.1 or newer for free stacks and timestamps).",
                torch=version,
            )
            return
        if not cuda_build:
            session.report_problem(
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
            torch.cuda._lazy_call(lambda: on_cuda_init(session))
    except Exception as e:  # never break the program's import
        session.instrumentation_failed(e)
        return
    if session.options.backward_lines:
        try:
            _instrument_backward(session, torch)
        except Exception as e:
            session.instrumentation_failed(e)
    try:
        _watch_spawn(session, torch)
    except Exception as e:
        session.instrumentation_failed(e)


def _start_prediction(session: Session, torch: Torch) -> None:
    """Predict VRAM: the rest of the program runs on fake 'cuda' tensors (prediction.py). A prediction that cannot
    start stops the program here, inside its `import torch`: without it, its first 'cuda' tensor would fail."""
    from .nativecuda import PredictUnavailable
    from .prediction import start
    from .protocol import EXIT_PREDICT_UNAVAILABLE

    session.torch = torch
    try:
        start(session, torch, session.prepared)
    except PredictUnavailable as e:
        session.report_problem("predict-unavailable", e.message, e.advice, torch=getattr(torch, "__version__", "?"))
        raise SystemExit(EXIT_PREDICT_UNAVAILABLE)
    if session.options.backward_lines:
        try:
            _instrument_backward(session, torch)
        except Exception as e:
            session.instrumentation_failed(e)


def on_cuda_init(session: Session) -> None:
    """Queued with torch.cuda._lazy_call: runs inside the program's first CUDA initialisation. Never raises."""
    torch = session.torch
    version = getattr(torch, "__version__", "?")
    try:
        backend = getattr(torch.cuda, "get_allocator_backend", None)
        if backend is not None and backend() == "cudaMallocAsync":
            session.report_problem(
                "recording-unsupported",
                "PyTorch's cudaMallocAsync allocator (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync) cannot record "
                "memory history; the program runs without recording.",
                "Profile with the native allocator (remove backend:cudaMallocAsync) to see where memory goes.",
                torch=version,
            )
            return
        form = session.form
        assert form is not None  # on_torch_imported queues this only for a PyTorch that can record
        start_recording(torch, form, session.options.max_entries, session.options.stacks)
        session.recording = True
        if form == "2.0":
            session.channel.notice(
                code="legacy-api",
                message="PyTorch %s records with the 2.0 API: frees have no stacks and events no timestamps." % version,
            )
        _attach_oom_observer(session)
        session.channel.hello(
            python=sys.version.split()[0],
            torch=version,
            cuda=getattr(torch.version, "cuda", None),
            api=form,
            devices=torch.cuda.device_count(),
            snapshot=session.snapshot_path,
        )
    except Exception as e:
        session.report_problem(
            "recording-unsupported",
            "PyTorch %s could not start recording (%s: %s); the program runs without recording." % (version, type(e).__name__, e),
            "Check PYTORCH_CUDA_ALLOC_CONF; memory history needs the native caching allocator.",
            torch=version,
        )


def _instrument_backward(session: Session, torch: Torch) -> None:
    module_ranges = ranges.instrument_backward(torch)
    if module_ranges is None:
        return
    session.module_ranges = module_ranges
    session.channel.notice(code="backward-lines", message="backward runs on the calling thread; module ranges are recorded")


def _watch_spawn(session: Session, torch: Torch) -> None:
    """torch.multiprocessing.spawn starts fresh interpreters that this bootstrap does not record: say so."""
    spawn_module = sys.modules.get("torch.multiprocessing.spawn")
    found = getattr(spawn_module, "start_processes", None)
    if found is None:
        return
    start: Callable[..., Any] = found

    def start_processes(*args: Any, **kwargs: Any) -> Any:
        session.channel.notice(
            code="children-unrecorded",
            message="torch.multiprocessing started child processes: their GPU memory is not in this snapshot "
            "(use nprocPerNode / torchrun to record every rank).",
        )
        sys.stderr.write("VRAM Lens: the child processes torch.multiprocessing started are not recorded.\n")
        return start(*args, **kwargs)

    setattr(spawn_module, "start_processes", start_processes)


def _attach_oom_observer(session: Session) -> None:
    attach = getattr(getattr(session.torch, "_C", None), "_cuda_attach_out_of_memory_observer", None)
    if attach is None:
        return

    def observer(device: int, alloc: int, device_alloc: int, device_free: int) -> None:
        session.channel.oom(device=device, requested=alloc, t=session.elapsed())
        session.dump("oom")

    attach(observer)
