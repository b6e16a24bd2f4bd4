#!/usr/bin/env bash
# The Python checks that `npm test` runs (scripts/check-python.mjs): mypy --strict and flake8, from
# Debian's packages (`mypy`, which brings python3-mypy, and `flake8`; bookworm: mypy 1.0.1, flake8 5.0.4). A no-op when both are there. Needs root (apt).
set -euo pipefail
if command -v flake8 >/dev/null 2>&1 && command -v mypy >/dev/null 2>&1; then
  exit 0
fi
# Other apt users on the machine: wait for dpkg's lock rather than failing.
APT=(apt-get -o DPkg::Lock::Timeout=600 -y -q)
"${APT[@]}" update >/dev/null
DEBIAN_FRONTEND=noninteractive "${APT[@]}" install --no-install-recommends mypy flake8 >/dev/null
echo "setup-python-checks: $(mypy --version), flake8 $(flake8 --version | head -1)" >&2
