"""The bootstrap's side of its protocol with the Profile VRAM runner: the exit codes it uses for itself and
the names in the records it writes to the progress channel (channel.py: one method per record type).

Mirrored by src/protocol/profile.ts; test/unit/protocol/profileAgreement.test.ts reads both and compares
them (exit codes, record types and their fields, problem codes, outcomes, dump reasons).
"""
from typing import TYPE_CHECKING

# The program's own exit code is passed through; these are the bootstrap's.
EXIT_EXCEPTION = 1  # the program raised (as Python exits on an uncaught exception)
EXIT_USAGE = 86  # the bootstrap was started with wrong arguments
# 87-90 are not used since recording became lazy (the program runs and exits with its own code, and an
# `error` record says why nothing was recorded); the runner still reads them.
EXIT_NO_TORCH = 87
EXIT_NO_CUDA_BUILD = 88
EXIT_NO_GPU = 89
EXIT_NO_RECORDING_API = 90
EXIT_OOM = 91  # the program ended on a CUDA out-of-memory error
EXIT_PREDICT_UNAVAILABLE = 92  # Predict VRAM cannot run here (an `error` record says what is missing); nothing ran
EXIT_CANCELLED = 130  # Cancel (SIGINT, SIGTERM or the cancel file), as a shell reports SIGINT

if TYPE_CHECKING:  # the names below exist for the type checker only (typing.Literal is Python 3.8+)
    from typing_extensions import Literal

    # The `type` of each channel record.
    RecordType = Literal[
        "hello", "predicting", "progress", "error", "notice", "oom", "cancelling", "dumping", "dumped", "dump-failed", "end"
    ]
    # Why nothing was recorded (the `code` of an `error` record).
    Problem = Literal[
        "no-torch", "torch-import-failed", "no-cuda-build", "no-gpu", "no-recording-api", "recording-unsupported", "cuda-unused",
        "no-ipython", "predict-unavailable",
    ]
    # How the program ended (the `outcome` of the `end` record).
    Outcome = Literal["completed", "exit", "exception", "oom", "cancelled"]
    # Why a snapshot is written (the `reason` of `dumping`, `dumped` and `dump-failed`).
    # "program": the program's own torch.cuda.memory._dump_snapshot(path) in a prediction.
    DumpReason = Literal["end", "oom", "cancel", "program"]
    # The `code` of a `notice` record: something worth knowing that does not stop recording.
    NoticeCode = Literal["legacy-api", "backward-lines", "instrumentation-failed", "children-unrecorded"]
