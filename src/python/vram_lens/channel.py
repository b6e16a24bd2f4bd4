"""The progress channel: one JSON record per line to the Profile VRAM runner, over a Unix socket or a Windows
named pipe, never on the program's stdout or stderr. One method per record type (their names and fields are
the protocol: protocol.py, src/protocol/profile.ts). Every record carries the process id, and the rank under
torchrun. Silently inert when there is no channel, when it cannot be reached, or once it breaks.
"""
from __future__ import annotations

import io
import json
import os
import socket
import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing_extensions import TypedDict

    from .protocol import DumpReason, NoticeCode, Outcome, Problem, RecordType
    from .recording import RecordingForm

    class DeviceSample(TypedDict):
        """Memory of one GPU as the sampler saw it (bytes, from torch.cuda.memory_allocated & co)."""

        index: int
        allocated: int
        peakAllocated: int
        reserved: int
        peakReserved: int


class Channel:
    """Line-delimited JSON records to the runner; silently inert when there is no channel."""

    def __init__(self, address: str | None) -> None:
        self._lock = threading.RLock()  # re-entered by a signal handler that interrupts a send on the main thread
        self._out: io.RawIOBase | None = None
        self._base: dict[str, object] = {"pid": os.getpid()}
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
            sys.stderr.write("vram_lens: cannot reach the progress channel (%s); running without live progress\n" % e)

    def close_in_child(self) -> None:
        """After os.fork(): the child is not the recorded process; it says nothing on the parent's channel."""
        self._out = None

    def _send(self, kind: RecordType, fields: dict[str, object]) -> None:
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

    # One method per record type; the parameters are the record's fields.

    def hello(self, python: str, torch: str, cuda: str | None, api: RecordingForm, devices: int, snapshot: str) -> None:
        """Recording has started (inside the program's first CUDA initialisation)."""
        self._send("hello", {"python": python, "torch": torch, "cuda": cuda, "api": api, "devices": devices, "snapshot": snapshot})

    def predicting(self, gpu: str, memory: int, capability: str, torch: str, python: str, data: str, snapshot: str) -> None:
        """A prediction has started (right after the program imported torch): the GPU it is for."""
        self._send(
            "predicting",
            {"gpu": gpu, "memory": memory, "capability": capability, "torch": torch, "python": python, "data": data, "snapshot": snapshot},
        )

    def progress(self, t: float, devices: list[DeviceSample]) -> None:
        """A sample of every GPU in use, `t` seconds after the start."""
        self._send("progress", {"t": t, "devices": devices})

    def error(self, code: Problem, message: str, advice: str, detail: dict[str, str | None]) -> None:
        """Nothing will be recorded, and why (the program still runs)."""
        self._send("error", {"code": code, "message": message, "advice": advice, "detail": detail})

    def notice(self, code: NoticeCode, message: str) -> None:
        self._send("notice", {"code": code, "message": message})

    def oom(self, device: int, requested: int, t: float) -> None:
        """PyTorch's out-of-memory observer fired (the snapshot is written next)."""
        self._send("oom", {"device": device, "requested": requested, "t": t})

    def cancelling(self, signal: int, t: float) -> None:
        self._send("cancelling", {"signal": signal, "t": t})

    def dumping(self, reason: DumpReason, t: float) -> None:
        self._send("dumping", {"reason": reason, "t": t})

    def dumped(self, reason: DumpReason, path: str, bytes: int, seconds: float) -> None:
        self._send("dumped", {"reason": reason, "path": path, "bytes": bytes, "seconds": seconds})

    def dump_failed(self, reason: DumpReason, message: str) -> None:
        self._send("dump-failed", {"reason": reason, "message": message})

    def end(
        self,
        outcome: Outcome,
        code: int,
        snapshot: str,
        recorded: bool,
        t: float,
        exception: str | None = None,
        message: str | None = None,
    ) -> None:
        """The program ended; `exception` and `message` are there when it raised."""
        fields: dict[str, object] = {"outcome": outcome, "code": code, "snapshot": snapshot, "recorded": recorded, "t": t}
        if exception is not None:
            fields["exception"] = exception
        if message is not None:
            fields["message"] = message
        self._send("end", fields)
