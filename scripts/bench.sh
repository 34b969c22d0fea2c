#!/usr/bin/env bash
# Benchmarks contextree against the agents on generated sessions of 1, 10, 100 and 500 MB (or the
# sizes given), in one run on the same files, and prints Markdown tables (docs/benchmarks.md):
#   1. contextree beside pi 1.6.0 and oh-my-pi 18.2.3: whole-process wall time (median) and peak
#      RSS of each, and how many times faster contextree is than the faster agent;
#   2. contextree alone: wall time, peak RSS and RSS / file size;
#   3. the agents' own in-process timings (the oracle's `timingsMs`), to see what their wall
#      time is made of (loading their modules, opening the file, the rest).
# contextree runs `contextree context FILE --json` (the default command: `--prompts auto` looks
# for the installed agent without starting any program), which opens, indexes, builds the tree
# and the context and estimates every message. An agent runs the oracle's `bench` (open →
# getTree → buildSessionContext → convertToLlm → estimate every entry, tests/agents/README.md),
# started with the Bun the agents are installed with (`node_modules/.bin/bun oracle.mjs --impl
# IMPL bench FILE`): `node oracle.mjs` would only start Node to re-execute itself under that Bun,
# a cost the agents do not pay when they run.
# Wall time: whole process, page cache warm (one unmeasured run of each first), runs interleaved
# (contextree, then each agent, RUNS / AGENT_RUNS times) so that a change of load hits all alike;
# read from the shell's clock (µs) around `/usr/bin/time`, whose own `%e` counts in 10 ms steps.
# Peak RSS: `/usr/bin/time`'s `%M`, the highest of the runs.
# Sessions are generated once with tests/agents/gen-session.py (Python standard library only;
# g1 = seed 11, g10 = 12, g100 = 13, g500 = 15) into $BENCH_DIR.
#
#   scripts/bench.sh [SIZE_MB ...]
#     RUNS=5              contextree runs per file
#     AGENT_RUNS=3        runs per agent and file (a run takes seconds on big files, and GBs of
#                         memory on g500)
#     AGENTS=0            contextree alone (table 2 only)
#     AGENT_IMPLS="pi16 omp18"   the oracle's --impl of each agent; omp183 (18.3.4's sources on
#                         the 18.2.11 core, tests/agents/README.md) may be added
#     BENCH_DIR=/tmp/contextree-bench   where the sessions are generated
#     ORACLE=DIR          the agents' folder (default tests/agents; scripts/install-agents.sh)
#     CONTEXTREE_BIN=PATH time this binary instead of building the release one
set -euo pipefail
export LC_ALL=C # EPOCHREALTIME and awk print a decimal point

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
gen="$root/tests/agents/gen-session.py"
bench_dir="${BENCH_DIR:-/tmp/contextree-bench}"
runs="${RUNS:-5}"
agent_runs="${AGENT_RUNS:-3}"
agents_dir="${ORACLE:-$root/tests/agents}"
read -r -a impls <<<"${AGENT_IMPLS:-pi16 omp18}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 10 100 500)
declare -A seed=([1]=11 [10]=12 [100]=13 [500]=15)

[ -x /usr/bin/time ] || { echo "bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
cd "$root"
if [ -n "${CONTEXTREE_BIN:-}" ]; then
  bin="$CONTEXTREE_BIN"
else
  cargo build --release -p contextree-cli --quiet
  target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
  bin="$target_dir/release/contextree"
fi
[ -x "$bin" ] || { echo "bench.sh: $bin is not an executable" >&2; exit 2; }

# The agents that can run; a missing one loses its columns, the run goes on.
agents=()
if [ "${AGENTS:-1}" != 0 ]; then
  missing=()
  for impl in "${impls[@]}"; do
    case "$impl" in
      pi16) pkg=node_modules/@earendil-works/pi-coding-agent ;;
      omp18) pkg=node_modules/@oh-my-pi/pi-coding-agent ;;
      omp183) pkg=omp183/node_modules/@oh-my-pi/pi-coding-agent ;;
      *) echo "bench.sh: unknown agent '$impl' in AGENT_IMPLS (pi16, omp18, omp183)" >&2; exit 2 ;;
    esac
    if [ -x "$agents_dir/node_modules/.bin/bun" ] && [ -f "$agents_dir/$pkg/package.json" ]; then
      agents+=("$impl")
    else
      missing+=("$impl")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "bench.sh: not installed in $agents_dir: ${missing[*]}; their columns are left out." >&2
    echo "  Install the agents with scripts/install-agents.sh (npm ci, about 1.5 GB, 1-2 minutes)" >&2
    echo "  or set ORACLE=DIR to an installed copy; AGENTS=0 times contextree alone." >&2
  fi
fi
bun="$agents_dir/node_modules/.bin/bun"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
: >"$work/files.tsv"
: >"$work/runs.tsv"

# timed NAME FILE RUN OUT CMD...: one run, appended to runs.tsv as
# file, name, run, wall seconds, peak RSS KiB, exit status.
timed() {
  local name=$1 file=$2 i=$3 out=$4 status=0 t0 t1
  shift 4
  t0=$EPOCHREALTIME
  /usr/bin/time -f %M -o "$work/rss" "$@" >"$out" 2>"$work/err" || status=$?
  t1=$EPOCHREALTIME
  [ "$status" = 0 ] || echo "bench.sh: $name failed on $file (exit $status): $(tail -3 "$work/err")" >&2
  awk -v s="$file" -v n="$name" -v i="$i" -v a="$t0" -v b="$t1" -v r="$(tail -1 "$work/rss")" -v x="$status" \
    'BEGIN { printf "%s\t%s\t%s\t%.6f\t%s\t%s\n", s, n, i, b - a, r, x }' >>"$work/runs.tsv"
}

mkdir -p "$bench_dir"
rounds=$runs
[ ${#agents[@]} -eq 0 ] || [ "$agent_runs" -le "$rounds" ] || rounds=$agent_runs
# The conditions go with the figures: a busy machine makes every wall time longer (docs/benchmarks.md).
echo "Machine: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs);" \
  "$(date -u +%Y-%m-%dT%H:%MZ); load average at the start $(cut -d' ' -f1-3 /proc/loadavg)."
echo
for mb in "${sizes[@]}"; do
  f="$bench_dir/g$mb.jsonl"
  [ -f "$f" ] || python3 "$gen" --target-mb "$mb" --seed "${seed[$mb]:-$mb}" -o "$f" >/dev/null
  printf 'g%s\t%s\t%s\n' "$mb" "$(stat -c %s "$f")" "$(($(wc -l <"$f") - 1))" >>"$work/files.tsv"
  echo "bench.sh: g$mb: a warm-up run each, then RUNS=$runs of contextree${agents:+, AGENT_RUNS=$agent_runs of ${agents[*]}}" >&2
  cat "$f" >/dev/null
  "$bin" context "$f" --json >/dev/null
  for impl in "${agents[@]}"; do "$bun" "$agents_dir/oracle.mjs" --impl "$impl" bench "$f" >/dev/null 2>&1 || true; done
  for i in $(seq "$rounds"); do
    [ "$i" -gt "$runs" ] || timed contextree "g$mb" "$i" /dev/null "$bin" context "$f" --json
    for impl in "${agents[@]}"; do
      [ "$i" -gt "$agent_runs" ] ||
        timed "$impl" "g$mb" "$i" "$work/g$mb-$impl-$i.json" "$bun" "$agents_dir/oracle.mjs" --impl "$impl" bench "$f"
    done
  done
done
python3 "$root/scripts/bench-report.py" "$work" "$runs" "$agent_runs" "${agents[@]}"
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
