#!/usr/bin/env bash
# Real PyTorch builds for the bootstrap's tests (npm run test:torch), from Debian's packages:
#   bookworm python3-torch 1.13.1 (installed natively: this machine's release),
#   trixie   python3-torch 2.6.0  (debootstrap chroot),
#   sid      python3-torch 2.14.1 (debootstrap chroot),
# with, in the chroots, PyTorch's C++ headers and g++ (Predict VRAM builds a small library against them); and
# from the machine's local wheel index (pip config list), in virtual environments of this machine's python3:
#   wheel-2.13       torch 2.13.0+cpu,
#   wheel-2.14-cuda  torch 2.14.1 with CUDA (on a machine without a GPU: Predict VRAM's other case).
# Everything is cached outside the clone in $VRAM_LENS_TORCH_CACHE (default /var/cache/vram-lens/torch):
# a second run is a no-op; a fresh machine builds them (about 2 minutes each, 1.8 to 4.5 GB each). Needs root.
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
# Predict VRAM compiles against PyTorch's headers (Debian's libtorch-dev) with g++; cpp_extension needs setuptools.
predict_chroot() {
  local suite="$1" root="$CACHE/$1"
  [ -f "$root/.vram-lens-predict-ready" ] && return 0
  chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    libtorch-dev g++ python3-setuptools >"$CACHE/$suite.predict.log" 2>&1 || { tail -20 "$CACHE/$suite.predict.log" >&2; return 1; }
  chroot "$root" apt-get clean
  touch "$root/.vram-lens-predict-ready"
}

# A virtual environment of this machine's python3 with wheels from the local index (`pip config list`), each
# `pip install` given as one quoted list of arguments; ready once `import torch` works in it.
PIP_INDEX=(--index-url "${VRAM_LENS_PIP_INDEX:-file:///opt/pypi/simple}" --extra-index-url "${VRAM_LENS_PIP_EXTRA_INDEX:-file:///opt/pypi-more/simple}" --find-links "${VRAM_LENS_PIP_LINKS:-/opt/wheels}")
wheel_venv() {
  local name="$1"; shift
  local venv="$CACHE/$name" log="$CACHE/$name.log"
  [ -f "$venv/.vram-lens-ready" ] && return 0
  rm -rf "$venv"
  python3 -m venv "$venv" >"$log" 2>&1 || { tail -5 "$log" >&2; return 1; }
  local install
  for install in "$@"; do
    # shellcheck disable=SC2086 # each item is a list of pip arguments, split on purpose
    "$venv/bin/pip" install -q --disable-pip-version-check "${PIP_INDEX[@]}" $install >>"$log" 2>&1 || { grep -v ignored "$log" | tail -20 >&2; return 1; }
  done
  local version
  version=$("$venv/bin/python" -c 'import torch; print(torch.__version__)' 2>>"$log" | tail -1) || { tail -20 "$log" >&2; return 1; }
  echo "$version" >"$venv/.vram-lens-ready"
}
# The CUDA wheel's own requirements name packages the local index does not hold (cuda-bindings, triton) that
# `import torch` does not need: torch without its requirements, then what it does import.
CUDA_DEPS="numpy sympy networkx jinja2 fsspec filelock typing-extensions nvidia-cublas nvidia-cuda-nvrtc nvidia-cuda-cupti
  nvidia-cudnn-cu13 nvidia-cufft nvidia-curand nvidia-cusolver nvidia-cusparse nvidia-cusparselt-cu13 nvidia-nccl-cu13
  nvidia-nvjitlink nvidia-nvtx nvidia-cufile nvidia-nvshmem-cu13 cuda-toolkit"

(build_chroot trixie && predict_chroot trixie) &
trixie=$!
(build_chroot sid && predict_chroot sid) &
sid=$!
wheel_venv wheel-2.13 "torch==2.13.0+cpu numpy" &
wheel=$!
status=0
wheel_venv wheel-2.14-cuda "--no-deps torch==2.14.1" "$CUDA_DEPS" || status=1
wait "$trixie" || status=1
wait "$sid" || status=1
wait "$wheel" || status=1
[ "$status" = 0 ] || exit 1
echo "setup-torch: bookworm $(/usr/bin/python3 -c 'import torch; print(torch.__version__)'), trixie $(cat "$CACHE/trixie/.vram-lens-ready"), sid $(cat "$CACHE/sid/.vram-lens-ready"), wheels $(cat "$CACHE/wheel-2.13/.vram-lens-ready") and $(cat "$CACHE/wheel-2.14-cuda/.vram-lens-ready") in $CACHE" >&2
