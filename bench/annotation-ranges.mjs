// `npm run bench:annotations`: the innermost annotation range holding a time, asked once per block no
// line holds (src/engine/analysis/annotationRanges.ts), on the ranges a long Profile VRAM run records: one
// "backward: <module>" range per module per step inside a step range. The index against the scan of
// every range (the definition; timed on a sample of the questions and scaled).
//
//   node bench/annotation-ranges.mjs [--steps N] [--modules N] [--questions N]
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { repoRoot } from './common.mjs';

const require = createRequire(import.meta.url);
const { AnnotationIndex, innermostRange } = require(path.join(repoRoot, 'out', 'src', 'engine', 'analysis', 'annotationRanges.js'));

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const steps = option('steps', 1000);
const modules = option('modules', 100);
const questions = option('questions', 100_000);

const ranges = [];
let order = 0;
for (let step = 0; step < steps; step++) {
  const start = step * 2000;
  ranges.push({ name: 'step', start, end: start + 1500, order: order++ });
  for (let m = 0; m < modules; m++) ranges.push({ name: `backward: m${m}`, start: start + m * 12, end: start + m * 12 + 10, order: order++ });
}
const times = Array.from({ length: questions }, (_, i) => (i * 19.7) % (steps * 2000));

const ms = (from) => Number(process.hrtime.bigint() - from) / 1e6;
let started = process.hrtime.bigint();
const index = new AnnotationIndex(ranges);
const built = ms(started);
started = process.hrtime.bigint();
let found = 0;
for (const t of times) if (index.innermost(t) !== undefined) found++;
const indexed = ms(started);

const sample = times.filter((_, i) => i % 50 === 0);
started = process.hrtime.bigint();
let agree = 0;
for (const t of sample) if (innermostRange(ranges, t) === index.innermost(t)) agree++;
const scanned = (ms(started) * times.length) / sample.length;

console.log(`${ranges.length} ranges (${steps} steps x ${modules} modules + the steps), ${questions} questions, ${found} inside a range`);
console.log(`index: built in ${built.toFixed(1)} ms, answered in ${indexed.toFixed(1)} ms`);
console.log(`scan of every range: about ${(scanned / 1000).toFixed(1)} s for the same questions (timed on ${sample.length}, ${agree} answers equal to the index's)`);
