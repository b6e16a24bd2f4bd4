// Writes media/samples/similarity-eager.pickle, the snapshot `npm start` analyses: the built-in similarity
// workload (eager variant, size medium) run on onnxruntime's CPU provider and saved in PyTorch's snapshot
// format, its frames naming media/samples/similarity.py by a path relative to the repository. The figures
// are this machine's measurement; run again to refresh. Needs `npm run compile-tests` first.
//
//   node scripts/make-sample-snapshot.mjs
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { executeJob, finishJob } = require(path.join(root, 'out', 'src', 'runtime', 'ort', 'workloadJob.js'));
const { DEFAULT_SESSION_SETTINGS } = require(path.join(root, 'out', 'src', 'runtime', 'ort', 'session.js'));

const samplePath = 'media/samples/similarity.py';
const executed = await executeJob({
  kind: 'builtin',
  workload: 'similarity',
  variant: 'eager',
  size: 'medium',
  samplePath,
  sampleText: readFileSync(path.join(root, samplePath), 'utf8'),
  provider: 'cpu',
  settings: DEFAULT_SESSION_SETTINGS,
});
const { pickle, summary } = finishJob(executed);
const out = path.join(root, 'media', 'samples', 'similarity-eager.pickle');
writeFileSync(out, pickle);
console.log(`${path.relative(root, out)}: ${pickle.length} bytes, snapshot peak ${summary.snapshotPeakBytes} B (${summary.figures})`);
