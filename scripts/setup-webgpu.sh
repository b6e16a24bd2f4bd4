#!/bin/sh
# Makes onnxruntime's WebGPU execution provider usable on a machine without a GPU (Debian 12), for
# `npm run test:webgpu`: Dawn (onnxruntime's WebGPU) runs on Vulkan, and the lavapipe software driver
# of Debian 12 (Mesa 22.3) is too old for it, so Mesa 25 comes from bookworm-backports.
# Idempotent: adds the backports source once, installs only what is missing. Needs root (or sudo).
# Prints the environment the tests set: VK_ICD_FILENAMES=<lavapipe manifest>.
set -eu

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

. /etc/os-release
if [ "${VERSION_CODENAME:-}" != "bookworm" ]; then
  echo "setup-webgpu: written for Debian 12 (bookworm); this is ${PRETTY_NAME:-unknown}. Install Mesa >= 24 lavapipe and libvulkan1 by hand." >&2
  exit 1
fi

# 1. The bookworm-backports source, unless apt already knows it: the same mirror as this machine's
#    bookworm source, with the backports suite.
if ! apt-cache policy 2>/dev/null | grep -q "bookworm-backports"; then
  mirror=$(awk '/^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") { print uri; exit } }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  if [ -z "$mirror" ]; then
    mirror=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
  fi
  if [ -z "$mirror" ]; then
    echo "setup-webgpu: no bookworm apt source found to derive bookworm-backports from; add bookworm-backports to your apt sources" >&2
    exit 1
  fi
  echo "setup-webgpu: adding the bookworm-backports apt source ($mirror)"
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$mirror" |
    $SUDO tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
  $SUDO apt-get update -qq
fi

# 2. Mesa's Vulkan drivers from backports (lavapipe 25.x) and the Vulkan loader.
installed=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
case "$installed" in
  *bpo12*) echo "setup-webgpu: mesa-vulkan-drivers $installed already installed" ;;
  *)
    echo "setup-webgpu: installing mesa-vulkan-drivers and libvulkan1 from bookworm-backports"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers libvulkan1 >/dev/null
    ;;
esac

icd=$(ls /usr/share/vulkan/icd.d/lvp_icd*.json 2>/dev/null | head -n 1)
if [ -z "$icd" ]; then
  echo "setup-webgpu: no lavapipe manifest in /usr/share/vulkan/icd.d after installing" >&2
  exit 1
fi
echo "VK_ICD_FILENAMES=$icd"
