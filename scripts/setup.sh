#!/usr/bin/env bash
# Everything Closebook needs on a fresh machine: system packages (Debian/Ubuntu) and the npm dependencies.
#   build-essential python3    keytar builds from source with node-gyp (its prebuilt download is not reachable everywhere)
#   libsecret-1-dev            … against libsecret
#   gnome-keyring dbus         a real OS keychain for the keychain tests
#   libsecret-tools            secret-tool, to look into the keychain by hand
#   chromium                   the browser the end-to-end tests drive (Playwright's own download is not used)
#   xvfb                       a virtual display for headed runs and screenshots
#   libreoffice-calc-nogui     a real spreadsheet for the fault suite: exported CSV, copied text and workbooks are
#                              opened in it (no formula may come alive, no sheet may be cut short)
#   poppler-utils              pdftotext and pdftoppm: the tests read the evidence PDF's text and render its pages
#   postgresql openssl         the team ledger's tests run a real server (a throwaway cluster with TLS, certificates made
#                              by openssl); the package's own cluster is not used
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential python3 libsecret-1-dev gnome-keyring libsecret-tools dbus chromium xvfb libreoffice-calc-nogui poppler-utils postgresql openssl)
if command -v apt-get >/dev/null 2>&1; then
  missing=()
  for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing system packages: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    # A new workstation is often running its own updates: wait (at most 10 minutes, saying so) for apt's lock
    # instead of failing at once.
    lock_wait=(-o DPkg::Lock::Timeout=600)
    if command -v fuser >/dev/null 2>&1 && $sudo fuser /var/lib/dpkg/lock-frontend /var/lib/apt/lists/lock >/dev/null 2>&1; then
      echo "Waiting for another package manager (apt-get, unattended-upgrades) to finish — up to 10 minutes…"
    fi
    $sudo apt-get "${lock_wait[@]}" update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get "${lock_wait[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  echo "No apt-get here: install a C++ toolchain and libsecret (Linux) yourself if keytar fails to build."
fi

# npm ci when node_modules is missing or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
