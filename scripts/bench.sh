#!/usr/bin/env bash
# Benchmarks contextree on generated sessions of 1, 10, 100 and 500 MB (or the sizes given) and
# prints a Markdown table: whole-process wall time (median of RUNS) and peak memory of
# `contextree context FILE --json` (the default command: `--prompts auto` looks for the installed
# agent, without starting any program), which opens, indexes, builds the tree and the context and
# estimates every message. Sessions are generated once with tests/agents/gen-session.py (Python
# standard library only; g1 = seed 11, g10 = 12, g100 = 13, g500 = 15) into $BENCH_DIR.
#   scripts/bench.sh [SIZE_MB ...]        RUNS=5 BENCH_DIR=/tmp/contextree-bench
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
gen="$root/tests/agents/gen-session.py"
bench_dir="${BENCH_DIR:-/tmp/contextree-bench}"
runs="${RUNS:-5}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 10 100 500)
declare -A seed=([1]=11 [10]=12 [100]=13 [500]=15)

[ -x /usr/bin/time ] || { echo "bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
cd "$root"
cargo build --release -p contextree-cli --quiet
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
bin="$target_dir/release/contextree"
mkdir -p "$bench_dir"

echo "| file | size | entries | wall s (median of $runs) | peak RSS MiB | RSS / file size |"
echo "|---|---|---|---|---|---|"
for mb in "${sizes[@]}"; do
  f="$bench_dir/g$mb.jsonl"
  [ -f "$f" ] || python3 "$gen" --target-mb "$mb" --seed "${seed[$mb]:-$mb}" -o "$f" >/dev/null
  "$bin" context "$f" --json >/dev/null # warm the page cache
  walls=()
  rss=0
  for _ in $(seq "$runs"); do
    out=$( { /usr/bin/time -f '%e %M' "$bin" context "$f" --json >/dev/null; } 2>&1 | tail -1)
    walls+=("${out% *}")
    r="${out#* }"
    [ "$r" -gt "$rss" ] && rss=$r
  done
  median=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  bytes=$(stat -c %s "$f")
  entries=$(( $(wc -l < "$f") - 1 ))
  awk -v n="g$mb" -v b="$bytes" -v e="$entries" -v w="$median" -v r="$rss" 'BEGIN {
    printf "| %s | %.0f MB | %d | %.2f | %.0f | %.2f |\n", n, b / 1e6, e, w, r / 1024, r * 1024 / b }'
done
