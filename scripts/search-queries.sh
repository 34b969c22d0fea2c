# shellcheck shell=bash
# What bench-search.sh and bench-search-again.sh share: the ten warm queries, how each is
# timed, and their summary. Sourced, not run.

ms() { echo $(($(date +%s%N) / 1000000)); }
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print(d$1)"; }

search_queries=(error "cargo test" 'read*' 'role:user build' 'tool:bash' 'zanzibar' 'project:app7 file' '"the session"' 'tree leaf' 'after:2026-01-01 cache')

# time_queries BIN LIB ROUNDS OUT: each query ROUNDS times after one warm-up search; appends
# "searchMs wallMs" per query to OUT (the command's wall time includes listing the library).
time_queries() {
  local bin=$1 lib=$2 rounds=$3 out=$4 round q t0 t1 answer
  "$bin" search --root "$lib" warmup --json >/dev/null
  for ((round = 1; round <= rounds; round++)); do
    for q in "${search_queries[@]}"; do
      t0=$(ms)
      answer=$("$bin" search --root "$lib" "$q" --json --limit 20)
      t1=$(ms)
      echo "$(echo "$answer" | field '["searchMs"]') $((t1 - t0))" >>"$out"
    done
  done
}

# summarize_queries OUT: p50 / p90 / p99 / max of searchMs and of the wall time, then each
# round's searchMs (the first round computes the hits' session states; later ones may find
# them kept).
summarize_queries() {
  python3 - "$1" "${#search_queries[@]}" <<'PY'
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
per_round = int(sys.argv[2])
def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]
def line(xs):
    return "p50 %d, p90 %d, p99 %d, max %d ms" % (pct(xs, 50), pct(xs, 90), pct(xs, 99), max(xs))
s = [r[0] for r in rows]; w = [r[1] for r in rows]
print("query (%d, warm): searchMs %s; command wall %s" % (len(rows), line(s), line(w)))
for r in range(0, len(rows), per_round):
    print("  round %d searchMs: %s" % (r // per_round + 1, " ".join(str(x) for x in s[r:r + per_round])))
PY
}
