/**
 * Reading a predicted snapshot's key (Predict VRAM; the model's `Prediction`): written by the bootstrap from a run on fake 'cuda' tensors, for a GPU
 * the user chose, under the snapshot's `vram_lens.predicted` key. Every view that shows such a snapshot says
 * it is a prediction and for which GPU; this module reads the key (malformed parts are dropped, never fatal).
 *
 * Before placement (`placed` false) the addresses are provisional (one per allocation, never reused) and
 * `history` holds the allocations before the trace; the runner then replays the caching allocator
 * (`engine/predict/placement.ts`) and rewrites the file with real segments (`placed` true, `history` gone,
 * `placement` set).
 */
import type { Prediction, PredictionAssumption, PredictionPlacement } from './model';
import type { Dict } from './pyFields';
import { isDict } from './pyFields';

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

function readAssumption(raw: unknown): PredictionAssumption | undefined {
  if (!isDict(raw)) return undefined;
  const line = num(raw.line);
  if (typeof raw.message !== 'string' || line === undefined) return undefined;
  return { kind: str(raw.kind, 'value'), filename: str(raw.filename), line, message: raw.message, count: num(raw.count) ?? 1 };
}

function readPlacement(raw: unknown): PredictionPlacement | undefined {
  if (!isDict(raw)) return undefined;
  const peak = num(raw.peakReserved);
  if (typeof raw.fits !== 'boolean' || peak === undefined) return undefined;
  const oom = isDict(raw.oom) ? raw.oom : undefined;
  const requested = num(oom?.requested);
  return {
    fits: raw.fits,
    peakReservedBytes: peak,
    neededReservedBytes: num(raw.neededReserved) ?? peak,
    ...(oom && requested !== undefined ? { oom: { requestedBytes: requested, reservedBytes: num(oom.reserved) ?? 0, event: num(oom.event) ?? -1 } } : {}),
  };
}

/** `vram_lens.predicted` of a snapshot's root dict, or undefined when it is not a prediction. */
export function readPrediction(vramLens: unknown): Prediction | undefined {
  if (!isDict(vramLens) || !isDict(vramLens.predicted)) return undefined;
  const p: Dict = vramLens.predicted;
  const gpu = isDict(p.gpu) ? p.gpu : {};
  const memory = num(gpu.memory);
  if (memory === undefined) return undefined;
  const assumptions = Array.isArray(p.assumptions) ? p.assumptions.map(readAssumption).filter((a): a is PredictionAssumption => a !== undefined) : [];
  const placement = readPlacement(p.placement);
  const fraction = num(p.memoryFraction);
  return {
    gpu: { name: str(gpu.name, 'GPU'), memoryBytes: memory, capability: str(gpu.capability) },
    torch: str(p.torch),
    python: str(p.python),
    data: str(p.data, 'fake'),
    window: str(p.window, 'run'),
    placed: p.placed === true,
    workspaceBytes: num(p.workspaceBytes) ?? 0,
    peakAllocatedBytes: num(p.peakAllocated) ?? 0,
    ...(fraction !== undefined ? { memoryFraction: fraction } : {}),
    assumptions,
    ...(placement ? { placement } : {}),
  };
}
