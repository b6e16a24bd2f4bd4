/** The guards of the snapshot summary's messages (src/protocol/summary.ts): each side's check of what it receives. */
import type { HostToSummary, SummaryToHost } from '../protocol/summary';
import { messageGuard } from './messageGuard';

export const isSummaryToHost = messageGuard<SummaryToHost>({ ready: true, annotate: true, selectDevice: true, whatIf: true, openLine: true, reopenAsText: true });
export const isHostToSummary = messageGuard<HostToSummary>({ loading: true, summary: true, allocator: true, error: true });
