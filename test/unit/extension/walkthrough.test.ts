/**
 * The walkthrough's words agree with the gestures (issue 29): it said "click a band to go to its line",
 * while a click pins the band and a double-click opens its line (the timeline's tooltip says so, and
 * test/browser/timeline.test.ts checks both gestures in Chromium).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../../helpers/corpus';

interface Step {
  readonly id: string;
  readonly description: string;
}

describe('the walkthrough', () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { contributes: { walkthroughs: { steps: Step[] }[] } };
  const timeline = pkg.contributes.walkthroughs[0].steps.find((s) => s.id === 'timeline');

  it('says what a click and a double-click on a band do, as the timeline does', () => {
    assert.ok(timeline, 'the timeline step');
    assert.match(timeline.description, /Click a band to pin it and see its stack, double-click it to open its line/);
    assert.doesNotMatch(timeline.description, /click a band to go to its line/i);
    const tooltip = readFileSync(path.join(repoRoot, 'webview', 'timeline', 'controls', 'tooltipText.ts'), 'utf8');
    assert.ok(tooltip.includes("'Click to pin, double-click to open the line'"), 'the tooltip names the same gestures');
  });
});
