#!/usr/bin/env bash
# Runs every read-only command of two contextree builds on the same files and compares their
# outputs (sha1 of stdout + stderr, and the exit code): a change meant to leave outputs alone
# (docs/benchmarks.md, memory rounds) must print no difference.
#   scripts/compare-outputs.sh OLD_BIN NEW_BIN [CHAIN.jsonl ...]
# Files: every fixture of tests/fixtures/{omp18,omp183,pi16,real,synthetic,edge,generated} under
# each of omp@18.3, omp@18, pi@1.6, pi@0.73, omp@13, and the files given (e.g. a 200,000-entry
# chain made by scripts/gen-chain.py, or a generated benchmark session) under pi@0.73 and
# omp@18.3 (whose token estimate counts UTF-8 bytes). `prune` gets a fixed `--now` (omp 18 reads the clock
# otherwise). Exit status 1 when any output differs.
set -uo pipefail

old=$1 new=$2
shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
commands=(
  "info --json" "info" "tree --json" "tree" "tokens" "tokens --json" "context --json" "context"
  "serialize" "prune --dry-run --now 1764000000000" "prune --dry-run --json --now 1764000000000" "cut" "cut --json" "usage" "usage --json"
  "drops" "drops --json" "compact --dry-run" "compact --dry-run --json"
  "branch --to MID" "branch --to MID --json"
)
# One line per run: file, dialect, command, exit code, sha1 of the output.
hashes() { # bin, file, dialect
  local bin=$1 file=$2 dialect=$3 lines mid c out rc
  lines=$(wc -l < "$file")
  mid=$(sed -n "$((lines / 2 + 1))p" "$file" | grep -o '"id":"[^"]*"' | head -1 | sed 's/"id":"\(.*\)"/\1/')
  for c in "${commands[@]}"; do
    # shellcheck disable=SC2086 # the command's words
    out=$("$bin" ${c/MID/${mid:-none}} "$file" --dialect "$dialect" --prompts own 2>&1 | sha1sum)
    rc=${PIPESTATUS[0]}
    echo "$file $dialect [$c] rc=$rc ${out%% *}"
  done
}
runs() { # bin
  local f d
  for f in "$root"/tests/fixtures/{omp18,omp183,pi16,real,synthetic,edge,generated}/*.jsonl; do
    for d in omp@18.3 omp@18 pi@1.6 pi@0.73 omp@13; do hashes "$1" "$f" "$d"; done
  done
  for f in "${chains[@]}"; do
    for d in pi@0.73 omp@18.3; do hashes "$1" "$f" "$d"; done
  done
}
chains=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs "$old" > "$tmp/old" &
runs "$new" > "$tmp/new"
wait
n=$(wc -l < "$tmp/new")
if diff "$tmp/old" "$tmp/new" > "$tmp/diff"; then
  echo "identical: $n outputs"
else
  grep '^>' "$tmp/diff" | sed 's/^> /differs: /'
  echo "$(grep -c '^>' "$tmp/diff") of $n outputs differ"
  exit 1
fi
