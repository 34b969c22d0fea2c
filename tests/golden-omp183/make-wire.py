#!/usr/bin/env python3
"""Writes tests/golden-omp183/wire/<stem>.<case>.json: what the whole oh-my-pi 18.3.4 agent (its
bundled dist/cli.js) sends when told to compact a session file and then given one prompt, recorded
by tests/agents/wire.mjs against its stand-in model. For 18.3's core-side change the source oracle
cannot show (omp-18.3.md §2.1, prepareCompaction after a "" snapshot compaction) this is the
agent's own answer: which messages its summary requests carry, and the compaction it appends.

    python3 tests/golden-omp183/make-wire.py [--agent omp183|omp18] [STEM ...]

--agent omp18 writes the same for oh-my-pi 18.2.3 (<stem>.<case>.omp18.json), to compare.
Needs the installed agents (scripts/install-agents.sh; ORACLE names another folder). What the
agent adds per run (the date and working directory it tells the model) is replaced by a marker,
so the files are the same on every run. Python 3 stdlib only.
"""

import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
AGENTS = os.environ.get("ORACLE") or os.path.join(REPO, "tests", "agents")
OUT = os.path.join(HERE, "wire")

# stem (tests/fixtures/*/STEM.jsonl) -> [(case, wire.mjs arguments)]
CASES = {
    "omp183-snapshot-replay": [("compact100", ["--compact", "--keep-recent", "100"])],
    "omp183-snapshot-noreplay": [("compact100", ["--compact", "--keep-recent", "100"])],
    "omp183-native-kept": [("compact100", ["--compact", "--keep-recent", "100"])],
    "omp18-compaction": [("compact100", ["--compact", "--keep-recent", "100"])],
    # generated (gen-session.py --omp183-features): its last compaction is a snapshot with a replay point
    "g183-subagent-s115": [("compact100", ["--compact", "--keep-recent", "100"])],
}
REMINDER = re.compile(r"^<system-reminder>\n.*?\n</system-reminder>", re.S)


def locate(stem):
    for folder in ("omp183", "omp18", "generated", "synthetic"):
        p = os.path.join(REPO, "tests", "fixtures", folder, stem + ".jsonl")
        if os.path.exists(p):
            return p
    raise SystemExit(f"make-wire: no fixture {stem}")


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def steady(view):
    """The request's messages, the per-run date/cwd reminder replaced by a marker."""
    out = []
    for v in view:
        v = dict(v)
        v["text"] = [REMINDER.sub("<system-reminder: date and working directory of the run>", t) for t in v["text"]]
        out.append(v)
    return out


def run(agent, stem, args):
    cmd = ["node", os.path.join(AGENTS, "wire.mjs"), "--agent", agent, *args, locate(stem)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    doc = json.loads(p.stdout)
    if p.returncode != 0:
        raise SystemExit(f"make-wire: {stem} {args}: exit {doc['exit']}: {doc['stderr'][-2000:]}")
    main = doc["main"]
    reqs = doc["requests"]
    return {
        "agent": doc["agent"]["version"],
        "fixture": doc["session"]["file"],
        "args": args,
        "compaction": doc.get("compaction"),
        "appended": [{k: e[k] for k in ("type", "role", "customType", "firstKeptEntryId", "tokensBefore") if k in e}
                     for e in doc["appended"] if e["type"] not in ("title", "session")],
        "summaryRequests": [
            {"systemPromptSha256": [sha(s) for s in r["systemPrompt"]], "maxTokens": r["maxTokens"], "messages": r["view"]}
            for r in reqs[:main]
        ],
        "request": {"messages": steady(reqs[main]["view"])},
    }


def main():
    argv = sys.argv[1:]
    agent = "omp183"
    if argv[:1] == ["--agent"]:
        agent, argv = argv[1], argv[2:]
    stems = argv or list(CASES)
    os.makedirs(OUT, exist_ok=True)
    for stem in stems:
        for case, args in CASES[stem]:
            doc = run(agent, stem, args)
            suffix = "" if agent == "omp183" else f".{agent}"
            path = os.path.join(OUT, f"{stem}.{case}{suffix}.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
            sys.stderr.write(f"make-wire: {os.path.relpath(path, REPO)}: {len(doc['summaryRequests'])} summary requests, "
                             f"compaction {json.dumps(doc['compaction'])[:120]}\n")


if __name__ == "__main__":
    main()
