#!/usr/bin/env bash
# Regenerates the test corpus and the golden outputs from the reference oracle.
#
#   scripts/make-golden.sh [--oracle DIR] [--no-fixtures] [--jobs N] [--impls LIST] [PATTERN ...]
#
#   1. tests/fixtures/generated/*.jsonl and demo/demo-session.jsonl   (tests/agents/gen-session.py, fixed seeds)
#      tests/fixtures/pi16/g16-*.jsonl                               (gen-session.py --pi16-features)
#      tests/fixtures/omp183/g183-*.jsonl                            (gen-session.py --omp183-features)
#   2. tests/fixtures/edge/*.jsonl                                   (scripts/make-edge-fixtures.py)
#      tests/fixtures/pi16/pi16-*.jsonl                              (scripts/make-pi16-fixtures.py)
#      tests/fixtures/omp18/omp18-*.jsonl                            (scripts/make-omp18-fixtures.py)
#      tests/fixtures/omp183/omp183-*.jsonl                          (scripts/make-omp183-fixtures.py)
#   3. golden outputs (scripts/golden.py) for the implementations of --impls (default pi,omp13):
#      pi, omp13 -> tests/golden/<stem>.<pi|omp>.json      over tests/fixtures/{real,synthetic,generated,edge}
#      pi16      -> tests/golden-pi16/<stem>.pi16.json     over the same + tests/fixtures/pi16
#      omp18     -> tests/golden-omp18/<stem>.omp18.json   over the same + tests/fixtures/omp18
#      omp183    -> tests/golden-omp183/<stem>.omp183.json over the same + tests/fixtures/{omp18,omp183}
#      e.g. --impls pi16,omp18 (or all five: --impls pi,omp13,pi16,omp18,omp183)
#
# The agents' folder defaults to $ORACLE, else tests/agents (install the agents there with
# scripts/install-agents.sh). --no-fixtures skips steps 1-2; PATTERNs (shell globs on the fixture
# stem, e.g. 'edge-*') limit step 3. ORACLE_TIMEOUT (seconds, default 40) bounds each oracle run.
# Works from any directory; needs node, python3 and an installed oracle (node_modules present).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORACLE_DIR="${ORACLE:-$ROOT/tests/agents}"
FIXTURES=1
JOBS=""
IMPLS=""
PATTERNS=()
while [ $# -gt 0 ]; do
	case "$1" in
		--oracle) ORACLE_DIR="$2"; shift 2 ;;
		--oracle=*) ORACLE_DIR="${1#*=}"; shift ;;
		--no-fixtures) FIXTURES=0; shift ;;
		--jobs|-j) JOBS="$2"; shift 2 ;;
		--impls) IMPLS="$2"; shift 2 ;;
		--impls=*) IMPLS="${1#*=}"; shift ;;
		-h|--help) sed -n '2,23p' "$0"; exit 0 ;;
		-*) echo "make-golden: unknown option $1" >&2; exit 2 ;;
		*) PATTERNS+=("$1"); shift ;;
	esac
done

if [ ! -f "$ORACLE_DIR/oracle.mjs" ] || [ ! -d "$ORACLE_DIR/node_modules" ]; then
	echo "make-golden: no installed oracle in $ORACLE_DIR (run scripts/install-agents.sh or set ORACLE)" >&2
	exit 2
fi
ORACLE_DIR="$(cd "$ORACLE_DIR" && pwd)"
echo "make-golden: oracle $ORACLE_DIR" >&2

if [ "$FIXTURES" = 1 ]; then
	GEN="$ROOT/tests/agents/gen-session.py"
	OUT="$ROOT/tests/fixtures/generated"
	mkdir -p "$OUT" "$ROOT/demo"
	# name | gen-session.py arguments (deterministic: same arguments -> same bytes)
	while IFS='|' read -r name args; do
		[ -z "$name" ] && continue
		# shellcheck disable=SC2086
		python3 "$GEN" $args -o "$OUT/$name.jsonl"
	done <<-'EOF'
	g-v3-branchy-s3|--entries 150 --seed 3 --branch-rate 0.2 --compact-at 20000
	g-v3-branchy-s23|--entries 150 --seed 23 --branch-rate 0.2 --compact-at 20000
	g-v3-branchy-s29|--entries 150 --seed 29 --branch-rate 0.2 --compact-at 20000
	g-v3-branchy-s30|--entries 150 --seed 30 --branch-rate 0.2 --compact-at 20000
	g-v2-branchy-s19|--entries 150 --seed 19 --format-version 2 --branch-rate 0.2 --compact-at 20000
	g-v1-compact-s1|--entries 150 --seed 1 --format-version 1 --compact-at 20000
	g-v3-default-s5|--entries 80 --seed 5
	g-v2-default-s6|--entries 40 --seed 6 --format-version 2
	g-v1-default-s8|--entries 60 --seed 8 --format-version 1
	g-v3-bigout-s9|--entries 60 --seed 9 --output-scale 3
	EOF
	python3 "$GEN" --entries 220 --seed 122 --branch-rate 0.2 --compact-at 20000 --output-scale 0.3 \
		-o "$ROOT/demo/demo-session.jsonl"
	# pi 1.6.0 features (system messages, context edits, usage entries, checkpoints, retain-none
	# compactions, branch summaries with fromId = abandoned leaf); see tests/fixtures/README.md
	OUT16="$ROOT/tests/fixtures/pi16"
	mkdir -p "$OUT16"
	while IFS='|' read -r name args; do
		[ -z "$name" ] && continue
		# shellcheck disable=SC2086
		python3 "$GEN" --pi16-features $args -o "$OUT16/$name.jsonl"
	done <<-'EOF'
	g16-small-s7|--entries 60 --seed 7
	g16-legacy-s8|--entries 60 --seed 8
	g16-small-s14|--entries 60 --seed 14
	g16-branchy-s34|--entries 80 --seed 34 --branch-rate 0.2 --compact-at 20000
	g16-nosystem-s26|--entries 80 --seed 26 --branch-rate 0.2 --compact-at 20000
	g16-default-s54|--entries 200 --seed 54
	g16-default-s58|--entries 200 --seed 58
	g16-branchy-s19|--entries 250 --seed 19 --branch-rate 0.2 --compact-at 20000
	g16-branchy-s97|--entries 300 --seed 97 --branch-rate 0.2 --compact-at 20000
	g16-branchy-s112|--entries 300 --seed 112 --branch-rate 0.2 --compact-at 20000
	EOF
	# oh-my-pi 18.3.4 sessions (title slot, Anthropic native and snapshot compactions, interrupted
	# replies, developer messages, session_init thresholds); see tests/fixtures/README.md
	OUT183="$ROOT/tests/fixtures/omp183"
	mkdir -p "$OUT183"
	while IFS='|' read -r name args; do
		[ -z "$name" ] && continue
		# shellcheck disable=SC2086
		python3 "$GEN" --omp183-features $args -o "$OUT183/$name.jsonl"
	done <<-'EOF'
	g183-main-s4|--entries 1500 --seed 4 --compact-at 60000 --output-scale 0.4
	g183-branchy-s66|--entries 800 --seed 66 --branch-rate 0.15 --compact-at 40000 --output-scale 0.4
	g183-subagent-s115|--entries 400 --seed 115 --branch-rate 0 --compact-at 30000 --output-scale 0.4
	EOF
	python3 "$ROOT/scripts/make-edge-fixtures.py" "$ROOT/tests/fixtures/edge"
	python3 "$ROOT/scripts/make-pi16-fixtures.py" "$OUT16"
	python3 "$ROOT/scripts/make-omp18-fixtures.py" "$ROOT/tests/fixtures/omp18"
	python3 "$ROOT/scripts/make-omp183-fixtures.py" "$ROOT/tests/fixtures/omp183"
fi

ARGS=(--oracle "$ORACLE_DIR")
[ -n "$JOBS" ] && ARGS+=(--jobs "$JOBS")
[ -n "$IMPLS" ] && ARGS+=(--impls "$IMPLS")
python3 "$ROOT/scripts/golden.py" "${ARGS[@]}" ${PATTERNS[@]+"${PATTERNS[@]}"}
for d in golden golden-pi16 golden-omp18 golden-omp183; do
	[ -d "$ROOT/tests/$d" ] && du -sh "$ROOT/tests/$d" >&2
done
exit 0
