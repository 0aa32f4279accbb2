#!/usr/bin/env bash
# Everything Closebook needs on a fresh machine: system packages (Debian/Ubuntu) and the npm dependencies.
#   libsecret-1-dev            keytar builds from source against it (its prebuilt download is not reachable everywhere)
#   gnome-keyring dbus         a real OS keychain for the keychain tests
#   libsecret-tools            secret-tool, to look into the keychain by hand
#   chromium                   the browser the end-to-end tests drive (Playwright's own download is not used)
#   xvfb                       a virtual display for headed runs and screenshots
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libsecret-1-dev gnome-keyring libsecret-tools dbus chromium xvfb)
if command -v apt-get >/dev/null 2>&1; then
  missing=()
  for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing system packages: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  echo "No apt-get here: install a C++ toolchain and libsecret (Linux) yourself if keytar fails to build."
fi

# npm ci when node_modules is missing or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
