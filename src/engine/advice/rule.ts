/** One advice rule: reads one device's analysis, returns findings (none when it has nothing to say). */
import type { AdviceContext } from './context';
import type { Finding, RuleId } from './finding';
import type { CellPlaces } from '../paths/places';
import { lineLabel } from '../paths/places';

export interface AdviceRule {
  readonly id: RuleId;
  /** A few words naming the rule's findings where room is short: the timeline labels its markers with them. */
  readonly label: string;
  run(ctx: AdviceContext): Finding[];
}

/** `file:line` for messages; a notebook cell's line as `train.ipynb, cell 7, line 3` (`places`: the context's). */
export function where(l: { file: string; line: number }, places?: CellPlaces): string {
  return lineLabel(l.file, l.line, places);
}

/** `1 block`, `2 blocks` (or the given plural). */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
