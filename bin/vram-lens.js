#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI itself is bundled to dist/cli.js by `npm run build` (run by `npm ci` through `prepare`).
const path = require('node:path');
const fs = require('node:fs');
const bundled = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(bundled)) {
  process.stderr.write('vram-lens: the CLI is not built yet; run `npm run build` in ' + path.join(__dirname, '..') + '\n');
  process.exit(2);
}
// A reader that stops early (`vram-lens analyze F | head`) closes the pipe: stop quietly, as Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
require(bundled).main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write('vram-lens: ' + (err && err.stack ? err.stack : String(err)) + '\n'); process.exitCode = 70; },
);
