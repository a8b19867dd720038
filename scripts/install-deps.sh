#!/usr/bin/env bash
# Installs the Debian packages FederatedSearch builds against, if they are missing (postgresql:
# the server the postgres backend tests start on a temporary folder; util-linux gives runuser).
# libncurses-dev: the terminal dashboard; tmux: the dashboard's tests run it in a real terminal.
# As root it runs apt-get; otherwise it says what to install.
set -euo pipefail
packages=(libevent-dev libsystemd-dev libsqlite3-dev libpq-dev libncurses-dev postgresql pkg-config tmux)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v swift >/dev/null 2>&1; then
  echo "swift is not on PATH: install the Swift 6 toolchain (swift.org) first." >&2
  exit 1
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  echo "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "missing packages: ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
