#!/usr/bin/env python3
"""An independent reading of an ONNX model's weights, for `npm run test:models`.

Written from onnx.proto's field numbers alone (no onnx package, none of VRAM Lens's TypeScript), it walks
the ModelProto's wire format and prints, as JSON, what the tests compare the tool's figures with:
  - the graph's inputs (name, element type, dims: a number, a dim_param string, or null),
  - the weights in bytes: initializers, sparse initializers at their dense size, and the tensors of
    `Constant` nodes (value, sparse_value dense, value_float(s) 4 B each, value_int(s) 8 B each), in the main
    graph and every subgraph (If/Loop/Scan attributes of type GRAPH / GRAPHS),
  - the main graph's nodes (index, name, op type, a Constant's bytes) with the names of their subgraphs' nodes
    per attribute (`then_branch`, `else_branch`, `body`).
Each initializer's size is dims x element size; where raw_data is present its length must agree.

usage: onnx_weights.py MODEL.onnx
"""
import json
import sys
from collections.abc import Iterator
from typing import Any

# One field of a message: (field number, wire type, value). The value is an int for wire types 0 (varint),
# 1 and 5 (fixed), bytes for 2 (LEN); which a field number has is onnx.proto's, so callers know it.
Field = tuple[int, int, Any]
# A node of a graph: (name, op type, {attribute: names of its subgraphs' nodes}, bytes of a Constant).
Node = tuple[str, str, dict[str, list[str]], int]

ELEM_SIZE = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 16: 2}


def varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def fields(buf: bytes) -> Iterator[Field]:
    """(field number, wire type, value) for each field: an int for varints and fixed, bytes for LEN."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = varint(buf, pos)
        elif wire == 1:
            value, pos = int.from_bytes(buf[pos:pos + 8], 'little'), pos + 8
        elif wire == 5:
            value, pos = int.from_bytes(buf[pos:pos + 4], 'little'), pos + 4
        elif wire == 2:
            length, pos = varint(buf, pos)
            value, pos = buf[pos:pos + length], pos + length
        else:
            raise ValueError(f'wire type {wire} at {pos}')
        yield number, wire, value


def packed_or_single(wire: int, value: Any) -> list[int]:
    if wire == 0:
        return [value]
    out, pos = [], 0
    while pos < len(value):
        v, pos = varint(value, pos)
        out.append(v)
    return out


def tensor_bytes(buf: bytes) -> int:
    dims: list[int] = []
    elem: int = 0
    raw: bytes | None = None
    for number, wire, value in fields(buf):
        if number == 1:
            dims.extend(packed_or_single(wire, value))
        elif number == 2:
            elem = value
        elif number == 9:
            raw = value
    n = 1
    for d in dims:
        n *= d
    size = n * ELEM_SIZE[elem]
    if raw is not None and len(raw) != size:
        raise ValueError(f'raw_data of {len(raw)} B for dims {dims} of type {elem}')
    return size


def sparse_bytes(buf: bytes) -> int:
    dims: list[int] = []
    elem: Any = None
    for number, wire, value in fields(buf):
        if number == 3:
            dims.extend(packed_or_single(wire, value))
        elif number == 1:
            elem = next(v for n, _, v in fields(value) if n == 2)
    n = 1
    for d in dims:
        n *= d
    return n * ELEM_SIZE[elem]


def constant_bytes(node_attrs: list[Field]) -> int:
    total = 0
    for number, wire, value in node_attrs:
        attr = {n: (w, v) for n, w, v in fields(value)}
        name = attr[1][1].decode()
        if name == 'value':
            total += tensor_bytes(attr[5][1])
        elif name == 'sparse_value':
            total += sparse_bytes(attr[22][1])
        elif name == 'value_float':
            total += 4
        elif name == 'value_int':
            total += 8
        elif name == 'value_floats':
            total += 4 * (len(attr[7][1]) // 4 if 7 in attr else 0)
        elif name == 'value_ints':
            total += 8 * sum(len(packed_or_single(w, v)) for n, w, v in fields(value) if n == 8)
    return total


class Weights:
    def __init__(self) -> None:
        self.initializers = self.initializer_bytes = 0
        self.sparse = self.sparse_bytes = 0
        self.constants = self.constant_bytes = 0
        self.subgraph_nodes = 0


def walk(graph_buf: bytes, weights: Weights, depth: int) -> list[Node]:
    """Counts the graph's weights into `weights`; returns its nodes as (name, op type, {attribute: names of
    the nodes of its subgraphs, nested ones included}, bytes of a Constant's tensor)."""
    nodes: list[Node] = []
    for number, _, value in fields(graph_buf):
        if number == 5:
            weights.initializers += 1
            weights.initializer_bytes += tensor_bytes(value)
        elif number == 15:
            weights.sparse += 1
            weights.sparse_bytes += sparse_bytes(value)
        elif number == 1:
            name, op = '', ''
            attrs: list[Field] = []
            for n, w, v in fields(value):
                if n == 3:
                    name = v.decode()
                elif n == 4:
                    op = v.decode()
                elif n == 5:
                    attrs.append((n, w, v))
            inner: dict[str, list[str]] = {}
            for _, _, attr in attrs:
                attr_name = next(v for n, _, v in fields(attr) if n == 1).decode()
                for n, _, v in fields(attr):
                    if n in (6, 11):
                        for sub_name, _, sub_inner, _ in walk(v, weights, depth + 1):
                            inner.setdefault(attr_name, []).append(sub_name)
                            for names in sub_inner.values():
                                inner[attr_name].extend(names)
            own = 0
            if op == 'Constant':
                own = constant_bytes(attrs)
                weights.constants += 1
                weights.constant_bytes += own
            if depth > 0:
                weights.subgraph_nodes += 1
            nodes.append((name, op, inner, own))
    return nodes


def graph_inputs(graph_buf: bytes) -> list[dict[str, Any]]:
    initializer_names: set[str] = set()
    for number, _, value in fields(graph_buf):
        if number in (5,):
            initializer_names.update(v.decode() for n, _, v in fields(value) if n == 8)
    out: list[dict[str, Any]] = []
    for number, _, value in fields(graph_buf):
        if number != 11:
            continue
        info = {n: v for n, _, v in fields(value)}
        name = info[1].decode()
        if name in initializer_names:
            continue
        tensor = {n: v for n, _, v in fields(info[2])}[1]
        t = {n: v for n, _, v in fields(tensor)}
        dims: list[Any] | None = None
        if 2 in t:
            dims = []
            for n, _, dim in fields(t[2]):
                d = {k: v for k, _, v in fields(dim)}
                dims.append(d[1] if 1 in d else (d[2].decode() if 2 in d else None))
        out.append({'name': name, 'elemType': t.get(1), 'dims': dims})
    return out


def main(path: str) -> None:
    with open(path, 'rb') as f:
        model = f.read()
    graph = next(v for n, _, v in fields(model) if n == 7)
    weights = Weights()
    nodes = walk(graph, weights, 0)
    print(json.dumps({
        'inputs': graph_inputs(graph),
        'initializers': weights.initializers,
        'initializerBytes': weights.initializer_bytes,
        'sparseInitializers': weights.sparse,
        'sparseBytes': weights.sparse_bytes,
        'constants': weights.constants,
        'constantBytes': weights.constant_bytes,
        'weightBytes': weights.initializer_bytes + weights.sparse_bytes + weights.constant_bytes,
        'subgraphNodes': weights.subgraph_nodes,
        'nodes': [{'index': i, 'name': name, 'opType': op, 'subgraphs': inner, 'constantBytes': own} for i, (name, op, inner, own) in enumerate(nodes)],
    }))


if __name__ == '__main__':
    main(sys.argv[1])
