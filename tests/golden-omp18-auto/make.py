#!/usr/bin/env python3
"""Regenerates this folder: for each fixture, what oh-my-pi 18.2.3's own functions give for the
inputs of its post-run auto-compaction threshold check (`oracle.mjs --impl omp18 auto FILE
--window N --now MS`, see tests/agents/oracle.mjs `autoInputs`): the checked reply, stale,
isContextOverflow, the stale pass and overflow pruning results, the stored estimate (messages
without encrypted reasoning), the usage, max of both, resolveThresholdTokens and shouldCompact.
Windows: 200,000, and two around the threshold that the 200,000 run's input straddles.
`--now` is the last message's timestamp plus one minute (a warm cache), or 2 hours (`.idle`)
for the files of ../golden-omp18-stale. Byte-identical between runs.

    python3 tests/golden-omp18-auto/make.py        # needs scripts/install-agents.sh

Python 3 standard library only."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ORACLE = os.environ.get("ORACLE", os.path.join(REPO, "tests", "agents"))
FIXTURES = ["tests/fixtures/synthetic/" + f for f in sorted(os.listdir(os.path.join(REPO, "tests/fixtures/synthetic"))) if f.endswith(".jsonl")]
FIXTURES += ["tests/fixtures/omp18/" + f for f in sorted(os.listdir(os.path.join(REPO, "tests/fixtures/omp18")))]
FIXTURES += ["tests/fixtures/generated/g-v3-bigout-s9.jsonl", "tests/fixtures/generated/g-v3-branchy-s23.jsonl"]
STALE = ["tests/golden-omp18-stale/fixtures/" + f for f in sorted(os.listdir(os.path.join(REPO, "tests/golden-omp18-stale/fixtures")))]


def last_message_ms(path):
    last = None
    for line in open(path, encoding="utf-8"):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if isinstance(e, dict) and e.get("type") == "message" and isinstance(e.get("message"), dict):
            ts = e["message"].get("timestamp")
            if isinstance(ts, (int, float)):
                last = ts
    return int(last or 0)


def oracle(path, window, now):
    args = ["node", "oracle.mjs", "--impl", "omp18", "auto", os.path.join(REPO, path), "--window", str(window), "--now", str(now)]
    return json.loads(subprocess.run(args, cwd=ORACLE, check=True, capture_output=True, text=True).stdout)


def write(name, doc, now):
    doc["args"] = ["--window", str(doc["window"]), "--now", str(now)]
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


def main():
    n = 0
    cases = [(p, 60_000, "") for p in FIXTURES] + [(p, 60_000, "") for p in STALE] + [(p, 7_200_000, ".idle") for p in STALE]
    for path, delay, tag in cases:
        stem = os.path.basename(path)[: -len(".jsonl")]
        now = last_message_ms(os.path.join(REPO, path)) + delay
        first = oracle(path, 200_000, now)
        windows = [200_000]
        tokens = first.get("contextTokens")
        if isinstance(tokens, (int, float)) and tokens > 0:
            # 0.85 W > reserve 16384 keeps the configured reserve: threshold W − 16384.
            windows += [int(tokens) + 16_384, int(tokens) + 16_383]
        for w in windows:
            doc = first if w == 200_000 else oracle(path, w, now)
            write(f"{stem}{tag}.w{w}.json", doc, now)
            n += 1
    print(f"wrote {n} files", file=sys.stderr)


if __name__ == "__main__":
    main()
