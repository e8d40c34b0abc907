#!/usr/bin/env bash
# Installs what the builds, the tests, the bench and the example need on a fresh machine:
# Chromium, ffmpeg, libjpeg-turbo's tools, nasm, cmake, strace and two documentation packages from
# Debian (Playwright cannot download its own browser or ffmpeg here) and the npm packages.
# Idempotent and quick when everything is already there; `npm test` runs it first.
# --no-install-recommends keeps the font set fixed: recommends pull in fonts-liberation, which
# changes how `sans-serif` renders and would invalidate every baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
if ! command -v chromium >/dev/null 2>&1 && [ -z "${SIGHTLINE_CHROMIUM:-}" ]; then missing+=(chromium); fi
# ffmpeg/ffprobe: extract_video_frames runs them, and Playwright needs an ffmpeg to record videos.
if ! command -v ffmpeg >/dev/null 2>&1; then missing+=(ffmpeg); fi
# djpeg/cjpeg (libjpeg-turbo): JPEG inputs are checked pixel for pixel against libjpeg-turbo's own
# decoder, on fixtures cjpeg made (crates/core/tests/fixtures/jpeg).
if ! command -v djpeg >/dev/null 2>&1; then missing+=(libjpeg-turbo-progs); fi
# nasm assembles libjpeg-turbo's SIMD code into the JPEG decoder (mozjpeg-sys): the same pixels in
# about 70 % of the time. Without it the build says so in a cargo warning and uses plain C.
if ! command -v nasm >/dev/null 2>&1; then missing+=(nasm); fi
# cmake: `npm run bench` builds the blazediff crate's CLI (a file-to-file peer), whose libspng and
# libjpeg-turbo are built with cmake (and nasm).
if ! command -v cmake >/dev/null 2>&1; then missing+=(cmake); fi
# Real documentation sites no one here wrote, for visual_check's false-positive test
# (tests/live/pages.mjs, DEBIAN_DOCS): Python's docs and the Debian Reference.
# strace: the matcher test counts the files one toMatchVisual call opens on a real run.
if ! command -v strace >/dev/null 2>&1; then missing+=(strace); fi
if [ ! -d /usr/share/doc/python3/html ]; then missing+=(python3-doc); fi
if [ ! -d /usr/share/debian-reference ]; then missing+=(debian-reference-en); fi
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "setup: installing Debian's ${missing[*]} (no recommends)" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# npm ci only when the lock file changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund >&2
fi
# Playwright records test videos with its own ffmpeg build, which it cannot download here; the
# system ffmpeg encodes the same VP8/VP9 WebM, so it stands in at the path Playwright looks at.
revision=$(node -e "const b=require('./node_modules/playwright-core/browsers.json').browsers.find(x=>x.name==='ffmpeg');process.stdout.write(b?b.revision:'')")
playwright_ffmpeg="${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}/ffmpeg-$revision/ffmpeg-linux"
if [ -n "$revision" ] && [ ! -e "$playwright_ffmpeg" ]; then
  mkdir -p "$(dirname "$playwright_ffmpeg")"
  ln -s "$(command -v ffmpeg)" "$playwright_ffmpeg"
fi
