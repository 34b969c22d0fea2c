#!/usr/bin/env bash
# Golden summary transcripts of oh-my-pi 18.2.3 (omp-18.md §5.5): for every fixture of
# tests/fixtures/{synthetic,edge,omp18,omp18-transcript,generated}, `oracle.mjs --impl omp18
# transcript` — serializeConversationForSummary(convertToLlm(context of the default leaf), d)
# for each of the ten dialects preferredDialect can name — and, once, preferredDialect of every
# id in models.txt (into _models.json).
# prompts/<stem>@<model>.json: the summarizer requests omp 18's compact() sends for the fixtures and
# keep-recent values of prompts.txt, with a stand-in summary model of each id of prompt-models.txt
# (`oracle.mjs summarize`: prepareCompaction with remote compaction off, reserve 16384, then
# compact() with every request recorded and answered `<answer N>`).
# folds/<stem>@<model>@<window>.json: as prompts/, for the fixture, keep-recent, window and model of
# each line of folds.txt — windows small enough that the history is summarized as a fold.
# branches/<stem>@<model>.json: generateBranchSummary's request when the leaf moves to the target
# of branches.txt, same stand-in models, window 128000, reserve 16384 (`oracle.mjs branch --model`).
#
#   tests/golden-omp18-transcript/make.sh [PATTERN ...]      (shell globs on the fixture stem)
#
# The agents' folder is $ORACLE, else tests/agents. This repository's oracle.mjs is run from a
# temporary copy inside that folder (it resolves the agents beside itself), removed afterwards.
# A fixture the agent cannot open gets no golden. Texts over 8 KiB are kept as length + sha256.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
ORACLE_DIR="$(cd "${ORACLE:-$ROOT/tests/agents}" && pwd)"
[ -d "$ORACLE_DIR/node_modules" ] || { echo "make.sh: no installed agents in $ORACLE_DIR" >&2; exit 2; }
COPY="$ORACLE_DIR/.oracle-transcript-$$.mjs"
cp "$ROOT/tests/agents/oracle.mjs" "$COPY"
trap 'rm -f "$COPY"' EXIT
MODELS="$(grep -v '^$' "$HERE/models.txt" | paste -sd, -)"
first=1
for dir in synthetic edge omp18 omp18-transcript generated; do
	for f in "$ROOT/tests/fixtures/$dir"/*.jsonl; do
		stem="$(basename "$f" .jsonl)"
		if [ $# -gt 0 ]; then
			ok=0
			for p in "$@"; do
				# shellcheck disable=SC2053
				[[ "$stem" == $p ]] && ok=1
			done
			[ "$ok" = 1 ] || continue
		fi
		args=()
		[ "$first" = 1 ] && args=(--models "$MODELS")
		if ! out="$(cd "$ORACLE_DIR" && timeout 60 node "$COPY" --impl omp18 transcript "$f" "${args[@]}" 2>/dev/null)"; then
			echo "make.sh: $stem: the agent does not open it, skipped" >&2
			continue
		fi
		printf '%s' "$out" | python3 -c '
import hashlib, json, sys
doc = json.load(sys.stdin)
stem, folder, here, first = sys.argv[1:5]
out = {"fixture": f"{folder}/{stem}.jsonl", "leafId": doc["leafId"], "llmCount": doc["llmCount"], "transcripts": {}}
for d, text in doc["transcripts"].items():
    b = text.encode("utf-8", "surrogatepass")
    t = {"length": len(text.encode("utf-16-le", "surrogatepass")) // 2, "sha256": hashlib.sha256(b).hexdigest()}
    if len(b) <= 8192:
        t["text"] = text
    out["transcripts"][d] = t
with open(f"{here}/{stem}.json", "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
    f.write("\n")
if first == "1":
    with open(f"{here}/_models.json", "w", encoding="utf-8") as f:
        json.dump(doc["dialects"], f, ensure_ascii=False, indent=1)
        f.write("\n")
' "$stem" "$dir" "$HERE" "$first"
		first=0
		echo "make.sh: $stem" >&2
	done
done

# ONLY=prompts|branches|folds limits the request goldens to that one kind (PATTERN NONE skips the
# transcripts).
only() { [ -z "${ONLY:-}" ] || [ "$ONLY" = "$1" ]; }
mkdir -p "$HERE/prompts"
only prompts && while read -r stem keep; do
	[ -z "$stem" ] && continue
	f="$(ls "$ROOT"/tests/fixtures/*/"$stem".jsonl | head -1)"
	while read -r model; do
		[ -z "$model" ] && continue
		out="$(cd "$ORACLE_DIR" && timeout 60 node "$COPY" --impl omp18 summarize "$f" --model "$model" --keep-recent "$keep" --reserve 16384)"
		printf '%s' "$out" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
stem, keep, f, here, model = sys.argv[1:6]
out = {"fixture": f.split("/tests/fixtures/")[1], "keepRecent": int(keep), "reserve": 16384, "model": model,
       "firstKeptEntryId": doc.get("firstKeptEntryId"), "isSplitTurn": doc.get("isSplitTurn"), "calls": doc["calls"]}
with open(f"{here}/prompts/{stem}@{model}.json", "w", encoding="utf-8") as fh:
    json.dump(out, fh, ensure_ascii=False, indent=1)
    fh.write("\n")
' "$stem" "$keep" "$f" "$HERE" "$model"
		echo "make.sh: prompts $stem @ $model" >&2
	done < "$HERE/prompt-models.txt"
done < "$HERE/prompts.txt"

mkdir -p "$HERE/branches"
only branches && while read -r stem target; do
	[ -z "$stem" ] && continue
	f="$(ls "$ROOT"/tests/fixtures/*/"$stem".jsonl | head -1)"
	while read -r model; do
		[ -z "$model" ] && continue
		out="$(cd "$ORACLE_DIR" && timeout 60 node "$COPY" --impl omp18 branch "$f" --to "$target" --model "$model" --window 128000 --reserve 16384)"
		printf '%s' "$out" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
stem, target, f, here, model = sys.argv[1:6]
s = doc["summarized"]
out = {"fixture": f.split("/tests/fixtures/")[1], "to": target, "window": s["window"], "reserve": 16384, "model": model,
       "selectedIds": doc["selectedIds"], "calls": s["calls"]}
with open(f"{here}/branches/{stem}@{model}.json", "w", encoding="utf-8") as fh:
    json.dump(out, fh, ensure_ascii=False, indent=1)
    fh.write("\n")
' "$stem" "$target" "$f" "$HERE" "$model"
		echo "make.sh: branch $stem -> $target @ $model" >&2
	done < "$HERE/prompt-models.txt"
done < "$HERE/branches.txt"

mkdir -p "$HERE/folds"
only folds && while read -r stem keep window model; do
	[ -z "$stem" ] && continue
	f="$(ls "$ROOT"/tests/fixtures/*/"$stem".jsonl | head -1)"
	out="$(cd "$ORACLE_DIR" && timeout 120 node "$COPY" --impl omp18 summarize "$f" --model "$model" --keep-recent "$keep" --reserve 16384 --window "$window")"
	printf '%s' "$out" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
stem, keep, f, here, model, window = sys.argv[1:7]
out = {"fixture": f.split("/tests/fixtures/")[1], "keepRecent": int(keep), "reserve": 16384, "model": model, "window": int(window),
       "firstKeptEntryId": doc.get("firstKeptEntryId"), "isSplitTurn": doc.get("isSplitTurn"), "calls": doc["calls"]}
with open(f"{here}/folds/{stem}@{model}@{window}.json", "w", encoding="utf-8") as fh:
    json.dump(out, fh, ensure_ascii=False, indent=1)
    fh.write("\n")
' "$stem" "$keep" "$f" "$HERE" "$model" "$window"
	echo "make.sh: fold $stem @ $model window $window" >&2
done < "$HERE/folds.txt"
