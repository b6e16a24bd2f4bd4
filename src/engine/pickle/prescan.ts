import { readUint32, readUint64 } from './binary';
import { MemoReads } from './memo';
import { readMemoKey } from './numbers';
import { Op } from './opcodes';

/**
 * First pass over the opcode stream: skips every argument without decoding values and records
 * which memo keys are read. Stops quietly at STOP, at an unknown opcode or at truncation; the
 * decoding pass reports those, and never gets past the point where this pass stopped.
 */
export function scanMemoReads(data: Uint8Array): MemoReads {
  const end = data.length;
  const reads = new MemoReads(end);
  let sawPut = false;
  let sawMemoize = false;
  let pos = 0;
  scan: while (pos < end) {
    const op = data[pos++];
    switch (op) {
      case Op.BINGET:
        if (pos < end) reads.add(data[pos]);
        pos += 1;
        break;
      case Op.LONG_BINGET:
        if (pos + 4 <= end) reads.add(readUint32(data, pos));
        pos += 4;
        break;
      case Op.GET: {
        const newline = data.indexOf(0x0a, pos);
        if (newline < 0) break scan;
        const key = readMemoKey(data, pos, newline);
        if (key !== null) reads.add(key);
        pos = newline + 1;
        break;
      }
      case Op.MEMOIZE:
        sawMemoize = true;
        break;
      case Op.EMPTY_DICT:
      case Op.DICT:
        reads.dicts++;
        break;
      case Op.BINPUT:
        sawPut = true;
        pos += 1;
        break;
      case Op.LONG_BINPUT:
        sawPut = true;
        pos += 4;
        break;
      case Op.PUT:
        sawPut = true;
        pos = skipLines(data, pos, 1);
        break;
      case Op.STOP:
        break scan;
      case Op.MARK:
      case Op.EMPTY_TUPLE:
      case Op.POP:
      case Op.POP_MARK:
      case Op.DUP:
      case Op.NONE:
      case Op.BINPERSID:
      case Op.REDUCE:
      case Op.EMPTY_LIST:
      case Op.APPEND:
      case Op.BUILD:
      case Op.APPENDS:
      case Op.LIST:
      case Op.OBJ:
      case Op.SETITEM:
      case Op.TUPLE:
      case Op.SETITEMS:
      case Op.NEWOBJ:
      case Op.TUPLE1:
      case Op.TUPLE2:
      case Op.TUPLE3:
      case Op.NEWTRUE:
      case Op.NEWFALSE:
      case Op.EMPTY_SET:
      case Op.ADDITEMS:
      case Op.FROZENSET:
      case Op.NEWOBJ_EX:
      case Op.STACK_GLOBAL:
      case Op.NEXT_BUFFER:
      case Op.READONLY_BUFFER:
        break;
      case Op.PROTO:
      case Op.BININT1:
      case Op.EXT1:
        pos += 1;
        break;
      case Op.BININT2:
      case Op.EXT2:
        pos += 2;
        break;
      case Op.BININT:
      case Op.EXT4:
        pos += 4;
        break;
      case Op.BINFLOAT:
      case Op.FRAME:
        pos += 8;
        break;
      case Op.SHORT_BINSTRING:
      case Op.SHORT_BINBYTES:
      case Op.SHORT_BINUNICODE:
      case Op.LONG1:
        if (pos >= end) break scan;
        pos += 1 + data[pos];
        break;
      case Op.BINSTRING:
      case Op.BINBYTES:
      case Op.BINUNICODE:
      case Op.LONG4:
        if (pos + 4 > end) break scan;
        pos += 4 + readUint32(data, pos);
        break;
      case Op.BINUNICODE8:
      case Op.BINBYTES8:
      case Op.BYTEARRAY8:
        if (pos + 8 > end) break scan;
        pos += 8 + readUint64(data, pos);
        break;
      case Op.INT:
      case Op.LONG:
      case Op.FLOAT:
      case Op.STRING:
      case Op.UNICODE:
      case Op.PERSID:
        pos = skipLines(data, pos, 1);
        break;
      case Op.GLOBAL:
      case Op.INST:
        pos = skipLines(data, pos, 2);
        break;
      default:
        break scan;
    }
  }
  reads.mixed = sawPut && sawMemoize;
  return reads;
}

/** Position after `count` newline-terminated lines from `pos`, or the input length when they run out. */
function skipLines(data: Uint8Array, pos: number, count: number): number {
  for (let i = 0; i < count; i++) {
    const newline = data.indexOf(0x0a, pos);
    if (newline < 0) return data.length;
    pos = newline + 1;
  }
  return pos;
}
