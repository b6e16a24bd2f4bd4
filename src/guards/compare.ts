/** The guards of the comparison panel's messages (src/protocol/compare.ts): each side's check of what it receives. */
import type { CompareToHost, HostToCompare } from '../protocol/compare';
import { messageGuard } from './messageGuard';

export const isCompareToHost = messageGuard<CompareToHost>({ ready: true, openLine: true, setAxis: true, runCommand: true });
export const isHostToCompare = messageGuard<HostToCompare>({ comparison: true, overlay: true, error: true });
