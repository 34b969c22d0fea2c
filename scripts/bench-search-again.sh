#!/usr/bin/env bash
# The append and the warm queries of bench-search.sh again, on a library and index kept by
# `BENCH_SEARCH_DIR=DIR scripts/bench-search.sh …` (so builds can be compared on one index):
#
#   scripts/bench-search-again.sh DIR [BIN] [APPENDS] [ROUNDS]
#
# DIR holds lib/ (the sessions) and cache/ (XDG_CACHE_HOME, the index). BIN is the
# `contextree` to time (default: the release build in $CARGO_TARGET_DIR). Each of APPENDS
# (default 3) adds one user line to the first file and times `contextree index` (the
# update's own ms, and the whole command); then `contextree index` on the unchanged library;
# then the 10 queries of bench-search.sh, ROUNDS (default 3) times: `searchMs` and the whole
# command, p50 / p90 / max, and each round's `searchMs` (the first round computes the hits'
# session states, later rounds may find them kept). Prints the load average before and after.
set -euo pipefail
dir=${1:?usage: bench-search-again.sh DIR [BIN] [APPENDS] [ROUNDS]}
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${2:-${CARGO_TARGET_DIR:-$repo/target}/release/contextree}
appends=${3:-3}
rounds=${4:-3}
lib=$dir/lib
export HOME=$dir/home XDG_CACHE_HOME=$dir/cache
mkdir -p "$HOME"
# shellcheck source=scripts/search-queries.sh
source "$repo/scripts/search-queries.sh"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin" index --root "$lib" --json >/dev/null # the library as the index knows it
f=$(find "$lib" -name '*.jsonl' | sort | sed -n 1p)
for ((i = 1; i <= appends; i++)); do
  last=$(tail -1 "$f" | python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
  printf '{"type":"message","id":"again%s","parentId":"%s","timestamp":"2026-12-01T00:00:00.000Z","message":{"role":"user","content":"appended zanzibar request"}}\n' "$(date +%s%N)" "$last" >>"$f"
  t0=$(ms)
  grown=$("$bin" index --root "$lib" --json)
  t1=$(ms)
  echo "append: grown $(echo "$grown" | field '["grown"]'), index $(echo "$grown" | field '["ms"]') ms, command wall $((t1 - t0)) ms"
done
t0=$(ms)
"$bin" index --root "$lib" --json >/dev/null
t1=$(ms)
echo "unchanged library: command wall $((t1 - t0)) ms"
q=$(mktemp)
trap 'rm -f "$q"' EXIT
time_queries "$bin" "$lib" "$rounds" "$q"
summarize_queries "$q"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
