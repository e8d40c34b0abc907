#!/usr/bin/env bash
# Runs each cargo-fuzz target for N seconds (default 30):
#   scripts/fuzz.sh [seconds] [target...]      targets: artifact_decode png_decode dom_parse results_read (default: all)
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Without them it builds
# the targets on stable and replays the seeds and the saved corpus once: no new inputs are
# searched, but every known input is checked again. A crash exits non-zero and names the input
# saved under fuzz/artifacts/<target>/. See fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${1:-30}"
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(artifact_decode png_decode dom_parse results_read)
shared="${SIGHTLINE_SHARED:-../../shared}"

# Seed artifacts come from the current encoder, so they always match the format version.
cargo run --quiet --example make_seeds

# Corpus folders for a target: the saved corpus first (libFuzzer adds new inputs to the first
# folder only), then read-only seeds. PNG seeds are the shared corpora's fixtures, when present.
corpora() {
  mkdir -p "corpus/$1"
  echo "corpus/$1"
  [ -d "seeds/$1" ] && echo "seeds/$1"
  if [ "$1" = png_decode ]; then
    for d in "$shared/corpora/pixelmatch/fixtures" "$shared/corpora/playwright-image-tools/fixtures/should-fail/trivial"; do
      [ -d "$d" ] && echo "$d"
    done
  fi
  return 0
}

# 64 KiB inputs reach past PNG headers into the image data; artifacts need far less.
max_len() { if [ "$1" = png_decode ]; then echo 65536; else echo 4096; fi; }

if rustup toolchain list 2>/dev/null | grep -q '^nightly' && cargo fuzz --version >/dev/null 2>&1; then
  for t in "${targets[@]}"; do
    echo "fuzz.sh: fuzzing $t for ${seconds}s" >&2
    mapfile -t dirs < <(corpora "$t")
    cargo +nightly fuzz run "$t" "${dirs[@]}" -- -max_total_time="$seconds" -max_len="$(max_len "$t")"
  done
else
  echo "fuzz.sh: nightly or cargo-fuzz missing; replaying known inputs on stable instead of fuzzing" >&2
  cargo build --quiet --release --bins
  for t in "${targets[@]}"; do
    mapfile -t dirs < <(corpora "$t")
    # -runs=0: execute every input in the folders once, then stop.
    "target/release/$t" -runs=0 "${dirs[@]}"
  done
fi
