/**
 * The advisor's findings as timeline markers: each finding whose evidence names trace events
 * (`firstEvent`..`lastEvent` ranges, single `...Event` indices, `...Events` lists such as the
 * `empty_cache` release bursts) becomes a marker at those events on the chosen axis, labelled with
 * its rule's own `label` (src/engine/advice/rule.ts).
 */
import { RULES } from '../advice/advise';
import type { Finding, RuleId, Severity } from '../advice/finding';
import type { AdviceRule } from '../advice/rule';
import type { TimelineAxis } from './axis';

/** One marker: a point (x0 === x1) or a span of the axis, with the finding's words for its hover. */
export interface FindingMarker {
  readonly rule: RuleId;
  readonly severity: Severity;
  /** A few words to label the marker with. */
  readonly label: string;
  readonly title: string;
  readonly message: string;
  /** Event indices the marker stands for (first and last; equal for a point). */
  readonly firstEvent: number;
  readonly lastEvent: number;
  readonly x0: number;
  readonly x1: number;
}

/** The event ranges [first, last] a finding's evidence names, in the order found; none: not on the timeline. */
export function findingEventRanges(finding: Finding): [number, number][] {
  const e = finding.evidence;
  const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  const first = e.firstEvent;
  const last = e.lastEvent;
  if (isIndex(first) && isIndex(last) && last >= first) return [[first, last]];
  const ranges: [number, number][] = [];
  const seen = new Set<number>();
  const add = (v: unknown) => {
    if (isIndex(v) && !seen.has(v)) {
      seen.add(v);
      ranges.push([v, v]);
    }
  };
  for (const [key, value] of Object.entries(e)) {
    if (key.endsWith('Event')) add(value);
    else if (key.endsWith('Events') && Array.isArray(value)) (value as readonly number[]).forEach(add);
  }
  return ranges;
}

/**
 * Markers of `findings` on `axis` (event `i` is where state `i + 1` begins, as the OOM and peak
 * markers place it; a range ends where the state after its last event ends). Events beyond the
 * trace are left out. Each marker is labelled with its rule's `label`, from `rules` (the advisor's
 * RULES; a finding of a rule not among them is labelled with its id).
 */
export function findingMarkers(findings: readonly Finding[], axis: TimelineAxis, rules: readonly AdviceRule[] = RULES): FindingMarker[] {
  const labels = new Map<RuleId, string>(rules.map((r) => [r.id, r.label]));
  const markers: FindingMarker[] = [];
  const events = axis.states - 1;
  for (const f of findings) {
    for (const [first, last] of findingEventRanges(f)) {
      if (last >= events) continue;
      markers.push({
        rule: f.rule,
        severity: f.severity,
        label: labels.get(f.rule) ?? f.rule,
        title: f.title,
        message: f.message,
        firstEvent: first,
        lastEvent: last,
        x0: axis.start(first + 1),
        x1: first === last ? axis.start(first + 1) : axis.start(last + 2),
      });
    }
  }
  return markers;
}
