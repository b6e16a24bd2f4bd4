/**
 * Turns a decoded snapshot pickle (plain dicts, lists and scalars) into the `Snapshot` model.
 * Accepts every layout PyTorch has written: a bare list of segments (`torch.cuda.memory_snapshot()`),
 * PyTorch 2.0 blocks with `history`, and the 2.1+ layouts with `device_traces`.
 */
import { SnapshotFormatError } from './errors';
import { FrameTable } from './intern';
import type { Block, DeviceTrace, ExternalAnnotation, LineNumber, MeasuredDeviceMemory, Segment, Snapshot, SnapshotLayout } from './model';
import { Action, NO_STACK } from './model';

type Dict = Record<string, unknown>;

function isDict(value: unknown): value is Dict {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array) && !(value instanceof Set);
}

function describe(value: unknown): string {
  if (value === null) return 'None';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Set) return 'a set';
  if (typeof value === 'object') return 'a dict';
  if (typeof value === 'bigint') return 'an int';
  return `a ${typeof value === 'number' ? 'number' : typeof value}`;
}

function integer(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'bigint') {
    const n = Number(value);
    if (Number.isSafeInteger(n)) return n;
    throw new SnapshotFormatError(`${what} is ${String(value)}, too large to be a byte count or address`);
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw new SnapshotFormatError(`${what} is ${describe(value)}, expected a number`);
}

function optionalInteger(value: unknown, fallback: number, what: string): number {
  return value === undefined || value === null ? fallback : integer(value, what);
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return '';
}

function lineNumber(value: unknown): LineNumber {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return value;
  return 0;
}

function list(value: unknown, what: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw new SnapshotFormatError(`${what} is ${describe(value)}, expected a list`);
}

/** Reads a frames list into an interned stack id. */
function readStack(table: FrameTable, frames: unknown): number {
  if (!Array.isArray(frames)) return NO_STACK;
  const known = table.knownStack(frames);
  if (known !== undefined) return known;
  const ids: number[] = new Array<number>(frames.length);
  let n = 0;
  for (const f of frames) {
    if (!isDict(f)) continue;
    ids[n++] = table.frame(f, text(f.filename), lineNumber(f.line), text(f.name));
  }
  ids.length = n;
  return table.stack(frames, ids);
}

const ACTION_BY_NAME: ReadonlyMap<string, Action> = new Map([
  ['alloc', Action.Alloc],
  ['free_requested', Action.FreeRequested],
  ['free_completed', Action.FreeCompleted],
  ['segment_alloc', Action.SegmentAlloc],
  ['segment_free', Action.SegmentFree],
  ['segment_map', Action.SegmentMap],
  ['segment_unmap', Action.SegmentUnmap],
  ['oom', Action.Oom],
  ['snapshot', Action.Snapshot],
]);

function readTrace(table: FrameTable, device: number, entries: unknown[]): DeviceTrace {
  const n = entries.length;
  const action = new Uint8Array(n);
  const addr = new Float64Array(n);
  const size = new Float64Array(n);
  const timeUs = new Float64Array(n);
  const stack = new Int32Array(n);
  const stream = new Float64Array(n);
  const deviceFree = new Map<number, number>();
  const otherActions = new Map<number, string>();
  const userMetadata = new Map<number, string>();
  const compileContext = new Map<number, string>();
  for (let i = 0; i < n; i++) {
    const e = entries[i];
    if (!isDict(e)) throw new SnapshotFormatError(`device ${device} trace entry ${i} is ${describe(e)}, expected a dict`);
    const name = text(e.action);
    const code = ACTION_BY_NAME.get(name);
    if (code === undefined) {
      action[i] = Action.Other;
      otherActions.set(i, name);
    } else {
      action[i] = code;
    }
    addr[i] = optionalInteger(e.addr, 0, `device ${device} trace entry ${i} addr`);
    size[i] = optionalInteger(e.size, 0, `device ${device} trace entry ${i} size`);
    timeUs[i] = e.time_us === undefined ? NaN : integer(e.time_us, `device ${device} trace entry ${i} time_us`);
    stream[i] = typeof e.stream === 'number' ? e.stream : 0;
    stack[i] = readStack(table, e.frames);
    if (code === Action.Oom && e.device_free !== undefined) {
      deviceFree.set(i, integer(e.device_free, `device ${device} trace entry ${i} device_free`));
    }
    if (typeof e.user_metadata === 'string' && e.user_metadata !== '') userMetadata.set(i, e.user_metadata);
    if (typeof e.compile_context === 'string' && e.compile_context !== '' && e.compile_context !== 'N/A') {
      compileContext.set(i, e.compile_context);
    }
  }
  return { device, length: n, action, addr, size, timeUs, stack, stream, deviceFree, otherActions, userMetadata, compileContext };
}

function readBlocks(table: FrameTable, segment: Dict, segmentAddress: number, where: string): { blocks: Block[]; history: boolean } {
  const raw = segment.blocks === undefined ? [] : list(segment.blocks, `${where} blocks`);
  const blocks: Block[] = [];
  let offset = segmentAddress;
  let history = false;
  raw.forEach((b, j) => {
    if (!isDict(b)) throw new SnapshotFormatError(`${where} block ${j} is ${describe(b)}, expected a dict`);
    const size = integer(b.size, `${where} block ${j} size`);
    let stack = readStack(table, b.frames);
    if (b.history !== undefined) {
      history = true;
      const first: unknown = Array.isArray(b.history) ? b.history[0] : undefined;
      if (stack === NO_STACK && isDict(first)) stack = readStack(table, first.frames);
    }
    const address = b.address === undefined ? offset : integer(b.address, `${where} block ${j} address`);
    blocks.push({
      address,
      size,
      requestedSize: optionalInteger(b.requested_size, size, `${where} block ${j} requested_size`),
      state: text(b.state),
      stack,
    });
    offset += size;
  });
  return { blocks, history };
}

function readSegments(table: FrameTable, raw: unknown[]): { segments: Segment[]; history: boolean } {
  let history = false;
  const segments = raw.map((s, i): Segment => {
    const where = `segment ${i}`;
    if (!isDict(s)) throw new SnapshotFormatError(`${where} is ${describe(s)}, expected a dict`);
    const address = integer(s.address, `${where} address`);
    const read = readBlocks(table, s, address, where);
    history ||= read.history;
    return {
      device: optionalInteger(s.device, 0, `${where} device`),
      address,
      totalSize: integer(s.total_size, `${where} total_size`),
      allocatedSize: optionalInteger(s.allocated_size, 0, `${where} allocated_size`),
      activeSize: optionalInteger(s.active_size, 0, `${where} active_size`),
      requestedSize: optionalInteger(s.requested_size, 0, `${where} requested_size`),
      stream: typeof s.stream === 'number' ? s.stream : 0,
      segmentType: text(s.segment_type),
      isExpandable: s.is_expandable === true,
      stack: readStack(table, s.frames),
      blocks: read.blocks,
    };
  });
  return { segments, history };
}

function readAnnotations(raw: unknown): ExternalAnnotation[] {
  if (!Array.isArray(raw)) return [];
  const out: ExternalAnnotation[] = [];
  for (const a of raw) {
    if (!isDict(a)) continue;
    out.push({
      stage: text(a.stage),
      name: text(a.name),
      device: typeof a.device === 'number' ? a.device : 0,
      timeUs: typeof a.time_us === 'number' ? a.time_us : NaN,
    });
  }
  return out;
}

/** Builds the model from a decoded pickle; throws SnapshotFormatError when it is something else. */
export function snapshotFromPickle(root: unknown): Snapshot {
  const table = new FrameTable();
  if (Array.isArray(root)) {
    const { segments, history } = readSegments(table, root);
    return finish(table, history ? 'torch-2.0-history' : 'segments-list', segments, [], [], undefined);
  }
  if (!isDict(root)) throw new SnapshotFormatError(`the file holds ${describe(root)}, not a dict of segments and traces`);
  if (root.segments === undefined && root.device_traces === undefined) {
    const keys = Object.keys(root).slice(0, 5).join(', ');
    throw new SnapshotFormatError(`the dict has no 'segments' or 'device_traces' (keys: ${keys || 'none'})`);
  }
  const { segments, history } = readSegments(table, root.segments === undefined ? [] : list(root.segments, "'segments'"));
  const rawTraces = root.device_traces === undefined ? [] : list(root.device_traces, "'device_traces'");
  const traces = rawTraces.map((t, device) => readTrace(table, device, list(t, `device_traces[${device}]`)));
  const settings = isDict(root.allocator_settings) ? root.allocator_settings : undefined;
  const snapshot = finish(table, history ? 'torch-2.0-history' : 'torch-2.1+', segments, traces, readAnnotations(root.external_annotations), settings);
  const measured = readMeasuredDeviceMemory(root.vram_lens);
  return measured ? { ...snapshot, measuredDeviceMemory: measured } : snapshot;
}

/** `vram_lens.device_memory` = {source, time_us: [...], bytes: [...]}, written by a workload run; malformed is ignored. */
function readMeasuredDeviceMemory(raw: unknown): MeasuredDeviceMemory | undefined {
  if (!isDict(raw) || !isDict(raw.device_memory)) return undefined;
  const line: Dict = raw.device_memory;
  const numbers = (v: unknown): number[] | undefined =>
    Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (v as number[]) : undefined;
  const times = numbers(line.time_us);
  const bytes = numbers(line.bytes);
  if (!times || !bytes || times.length !== bytes.length || times.length === 0) return undefined;
  return { source: text(line.source), timeUs: Float64Array.from(times), bytes: Float64Array.from(bytes) };
}

function finish(
  table: FrameTable,
  layout: SnapshotLayout,
  segments: Segment[],
  traces: DeviceTrace[],
  externalAnnotations: ExternalAnnotation[],
  allocatorSettings: Dict | undefined,
): Snapshot {
  return { layout, frames: table.frames, stacks: table.stacks, traces, segments, externalAnnotations, allocatorSettings };
}
