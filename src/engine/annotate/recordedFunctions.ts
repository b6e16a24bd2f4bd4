/** The function each recorded user line ran in, as its frames name it (for stale-source relocation). */
import type { LineIndex } from '../analysis/lineIndex';
import { NO_LINE } from '../analysis/lineIndex';
import type { Snapshot } from '../snapshot/model';

/** Per line id of `index`: the function name of the first frame at that line ('' when none). */
export function lineFunctionNames(snapshot: Snapshot, index: LineIndex): string[] {
  const names = new Array<string>(index.lines.length).fill('');
  snapshot.frames.forEach((frame, frameId) => {
    const id = index.frameLine[frameId];
    if (id !== NO_LINE && names[id] === '') names[id] = frame.name;
  });
  return names;
}
