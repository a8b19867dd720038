#!/usr/bin/env bash
# Installs the Debian packages FederatedSearch builds against, if they are missing (postgresql:
# the server the postgres backend tests start on a temporary folder; util-linux gives runuser).
# libncurses-dev: the terminal dashboard; tmux: the dashboard's tests run it in a real terminal.
# libssl-dev: libcrypto's HMAC-SHA256, for secured API keys.
# As root it runs apt-get; otherwise it says what to install.
set -euo pipefail
# python3-venv: the Python tools the tests use (the official Algolia client, Selenium) live in
# .build/python. chromium and chromium-driver: the web dashboard's tests run it in a real browser.
packages=(libevent-dev libsystemd-dev libsqlite3-dev libpq-dev libncurses-dev libssl-dev postgresql pkg-config tmux
  python3-venv chromium chromium-driver)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v swift >/dev/null 2>&1; then
  echo "swift is not on PATH: install the Swift 6 toolchain (swift.org) first." >&2
  exit 1
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing packages: ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
# The official Algolia Python client (its typed models check the daemon's payloads). Tests that
# need it say they are skipped when it could not be installed (no network to PyPI).
venv=.build/python
if ! "$venv/bin/python" -c "import algoliasearch" 2>/dev/null; then
  echo "installing the Algolia Python client into $venv"
  mkdir -p .build
  python3 -m venv "$venv" && "$venv/bin/pip" install -q "algoliasearch>=4,<5" \
    || echo "could not install algoliasearch from PyPI; the tests that use it will be skipped" >&2
fi
# Selenium drives chromium for the web dashboard's tests (skipped, saying so, without it).
if ! "$venv/bin/python" -c "import selenium" 2>/dev/null; then
  echo "installing Selenium into $venv"
  "$venv/bin/pip" install -q "selenium>=4,<5" \
    || echo "could not install selenium from PyPI; the web dashboard's browser tests will be skipped" >&2
fi
