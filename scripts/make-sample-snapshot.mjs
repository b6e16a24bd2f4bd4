// Writes the sample snapshots that ship in media/samples: similarity-eager.pickle (the one `npm start`
// analyses and Open Sample shows on similarity.py: the built-in similarity workload, eager variant, size
// medium) and train-step.pickle (Open Sample on train_step.py: the training-step workload, plain variant,
// size small), each run on onnxruntime's CPU provider and saved in PyTorch's snapshot format, its frames
// naming the sample by a path relative to the repository. The figures are this machine's measurement;
// run again to refresh. Needs `npm run compile-tests` first.
//
//   node scripts/make-sample-snapshot.mjs
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { executeJob, finishJob } = require(path.join(root, 'out', 'src', 'runtime', 'ort', 'workloadJob.js'));
const { encodePickle } = require(path.join(root, 'out', 'src', 'engine', 'pickle', 'encoder.js'));
const { DEFAULT_SESSION_SETTINGS } = require(path.join(root, 'out', 'src', 'runtime', 'ort', 'session.js'));

const SAMPLES = [
  { file: 'similarity-eager.pickle', workload: 'similarity', variant: 'eager', size: 'medium', sample: 'similarity.py' },
  { file: 'train-step.pickle', workload: 'train-step', variant: 'plain', size: 'small', sample: 'train_step.py' },
];

for (const s of SAMPLES) {
  const samplePath = `media/samples/${s.sample}`;
  const executed = await executeJob({
    kind: 'builtin',
    workload: s.workload,
    variant: s.variant,
    size: s.size,
    samplePath,
    sampleText: readFileSync(path.join(root, samplePath), 'utf8'),
    provider: 'cpu',
    settings: DEFAULT_SESSION_SETTINGS,
  });
  const { snapshot, summary } = finishJob(executed);
  const pickle = encodePickle(snapshot);
  const out = path.join(root, 'media', 'samples', s.file);
  writeFileSync(out, pickle);
  console.log(`${path.relative(root, out)}: ${pickle.length} bytes, snapshot peak ${summary.snapshotPeakBytes} B (${summary.figures})`);
}
