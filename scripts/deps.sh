#!/usr/bin/env bash
# Installs the Debian packages reid needs, if any is missing. Called by `make demo` and
# `make test`; safe to run again. Needs root (or sudo) and apt-get only when something is
# missing.
set -euo pipefail

# coinor-libclp-dev: CLP, the LP engine under the optimiser (cgo, pkg-config clp).
# coinor-cbc: an independent MILP solver for cross-checks. pkg-config, gcc: cgo.
# python3-numpy: independent reference implementations run by some tests.
packages=(coinor-libclp-dev coinor-cbc pkg-config gcc python3-numpy)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "reid: installing missing Debian packages: ${missing[*]}" >&2
if ! command -v apt-get >/dev/null 2>&1; then
  echo "reid: apt-get not found; install these packages with your system's package manager: ${missing[*]}" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo -n"
  else
    echo "reid: not root and no password-less sudo; run as root: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "reid: installed ${missing[*]}" >&2
