/**
 * The GPU memory this process uses, read from NVIDIA's management library (NVML) through koffi.
 * Without an NVIDIA driver (no libnvidia-ml), or where the driver does not report per-process
 * memory (some containers), `openNvml` resolves undefined: the figure is quietly not available.
 */

import { epochMicros } from './clock';

/** Bytes of device memory held by one process, summed over the GPUs NVML sees. */
export interface DeviceMemoryProbe {
  readonly devices: number;
  /** Undefined when this sample could not be read. */
  sample(): number | undefined;
  close(): void;
}

const NVML_SUCCESS = 0;
const NVML_ERROR_INSUFFICIENT_SIZE = 7;
/** `usedGpuMemory` when the driver cannot tell (e.g. Windows WDDM, some containers). */
const NOT_AVAILABLE = 0xffff_ffff_ffff_ffffn;
/** sizeof(nvmlProcessInfo_t) (v2/v3): pid u32, pad, usedGpuMemory u64, gpuInstanceId u32, computeInstanceId u32. */
const PROCESS_INFO_BYTES = 24;

interface KoffiLibrary {
  func(definition: string): (...args: unknown[]) => unknown;
  unload?(): void;
}
interface Koffi {
  load(path: string): KoffiLibrary;
}

function libraryName(): string {
  return process.platform === 'win32' ? 'nvml.dll' : 'libnvidia-ml.so.1';
}

/** Opens NVML for process `pid` (this process by default); undefined when it is not available. */
export function openNvml(pid = process.pid): DeviceMemoryProbe | undefined {
  let koffi: Koffi;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load of an optional native module
    koffi = require('koffi') as Koffi;
  } catch {
    return undefined;
  }
  let lib: KoffiLibrary;
  try {
    lib = koffi.load(libraryName());
  } catch {
    return undefined;
  }
  try {
    const init = lib.func('int nvmlInit_v2()');
    const shutdown = lib.func('int nvmlShutdown()');
    const getCount = lib.func('int nvmlDeviceGetCount_v2(_Out_ uint32_t *count)');
    const getHandle = lib.func('int nvmlDeviceGetHandleByIndex_v2(uint32_t index, _Out_ void **device)');
    const getProcesses = lib.func('int nvmlDeviceGetComputeRunningProcesses_v3(void *device, _Inout_ uint32_t *count, void *infos)');
    if (init() !== NVML_SUCCESS) return undefined;
    const count: [number] = [0];
    if (getCount(count) !== NVML_SUCCESS || count[0] === 0) {
      shutdown();
      return undefined;
    }
    const handles: unknown[] = [];
    for (let i = 0; i < count[0]; i++) {
      const out: [unknown] = [null];
      if (getHandle(i, out) === NVML_SUCCESS) handles.push(out[0]);
    }
    let capacity = 64;
    let buffer = Buffer.alloc(capacity * PROCESS_INFO_BYTES);
    const usedBy = (device: unknown): number | undefined => {
      for (;;) {
        const n: [number] = [capacity];
        const status = getProcesses(device, n, buffer);
        if (status === NVML_ERROR_INSUFFICIENT_SIZE && capacity < 65536) {
          capacity *= 4;
          buffer = Buffer.alloc(capacity * PROCESS_INFO_BYTES);
          continue;
        }
        if (status !== NVML_SUCCESS) return undefined;
        let total = 0;
        for (let i = 0; i < n[0]; i++) {
          const at = i * PROCESS_INFO_BYTES;
          if (buffer.readUInt32LE(at) !== pid) continue;
          const used = buffer.readBigUInt64LE(at + 8);
          if (used === NOT_AVAILABLE) return undefined;
          total += Number(used);
        }
        return total;
      }
    };
    let open = true;
    return {
      devices: handles.length,
      sample() {
        if (!open) return undefined;
        let total = 0;
        for (const h of handles) {
          const used = usedBy(h);
          if (used === undefined) return undefined;
          total += used;
        }
        return total;
      },
      close() {
        if (!open) return;
        open = false;
        shutdown();
      },
    };
  } catch {
    return undefined;
  }
}

/** Samples a probe on a timer until stopped: the measured device-memory line of a run. */
export class DeviceMemoryRecorder {
  private readonly times: number[] = [];
  private readonly bytes: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly probe: DeviceMemoryProbe,
    private readonly intervalMs = 5,
  ) {}

  start(): void {
    this.record();
    this.timer = setInterval(() => this.record(), this.intervalMs);
  }

  /** Stops sampling; returns epoch-microsecond times and bytes. */
  stop(): { timeUs: number[]; bytes: number[] } {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.record();
    this.probe.close();
    return { timeUs: this.times, bytes: this.bytes };
  }

  private record(): void {
    const value = this.probe.sample();
    if (value === undefined) return;
    this.times.push(epochMicros());
    this.bytes.push(value);
  }
}
