#!/usr/bin/env bash
# Installs what the tests, the bench and the example need on a fresh machine: Chromium from
# Debian (Playwright cannot download its own browser here) and the npm packages. Idempotent and
# quick when everything is already there; `npm test` runs it first.
# --no-install-recommends keeps the font set fixed: recommends pull in fonts-liberation, which
# changes how `sans-serif` renders and would invalidate every baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1 && [ -z "${SIGHTLINE_CHROMIUM:-}" ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "setup: installing Debian's chromium (no recommends)" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
# npm ci only when the lock file changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund >&2
fi
