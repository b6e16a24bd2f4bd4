// Bundles the extension host, the CLI, the analysis worker and the webviews with esbuild.
// `vscode` and native modules stay external; type-checking is `npm run typecheck` (tsc --noEmit).
import { build, context } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
// .ci/run builds once, then runs suites side by side: none of them may rewrite dist/ under the others.
if (process.env.VRAM_LENS_PREBUILT === '1' && !watch && !production) {
  console.log('build: already built (VRAM_LENS_PREBUILT=1)');
  process.exit(0);
}

const nodeExternals = ['vscode', 'onnxruntime-node', 'koffi'];

/** @type {import('esbuild').BuildOptions[]} */
const targets = [
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js' },
  { entryPoints: ['src/runtime/worker/analysisWorker.ts'], outfile: 'dist/analysisWorker.js' },
  { entryPoints: ['src/runtime/ort/workloadWorker.ts'], outfile: 'dist/workloadWorker.js' },
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js' },
]
  .filter((t) => existsSync(t.entryPoints[0]))
  .map((t) => ({
    ...t,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: nodeExternals,
    sourcemap: !production,
    minify: production,
    logLevel: 'warning',
  }));

const webviews = [
  { entryPoints: ['webview/timeline/main.ts'], outfile: 'dist/webview/timeline.js' },
  { entryPoints: ['webview/summary/main.ts'], outfile: 'dist/webview/summary.js' },
  { entryPoints: ['webview/compare/main.ts'], outfile: 'dist/webview/compare.js' },
  { entryPoints: ['webview/whatIf/main.ts'], outfile: 'dist/webview/whatIf.js' },
]
  .filter((t) => existsSync(t.entryPoints[0]))
  .map((t) => ({
    ...t,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    sourcemap: !production,
    minify: production,
    logLevel: 'warning',
    loader: { '.css': 'text' },
  }));

// Codicons for the webviews (the icon font and its stylesheet), served from dist/ like the bundles.
mkdirSync('dist/codicons', { recursive: true });
for (const file of ['codicon.css', 'codicon.ttf']) copyFileSync(`node_modules/@vscode/codicons/dist/${file}`, `dist/codicons/${file}`);

const all = [...targets, ...webviews];
if (watch) {
  for (const options of all) {
    const ctx = await context(options);
    await ctx.watch();
  }
} else {
  await Promise.all(all.map((options) => build(options)));
}
