#!/usr/bin/env bash
# Real CPU-only PyTorch builds for the bootstrap's tests (npm run test:torch), from Debian's packages:
#   bookworm python3-torch 1.13.1 (installed natively: this machine's release),
#   trixie   python3-torch 2.6.0  (debootstrap chroot),
#   sid      python3-torch 2.14.1 (debootstrap chroot).
# The chroots are cached outside the clone in $VRAM_LENS_TORCH_CACHE (default /var/cache/vram-lens/torch):
# a second run is a no-op; a fresh machine builds them (about 2 minutes each, 1.8 GB each). Needs root.
set -euo pipefail
CACHE="${VRAM_LENS_TORCH_CACHE:-/var/cache/vram-lens/torch}"
MIRROR="${VRAM_LENS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
mkdir -p "$CACHE"

# Other apt users on the machine: wait for dpkg's lock rather than failing.
APT=(apt-get -o DPkg::Lock::Timeout=600 -y -q)
apt_updated=0
apt_update_once() {
  if [ "$apt_updated" = 0 ]; then "${APT[@]}" update >/dev/null; apt_updated=1; fi
}

# bookworm: the system python3. (/usr/bin/python3: a pyenv or venv python3 earlier on PATH does not see it)
if ! /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
  apt_update_once
  DEBIAN_FRONTEND=noninteractive "${APT[@]}" install --no-install-recommends python3-torch >/dev/null
fi
if ! command -v torchrun >/dev/null 2>&1 && ! /usr/bin/python3 -c 'import torch.distributed.run' >/dev/null 2>&1; then
  echo "setup-torch: bookworm's python3-torch has no torch.distributed.run" >&2
fi

build_chroot() {
  local suite="$1" root="$CACHE/$1"
  if [ -f "$root/.vram-lens-ready" ]; then
    return 0
  fi
  rm -rf "$root"
  echo "setup-torch: building the $suite chroot in $root" >&2
  debootstrap --variant=minbase "$suite" "$root" "$MIRROR" >"$CACHE/$suite.debootstrap.log" 2>&1 || {
    tail -20 "$CACHE/$suite.debootstrap.log" >&2; return 1; }
  chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    python3-torch >"$CACHE/$suite.apt.log" 2>&1 || { tail -20 "$CACHE/$suite.apt.log" >&2; return 1; }
  chroot "$root" apt-get clean
  chroot "$root" python3 -c 'import torch; print(torch.__version__)' 2>/dev/null | tail -1 >"$root/.vram-lens-ready"
}

if ! command -v debootstrap >/dev/null 2>&1; then
  apt_update_once
  DEBIAN_FRONTEND=noninteractive "${APT[@]}" install debootstrap >/dev/null
fi
build_chroot trixie &
trixie=$!
build_chroot sid &
sid=$!
status=0
wait "$trixie" || status=1
wait "$sid" || status=1
[ "$status" = 0 ] || exit 1
echo "setup-torch: bookworm $(/usr/bin/python3 -c 'import torch; print(torch.__version__)'), trixie $(cat "$CACHE/trixie/.vram-lens-ready"), sid $(cat "$CACHE/sid/.vram-lens-ready") in $CACHE" >&2
