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

/** Code caches of other builds of the CLI kept beside this one's (the newest written). */
const OTHER_BUILDS_CACHED = 3;

/**
 * The bundle, compiled from V8's code cache when there is one: a command that runs for a tenth of a
 * second spends a good part of it compiling the CLI. Node 22.1+ has its own cache
 * (`module.enableCompileCache`); on Node 20 the bundle is run through `vm.Script` with the cached data
 * of an earlier run, kept per user in `$XDG_CACHE_HOME/vram-lens` (else `~/.cache/vram-lens`), in a
 * folder only this user may write, keyed by Node's version and the bundle's size and time, and written
 * again whenever V8 rejects it. `VRAM_LENS_COMPILE_CACHE=0` turns it off.
 */
function loadCli(file) {
  if (process.env.VRAM_LENS_COMPILE_CACHE === '0' || largeInput()) return { cli: require(file), save: () => undefined };
  const nodeModule = require('node:module');
  if (typeof nodeModule.enableCompileCache === 'function') {
    try {
      nodeModule.enableCompileCache(cacheFolder());
    } catch {
      // No cache: the CLI runs as it would without one.
    }
    return { cli: require(file), save: () => undefined };
  }
  const vm = require('node:vm');
  const stats = fs.statSync(file);
  const folder = cacheFolder();
  const cacheFile = folder && path.join(folder, `${path.basename(file)}-${stats.size}-${Math.floor(stats.mtimeMs)}.v8cache`);
  let cachedData;
  try {
    if (cacheFile && ownedByMe(folder)) cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(nodeModule.wrap(fs.readFileSync(file, 'utf8')), { filename: file, cachedData });
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext().call(module.exports, module.exports, nodeModule.createRequire(file), module, file, path.dirname(file));
  module.loaded = true;
  const save = () => {
    if (!cacheFile || (cachedData !== undefined && !script.cachedDataRejected)) return;
    try {
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
      if (!ownedByMe(folder)) return;
      const temporary = `${cacheFile}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
      fs.renameSync(temporary, cacheFile);
      // The caches of other builds: the newest few are kept (two installs of the CLI, or two builds run
      // side by side, would otherwise delete each other's and both compile from source every run), the
      // rest are of no more use.
      const prefix = `${path.basename(file)}-`;
      const others = fs
        .readdirSync(folder)
        .filter((name) => name.startsWith(prefix) && name.endsWith('.v8cache') && name !== path.basename(cacheFile))
        .map((name) => ({ name, mtimeMs: fs.statSync(path.join(folder, name)).mtimeMs }))
        .sort((a, b) => b.mtimeMs - a.mtimeMs);
      for (const { name } of others.slice(OTHER_BUILDS_CACHED)) fs.rmSync(path.join(folder, name), { force: true });
    } catch {
      // A cache that cannot be written only costs the next run its compile time.
    }
  };
  return { cli: module.exports, save };
}

/**
 * True when an argument names a file over 64 MB: its reading takes seconds, next to which compiling the CLI
 * is nothing, and the code cache would cost memory (a script run through vm.Script grows V8's young
 * generation: about 8 MiB more at the peak of a 100 MB snapshot's analysis).
 */
function largeInput() {
  return process.argv.slice(2).some((arg) => {
    try {
      const stats = fs.statSync(arg);
      return stats.isFile() && stats.size > 64e6;
    } catch {
      return false;
    }
  });
}

/** Where compiled code is cached: per user, per Node version and architecture. */
function cacheFolder() {
  const home = process.env.XDG_CACHE_HOME || (process.env.HOME ? path.join(process.env.HOME, '.cache') : undefined);
  return home ? path.join(home, 'vram-lens', `v8-${process.version}-${process.arch}`) : undefined;
}

/** True when the folder exists, belongs to this user and nobody else may write it (no one can plant code there). */
function ownedByMe(folder) {
  const stats = fs.statSync(folder);
  if (typeof process.getuid !== 'function') return stats.isDirectory();
  return stats.isDirectory() && stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
}

const { cli, save } = loadCli(bundled);
cli.main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    save();
  },
  (err) => { process.stderr.write('vram-lens: ' + (err && err.stack ? err.stack : String(err)) + '\n'); process.exitCode = 70; },
);
