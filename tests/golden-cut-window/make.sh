#!/usr/bin/env bash
# Regenerates the window goldens of this folder: the oracle's `cut --window N
# [--reserve N]` (pi 0.73.1 and oh-my-pi 13.19.0) for a few fixtures, with
# windows chosen on both sides of each dialect's threshold. Needs the oracle
# (scripts/install-agents.sh); ORACLE overrides its folder (default tests/agents
# in the repository). Output is byte-identical between runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
oracle=${ORACLE:-$repo/tests/agents}
fixtures=$repo/tests/fixtures

# fixture  window  [reserve [keepRecentTokens]] (small keepRecentTokens give omp
# something to summarize, so that its shouldCompact is answered)
cases=(
  "synthetic/E02 0"
  "synthetic/E02 0 16384 45"
  "synthetic/E07a 200000"
  "synthetic/E15 16603 16384 50"
  "synthetic/E15 16604 16384 50"
  "generated/g-v3-bigout-s9 80000"
  "generated/g-v3-bigout-s9 81000"
  "edge/edge-prune 100000 30000"
  "edge/edge-prune 100000 20000"
  "edge/edge-prune 1000000 160000"
  "real/pi-before-compaction 128000"
  "real/pi-before-compaction 197667"
  "real/pi-before-compaction 197670"
  "real/pi-before-compaction 200000"
)

for c in "${cases[@]}"; do
  read -r rel window reserve keep <<<"$c"
  stem=$(basename "$rel")
  args=(cut "$fixtures/$rel.jsonl" --window "$window")
  suffix=".w$window"
  if [[ -n "${reserve:-}" ]]; then
    args+=(--reserve "$reserve")
    suffix+=".r$reserve"
  fi
  if [[ -n "${keep:-}" ]]; then
    args+=(--keep-recent "$keep")
    suffix+=".k$keep"
  fi
  for impl in pi omp13; do
    dialect=${impl%13}
    out="$here/$stem.$dialect$suffix.json"
    (cd "$oracle" && node oracle.mjs --impl "$impl" "${args[@]}") >"$out.tmp"
    mv "$out.tmp" "$out"
  done
done
# oh-my-pi 18.2.3 (`--impl omp18`, files `<stem>.omp18.w…`): resolveThresholdTokens with an unset
# reserveTokens ("-": DEFAULT_COMPACTION_SETTINGS has none) falls back to 15 % of small windows
# (omp-18.md §5.1); E15's tokensBefore is 220 with keepRecentTokens 50.
cases18=(
  "synthetic/E15 257 - 50"
  "synthetic/E15 259 - 50"
  "synthetic/E15 5 - 50"
  "synthetic/E15 16000 - 50"
  "synthetic/E15 19000 - 50"
  "synthetic/E15 19000 16384 50"
  "synthetic/E15 259 16384 50"
  "synthetic/E07a 200000 -"
)
for c in "${cases18[@]}"; do
  read -r rel window reserve keep <<<"$c"
  stem=$(basename "$rel")
  args=(cut "$fixtures/$rel.jsonl" --window "$window")
  suffix=".w$window"
  if [[ "$reserve" != "-" ]]; then
    args+=(--reserve "$reserve")
    suffix+=".r$reserve"
  fi
  if [[ -n "${keep:-}" ]]; then
    args+=(--keep-recent "$keep")
    suffix+=".k$keep"
  fi
  out="$here/$stem.omp18$suffix.json"
  (cd "$oracle" && node oracle.mjs --impl omp18 "${args[@]}") >"$out.tmp"
  mv "$out.tmp" "$out"
done
echo "wrote $(ls "$here"/*.json | wc -l) files to $here"
