// The layers of VRAM Lens: the folders, what each may import, and the order of the engine's folders.
// One table for two readers: eslint.config.mjs builds a `no-restricted-imports` rule for every arrow this
// table forbids, and test/unit/layerRules.test.ts plants an import across every forbidden arrow (and
// one along every allowed one), so a rule cannot be missing. CONTRIBUTING.md explains the layers.
'use strict';

const { builtinModules } = require('node:module');

/** The layers, each a folder. An import's target is one of these or one of the package kinds below. */
const LAYERS = {
  engine: {
    folder: 'src/engine',
    what: 'the pure engine: decoding, model, analyses, allocator replay, layout, compare, advice',
    may: ['engine', 'pure'],
  },
  protocol: {
    folder: 'src/protocol',
    what: 'the typed messages between two running parts (host and webviews, host and workers, bootstrap and runner)',
    may: ['engine', 'protocol', 'pure'],
    /** Types alone: `import type`, `export type`, interfaces and type aliases; no running code (its checks are the guards'). */
    typesOnly: true,
  },
  guards: {
    folder: 'src/guards',
    what: "the checks a protocol's receiver runs on what arrives (message guards, field checks) and the constants a protocol's two sides share",
    may: ['protocol', 'guards', 'pure'],
  },
  runtime: {
    folder: 'src/runtime',
    what: 'what touches processes, files, threads and onnxruntime: workers, the profile runner, file input',
    may: ['engine', 'protocol', 'guards', 'runtime', 'pure', 'node', 'native'],
  },
  cli: {
    folder: 'src/cli',
    what: 'the vram-lens command line',
    may: ['engine', 'protocol', 'runtime', 'cli', 'pure', 'node'],
  },
  extension: {
    folder: 'src/extension',
    what: 'thin VS Code adapters: commands, decorations, views, panels',
    may: ['engine', 'protocol', 'guards', 'runtime', 'extension', 'pure', 'node', 'vscode'],
  },
  webview: {
    folder: 'webview',
    what: 'the pages inside webviews (browser code, one bundle each)',
    may: ['engine', 'protocol', 'guards', 'webview', 'pure', 'browser'],
    /** Layers it imports only for code it runs (an import from them takes at least one value): its wire types come from the protocol. */
    runsOnlyFrom: ['engine'],
  },
};

/** Packages by kind. Every bare import under src/ and webview/ must be listed here (a test checks it). */
const PACKAGES = {
  /** Plain JavaScript that runs anywhere. */
  pure: ['@lezer/common', '@lezer/python'],
  /** Native addons: only the runtime loads them. */
  native: ['onnxruntime-node', 'koffi'],
  /** Browser-only packages: only the webviews. */
  browser: ['@vscode-elements/elements'],
  /** The VS Code API: only the adapters. */
  vscode: ['vscode'],
};

/** Node's built-in modules, with and without the `node:` prefix. */
const NODE_BUILTINS = builtinModules.filter((m) => !m.startsWith('_'));

/**
 * The engine's folders in the order data flows through them: a folder may import only folders of a lower
 * rank (file -> decoder -> model -> analyses -> views -> the session that answers queries). A new folder
 * gets a rank here; the test fails for a folder of src/engine that has none.
 */
const ENGINE_RANKS = {
  text: 0,
  base: 1,
  notebook: 2,
  paths: 3,
  pickle: 2,
  onnx: 2,
  python: 2,
  snapshot: 3,
  decode: 4,
  analysis: 4,
  allocator: 5,
  workloads: 5,
  annotate: 6,
  compare: 6,
  advice: 6,
  timeline: 7,
  session: 8,
};

const TARGET_KINDS = [...Object.keys(LAYERS), 'node', ...Object.keys(PACKAGES)];

/** Every (from, to) a layer must never import: the complement of `may`. */
function forbiddenTargets(layer) {
  return TARGET_KINDS.filter((t) => t !== 'pure' && !LAYERS[layer].may.includes(t));
}

/** Engine folder pairs running back up: (from, to) with rank(to) >= rank(from), to != from. */
function forbiddenEngineFolders(folder) {
  const rank = ENGINE_RANKS[folder];
  return Object.keys(ENGINE_RANKS).filter((other) => other !== folder && ENGINE_RANKS[other] >= rank);
}

module.exports = { LAYERS, PACKAGES, NODE_BUILTINS, ENGINE_RANKS, TARGET_KINDS, forbiddenTargets, forbiddenEngineFolders };
