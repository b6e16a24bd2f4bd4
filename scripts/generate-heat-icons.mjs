// Writes the gutter heat icons (media/heat/heat-<theme kind>-<step>.svg) from src/engine/annotate/heat.ts,
// and the heat colours' descriptions in package.json. Run after changing the palette or the steps:
//   npm run compile-tests && node scripts/generate-heat-icons.mjs
// test/unit/engine/annotate/heatIcons.test.ts checks that the files and package.json match.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const heat = require(join(root, 'out/src/engine/annotate/heat.js'));

const folder = join(root, 'media/heat');
mkdirSync(folder, { recursive: true });
for (const kind of heat.HEAT_THEME_KINDS) {
  for (let step = 0; step < heat.HEAT_STEPS; step++) writeFileSync(join(folder, heat.heatIconFile(kind, step)), heat.heatIconSvg(kind, step));
}

const manifestPath = join(root, 'package.json');
const text = readFileSync(manifestPath, 'utf8');
const manifest = JSON.parse(text);
for (const colour of manifest.contributes.colors) {
  const m = /^vramLens\.heat(\d+)$/.exec(colour.id);
  if (!m) continue;
  const step = Number(m[1]);
  colour.description = heat.heatColourDescription(step);
  colour.defaults = Object.fromEntries(Object.keys(colour.defaults).map((k) => [k, heat.HEAT_PALETTE[k][step]]));
}
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
