/** The generated gutter icons and package.json's heat colours and inline-figure enum match their sources. */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HEAT_PALETTE, HEAT_STEPS, HEAT_THEME_KINDS, heatColourDescription, heatIconFile, heatIconSvg } from '../../../../src/engine/annotate/heat';
import { DEFAULT_INLINE_FIGURES, inlineFigureChoice } from '../../../../src/engine/annotate/inlineFigures';
import { LINE_FIGURES } from '../../../../src/engine/analysis/lineFigures';
import { repoRoot } from '../../../helpers/corpus';

const root = repoRoot;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  contributes: {
    colors: { id: string; description: string; defaults: Record<string, string> }[];
    configuration: { properties: Record<string, { default?: unknown; items?: { enum?: string[]; enumDescriptions?: string[] } }> };
  };
};

describe('heat icons', () => {
  it('media/heat holds exactly the generated icons, one per theme kind and step (scripts/generate-heat-icons.mjs)', () => {
    const folder = join(root, 'media', 'heat');
    const expected = HEAT_THEME_KINDS.flatMap((kind) => Array.from({ length: HEAT_STEPS }, (_, step) => heatIconFile(kind, step))).sort();
    assert.deepEqual(readdirSync(folder).sort(), expected);
    for (const kind of HEAT_THEME_KINDS) {
      for (let step = 0; step < HEAT_STEPS; step++) assert.equal(readFileSync(join(folder, heatIconFile(kind, step)), 'utf8'), heatIconSvg(kind, step));
    }
  });

  it('each icon is an SVG in its step colour, its level rising with the step', () => {
    for (const kind of HEAT_THEME_KINDS) {
      const heights: number[] = [];
      for (let step = 0; step < HEAT_STEPS; step++) {
        const svg = heatIconSvg(kind, step);
        assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
        assert.ok(svg.includes(`fill="${HEAT_PALETTE[kind][step]}"`));
        heights.push(Number(/height="([\d.]+)" fill="#/.exec(svg)![1]));
      }
      for (let i = 1; i < heights.length; i++) assert.ok(heights[i] > heights[i - 1], `${kind}: step ${i} is taller`);
    }
  });

  it('package.json themable heat colours default to the icons palette and describe the steps', () => {
    for (let step = 0; step < HEAT_STEPS; step++) {
      const colour = manifest.contributes.colors.find((c) => c.id === `vramLens.heat${step}`);
      assert.ok(colour, `vramLens.heat${step}`);
      assert.equal(colour.description, heatColourDescription(step));
      for (const kind of HEAT_THEME_KINDS) assert.equal(colour.defaults[kind], HEAT_PALETTE[kind][step], `${kind} ${step}`);
    }
    assert.equal(heatColourDescription(0), "VRAM Lens heat of lines that hold under 0.5% of the snapshot's peak at the peak.");
    assert.equal(heatColourDescription(7), "VRAM Lens heat of lines that hold 25% to 40% of the snapshot's peak at the peak.");
    assert.equal(heatColourDescription(9), "VRAM Lens heat of lines that hold 60% or more of the snapshot's peak at the peak.");
  });
});

describe('vramLens.inline.figures', () => {
  const property = manifest.contributes.configuration.properties['vramLens.inline.figures'];

  it('offers exactly the registry figures, each described', () => {
    assert.deepEqual(property.items?.enum, LINE_FIGURES.map((f) => f.key));
    assert.equal(property.items?.enumDescriptions?.length, LINE_FIGURES.length);
    assert.deepEqual(property.default, DEFAULT_INLINE_FIGURES);
  });

  it('reads a setting value: unknown names and repeats dropped, the order kept', () => {
    assert.deepEqual(inlineFigureChoice(['peakWhileAllocatingBytes', 'bogus', 'liveAtPeakBytes', 'peakWhileAllocatingBytes', 3]), ['peakWhileAllocatingBytes', 'liveAtPeakBytes']);
    // A figure named by the key it had before it was renamed (a setting written then) is the same figure.
    assert.deepEqual(inlineFigureChoice(['inclusivePeakBytes', 'peakBytes', 'peakWhileAllocatingBytes']), ['inclusivePeakWhileAllocatingBytes', 'peakWhileAllocatingBytes']);
    assert.deepEqual(inlineFigureChoice('liveAtPeakBytes'), [...DEFAULT_INLINE_FIGURES]);
  });
});
