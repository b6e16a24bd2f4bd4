/**
 * Tiny hand-written snapshots for tests, in the decoded-pickle shape PyTorch writes
 * (so they go through the same `snapshotFromPickle` path as real files).
 */
export interface RawFrame {
  filename: string;
  line: number | bigint;
  name: string;
}

export const frame = (filename: string, line: number | bigint, name = 'f'): RawFrame => ({ filename, line, name });

export interface RawEvent {
  action: string;
  addr: number;
  size: number;
  stream?: number;
  time_us?: number;
  frames?: RawFrame[];
  device_free?: number;
}

export const ev = (action: string, addr: number, size: number, frames: RawFrame[] = [], extra: Partial<RawEvent> = {}): RawEvent => ({
  action,
  addr,
  size,
  stream: 0,
  frames,
  ...extra,
});

export interface RawBlock {
  address?: number;
  size: number;
  requested_size?: number;
  state: string;
  frames?: RawFrame[];
  history?: { addr: number; real_size: number; frames: RawFrame[] }[];
}

export interface RawSegment {
  device: number;
  address: number;
  total_size: number;
  allocated_size?: number;
  active_size?: number;
  stream?: number;
  segment_type?: string;
  blocks: RawBlock[];
}

export const segment = (device: number, address: number, totalSize: number, blocks: RawBlock[] = []): RawSegment => ({
  device,
  address,
  total_size: totalSize,
  allocated_size: 0,
  active_size: 0,
  stream: 0,
  segment_type: 'large',
  blocks,
});

export function rawSnapshot(traces: RawEvent[][], segments: RawSegment[] = []): Record<string, unknown> {
  return { segments, device_traces: traces };
}
