"""Prints, as JSON, what the Python bootstrap (src/python/vram_lens) says on its side of the protocol with the
Profile VRAM runner, read from the package itself and never from the TypeScript side:

- ``exitCodes``: the ``EXIT_*`` constants of ``vram_lens.protocol``;
- ``records``: per record type, the fields of the record that each public method of ``vram_lens.channel.Channel``
  writes (each method is called on a channel whose writer is captured here, with a dummy value per parameter);
- ``literals``: every ``Name = Literal[...]`` alias in the package (``RecordType``, ``Problem``, ``Outcome``, ...),
  read from the source with ``ast`` (they exist for the type checker only);
- ``typedDicts``: the keys of every TypedDict class in the package (``DeviceSample``, ...).

Used by test/unit/protocol/profileAgreement.test.ts. Writes no bytecode.
"""
from __future__ import annotations

import ast
import inspect
import io
import json
import os
import sys
from typing import Any

sys.dont_write_bytecode = True
PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "python", "vram_lens")
sys.path.insert(0, os.path.dirname(PACKAGE))

from vram_lens import protocol  # noqa: E402
from vram_lens.channel import Channel  # noqa: E402


class Capture(io.RawIOBase):
    """A writer that keeps what it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.chunks: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.chunks.append(bytes(data))
        return len(data)


def channel_records() -> dict[str, dict[str, Any]]:
    """Record type -> the method that writes it and the record's fields (without pid, rank and type)."""
    records: dict[str, dict[str, Any]] = {}
    for name, method in inspect.getmembers(Channel, inspect.isfunction):
        if name.startswith("_"):
            continue
        channel = Channel(None)
        capture = Capture()
        channel._out = capture
        parameters = list(inspect.signature(method).parameters)[1:]
        method(channel, **{p: 0 for p in parameters})
        if not capture.chunks:
            continue  # not a record (close_in_child)
        lines = b"".join(capture.chunks).decode("utf-8").splitlines()
        if len(lines) != 1:
            raise SystemExit("Channel.%s wrote %d records" % (name, len(lines)))
        record = json.loads(lines[0])
        kind = record.pop("type")
        record.pop("pid")
        record.pop("rank", None)
        if kind in records:
            raise SystemExit("two methods write %r records" % kind)
        records[kind] = {"method": name, "parameters": parameters, "fields": sorted(record)}
    return records


def strings(node: ast.expr) -> list[str]:
    """The string constants of a Literal's subscript (a tuple of them, or one)."""
    inner = getattr(node, "value", node) if type(node).__name__ == "Index" else node  # ast.Index before 3.9
    items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
    out: list[str] = []
    for item in items:
        if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
            raise SystemExit("a Literal of something other than strings: %s" % ast.dump(item))
        out.append(item.value)
    return out


def source_names() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Every `Name = Literal[...]` alias and every TypedDict's keys, across the package's modules."""
    literals: dict[str, list[str]] = {}
    typed_dicts: dict[str, list[str]] = {}
    for filename in sorted(os.listdir(PACKAGE)):
        if not filename.endswith(".py"):
            continue
        with open(os.path.join(PACKAGE, filename), encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Subscript)
                and isinstance(node.value.value, ast.Name)
                and node.value.value.id == "Literal"
            ):
                name = node.targets[0].id
                if name in literals:
                    raise SystemExit("Literal %s is defined twice" % name)
                literals[name] = strings(node.value.slice)
            if isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == "TypedDict" for b in node.bases):
                typed_dicts[node.name] = [
                    s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                ]
    return literals, typed_dicts


def main() -> None:
    literals, typed_dicts = source_names()
    report = {
        "exitCodes": {name: value for name, value in sorted(vars(protocol).items()) if name.startswith("EXIT_")},
        "records": channel_records(),
        "literals": literals,
        "typedDicts": typed_dicts,
    }
    json.dump(report, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
