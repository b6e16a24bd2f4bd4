/** One advice rule: reads one device's analysis, returns findings (none when it has nothing to say). */
import type { AdviceContext } from './context';
import type { Finding, RuleId } from './finding';

export interface AdviceRule {
  readonly id: RuleId;
  /** A few words naming the rule's findings where room is short: the timeline labels its markers with them. */
  readonly label: string;
  run(ctx: AdviceContext): Finding[];
}

/** `file:line` for messages. */
export function where(l: { file: string; line: number }): string {
  const parts = l.file.replace(/\\/g, '/').split('/');
  return `${parts[parts.length - 1]}:${l.line}`;
}

/** `1 block`, `2 blocks` (or the given plural). */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
