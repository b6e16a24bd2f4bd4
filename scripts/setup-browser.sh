#!/bin/sh
# Installs Debian's Chromium for the browser tests (npm run test:browser) when it is missing.
# Run as root (CI images); playwright-core drives /usr/bin/chromium, it downloads no browser itself.
set -eu
if [ -x /usr/bin/chromium ]; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Chromium is missing: run this script as root (it calls apt-get)." >&2
  exit 1
fi
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
/usr/bin/chromium --version
