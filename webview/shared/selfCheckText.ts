/**
 * Whether the allocator replay can be trusted, in the words every page uses (the timeline's allocator
 * view, the what-if panel, the summary): the self-check's figures and where the replay first departs
 * from the recording. DOM-free (tested in Node).
 */
import type { SelfCheckDetails } from '../../src/protocol/whatIf';
import { formatCount } from '../../src/engine/text/format';


/** The settings replayed, in words. */
export function settingsText(settings: string): string {
  return settings === '' ? 'PyTorch\'s defaults' : settings;
}

/**
 * The self-check in two sentences: how many allocations the replay put at the address PyTorch
 * recorded, how many segment events it reproduced, and whether (and where, and why) it departs.
 */
export function selfCheckLines(c: SelfCheckDetails): { readonly ok: boolean; readonly lines: string[] } {
  // Nothing to check against: said plainly, not as a failed check.
  if (c.notReplayable !== undefined) return { ok: true, lines: [c.notReplayable] };
  const k = c.check;
  const settings = settingsText(c.settings) + (c.settingsRecorded ? '' : ' (assumed: this snapshot does not record its settings)');
  const figures =
    `${formatCount(k.atRecordedAddress)} of ${formatCount(k.allocations)} allocations at the address PyTorch recorded, ` +
    `${formatCount(k.segmentEventsReproduced)} of ${formatCount(k.segmentEvents)} segment events reproduced` +
    (c.recordedOoms > 0 ? `, ${formatCount(c.oomsReproduced)} of ${formatCount(c.recordedOoms)} OOMs` : '') +
    (c.finalBlocks > 0 ? `, ${formatCount(c.finalBlocksMatching)} of ${formatCount(c.finalBlocks)} blocks of the final state` : '');
  const first = `The trace replayed with the recorded settings (${settings}): ${figures}.`;
  const d = k.firstDeparture;
  if (!d) {
    const verdict =
      k.allocations === 0
        ? 'The trace holds no allocation to check the replay against: treat what it shows as rough.'
        : 'The replay never departs from the recording: what it shows and predicts follows the rules that reproduce this very run.';
    return { ok: k.allocations > 0, lines: [first, verdict] };
  }
  const at = d.event < 0 ? 'before the first event' : d.action === 'end' ? 'at the end' : `at event ${formatCount(d.event)} (${d.action})`;
  return { ok: false, lines: [first, `It first departs ${at}: ${d.reason}. Figures past that point may differ from what PyTorch did.`] };
}
