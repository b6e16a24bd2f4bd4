#!/usr/bin/env bash
# Builds the VSIX from production bundles with @vscode/vsce (fetched from the npm registry by npx).
# vsce needs Node >= 22: where the machine's Node is older, the Node 24 of scripts/setup-e2e.sh is used.
# Native dependencies (onnxruntime-node, koffi) are left out: a VSIX per platform carries them.
#   bash scripts/package.sh [--out FILE.vsix]
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf dist
node scripts/build.mjs --production
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 22 ]; then
  if [ ! -x .e2e/node24/bin/node ]; then
    echo "package: @vscode/vsce needs Node >= 22; run 'bash scripts/setup-e2e.sh' to get .e2e/node24" >&2
    exit 1
  fi
  export PATH="$PWD/.e2e/node24/bin:$PATH"
fi
npx --yes @vscode/vsce@3 package --no-dependencies "$@"
