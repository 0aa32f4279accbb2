#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring, so keytar talks to a real
# OS keychain (Secret Service) in CI and on a developer machine without touching the user's own keyring.
set -euo pipefail
dir=$(mktemp -d)
chmod 700 "$dir"
trap 'rm -rf "$dir"' EXIT
export XDG_DATA_HOME="$dir/data" XDG_RUNTIME_DIR="$dir"
# gnome-keyring needs a non-empty unlock password for a new keyring. Not exec'd: the trap above removes the
# keyring's folder when the command ends.
dbus-run-session -- sh -c 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' sh "$@"
