/**
 * The heat of a line: its share of the device peak that it holds at the peak itself (`liveAtPeakBytes`,
 * self), in ten steps, and the gutter icons that draw them. The steps are spaced roughly by doubling so
 * that a line holding 27% of the peak, one holding 14% and one holding 1% look different (heat that
 * followed "peak while allocating" was the device peak for almost every line of a training step).
 *
 * The palette is the one `package.json` gives the themable colours `vramLens.heat0..9` (a unit test
 * keeps them equal); the icons are generated from it by `scripts/generate-heat-icons.mjs` into
 * `media/heat/` and checked byte for byte by the same test.
 */
import type { LineFigures } from '../analysis/lines';
import { FIGURE } from '../analysis/lineFigures';

/** Number of heat steps; the extension creates exactly one decoration type per step. */
export const HEAT_STEPS = 10;

/**
 * Lower bounds of steps 1..9 as a share of the peak: step 0 holds less than 0.5% (or nothing) at the
 * peak, step 9 holds 60% or more.
 */
export const HEAT_THRESHOLDS: readonly number[] = [0.005, 0.01, 0.02, 0.04, 0.08, 0.15, 0.25, 0.4, 0.6];

/** Heat step of a line holding `liveBytes` at a peak of `peakBytes`. */
export function heatStep(liveBytes: number, peakBytes: number): number {
  if (!(peakBytes > 0) || !(liveBytes > 0)) return 0;
  const share = liveBytes / peakBytes;
  let step = 0;
  while (step < HEAT_THRESHOLDS.length && share >= HEAT_THRESHOLDS[step]) step++;
  return step;
}

/** Heat step of a line: the share of the peak it holds itself at the peak. */
export function lineHeat(f: LineFigures, peakBytes: number): number {
  return heatStep(f[FIGURE.heldAtPeak], peakBytes);
}

/** "0.5-1% of the peak", for colour descriptions and docs. */
export function heatStepRange(step: number): string {
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  if (step <= 0) return `under ${pct(HEAT_THRESHOLDS[0])}`;
  if (step >= HEAT_THRESHOLDS.length) return `${pct(HEAT_THRESHOLDS[HEAT_THRESHOLDS.length - 1])} or more`;
  return `${pct(HEAT_THRESHOLDS[step - 1])} to ${pct(HEAT_THRESHOLDS[step])}`;
}

export const HEAT_THEME_KINDS = ['light', 'dark', 'highContrast', 'highContrastLight'] as const;
export type HeatThemeKind = (typeof HEAT_THEME_KINDS)[number];

/** The heat colours per theme kind, coolest first (package.json's `vramLens.heatN` defaults). */
export const HEAT_PALETTE: Readonly<Record<HeatThemeKind, readonly string[]>> = {
  dark: ['#3b6f99', '#3f8a8c', '#4c9a6a', '#7da54a', '#aaad3c', '#cfa032', '#e0862a', '#e96a22', '#ee4b1c', '#f22c17'],
  light: ['#2f6390', '#2f7c7e', '#3a8a58', '#6a9436', '#979a22', '#bb8a14', '#cc6f0e', '#d3550b', '#d63a09', '#d81d06'],
  highContrast: ['#5fa8ff', '#4fd1d1', '#5be08a', '#a8e05a', '#e6e650', '#ffd23f', '#ffad33', '#ff8a2b', '#ff5c26', '#ff2a1f'],
  highContrastLight: ['#0b4f8a', '#0b6466', '#0c6a38', '#4a6f10', '#6d6f00', '#875f00', '#9a4a00', '#a53700', '#ad2400', '#b00f00'],
};

/** File name of a heat icon under `media/heat/`. */
export function heatIconFile(kind: HeatThemeKind, step: number): string {
  return `heat-${kind}-${step}.svg`;
}

/**
 * The gutter icon of one step: a level meter (a frame filled from the bottom, one more tenth per step)
 * in the step's colour, so steps differ by height as well as by colour. High-contrast kinds get a
 * frame in the theme's foreground. Drawn in a 16×16 box, scaled to the line height (`contain`).
 */
export function heatIconSvg(kind: HeatThemeKind, step: number): string {
  const colour = HEAT_PALETTE[kind][step];
  const frame = kind === 'highContrast' ? '#ffffff' : kind === 'highContrastLight' ? '#000000' : colour;
  const top = 1;
  const bottom = 15;
  const height = Math.max(1.4, ((step + 1) / HEAT_STEPS) * (bottom - top));
  const y = Math.round((bottom - height) * 10) / 10;
  const h = Math.round(height * 10) / 10;
  const frameOpacity = kind.startsWith('highContrast') ? '1' : '0.55';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">` +
    `<rect x="4.5" y="${top - 0.5}" width="7" height="${bottom - top + 1}" rx="1" fill="none" stroke="${frame}" stroke-opacity="${frameOpacity}"/>` +
    `<rect x="5.5" y="${y}" width="5" height="${h}" fill="${colour}"/>` +
    `</svg>\n`
  );
}

/** The description of the themable colour `vramLens.heat<step>` in package.json. */
export function heatColourDescription(step: number): string {
  return `VRAM Lens heat of lines that hold ${heatStepRange(step)} of the snapshot's peak at the peak.`;
}
