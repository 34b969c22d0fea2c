#!/usr/bin/env python3
"""Regenerates this folder: the fixtures (fixtures/*.jsonl, omp 18 sessions for the per-turn
stale pass of omp-18.md §6.2 — repeated reads of a file, selector reads, scheme:// and
skill:// paths, useless results, a compaction boundary, an already pruned read, a branch) and
the goldens (<fixture>.<case>.json): `oracle.mjs --impl omp18 prune FILE --stale
--then-overflow --now MS [...]`, i.e. oh-my-pi 18.2.3's own pruneSupersededToolResults as the
agent calls it every turn, then its pruneToolOutputs on the result. `--now` is the last
message's timestamp plus a fixed delay (CASES), so the output is byte-identical between runs.

    python3 tests/golden-omp18-stale/make.py          # needs scripts/install-agents.sh
    ORACLE=DIR python3 tests/golden-omp18-stale/make.py

Python 3 standard library only."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z
COST = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}


def iso(ms):
    s, ms = divmod(ms - T0, 1000)
    return f"2026-01-01T{s // 3600:02}:{s // 60 % 60:02}:{s % 60:02}.{ms:03}Z"


class Session:
    def __init__(self, name):
        self.name = name
        self.lines = [{"type": "session", "version": 3, "id": f"sess-{name}", "timestamp": iso(T0), "cwd": "/home/dev/proj"}]
        self.last = None
        self.clock = T0
        self.n = 0

    def entry(self, kind, parent=..., **fields):
        self.n += 1
        self.clock += 10_000
        eid = fields.pop("id", f"{kind[0]}{self.n:03}")
        parent = self.last if parent is ... else parent
        e = {"type": kind, "id": eid, "parentId": parent, "timestamp": iso(self.clock), **fields}
        self.lines.append(e)
        self.last = eid
        return eid

    def message(self, msg, **kw):
        msg["timestamp"] = self.clock + 10_000
        return self.entry("message", message=msg, **kw)

    def user(self, text, **kw):
        return self.message({"role": "user", "content": text}, **kw)

    def calls(self, *calls, text=None, **kw):
        """calls: (callId, toolName, arguments)."""
        content = [{"type": "text", "text": text}] if text else []
        content += [{"type": "toolCall", "id": c, "name": n, "arguments": a} for c, n, a in calls]
        return self.message({"role": "assistant", "content": content, "api": "openai-responses", "provider": "openai",
                             "model": "gpt-5", "usage": {"input": 1000, "output": 50, "cacheRead": 0, "cacheWrite": 0,
                             "totalTokens": 1050, "cost": COST}, "stopReason": "toolUse"}, **kw)

    def result(self, call, tool, chars, useless=False, error=False, pruned=False, **kw):
        m = {"role": "toolResult", "toolCallId": call, "toolName": tool,
             "content": [{"type": "text", "text": ("%s " % call * (chars // (len(call) + 1) + 1))[:chars]}],
             "isError": error}
        if useless:
            m["useless"] = True
        if pruned:
            m["content"] = [{"type": "text", "text": "[Superseded by a newer read of this file]"}]
            m["prunedAt"] = T0 + 1
        return self.message(m, **kw)

    def reply(self, text, **kw):
        return self.message({"role": "assistant", "content": [{"type": "text", "text": text}], "api": "openai-responses",
                             "provider": "openai", "model": "gpt-5", "usage": {"input": 2000, "output": 20, "cacheRead": 0,
                             "cacheWrite": 0, "totalTokens": 2020, "cost": COST}, "stopReason": "stop"}, **kw)

    def read(self, call, path, chars):
        self.calls((call, "read", {"path": path}))
        return self.result(call, "read", chars)

    def write(self):
        os.makedirs(OUT, exist_ok=True)
        with open(os.path.join(OUT, self.name + ".jsonl"), "w", encoding="utf-8") as f:
            for line in self.lines:
                f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")


def reads():
    """Repeated reads, selectors both ways, scheme:// and skill:// paths, a big tail."""
    s = Session("stale-reads")
    s.user("refactor src/a.ts")
    s.read("c01", "src/a.ts", 8000)             # superseded by c03 (bare)
    s.calls(("c02", "edit", {"path": "src/a.ts", "old": "x", "new": "y"}))
    s.result("c02", "edit", 400)
    s.read("c03", "src/a.ts", 8000)             # superseded by c11 (bare)
    s.read("c04", "src/a.ts:10-20", 2000)       # superseded by c05 (same selector)
    s.read("c05", "src/a.ts:10-20", 2000)       # superseded by c11 (bare path)
    s.read("c06", "src/b.ts", 3000)             # not superseded by a later selector read
    s.read("c07", "src/b.ts:5-9", 1000)         # superseded by c12 (bare)
    s.read("c08", "src/b.ts:1-50:raw", 1000)    # compound selector: superseded by c12
    s.read("c09", "skill://review", 3000)       # skill:// protected and exempt
    s.read("c10", "https://example.com/doc", 3000)  # scheme:// exempt
    s.user("big tail " + "t" * 40000)           # 10003 tokens after the results above
    s.read("c11", "src/a.ts", 6000)
    s.read("c12", "src/b.ts", 2000)
    s.read("c13", "skill://review", 3000)
    s.read("c14", "https://example.com/doc", 3000)
    s.read("c15", "src/c.ts:raw", 400)          # superseded by c16 (same selector), in the tail
    s.read("c16", "src/c.ts:RAW", 400)          # key differs only in case: not the same key
    s.read("c17", "src/c.ts:raw", 400)
    s.reply("done")
    s.write()


def useless():
    """Useless results: big, tiny (saves nothing), an error, a skill result, one also superseded."""
    s = Session("stale-useless")
    s.user("search")
    s.calls(("g1", "grep", {"pattern": "foo"}))
    s.result("g1", "grep", 4000, useless=True)
    s.calls(("g2", "grep", {"pattern": "bar"}))
    s.result("g2", "grep", 20, useless=True)     # 5 tokens: the notice (7) saves nothing
    s.calls(("g3", "grep", {"pattern": "baz"}))
    s.result("g3", "grep", 4000, useless=True, error=True)
    s.calls(("k1", "skill", {"name": "x"}))
    s.result("k1", "skill", 4000, useless=True)
    s.calls(("r1", "read", {"path": "src/x.ts"}))
    s.result("r1", "read", 4000, useless=True)   # superseded and useless: superseded wins
    s.read("r2", "src/x.ts", 400)
    s.calls(("w1", "wait", {"ms": 10}))
    s.result("w1", "wait", 30000, useless=True)  # 7500 tokens: older results now have > 8000 after them
    s.calls(("g4", "grep", {"pattern": "qux"}))
    s.result("g4", "grep", 2000, useless=True)
    s.reply("nothing found")
    s.write()


def compacted():
    """A compaction whose first kept entry sits between two superseded reads; an already
    pruned newest read (it supersedes nothing: pruned results are skipped before their key counts)."""
    s = Session("stale-compacted")
    s.user("start")
    s.read("c1", "src/a.ts", 4000)              # before the boundary
    s.read("c2", "src/a.ts", 4000)
    kept = s.user("continue")
    s.read("c3", "src/a.ts", 4000)              # at/after the boundary
    s.read("c4", "src/d.ts", 1000)
    s.entry("compaction", summary="summary of the start", firstKeptEntryId=kept, tokensBefore=5000)
    s.read("c5", "src/a.ts", 4000)
    s.calls(("c6", "read", {"path": "src/d.ts"}))
    s.result("c6", "read", 1000, pruned=True)   # already pruned: c4 stays
    s.reply("ok")
    s.write()


def branches():
    """Two branches: a read on one branch does not supersede a read on the other."""
    s = Session("stale-branches")
    s.user("go")
    s.read("c1", "src/a.ts", 4000)
    fork = s.last
    s.read("c2", "src/a.ts", 4000)
    s.reply("branch one", id="leaf1")
    s.calls(("c3", "read", {"path": "src/a.ts"}), parent=fork)
    s.result("c3", "read", 4000)
    s.reply("branch two", id="leaf2")
    s.write()


MINUTE = 60_000

# (fixture, case name, delay after the last message in ms, extra oracle arguments)
CASES = [
    ("stale-reads", "warm", MINUTE, []),
    ("stale-reads", "idle", 90 * MINUTE, []),
    ("stale-reads", "almost-idle", 90 * MINUTE - 1, []),
    ("stale-reads", "prefix", MINUTE, ["--prefix-bound"]),
    ("stale-reads", "prefix-idle", 120 * MINUTE, ["--prefix-bound"]),
    ("stale-reads", "no-supersede", 120 * MINUTE, ["--no-supersede"]),
    ("stale-useless", "warm", MINUTE, []),
    ("stale-useless", "idle", 91 * MINUTE, []),
    ("stale-useless", "no-useless", 91 * MINUTE, ["--no-useless"]),
    ("stale-useless", "off", 91 * MINUTE, ["--no-useless", "--no-supersede"]),
    ("stale-compacted", "warm", MINUTE, []),
    ("stale-compacted", "idle", 100 * MINUTE, []),
    ("stale-branches", "leaf1", MINUTE, ["--leaf", "leaf1"]),
    ("stale-branches", "leaf2", MINUTE, ["--leaf", "leaf2"]),
    ("stale-branches", "old-leaf1", -10 * MINUTE, ["--leaf", "leaf1"]),
]


def last_message_ms(path, leaf):
    """The last message's timestamp on the leaf's path (the fixtures' leaves are their last
    lines unless named)."""
    entries = [json.loads(l) for l in open(path, encoding="utf-8")][1:]
    by_id = {e["id"]: e for e in entries}
    e = by_id[leaf] if leaf else entries[-1]
    while e["type"] != "message":
        e = by_id[e["parentId"]]
    return e["message"]["timestamp"]


def main():
    reads()
    useless()
    compacted()
    branches()
    repo = os.path.dirname(os.path.dirname(HERE))
    oracle = os.environ.get("ORACLE", os.path.join(repo, "tests", "agents"))
    for stem, case, delay, extra in CASES:
        path = os.path.join(OUT, stem + ".jsonl")
        leaf = extra[extra.index("--leaf") + 1] if "--leaf" in extra else None
        now = last_message_ms(path, leaf) + delay
        args = ["node", "oracle.mjs", "--impl", "omp18", "prune", path, "--stale", "--then-overflow", "--now", str(now), *extra]
        out = subprocess.run(args, cwd=oracle, check=True, capture_output=True, text=True).stdout
        doc = json.loads(out)
        doc["args"] = ["--now", str(now), *extra]
        with open(os.path.join(HERE, f"{stem}.{case}.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        print(f"{stem}.{case}: stale {doc['result']} overflow {doc['overflow']['result']}", file=sys.stderr)


if __name__ == "__main__":
    main()
