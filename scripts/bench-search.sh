#!/usr/bin/env bash
# The search benchmark of docs/benchmarks.md ("Search"): a generated library, then
#   - the first index (MB/s), from an empty cache folder;
#   - one session grown by one line, then `contextree index` (the index's ms, and the
#     command's wall time, which includes listing the library);
#   - warm queries: each query's `searchMs` (index search, snippets, every hit's tree state)
#     and the command's wall time (which also checks every file for changes), p50 / p99;
#   - the index's size against the text it holds;
#   - `rg` over the same files for the same words, in the same run.
#
#   scripts/bench-search.sh [SESSIONS] [MB_PER_SESSION] [DISTINCT]
#
# SESSIONS files of MB_PER_SESSION MiB each (defaults 1000 and 0.5: 500 MB) made by
# tests/agents/gen-session.py; DISTINCT of them are generated (seeds 1..DISTINCT, default 50)
# and the rest are copies in other project folders (generating 5 GB in Python takes longer
# than indexing it). The issue's figure is 10,000 sessions / 5 GB: `bench-search.sh 10000 0.5`.
# Builds the release CLI into $CARGO_TARGET_DIR (default target/). With BENCH_SEARCH_DIR set,
# the library and the index are made in that folder and kept (a library already there is
# used as it is), for bench-search-again.sh to time other builds on.
set -euo pipefail
command -v rg >/dev/null || { echo "bench-search.sh: rg (ripgrep) is needed for the comparison" >&2; exit 1; }
n=${1:-1000}
mb=${2:-0.5}
distinct=${3:-50}
repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
if [[ -n ${BENCH_SEARCH_DIR:-} ]]; then
  work=$BENCH_SEARCH_DIR
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
cargo build --release -q -p contextree-cli --manifest-path "$repo/Cargo.toml"
bin=$target/release/contextree
lib=$work/lib
export HOME=$work/home XDG_CACHE_HOME=$work/cache
mkdir -p "$lib" "$HOME"

if [[ -n ${BENCH_SEARCH_DIR:-} ]] && [[ -n $(find "$lib" -name '*.jsonl' -print -quit) ]]; then
  echo "using the library in $lib" >&2
else
echo "generating $n sessions of $mb MiB ($distinct distinct)…" >&2
mkdir -p "$work/gen"
for ((i = 1; i <= distinct && i <= n; i++)); do
  python3 "$repo/tests/agents/gen-session.py" --target-mb "$mb" --seed "$i" --cwd "/home/dev/work/app$i" -o "$work/gen/$i.jsonl" &
  if ((i % 2 == 0)); then wait; fi
done
wait
for ((i = 0; i < n; i++)); do
  src=$work/gen/$((i % distinct + 1)).jsonl
  dir=$lib/--home-dev-work-app$((i % 200))--
  mkdir -p "$dir"
  cp "$src" "$dir/2026-01-01T00-00-00-000Z_$(printf '%08d' "$i")-0000-4000-8000-000000000000.jsonl"
done
fi
text_bytes=$(du -sb "$lib" | cut -f1)
echo "library: $n files, $text_bytes bytes" >&2
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# shellcheck source=scripts/search-queries.sh
source "$repo/scripts/search-queries.sh"

t0=$(ms)
first=$("$bin" index --root "$lib" --json)
t1=$(ms)
echo "first index: $(echo "$first" | field '["bytes"]') bytes, $(echo "$first" | field '["entries"]') entries in $(echo "$first" | field '["ms"]') ms (wall $((t1 - t0)) ms)"
python3 -c "import json,sys; d=json.loads(sys.argv[1]); print('first index: %.1f MB/s' % (d['bytes'] / 1e6 / (d['ms'] / 1e3)))" "$first"
index_bytes=$(du -sb "$XDG_CACHE_HOME/contextree/search" | cut -f1)
python3 -c "import sys; print('index size: %d bytes = %.2f x the text (%d bytes)' % (int(sys.argv[1]), int(sys.argv[1]) / int(sys.argv[2]), int(sys.argv[2])))" "$index_bytes" "$text_bytes"

# An append: one user line on the first file.
f=$(find "$lib" -name '*.jsonl' | sort | sed -n 1p)  # not head: its early exit fails the pipe
last=$(tail -1 "$f" | python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
printf '{"type":"message","id":"benchapp","parentId":"%s","timestamp":"2026-12-01T00:00:00.000Z","message":{"role":"user","content":"appended zanzibar request"}}\n' "$last" >>"$f"
t0=$(ms)
grown=$("$bin" index --root "$lib" --json)
t1=$(ms)
echo "append: grown $(echo "$grown" | field '["grown"]') file, $(echo "$grown" | field '["bytes"]') bytes read, index $(echo "$grown" | field '["ms"]') ms, command wall $((t1 - t0)) ms"
t0=$(ms)
"$bin" index --root "$lib" --json >/dev/null
t1=$(ms)
echo "unchanged library: command wall $((t1 - t0)) ms (listing $n files, checking each)"

: >"$work/q.txt"
time_queries "$bin" "$lib" 5 "$work/q.txt"
summarize_queries "$work/q.txt"
for w in error zanzibar 'cargo test'; do
  t0=$(ms)
  rg -c --no-messages "$w" "$lib" >/dev/null || true
  t1=$(ms)
  echo "rg '$w': $((t1 - t0)) ms"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
