#!/usr/bin/env bash
# A real Jupyter kernel for the notebook tests (npm run test:notebook), from Debian's packages:
#   python3-ipykernel and python3-jupyter-client for the system python3 (bookworm: ipykernel 6.17, IPython 8.5),
#   and in the PyTorch chroots scripts/setup-torch.sh builds, when they are there (trixie: ipykernel 6.29,
#   sid: ipykernel 7.2), so a kernel runs cells under real CPU PyTorch 2.6 and 2.14.
# A second run is a no-op. Needs root.
set -euo pipefail
CACHE="${VRAM_LENS_TORCH_CACHE:-/var/cache/vram-lens/torch}"
PACKAGES=(python3-ipykernel python3-jupyter-client)
APT=(apt-get -o DPkg::Lock::Timeout=600 -y -q)

# bookworm: the system python3 (/usr/bin/python3: a pyenv or venv python3 earlier on PATH does not see it).
if ! /usr/bin/python3 -c 'import ipykernel, jupyter_client' >/dev/null 2>&1; then
  "${APT[@]}" update >/dev/null
  DEBIAN_FRONTEND=noninteractive "${APT[@]}" install --no-install-recommends "${PACKAGES[@]}" >/dev/null
fi

for suite in trixie sid; do
  root="$CACHE/$suite"
  [ -f "$root/.vram-lens-ready" ] || continue # no chroot: setup-torch.sh builds it; the tests say it is missing
  [ -f "$root/.vram-lens-notebook-ready" ] && continue
  echo "setup-notebook: installing ${PACKAGES[*]} in the $suite chroot" >&2
  # The mirror may serve a Release file past its Valid-Until (a frozen mirror): what it has is what we want.
  { chroot "$root" apt-get -o Acquire::Check-Valid-Until=false update -q && chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends "${PACKAGES[@]}"; } >"$CACHE/$suite.notebook.log" 2>&1 || {
    tail -20 "$CACHE/$suite.notebook.log" >&2; exit 1; }
  chroot "$root" apt-get clean
  chroot "$root" python3 -c 'import ipykernel; print(ipykernel.__version__)' 2>/dev/null | tail -1 >"$root/.vram-lens-notebook-ready"
done
echo "setup-notebook: bookworm ipykernel $(/usr/bin/python3 -c 'import ipykernel; print(ipykernel.__version__)')$(
  for suite in trixie sid; do [ -f "$CACHE/$suite/.vram-lens-notebook-ready" ] && printf ', %s ipykernel %s' "$suite" "$(cat "$CACHE/$suite/.vram-lens-notebook-ready")"; done)" >&2
