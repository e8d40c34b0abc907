#!/usr/bin/env bash
# Installs everything the tests and the example need on a fresh machine: Chromium from Debian
# (Playwright cannot download its own browser here), FFmpeg, and the npm packages.
# --no-install-recommends keeps the font set fixed: recommends pull in fonts-liberation, which
# changes how `sans-serif` renders and would invalidate every baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
