#!/usr/bin/env bash
# Peak memory (RSS, `/usr/bin/time -v`) and wall time of every read-only command on one session
# file, as a Markdown table: the memory benchmark of docs/benchmarks.md ("Memory with many small
# entries"). The file is a chain made by scripts/gen-chain.py; `branch` goes to the entry in the
# middle of the file.
#   scripts/mem-chain.sh BIN FILE [DIALECT]       (default dialect pi@0.73; --prompts own)
set -uo pipefail

bin=$1 file=$2 dialect=${3:-pi@0.73}
[ -x /usr/bin/time ] || { echo "mem-chain.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
lines=$(wc -l < "$file")
mid=$(sed -n "$((lines / 2 + 1))p" "$file" | sed 's/.*"id":"\([^"]*\)".*/\1/')
size=$(stat -c %s "$file")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/sessions/--project--"
ln "$file" "$tmp/sessions/--project--/session.jsonl" 2>/dev/null || ln -s "$file" "$tmp/sessions/--project--/session.jsonl"

commands=(
  "info --json" "tree --json" "tree" "tokens" "tokens --json" "context --json" "context"
  "serialize" "prune --dry-run" "prune --dry-run --json" "cut" "cut --json" "usage" "usage --json"
  "drops" "drops --json" "compact --dry-run" "compact --dry-run --json"
  "branch --to $mid" "branch --to $mid --json"
)
echo "file: $file, $size bytes ($((size / 1048576)) MiB), $((lines - 1)) entries, $dialect"
echo "| command | peak RSS MiB | ÷ file | wall s | output bytes | exit |"
echo "|---|---|---|---|---|---|"
row() { # label, command...
  local label=$1
  shift
  /usr/bin/time -v -o "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  local rss wall
  rss=$(awk '/Maximum resident/ {print $NF}' "$tmp/time")
  wall=$(awk '/Elapsed \(wall/ {print $NF}' "$tmp/time")
  awk -v l="$label" -v r="$rss" -v s="$size" -v w="$wall" -v o="$(stat -c %s "$tmp/out")" -v c="$rc" \
    'BEGIN { printf "| `%s` | %.0f | %.2f | %s | %d | %d |\n", l, r / 1024, r * 1024 / s, w, o, c }'
}
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086 # the command's words
  row "${c/$mid/MID}" "$bin" $c "$file" --dialect "$dialect" --prompts own
done
row "sessions --root DIR" "$bin" sessions --root "$tmp/sessions"
row "sessions --root DIR --json" "$bin" sessions --root "$tmp/sessions" --json
