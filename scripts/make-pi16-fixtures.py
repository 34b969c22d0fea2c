#!/usr/bin/env python3
"""Writes the small hand-made pi 1.6.0 session files of tests/fixtures/pi16/ (pi16-*.jsonl).

    python3 scripts/make-pi16-fixtures.py [OUT_DIR]     (default: tests/fixtures/pi16)

Each file pins one group of rules of spec/pi-1.6.md (section numbers in the docstrings; the list
is in tests/fixtures/README.md). Ids are readable (u1 user, a1 assistant, r1 tool result, e1
context_edit, s1 system, ...). Deterministic: running it again reproduces the committed files
byte for byte. The generated pi16 files (gen-session.py --pi16-features) are made by
scripts/make-golden.sh. scripts/make-omp18-fixtures.py reuses the Session class. Python 3 stdlib.
"""

import datetime as dt
import json
import os
import sys

T0 = dt.datetime(2026, 11, 20, 10, 0, 0, tzinfo=dt.timezone.utc)
CWD = "/home/dev/work/pi16-app"


def iso(sec):
    t = T0 + dt.timedelta(seconds=sec)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def ms(sec):
    return int((T0 + dt.timedelta(seconds=sec)).timestamp() * 1000)


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def text(n, seed=0):
    """Deterministic filler of exactly n UTF-16 units (BMP only, some non-ASCII)."""
    words = ("session entry parent leaf branch token budget compaction summary context message tool "
             "result reader writer parser buffer index cache für naïve café — → ✓").split()
    out, i = [], seed
    while sum(len(w) + 1 for w in out) < n:
        out.append(words[(i * 7 + 3) % len(words)])
        i += 1
    return " ".join(out)[:n]


def usage(inp, out=40, cache_read=0, cache_write=0, total=None):
    tot = inp + out + cache_read + cache_write if total is None else total
    return {"input": inp, "output": out, "cacheRead": cache_read, "cacheWrite": cache_write, "totalTokens": tot,
            "cost": {"input": inp * 3e-6, "output": out * 1.5e-5, "cacheRead": 0, "cacheWrite": 0,
                     "total": inp * 3e-6 + out * 1.5e-5}}


ZERO_USAGE = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
              "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}

TOOLS = {
    "read": {"name": "read", "description": "Read a file's contents.",
             "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    "bash": {"name": "bash", "description": "Run a shell command.",
             "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}},
    "edit": {"name": "edit", "description": "Edit a file by replacing text.",
             "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "edits": {"type": "array"}},
                            "required": ["path", "edits"]}},
    "write": {"name": "write", "description": "Write a file.",
              "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                             "required": ["path", "content"]}},
}


class Session:
    """Builds a session file line by line; base fields first (type, id, parentId, timestamp)."""

    def __init__(self, out_dir, sid="pi16-session-0001", header_extra=None, cwd=CWD, model=("anthropic", "claude-sonnet-4-5")):
        self.out = out_dir
        self.lines = []
        self.sec = 0
        self.last = None
        self.model = model
        h = {"type": "session", "version": 3, "id": sid, "timestamp": iso(0), "cwd": cwd}
        if header_extra:
            h.update(header_extra)
        self.lines.append(dumps(h))

    def tick(self, n=1):
        self.sec += n
        return self.sec

    def add(self, type_, id_, parent="<last>", move=True, **payload):
        s = self.tick()
        obj = {"type": type_, "id": id_, "parentId": self.last if parent == "<last>" else parent, "timestamp": iso(s)}
        obj.update(payload)
        self.lines.append(dumps(obj))
        if move:
            self.last = id_
        return obj

    def msg(self, id_, message, parent="<last>"):
        message.setdefault("timestamp", ms(self.sec + 1))
        return self.add("message", id_, parent, message=message)

    # -- messages --------------------------------------------------------------------------------
    def user(self, id_, content, parent="<last>"):
        return self.msg(id_, {"role": "user", "content": content}, parent)

    def assistant(self, id_, blocks, stop="stop", use=None, parent="<last>", thinking_level=None, **extra):
        m = {"role": "assistant", "content": blocks, "api": "anthropic-messages", "provider": self.model[0],
             "model": self.model[1], "usage": use if use is not None else usage(1000), "stopReason": stop}
        m.update(extra)
        m["timestamp"] = ms(self.sec + 1)
        if thinking_level:
            m["thinkingLevel"] = thinking_level
        return self.msg(id_, m, parent)

    def tool(self, id_, call_id, name, content, parent="<last>", is_error=False, **extra):
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        m = {"role": "toolResult", "toolCallId": call_id, "toolName": name, "content": content, "isError": is_error}
        m.update(extra)
        return self.msg(id_, m, parent)

    def system(self, id_, sections=None, content="", tools_added=None, tools_removed=None, parent="<last>"):
        m = {"role": "system", "content": content}
        if sections is not None:
            m["sections"] = sections
        m["timestamp"] = ms(self.sec + 1)
        if tools_added:
            m["toolsAdded"] = [TOOLS[t] if isinstance(t, str) else t for t in tools_added]
        if tools_removed:
            m["toolsRemoved"] = [{"name": t} for t in tools_removed]
        return self.msg(id_, m, parent)

    def edit(self, id_, target, replacement, parent="<last>"):
        return self.add("context_edit", id_, parent, targetId=target, replacement=replacement)

    def preamble(self, level="medium"):
        self.add("model_change", "mc1", provider=self.model[0], modelId=self.model[1])
        self.add("thinking_level_change", "tl1", thinkingLevel=level)

    def write(self, name, prefix=""):
        data = prefix + "\n".join(self.lines) + "\n"
        with open(os.path.join(self.out, name + ".jsonl"), "w", encoding="utf-8", newline="") as f:
            f.write(data)


def call(id_, name, **args):
    return {"type": "toolCall", "id": id_, "name": name, "arguments": args}


def t(s):
    return {"type": "text", "text": s}


FILES = {}


def fixture(fn):
    FILES[fn.__name__.replace("_", "-")] = fn
    return fn


# ================================================================================================

@fixture
def pi16_edit_example(out):
    """§2.2's example: u1 "one", a1 "two", r1 "three"; edits a1->{content:"TWO"} (string, as a
    hand-written file may have it), r1->null, a1->{content:[text "2!"]}: context [user "one",
    assistant [text "2!"]]; the job context@r1 (leaf r1, before the edits) gives the original three."""
    s = Session(out)
    s.user("u1", "one")
    s.assistant("a1", [t("two"), call("c1", "read", path="README.md")], stop="toolUse")
    s.tool("r1", "c1", "read", "three")
    s.edit("e1", "a1", {"content": "TWO"})
    s.edit("e2", "r1", None)
    s.edit("e3", "a1", {"content": [t("2!")]})
    s.write("pi16-edit-example")


@fixture
def pi16_cut_oversized(out):
    """§4.3 example: u "do it", a (tool call), r (16,000 chars); K=100 (job cut100): 1.6.0 cuts at a
    (split, prefix [u]) because no cut point follows the oversized trailing result; 0.73.1 kept u."""
    s = Session(out)
    s.preamble()
    s.user("u", "do it")
    s.assistant("a", [call("c1", "bash", command="cat build.log")], stop="toolUse", use=usage(1200))
    s.tool("r", "c1", "bash", text(16000, 1))
    s.write("pi16-cut-oversized")


@fixture
def pi16_cut_recovery(out):
    """§4.3 recovery example: u1, a1 (400 chars each), u2 (2000), a2 (length stop with a tool call), r2,
    then context_edit a2->null and r2->null (pi's recovery omission) at the leaf. K=300 (cut300):
    firstKept a2, split, summarize [u1, a1], prefix [u2]; the raw findCutPoint says u2."""
    s = Session(out)
    s.preamble()
    s.user("u1", text(400, 2))
    s.assistant("a1", [t(text(400, 3))], use=usage(600))
    s.user("u2", text(2000, 4))
    s.assistant("a2", [t("Writing the file now."), call("c2", "write", path="src/big.ts", content=text(300, 5))],
                stop="length", use=usage(1300, out=8192))
    s.tool("r2", "c2", "write", "Wrote 300 bytes to src/big.ts")
    s.edit("e1", "a2", None)
    s.edit("e2", "r2", None)
    s.write("pi16-cut-recovery")


@fixture
def pi16_cut_bash(out):
    """§4.3 bash cut example: u, a, bashExecution, a with 800/800/400/800-char bodies; K=250 (cut250):
    both keep from the bash entry; 0.73.1 split (empty prefix), 1.6.0 not split."""
    s = Session(out)
    s.preamble()
    s.user("u", text(800, 6))
    s.assistant("a1", [t(text(800, 7))], use=usage(500))
    s.msg("b1", {"role": "bashExecution", "command": "make test", "output": text(400, 8), "exitCode": 0,
                 "cancelled": False, "truncated": False})
    s.assistant("a2", [t(text(800, 9))], use=usage(900))
    s.write("pi16-cut-bash")


@fixture
def pi16_content(out):
    """§2.3 null content (system "", user/assistant/toolResult []), §3.1 user image (4800 chars),
    §4.5 serialize: thinking dropped, tool result cut at 1999 units before a surrogate pair, file
    ops from toolResult.nestedCalls; assistant thinkingLevel / durationMs fields."""
    s = Session(out)
    s.preamble("high")
    s.system("s1", sections={"preamble": "You are a coding assistant.", "tools": "read, bash, edit, write"},
             tools_added=["read", "bash", "edit", "write"])
    s.user("u1", [t("abcd"), {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
                               "mimeType": "image/png"}])
    s.assistant("a1", [{"type": "thinking", "thinking": "The user sent a screenshot; read the config first.",
                        "thinkingSignature": "sig-a1"},
                       t("Looking at the config."), call("c1", "read", path="src/config.ts")],
                stop="toolUse", use=usage(2400), thinking_level="high", durationMs=1234)
    s.tool("r1", "c1", "read", "a" * 1999 + "😀" + "b", durationMs=12)
    s.assistant("a2", [{"type": "thinking", "thinking": "Run the codemode script that edits two files.",
                        "thinkingSignature": "sig-a2"}, call("c2", "codemode", script="edit+write")],
                stop="toolUse", use=usage(3100), thinking_level="high")
    s.tool("r2", "c2", "codemode", "done",
           nestedCalls={"calls": [{"id": "n1", "name": "read", "arguments": {"path": "src/nested-read.ts"}, "status": "ok"},
                                  {"id": "n2", "name": "edit", "arguments": {"path": "src/nested-edit.ts", "edits": []}, "status": "ok"},
                                  {"id": "n3", "name": "write", "arguments": {"path": "src/nested-write.ts", "content": "x"}, "status": "ok"},
                                  {"id": "n4", "name": "read", "argumentsBytes": 120, "status": "error", "error": "too big"}],
                        "complete": True})
    s.user("u2", None)                       # content null
    s.assistant("a3", None, use=usage(3300))  # content null
    s.tool("r3", "c9", "read", None)          # content null (no matching call)
    s.msg("s2", {"role": "system", "content": None, "sections": {"tools": "read, bash"}})  # content null
    s.user("u3", "Thanks, summarise what changed.")
    s.assistant("a4", [{"type": "thinking", "thinking": "Summarise briefly.", "thinkingSignature": "sig-a4"},
                       t("Edited nested-edit.ts, wrote nested-write.ts.")], use=usage(3500), thinking_level="high")
    s.write("pi16-content")


@fixture
def pi16_usage(out):
    """§3.2 all-zero assistant usage is no usage (zero components, and totalTokens 0); §3.3 example:
    u1 (400 chars), a1 usage 7000, u2 (40 chars) -> 7010 (jobs cut@u2, context@u2), then a zero-usage reply, a
    `usage` entry (never a message), and an edit of u1 -> the projected estimate ignores a1's usage."""
    s = Session(out)
    s.preamble()
    s.user("u1", text(400, 10))
    s.assistant("a1", [t("ok")], use=usage(6960, out=40))
    s.user("u2", text(40, 11))
    s.assistant("a2", [t(text(120, 12))], use=ZERO_USAGE)
    s.add("usage", "w1", kind="cache_warm", provider="anthropic", model="claude-sonnet-4-5",
          usage=usage(12, out=1, cache_read=7100))
    s.user("u3", "and now?")
    s.assistant("a3", [t(text(80, 13))], use=dict(ZERO_USAGE, input=0, totalTokens=0))
    s.edit("e1", "u1", {"content": "(request rewritten) short"})
    s.write("pi16-usage")


@fixture
def pi16_bom(out):
    """§1.1: a UTF-8 BOM before the header is not stripped any more: pi 1.6.0 rejects the file
    (0.73.1 read it)."""
    s = Session(out)
    s.preamble()
    s.user("u1", "hello")
    s.assistant("a1", [t("hi")])
    s.write("pi16-bom", prefix="\ufeff")


@fixture
def pi16_roots(out):
    """§1.5 several roots: branchWithSummary(null) writes a branch_summary with parentId null and
    (§5) fromId = the abandoned leaf; the conversation continues under it (leaf on the second root)."""
    s = Session(out)
    s.preamble()
    s.system("s1", sections={"preamble": "You are a coding assistant.", "tools": "read"}, tools_added=["read"])
    s.user("u1", "Try approach A.")
    s.assistant("a1", [call("c1", "read", path="src/a.ts")], stop="toolUse")
    s.tool("r1", "c1", "read", text(600, 14))
    s.assistant("f1", [t("Approach A is a dead end.")])
    s.add("branch_summary", "bs1", parent=None, fromId="f1",
          summary="The user explored approach A (read src/a.ts) and found it a dead end.",
          details={"readFiles": ["src/a.ts"], "modifiedFiles": []}, usage=usage(900, out=60), fromHook=False)
    s.system("s2", sections={"preamble": "You are a coding assistant.", "tools": "read, edit"},
             tools_added=["read", "edit"])
    s.user("u2", "Try approach B.")
    s.assistant("a2", [call("c2", "edit", path="src/b.ts", edits=[{"oldText": "x", "newText": "y"}])], stop="toolUse")
    s.tool("r2", "c2", "edit", "Edited src/b.ts")
    s.assistant("f2", [t("Approach B works.")])
    s.write("pi16-roots")


@fixture
def pi16_system(out):
    """§2.5 system replay (content strings and blocks joined, section patches with null, toolsRemoved
    before toolsAdded, a re-added tool moves to the end, a redefined one keeps its place), §2.1 a
    compaction with a systemMessage checkpoint whose kept range holds a system message (dropped),
    §2.2 hand-written edits the writer refuses: non-null edits on a kept bashExecution, on a system
    message of the kept range (not selected) and on a post-compaction patch (no effect), and on a
    side leaf e4 a null edit of the compaction (its checkpoint and summary vanish; job context@e4)."""
    s = Session(out)
    s.preamble()
    s.system("s1", content="Base prompt.", sections={"preamble": "P1", "tools": "T1", "rules": "R1"},
             tools_added=["read", "bash", "edit"])
    s.user("u1", text(300, 20))
    s.assistant("a1", [call("c1", "read", path="src/one.ts")], stop="toolUse", use=usage(2000))
    s.tool("r1", "c1", "read", text(900, 21))
    s.assistant("f1", [t(text(200, 22))], use=usage(2400))
    s.system("s2", content=[t("Extra A."), t("Extra B.")], sections={"rules": None, "skills": "S1"},
             tools_removed=["read"])
    s.user("u2", text(300, 23))
    s.msg("b1", {"role": "bashExecution", "command": "ls", "output": text(200, 24), "exitCode": 0,
                 "cancelled": False, "truncated": False})
    s.system("s3", sections={"preamble": "P2"},
             tools_added=["read", dict(TOOLS["bash"], description="Run a shell command in the sandbox.")])
    s.assistant("a2", [t(text(300, 25))], use=usage(3000))
    s.edit("e1", "s3", {"content": "edited system (no effect)"})
    s.edit("e2", "b1", {"content": "edited bash (no effect)"})
    s.add("compaction", "c1", summary="## Goal\nFix one.ts.\n\n## Done\n- read src/one.ts",
          firstKeptEntryId="u2", tokensBefore=3100,
          details={"readFiles": ["src/one.ts"], "modifiedFiles": []}, usage=usage(3100, out=80), fromHook=False,
          systemMessage={"role": "system", "content": "Base prompt.\n\nExtra A.\nExtra B.",
                         "sections": {"preamble": "P2", "tools": "T1", "skills": "S1"},
                         "toolsAdded": [dict(TOOLS["bash"], description="Run a shell command in the sandbox."),
                                        TOOLS["edit"], TOOLS["read"]],
                         "timestamp": ms(s.sec + 1)})
    s.system("s4", sections={"tools": "T2", "skills": None}, tools_removed=["edit"], tools_added=["write"])
    s.edit("e3", "s4", {"content": "edited system (no effect)"})
    s.user("u3", text(200, 26))
    s.assistant("a3", [call("c3", "write", path="src/two.ts", content="x")], stop="toolUse", use=usage(1800))
    s.tool("r3", "c3", "write", "Wrote src/two.ts")
    # side leaf (job context@e4): a null edit on the latest compaction removes its checkpoint and summary
    s.edit("e4", "c1", None, parent="r3")
    s.assistant("f3", [t("Done.")], use=usage(1900), parent="r3")
    s.write("pi16-system")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests", "fixtures", "pi16")
    os.makedirs(out, exist_ok=True)
    for fn in FILES.values():
        fn(out)


if __name__ == "__main__":
    main()
