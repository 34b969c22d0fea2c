#!/usr/bin/env python3
"""Writes tests/fixtures/omp-subagents/: an omp 18 session whose `task` calls started subagents,
with the transcripts omp keeps beside it (docs/subagents.md).

    python3 scripts/make-omp-subagent-fixtures.py [OUT_DIR]   (default: tests/fixtures/omp-subagents)

Hand-made, following what oh-my-pi 18.2.3 / 18.3.4 write (docs/subagents.md cites the code):
the parent `omp-subagents.jsonl`; in its folder `omp-subagents/` the subagent `Anna.jsonl`
(finished inside call_1, its usage recorded in the task result), `Cleo.jsonl` (started in the
background by call_2: only in `details.progress`), `Anna/Anna.Eve.jsonl` (Anna's own subagent)
and the advisor's `__advisor.jsonl`; `Ghost`, also started by call_2, has no file (missing).

The tree: u1 -> a1 (call_1) -> r1 -> a2 -> u3 -> a3 (call_2) -> r3 -> a4   (leaf a4)
                                      a2 -> u4 -> a6                       (leaf a6)
           u1 -> a5                                                        (leaf a5)
The usage numbers are chosen so the sums are exact in binary (the tests add them by hand).
Deterministic; Python 3 stdlib only.
"""

import json
import os
import sys

CWD = "/home/dev/work/omp-app"
PARENT = "omp-subagents"
MODEL = ("anthropic", "claude-sonnet-4-5")
SUB_MODEL = ("anthropic", "claude-haiku-4-5")


def iso(sec):
    return "2026-11-20T10:%02d:%02d.000Z" % (sec // 60, sec % 60)


def usage(inp, out, cr, cw, cost):
    return {"input": inp, "output": out, "cacheRead": cr, "cacheWrite": cw, "totalTokens": inp + out + cr + cw,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}}


def add_usage(*us):
    keys = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"]
    s = {k: sum(u[k] for u in us) for k in keys}
    s["cost"] = {k: sum(u["cost"][k] for u in us) for k in ["input", "output", "cacheRead", "cacheWrite", "total"]}
    return s


def title_slot(title, sec):
    obj = {"type": "title", "v": 1, "title": title, "source": "auto", "updatedAt": iso(sec), "pad": ""}
    bare = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    obj["pad"] = " " * (255 - len(bare.encode("utf-8")))
    return obj


class File:
    def __init__(self, sid, parent_session=None, title=None):
        self.lines = []
        self.sec = 0
        if title is not None:
            self.lines.append(title_slot(title, 1))
        header = {"type": "session", "version": 3, "id": sid, "timestamp": iso(0), "cwd": CWD}
        if parent_session is not None:
            header["parentSession"] = parent_session
        self.lines.append(header)

    def entry(self, eid, parent, **fields):
        self.sec += 1
        self.lines.append({"type": fields.pop("type", "message"), "id": eid, "parentId": parent, "timestamp": iso(self.sec), **fields})
        return eid

    def user(self, eid, parent, text, **extra):
        return self.entry(eid, parent, message={"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1763632800000 + self.sec * 1000, **extra})

    def assistant(self, eid, parent, text, u, calls=(), model=MODEL):
        content = [{"type": "text", "text": text}] + [{"type": "toolCall", "id": cid, "name": name, "arguments": args} for cid, name, args in calls]
        return self.entry(eid, parent, message={
            "role": "assistant", "content": content, "api": "anthropic-messages", "provider": model[0], "model": model[1],
            "usage": u, "stopReason": "toolUse" if calls else "stop", "timestamp": 1763632800000 + self.sec * 1000})

    def task_result(self, eid, parent, call_id, text, details):
        return self.entry(eid, parent, message={
            "role": "toolResult", "toolCallId": call_id, "toolName": "task", "content": [{"type": "text", "text": text}],
            "details": details, "isError": False, "timestamp": 1763632800000 + self.sec * 1000})

    def write(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            for line in self.lines:
                f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")


def single_result(index, agent_id, u, task):
    """A finished agent as the task result's `details.results[]` records it."""
    return {"index": index, "id": agent_id, "agent": "task", "agentSource": "bundled", "task": task, "exitCode": 0,
            "output": "done", "stderr": "", "truncated": False, "durationMs": 4000,
            "tokens": u["input"] + u["output"] + u["cacheWrite"], "requests": 1, "modelRole": "task",
            "resolvedModel": "%s/%s" % SUB_MODEL, "usage": u}


def progress(index, agent_id, status):
    return {"index": index, "id": agent_id, "agent": "task", "agentSource": "bundled", "modelRole": "task", "status": status,
            "task": "look", "recentTools": [], "recentOutput": [], "toolCount": 0, "requests": 0, "tokens": 0, "cost": 0, "durationMs": 0}


def child(agent_id, parent_session, replies, nested=None):
    f = File("child-" + agent_id.lower(), parent_session)
    f.entry("i1", None, type="session_init", systemPrompt="You are a subagent.", task="Look at the parser.",
            tools=["read", "task", "yield"], agent="task", modelRole="task", resolvedModel="%s/%s" % SUB_MODEL, spawns="*")
    last = f.user("c1", "i1", "Look at the parser.")
    for k, u in enumerate(replies):
        calls = [("n1", "task", {"agent": "task", "tasks": [{"name": "Eve", "task": "dig"}]})] if nested and k == 0 else []
        last = f.assistant("c%d" % (2 + 2 * k), last, "Step %d." % k, u, calls, SUB_MODEL)
        if calls:
            last = f.task_result("c%d" % (3 + 2 * k), last, "n1", "Eve finished.",
                                 {"projectAgentsDir": None, "results": [nested], "totalDurationMs": 3000, "usage": nested["usage"]})
    return f


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "omp-subagents")
    parent_path = os.path.join(out, PARENT + ".jsonl")
    recorded_parent = "/home/dev/.omp/agent/sessions/--home-dev-work-omp-app--/%s.jsonl" % PARENT
    folder = os.path.join(out, PARENT)

    anna = [usage(1000, 100, 0, 0, 1.0), usage(200, 50, 1000, 0, 0.5)]
    eve = usage(300, 30, 0, 0, 0.25)
    cleo = usage(400, 40, 0, 0, 0.5)
    ghost = usage(500, 50, 0, 0, 0.75)
    advisor = usage(600, 60, 0, 0, 0.125)

    p = File("omp-subagents", title="Subagents")
    p.entry("mc1", None, type="model_change", model="%s/%s" % MODEL, role="default")
    p.user("u1", "mc1", "Find why the parser is slow.")
    p.assistant("a1", "u1", "Starting Anna.", usage(100, 20, 0, 50, 0.5), [("call_1", "task", {"agent": "task", "tasks": [{"name": "Anna", "task": "Look at the parser."}]})])
    anna_sum = add_usage(*anna)
    p.task_result("r1", "a1", "call_1", "Anna finished.", {
        "projectAgentsDir": None, "results": [single_result(0, "Anna", anna_sum, "Look at the parser.")],
        "totalDurationMs": 4000, "usage": anna_sum, "progress": [progress(0, "Anna", "completed")]})
    p.assistant("a2", "r1", "Anna found it.", usage(10, 30, 150, 0, 0.25))
    p.user("u3", "a2", "Check two more places.")
    p.assistant("a3", "u3", "Starting Ghost and Cleo.", usage(20, 10, 160, 10, 0.25), [("call_2", "task", {"agent": "task", "tasks": [{"name": "Ghost", "task": "a"}, {"name": "Cleo", "task": "b"}]})])
    p.task_result("r3", "a3", "call_2", "Ghost finished; spawned agent `Cleo` in the background.", {
        "projectAgentsDir": None, "results": [single_result(0, "Ghost", ghost, "a")], "totalDurationMs": 5000, "usage": ghost,
        "progress": [progress(0, "Ghost", "completed"), progress(1, "Cleo", "running")],
        "async": {"state": "running", "jobId": "Cleo", "type": "task"}})
    p.assistant("a4", "r3", "Done.", usage(5, 5, 200, 0, 0.125))
    p.user("u4", "a2", "Instead, summarize.")
    p.assistant("a6", "u4", "Summary.", usage(30, 10, 150, 0, 0.25))
    p.assistant("a5", "u1", "Without help: no idea.", usage(100, 10, 0, 0, 0.5))
    p.write(parent_path)

    child("Anna", recorded_parent, anna, nested=single_result(0, "Anna.Eve", eve, "dig")).write(os.path.join(folder, "Anna.jsonl"))
    child("Anna.Eve", recorded_parent[:-6] + "/Anna.jsonl", [eve]).write(os.path.join(folder, "Anna", "Anna.Eve.jsonl"))
    child("Cleo", recorded_parent, [cleo]).write(os.path.join(folder, "Cleo.jsonl"))

    # The advisor's transcript: opened without a parent, its review prompts marked synthetic.
    a = File("advisor")
    a.user("v1", None, "Session update: the agent started Anna.", synthetic=True, attribution="agent")
    a.assistant("v2", "v1", "No concerns.", advisor, model=SUB_MODEL)
    a.write(os.path.join(folder, "__advisor.jsonl"))


if __name__ == "__main__":
    main()
