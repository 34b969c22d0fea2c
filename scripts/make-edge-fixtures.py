#!/usr/bin/env python3
"""Writes the hand-made malformed / edge-case session files of tests/fixtures/edge/.

    python3 scripts/make-edge-fixtures.py [OUT_DIR]     (default: tests/fixtures/edge)

Each file focuses on one thing (see tests/fixtures/README.md for the list). The output is
deterministic (fixed ids, timestamps and texts), so running this again reproduces the
committed files byte for byte. Python 3 stdlib only.
"""

import datetime as dt
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "fixtures", "edge")
os.makedirs(OUT, exist_ok=True)

T0 = dt.datetime(2026, 2, 1, 10, 0, 0, tzinfo=dt.timezone.utc)
CWD = "/home/dev/work/edge-app"


def iso(sec):
    t = T0 + dt.timedelta(seconds=sec)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def ms(sec):
    return int((T0 + dt.timedelta(seconds=sec)).timestamp() * 1000)


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def lorem(n, seed=0):
    """Deterministic filler text of exactly n characters (some non-ASCII)."""
    words = ("session entry parent leaf branch token budget compaction summary context message tool "
             "result reader writer parser buffer index cache config handler stream chunk offset "
             "für naïve café — … → ✓ 日本語").split()
    out, i = [], seed
    while sum(len(w) + 1 for w in out) < n:
        out.append(words[(i * 7 + 3) % len(words)])
        i += 1
    return " ".join(out)[:n]


USAGE_ZERO = None


def usage(inp, out=40, cache_read=0):
    tot = inp + out + cache_read
    return {"input": inp, "output": out, "cacheRead": cache_read, "cacheWrite": 0, "totalTokens": tot,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


class Session:
    """Builds a session file line by line. Base fields come first (type, id, parentId, timestamp)."""

    def __init__(self, version=3, header_extra=None, header=True, sid="edge-session-0001"):
        self.v = version
        self.lines = []
        self.sec = 0
        self.last = None  # id of the last appended entry (the agents' leaf)
        self.ctx_tokens = 0
        if header:
            h = {"type": "session"}
            if version >= 2:
                h["version"] = version
            h.update({"id": sid, "timestamp": iso(0), "cwd": CWD})
            if header_extra:
                h.update(header_extra)
            self.lines.append(dumps(h))

    # -- low level -------------------------------------------------------------------------
    def tick(self, n=1):
        self.sec += n
        return self.sec

    def make(self, type_, id_, parent="<last>", sec=None, **payload):
        if sec is None:
            sec = self.tick()
        obj = {"type": type_}
        if self.v >= 2:
            if id_ is not None:
                obj["id"] = id_
            obj["parentId"] = self.last if parent == "<last>" else parent
        obj["timestamp"] = iso(sec)
        obj.update(payload)
        return obj

    def add(self, type_, id_, parent="<last>", sec=None, move=True, **payload):
        obj = self.make(type_, id_, parent, sec, **payload)
        self.lines.append(dumps(obj))
        if move:
            self.last = id_
        return obj

    def raw(self, text):
        self.lines.append(text)

    # -- messages ----------------------------------------------------------------------------
    def user_msg(self, text, sec=None):
        return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ms(sec if sec is not None else self.sec)}

    def assistant_msg(self, blocks, stop="stop", inp=None):
        self.ctx_tokens += 300
        m = {"role": "assistant", "content": blocks, "api": "anthropic-messages", "provider": "anthropic",
             "model": "claude-sonnet-4-5", "usage": usage(inp if inp is not None else self.ctx_tokens),
             "stopReason": stop, "timestamp": ms(self.sec)}
        return m

    def tool_msg(self, call_id, name, text, is_error=False):
        self.ctx_tokens += len(text) // 4
        return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
                "content": [{"type": "text", "text": text}], "isError": is_error, "timestamp": ms(self.sec)}

    def user(self, id_, text, parent="<last>", sec=None):
        s = self.tick() if sec is None else sec
        return self.add("message", id_, parent, s, message=self.user_msg(text, s))

    def assistant(self, id_, blocks, stop="stop", parent="<last>", sec=None, **kw):
        s = self.tick() if sec is None else sec
        self.sec = max(self.sec, s)
        return self.add("message", id_, parent, s, message=self.assistant_msg(blocks, stop, **kw))

    def tool(self, id_, call_id, name, text, parent="<last>", sec=None, is_error=False):
        s = self.tick() if sec is None else sec
        return self.add("message", id_, parent, s, message=self.tool_msg(call_id, name, text, is_error))

    # -- building blocks ---------------------------------------------------------------------
    def preamble(self, mc_id="mc01", tl_id="tl01"):
        if self.v >= 2:
            self.add("model_change", mc_id, provider="anthropic", modelId="claude-sonnet-4-5")
            self.add("thinking_level_change", tl_id, thinkingLevel="medium")
        else:
            self.add("thinking_level_change", None, thinkingLevel="medium")

    def turn(self, n, tool="read", out_len=2400, parent="<last>", final=True):
        """user n -> assistant (tool call) -> tool result -> assistant (text). Ids u<n>, a<n>, r<n>, f<n>."""
        path = f"src/module-{n}.ts"
        self.user(f"u{n}", f"Please look at {path} and fix the bug #{n} — thanks 🚀", parent=parent)
        args = {"path": path} if tool == "read" else ({"command": f"npm test -- {n}"} if tool == "bash" else
                                                      {"path": path, "oldText": "a", "newText": "b"})
        self.assistant(f"a{n}", [{"type": "thinking", "thinking": f"Need to inspect {path}.", "thinkingSignature": "sig"},
                                 {"type": "toolCall", "id": f"call_{n}", "name": tool, "arguments": args}], stop="toolUse")
        self.tool(f"r{n}", f"call_{n}", tool, lorem(out_len, n))
        if final:
            self.assistant(f"f{n}", [{"type": "text", "text": f"Fixed bug #{n}. " + lorem(200, n + 50)}])

    def write(self, name, newline="\n", final_newline=True, prefix=""):
        data = prefix + newline.join(self.lines) + (newline if final_newline and self.lines else "")
        with open(os.path.join(OUT, name + ".jsonl"), "w", encoding="utf-8", newline="") as f:
            f.write(data)


def entry_json(s, type_, id_, parent, sec, **payload):
    return dumps(s.make(type_, id_, parent, sec, **payload))


FILES = {}


def fixture(fn):
    FILES[fn.__name__.replace("_", "-")] = fn
    return fn


# ============================================================================================
# malformed lines
# ============================================================================================

@fixture
def edge_concat_middle():
    """Two JSON objects on one line in the middle of the file (a tool result and the assistant
    message after it, as two concurrent writers would produce). The next line's parent is the
    second object."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.user("u2", "Run the tests please.")
    s.assistant("a2", [{"type": "toolCall", "id": "call_2", "name": "bash", "arguments": {"command": "npm test"}}], stop="toolUse")
    r2 = entry_json(s, "message", "r2", "a2", s.tick(), message=s.tool_msg("call_2", "bash", lorem(1800, 2)))
    f2 = entry_json(s, "message", "f2", "r2", s.tick(), message=s.assistant_msg([{"type": "text", "text": "All tests pass."}]))
    s.raw(r2 + f2)
    s.last = "f2"
    s.turn(3)
    s.write("edge-concat-middle")


@fixture
def edge_concat_last():
    """The last line holds an assistant message immediately followed by a compaction entry
    (like the real fixture pi-compact-2025-12-24.jsonl)."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.turn(2)
    s.user("u3", "Summarize what you did.")
    a3 = entry_json(s, "message", "f3", "u3", s.tick(), message=s.assistant_msg([{"type": "text", "text": "I fixed two bugs."}]))
    c1 = entry_json(s, "compaction", "cmp1", "f3", s.tick(), summary="## Goal\nFix bugs.\n\n## Progress\n- [x] bug 1\n- [x] bug 2",
                    firstKeptEntryId="u2", tokensBefore=4321, details={"readFiles": ["src/module-1.ts"], "modifiedFiles": []})
    s.raw(a3 + c1)
    s.write("edge-concat-last")


@fixture
def edge_unterminated_string():
    """A line cut off inside a string (a writer crashed mid-line), followed by good lines whose
    first one is a child of the cut entry."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.user("u2", "Show me the log.")
    s.assistant("a2", [{"type": "toolCall", "id": "call_2", "name": "bash", "arguments": {"command": "cat app.log"}}], stop="toolUse")
    full = entry_json(s, "message", "r2", "a2", s.tick(), message=s.tool_msg("call_2", "bash", lorem(1500, 2)))
    s.raw(full[: full.index("result") + 40])  # ends inside the text string
    s.last = "r2"
    s.assistant("f2", [{"type": "text", "text": "The log shows a timeout."}])
    s.turn(3)
    s.write("edge-unterminated-string")


@fixture
def edge_unterminated_object():
    """A line whose object lacks its closing brace (all strings closed), followed by good lines."""
    s = Session()
    s.preamble()
    s.turn(1)
    full = entry_json(s, "custom", "cus1", "f1", s.tick(), customType="todo-state", data={"todos": [{"text": "bug 2", "done": False}]})
    s.raw(full[:-1])  # drop the final "}"
    s.last = "cus1"
    s.user("u2", "Next bug: module 2.", parent="f1")
    s.assistant("a2", [{"type": "toolCall", "id": "call_2", "name": "read", "arguments": {"path": "src/module-2.ts"}}], stop="toolUse")
    s.tool("r2", "call_2", "read", lorem(2000, 2))
    s.assistant("f2", [{"type": "text", "text": "Done with module 2."}])
    s.write("edge-unterminated-object")


@fixture
def edge_unterminated_object_value():
    """A line ending right after a key's colon (`"data":`), followed by a complete entry line and
    more good lines: a lenient streaming parser reads the next line as the missing value."""
    s = Session()
    s.preamble()
    s.turn(1)
    full = entry_json(s, "custom", "cus1", "f1", s.tick(), customType="todo-state", data={"todos": []})
    s.raw(full[: full.index('"data":') + len('"data":')])
    s.last = "cus1"
    s.user("u2", "Next bug: module 2.", parent="f1")
    s.assistant("a2", [{"type": "text", "text": "Looking at module 2 now."}])
    s.user("u3", "And module 3?")
    s.assistant("a3", [{"type": "text", "text": "Module 3 is fine."}])
    s.write("edge-unterminated-object-value")


@fixture
def edge_nonobject_lines():
    """Lines that are valid JSON but not objects: an array, a number, a string, a boolean."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.raw("[1,2,3]")
    s.raw("42")
    s.turn(2)
    s.raw('"just a string"')
    s.raw("true")
    s.turn(3)
    s.write("edge-nonobject-lines")


@fixture
def edge_null_line():
    """A line that is the JSON literal null."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.raw("null")
    s.turn(2)
    s.write("edge-null-line")


@fixture
def edge_multiline_object():
    """One entry pretty-printed over two lines (the object spans a newline)."""
    s = Session()
    s.preamble()
    s.turn(1)
    sec = s.tick()
    obj = s.make("message", "u2", "f1", sec, message=s.user_msg("Two-line entry: fix module 2.", sec))
    j = dumps(obj)
    k = j.index(',"message":')
    s.raw(j[:k + 1])
    s.raw(j[k + 1:])
    s.last = "u2"
    s.assistant("a2", [{"type": "toolCall", "id": "call_2", "name": "read", "arguments": {"path": "src/module-2.ts"}}], stop="toolUse")
    s.tool("r2", "call_2", "read", lorem(2000, 2))
    s.assistant("f2", [{"type": "text", "text": "Module 2 fixed."}])
    s.write("edge-multiline-object")


@fixture
def edge_blank_crlf():
    """CRLF line endings everywhere, blank and whitespace-only lines (also at the start and end),
    no newline after the last line."""
    s = Session()
    s.preamble()
    s.raw("")
    s.turn(1)
    s.raw("   ")
    s.raw("\t")
    s.turn(2)
    s.raw("")
    s.raw("")
    s.turn(3, final=False)
    s.assistant("f3", [{"type": "text", "text": "Done."}])
    s.lines.insert(1, "")
    s.write("edge-blank-crlf", newline="\r\n", final_newline=False)


@fixture
def edge_bom():
    """A UTF-8 byte order mark before the header."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.turn(2)
    s.write("edge-bom", prefix="\ufeff")


@fixture
def edge_garbage_before_header():
    """A non-JSON first line; the session header is on line 2."""
    s = Session()
    s.lines.insert(0, "this is not json")
    s.preamble()
    s.turn(1)
    s.write("edge-garbage-before-header")


# ============================================================================================
# ids and tree structure
# ============================================================================================

@fixture
def edge_missing_id():
    """A user message entry without an `id` (its parentId is valid); the following entries
    continue from the entry before it."""
    s = Session()
    s.preamble()
    s.turn(1)
    before = s.last
    s.add("message", None, message=s.user_msg("I have no id.", s.tick()), move=False)
    s.last = before
    s.turn(2)
    s.write("edge-missing-id")


@fixture
def edge_missing_id_leaf():
    """The last line is a user message without an `id` (its parentId is valid): the agents' leaf
    id is undefined, so their context ends at that last entry."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.add("message", None, message=s.user_msg("I have no id and I am last.", s.tick()), move=False)
    s.write("edge-missing-id-leaf")


@fixture
def edge_orphan():
    """An entry whose parentId names no entry in the file, with a subtree below it; the leaf is in
    that subtree."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.turn(2, parent="deadbeef")
    s.turn(3)
    s.write("edge-orphan")


@fixture
def edge_duplicate_id():
    """Two entries share the id `dup00001` (a user message, later an assistant message on another
    branch); later entries are children of that id, and a label targets it."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.user("dup00001", "First entry with the duplicated id.")
    s.assistant("a2", [{"type": "text", "text": "Answer to the first."}])
    s.user("u3", "Second branch from f1.", parent="f1")
    s.assistant("dup00001", [{"type": "text", "text": "Second entry with the duplicated id (assistant)."}])
    s.add("label", "lab1", targetId="dup00001", label="dup target")
    s.user("u4", "Child of the duplicated id.", parent="dup00001")
    s.assistant("a4", [{"type": "text", "text": "Answer to the child."}])
    s.write("edge-duplicate-id")


@fixture
def edge_cycle():
    """Two entries forming a parentId cycle (cyca -> cycb -> cyca) off the leaf's path."""
    s = Session()
    s.preamble()
    s.turn(1)
    main = s.last
    s.add("message", "cyca", parent="cycb", message=s.user_msg("I am in a cycle (a).", s.sec))
    s.add("message", "cycb", parent="cyca", message=s.assistant_msg([{"type": "text", "text": "I am in a cycle (b)."}]))
    s.last = main
    s.turn(2)
    s.write("edge-cycle")


@fixture
def edge_cycle_leaf():
    """The leaf is on a parentId cycle (cyca -> cycb -> cyca): the agents loop forever."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.add("message", "cyca", parent="cycb", message=s.user_msg("I am in a cycle (a).", s.sec))
    s.add("message", "cycb", parent="cyca", message=s.assistant_msg([{"type": "text", "text": "I am in a cycle (b)."}]))
    s.write("edge-cycle-leaf")


@fixture
def edge_self_parent():
    """An entry whose parentId is its own id, off the leaf's path."""
    s = Session()
    s.preamble()
    s.turn(1)
    main = s.last
    s.add("message", "selfp001", parent="selfp001", message=s.user_msg("I am my own parent.", s.sec))
    s.last = main
    s.turn(2)
    s.write("edge-self-parent")


@fixture
def edge_self_parent_leaf():
    """The leaf is self-parented: the agents loop forever."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.add("message", "selfp001", parent="selfp001", message=s.user_msg("I am my own parent.", s.sec))
    s.write("edge-self-parent-leaf")


@fixture
def edge_labels():
    """Labels set, changed and cleared: cleared with a missing `label`, cleared with "", changed
    to another value, set on an off-path entry, set on a missing id; the last entry is a label."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.add("label", "lab1", targetId="u1", label="start ✅")
    s.add("label", "lab2", targetId="f1", label="first fix")
    s.turn(2)
    s.add("label", "lab3", targetId="u1")                      # clear (no label field)
    s.add("label", "lab4", targetId="f1", label="")            # clear (empty string)
    s.add("label", "lab5", targetId="u2", label="second")
    s.add("label", "lab6", targetId="u2", label="second (renamed) 🚀")
    s.user("u3", "Branch off from f1.", parent="f1")
    s.assistant("a3", [{"type": "text", "text": "Branched."}])
    s.add("label", "lab7", targetId="a3", label="off-path target")
    s.add("label", "lab8", targetId="nosuchid", label="missing target")
    s.add("label", "lab9", targetId="f2", label="leaf is a label", parent="lab6")
    s.write("edge-labels")


@fixture
def edge_timestamps_order():
    """Siblings appear in the file in a different order than their timestamps (children are
    ordered by timestamp); one pair has equal timestamps (file order kept)."""
    s = Session()
    s.preamble()
    s.turn(1)
    base = s.sec
    # three children of f1, written in file order c, a, b but timestamped a < b < c
    s.user("kidc", "Third by time, first in file.", parent="f1", sec=base + 30)
    s.assistant("kidca", [{"type": "text", "text": "c answer"}], sec=base + 31)
    s.user("kida", "First by time.", parent="f1", sec=base + 10)
    s.assistant("kidaa", [{"type": "text", "text": "a answer"}], sec=base + 11)
    s.user("kidb", "Second by time.", parent="f1", sec=base + 20)
    s.assistant("kidba", [{"type": "text", "text": "b answer"}], sec=base + 21)
    # two children of kidb with the same timestamp
    s.user("tie2", "Tie, second in file.", parent="kidba", sec=base + 40)
    s.user("tie1", "Tie, first in file? no: written after tie2.", parent="kidba", sec=base + 40)
    s.assistant("tiea", [{"type": "text", "text": "tie answer"}], sec=base + 41)
    s.sec = base + 41
    s.write("edge-timestamps-order")


@fixture
def edge_timestamps_invalid():
    """Siblings where one has an unparseable timestamp and one has no timestamp."""
    s = Session()
    s.preamble()
    s.turn(1)
    base = s.sec
    s.user("kid1", "Valid timestamp, late.", parent="f1", sec=base + 30)
    obj = s.make("message", "kid2", "f1", base + 10, message=s.user_msg("Invalid timestamp.", base + 10))
    obj["timestamp"] = "not a date"
    s.raw(dumps(obj))
    obj = s.make("message", "kid3", "f1", base + 20, message=s.user_msg("No timestamp.", base + 20))
    del obj["timestamp"]
    s.raw(dumps(obj))
    s.user("kid4", "Valid timestamp, early.", parent="f1", sec=base + 5)
    s.assistant("kid4a", [{"type": "text", "text": "answer"}], sec=base + 6)
    s.write("edge-timestamps-invalid")


@fixture
def edge_unknown_type():
    """Entry types no agent knows (from a newer agent / extension) on the leaf's path, one as a
    parent of later entries and one as the leaf."""
    s = Session()
    s.preamble()
    s.turn(1)
    s.add("handoff", "ho01", target="agent-b", notes="opaque")
    s.turn(2)
    s.add("snapcompact", "snap01", summary="opaque summary of a newer agent", tokensBefore=1234)
    s.write("edge-unknown-type")


@fixture
def edge_extra_fields():
    """Unknown extra fields at every level: header, entry, message, content blocks, usage."""
    s = Session(header_extra={"futureHeaderField": {"x": 1}})
    s.preamble()
    sec = s.tick()
    m = s.user_msg("Hello with extras.", sec)
    m["content"][0]["futureBlockField"] = True
    m["futureMessageField"] = [1, 2]
    s.add("message", "u1", sec=sec, message=m, futureEntryField="keep me")
    sec = s.tick()
    am = s.assistant_msg([{"type": "text", "text": "Hi.", "futureBlockField": 1},
                          {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a.ts"}, "futureToolField": "z"}], "toolUse")
    am["usage"]["futureUsageField"] = 3
    am["futureMessageField"] = {"nested": True}
    s.add("message", "a1", sec=sec, message=am, futureEntryField=None)
    s.tool("r1", "call_1", "read", lorem(2400, 1))
    s.assistant("f1", [{"type": "text", "text": "Done."}])
    s.add("compaction", "cmp1", summary="Summary with extras.", firstKeptEntryId="a1", tokensBefore=900,
          details={"readFiles": ["a.ts"], "modifiedFiles": [], "extra": 1}, futureCompactionField="x")
    s.turn(2)
    s.write("edge-extra-fields")


@fixture
def edge_assistant_no_usage():
    """An assistant message without `usage` (agents always write one; the spec says omp's loader
    needs it)."""
    s = Session()
    s.preamble()
    s.turn(1)
    sec = s.tick()
    s.user("u2", "Another question.", sec=sec)
    sec = s.tick()
    am = s.assistant_msg([{"type": "text", "text": "An answer without usage."}])
    del am["usage"]
    s.add("message", "a2", sec=sec, message=am)
    s.turn(3)
    s.write("edge-assistant-no-usage")


# ============================================================================================
# headers
# ============================================================================================

@fixture
def edge_invalid_header():
    """The first line is a message entry, not a session header (an invalid file: the agents
    reinitialise such a file when they open it)."""
    s = Session(header=False)
    s.preamble()
    s.turn(1)
    s.write("edge-invalid-header")


@fixture
def edge_invalid_header_id():
    """The header's `id` is a number, not a string (invalid file)."""
    s = Session(header=False)
    s.raw(dumps({"type": "session", "version": 3, "id": 12345, "timestamp": iso(0), "cwd": CWD}))
    s.preamble()
    s.turn(1)
    s.write("edge-invalid-header-id")


@fixture
def edge_header_only():
    """Only the session header (leaf = null)."""
    Session().write("edge-header-only")


@fixture
def edge_empty():
    """An empty (zero-byte) file."""
    open(os.path.join(OUT, "edge-empty.jsonl"), "w").close()


# ============================================================================================
# versions 1 and 2
# ============================================================================================

def v1_base(s):
    s.preamble()
    s.turn(1)
    s.turn(2)
    s.turn(3)


@fixture
def edge_v1_fkei_out_of_range():
    """v1: a compaction whose firstKeptEntryIndex (999) is out of range (kept region empty), then
    more turns."""
    s = Session(version=1, header_extra={"provider": "anthropic", "modelId": "claude-sonnet-4-5", "thinkingLevel": "medium"})
    v1_base(s)
    s.add("compaction", None, summary="## Goal\nOut of range index.", firstKeptEntryIndex=999, tokensBefore=3000)
    s.turn(4)
    s.write("edge-v1-fkei-out-of-range")


@fixture
def edge_v1_malformed_before_target():
    """v1: two objects concatenated on one line before the compaction's target index
    (firstKeptEntryIndex 10 means line 11 = u3 as the author wrote it)."""
    s = Session(version=1)
    s.preamble()                      # line 2 (index 1)
    s.turn(1)                         # lines 3-6
    # line 7: r-like + custom message concatenated (indices 6)
    sec = s.tick()
    a = dumps({"type": "model_change", "timestamp": iso(sec), "provider": "openai", "modelId": "gpt-5.1-codex"})
    b = dumps({"type": "thinking_level_change", "timestamp": iso(sec), "thinkingLevel": "high"})
    s.raw(a + b)
    s.turn(2, final=False)            # lines 8-10 (indices 7-9)
    s.turn(3)                         # lines 11-14 (indices 10-13): u3 at index 10
    s.add("compaction", None, summary="## Goal\nKeep from u3.", firstKeptEntryIndex=10, tokensBefore=3000)
    s.turn(4)
    s.write("edge-v1-malformed-before-target")


@fixture
def edge_v1_truncated_before_target():
    """v1: an unterminated object line before the compaction's target (a lenient streaming parser
    also loses the next line); firstKeptEntryIndex 10 = line 11 = u3 as written."""
    s = Session(version=1)
    s.preamble()                      # index 1
    s.turn(1)                         # indices 2-5
    sec = s.tick()
    full = dumps({"type": "thinking_level_change", "timestamp": iso(sec), "thinkingLevel": "high"})
    s.raw(full[:-1])                  # index 6 (broken)
    s.turn(2, final=False)            # indices 7-9
    s.turn(3)                         # indices 10-13
    s.add("compaction", None, summary="## Goal\nKeep from u3.", firstKeptEntryIndex=10, tokensBefore=3000)
    s.turn(4)
    s.write("edge-v1-truncated-before-target")


@fixture
def edge_v1_hookmessage():
    """v1 with a hookMessage message and a pi-shaped model_change; migration ids are assigned in
    file order."""
    s = Session(version=1, header_extra={"provider": "anthropic", "modelId": "claude-sonnet-4-5", "thinkingLevel": "off"})
    s.preamble()
    s.turn(1)
    sec = s.tick()
    s.add("message", None, sec=sec, message={"role": "hookMessage", "customType": "git-status", "content": "M src/a.ts\nM src/b.ts",
                                             "display": True, "details": {"n": 2}, "timestamp": ms(sec)})
    s.add("model_change", None, provider="openai", modelId="gpt-5.1-codex")
    s.turn(2)
    s.write("edge-v1-hookmessage")


@fixture
def edge_v2_hookmessage():
    """v2: hookMessage messages (string content, block content, display false) that migration
    renames to `custom`, on the leaf's path; an abandoned side branch from f1."""
    s = Session(version=2)
    s.preamble()
    s.turn(1)
    s.user("u9", "Side branch from f1.")
    s.assistant("a9", [{"type": "text", "text": "Side answer."}])
    s.last = "f1"
    sec = s.tick()
    s.add("message", "hook1", sec=sec, message={"role": "hookMessage", "customType": "git-status", "content": "M src/a.ts",
                                                "display": True, "details": {"n": 1}, "timestamp": ms(sec)})
    s.turn(2)
    sec = s.tick()
    s.add("message", "hook2", sec=sec, message={"role": "hookMessage", "customType": "reminder",
                                                "content": [{"type": "text", "text": "Remember the tests. " + lorem(400, 9)}],
                                                "display": False, "timestamp": ms(sec)})
    s.user("u3", "Continue after the reminder.")
    s.assistant("a3", [{"type": "text", "text": "Sure."}])
    s.write("edge-v2-hookmessage")


@fixture
def edge_v3_hookmessage():
    """v3 file that still contains a hookMessage message (no migration runs on v3)."""
    s = Session()
    s.preamble()
    s.turn(1)
    sec = s.tick()
    s.add("message", "hook1", sec=sec, message={"role": "hookMessage", "customType": "git-status", "content": "M src/a.ts " + lorem(300, 3),
                                                "display": True, "timestamp": ms(sec)})
    s.turn(2)
    s.write("edge-v3-hookmessage")


# ============================================================================================
# omp-only data
# ============================================================================================

@fixture
def edge_omp_roles():
    """omp-only message roles and fields: developer, fileMention (with an image), pythonExecution
    with meta, toolResult with prunedAt, custom_message with attribution, user attribution/synthetic,
    redactedThinking, toolCall intent."""
    s = Session(header_extra={"title": "omp roles"})
    s.add("model_change", "mc01", model="anthropic/claude-sonnet-4-5")
    s.add("thinking_level_change", "tl01", thinkingLevel="high")
    s.user("u1", "Look at @src/a.ts and run the python check.")
    sec = s.tick()
    s.add("message", "fm1", sec=sec, message={"role": "fileMention", "files": [
        {"path": "src/a.ts", "content": "export const a = 1;\n" + lorem(800, 4), "lineCount": 2, "byteSize": 820},
        {"path": "src/empty.ts", "content": ""},
        {"path": "img/logo.png", "content": "", "image": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}},
    ], "timestamp": ms(sec)})
    sec = s.tick()
    s.add("message", "dev1", sec=sec, message={"role": "developer", "content": [{"type": "text", "text": "Developer note: be brief. " + lorem(300, 5)}],
                                               "attribution": "agent", "timestamp": ms(sec)})
    s.assistant("a1", [{"type": "redactedThinking", "data": "opaque=="},
                       {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "src/a.ts"}, "intent": "Reading a.ts"}], stop="toolUse")
    sec = s.tick()
    tm = s.tool_msg("call_1", "read", "[Output truncated - 600 tokens]")
    tm["prunedAt"] = ms(sec)
    tm["attribution"] = "agent"
    s.add("message", "r1", sec=sec, message=tm)
    s.assistant("f1", [{"type": "text", "text": "a.ts looks fine."}])
    sec = s.tick()
    s.add("message", "py1", sec=sec, message={"role": "pythonExecution", "code": "print(sum(range(10)))", "output": "45\n" + lorem(600, 6),
                                              "exitCode": 1, "cancelled": False, "truncated": True,
                                              "meta": {"truncation": {"direction": "tail", "truncatedBy": "lines", "totalLines": 500, "totalBytes": 40000,
                                                                      "outputLines": 100, "outputBytes": 8000, "shownRange": {"start": 401, "end": 500},
                                                                      "artifactId": "py-artifact-1"}},
                                              "timestamp": ms(sec)})
    sec = s.tick()
    s.add("message", "py2", sec=sec, message={"role": "pythonExecution", "code": "secret()", "output": "hidden", "exitCode": 0,
                                              "cancelled": False, "truncated": False, "excludeFromContext": True, "timestamp": ms(sec)})
    sec = s.tick()
    s.add("custom_message", "cm1", sec=sec, customType="lsp-diagnostics", content="src/a.ts:1:1 warning " + lorem(200, 7), display=True,
          details={"n": 1}, attribution="user")
    sec = s.tick()
    s.add("custom_message", "cm2", sec=sec, customType="reminder", content=[{"type": "text", "text": "Agent reminder."}], display=False,
          attribution="agent")
    sec = s.tick()
    um = s.user_msg("Continue.", sec)
    um["attribution"] = "agent"
    um["synthetic"] = True
    s.add("message", "u2", sec=sec, message=um)
    s.turn(3)
    s.write("edge-omp-roles")


@fixture
def edge_omp_state():
    """omp-only state entries: model_change with model/role, thinking_level_change null,
    service_tier_change, ttsr_injection, mcp_tool_selection, mode_change, session_init."""
    s = Session(header_extra={"title": "omp state"})
    s.add("session_init", "init1", systemPrompt="(subagent system prompt placeholder)", task="check things", tools=["read", "bash"])
    s.add("model_change", "mc01", model="anthropic/claude-sonnet-4-5")
    s.add("model_change", "mc02", model="openai/gpt-5.1-codex", role="smol")
    s.add("model_change", "mc03", provider="google", modelId="gemini-2.5-pro")   # pi shape: omp ignores it
    s.add("thinking_level_change", "tl01", thinkingLevel="high")
    s.add("service_tier_change", "st01", serviceTier="priority")
    s.add("ttsr_injection", "tt01", injectedRules=["no-console", "prefer-const"])
    s.add("mcp_tool_selection", "mcp1", selectedToolNames=["github.search", "github.issue"])
    s.add("mode_change", "mode1", mode="plan", data={"planFile": "PLAN.md"})
    s.turn(1)
    s.add("ttsr_injection", "tt02", injectedRules=["prefer-const", "no-any"])
    s.add("thinking_level_change", "tl02", thinkingLevel=None)
    s.add("service_tier_change", "st02", serviceTier=None)
    s.add("mode_change", "mode2", mode="none")
    s.add("model_change", "mc04", model="anthropic/claude-opus-4-5", role="default")
    s.turn(2)
    s.write("edge-omp-state")


@fixture
def edge_omp_compaction():
    """omp compaction fields: shortSummary, fromExtension, then a later compaction from pi's
    `fromHook`; branch_summary with fromExtension and fromId "root"."""
    s = Session()
    s.add("model_change", "mc01", model="anthropic/claude-sonnet-4-5")
    s.turn(1)
    s.turn(2)
    s.add("compaction", "cmp1", summary="## Goal\nFix bugs.\n\n## Progress\n- [x] bug 1", shortSummary="Fixed bug 1.",
          firstKeptEntryId="u2", tokensBefore=2500, details={"readFiles": ["src/module-1.ts"], "modifiedFiles": []}, fromExtension=True)
    s.turn(3)
    s.turn(4)
    s.add("compaction", "cmp2", summary="## Goal\nFix more bugs.", firstKeptEntryId="u4", tokensBefore=3100,
          details={"readFiles": [], "modifiedFiles": []}, fromHook=True)
    s.turn(5)
    s.add("branch_summary", "bs1", parent="f3", fromId="root", summary="Abandoned branch summary.", fromExtension=True)
    s.user("u6", "Continue after branch summary.")
    s.assistant("a6", [{"type": "text", "text": "Continuing."}])
    s.write("edge-omp-compaction")


@fixture
def edge_omp_remote_compaction():
    """omp compaction with preserveData.openaiRemoteCompaction (provider replay history): the kept
    messages are replaced by the provider's opaque history in omp."""
    s = Session()
    s.add("model_change", "mc01", model="openai/gpt-5.1-codex")
    s.turn(1)
    s.turn(2)
    s.add("compaction", "cmp1", summary="## Goal\nRemote compaction.", shortSummary="Remote.", firstKeptEntryId="u2", tokensBefore=2600,
          details={"readFiles": [], "modifiedFiles": []}, fromExtension=False,
          preserveData={"openaiRemoteCompaction": {"provider": "openai", "replacementHistory": [
              {"type": "compaction", "encrypted_content": "gAAAAB-opaque"},
              {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Please look at src/module-2.ts"}]}]}})
    s.turn(3)
    s.write("edge-omp-remote-compaction")


@fixture
def edge_bash_meta():
    """bashExecution messages: omp `meta` output notices (line truncation with shown range and
    artifact, byte limit, next offset, match/result/head limits, column truncation, LSP
    diagnostics), non-zero exit, cancelled, excludeFromContext, pi's fullOutputPath."""
    s = Session()
    s.preamble()
    s.turn(1)

    def bash(id_, command, output, exit_code=0, cancelled=False, truncated=False, **extra):
        sec = s.tick()
        m = {"role": "bashExecution", "command": command, "output": output, "exitCode": exit_code, "cancelled": cancelled,
             "truncated": truncated, "timestamp": ms(sec)}
        m.update(extra)
        s.add("message", id_, sec=sec, message=m)

    bash("b1", "seq 1 5000", lorem(900, 11), truncated=True,
         meta={"truncation": {"direction": "tail", "truncatedBy": "lines", "totalLines": 5000, "totalBytes": 28893, "outputLines": 2000,
                              "outputBytes": 10000, "shownRange": {"start": 3001, "end": 5000}, "artifactId": "art-0001"}})
    bash("b2", "cat big.log", lorem(700, 12), truncated=True,
         meta={"truncation": {"direction": "head", "truncatedBy": "bytes", "totalLines": 90, "totalBytes": 200000, "outputLines": 12,
                              "outputBytes": 51200, "maxBytes": 51200, "nextOffset": 13}})
    bash("b3", "cat huge.bin", lorem(300, 13), exit_code=2, truncated=True,
         meta={"truncation": {"direction": "head", "truncatedBy": "bytes", "totalLines": 3, "totalBytes": 5000000000, "outputLines": 1,
                              "outputBytes": 1536, "shownRange": {"start": 5, "end": 4}}})
    bash("b4", "rg TODO", lorem(400, 14),
         meta={"limits": {"matchLimit": {"reached": 100, "suggestion": 200}, "resultLimit": {"reached": 50, "suggestion": 100},
                          "headLimit": {"reached": 20, "suggestion": 40}, "columnTruncated": {"maxColumn": 500}}})
    bash("b5", "tsc --noEmit", "", exit_code=1,
         meta={"diagnostics": {"summary": "2 errors", "messages": ["src/a.ts:1:5 error TS2322: bad type", "src/b.ts:9:1 error TS1005: ';' expected", "global: config warning"]}})
    bash("b6", "sleep 100", "partial", exit_code=None, cancelled=True)
    bash("b7", "cat secrets.env", "TOKEN=not-sent", excludeFromContext=True)
    bash("b8", "make all", lorem(500, 15), exit_code=0, truncated=True, fullOutputPath="/tmp/pi-bash-0001.log")
    bash("b9", "echo 😀 🚀", "😀 🚀\n", truncated=False,
         meta={"truncation": {"direction": "tail", "truncatedBy": "bytes", "totalLines": 1, "totalBytes": 1048576, "outputLines": 1,
                              "outputBytes": 1023}})
    s.turn(2)
    s.write("edge-bash-meta")


@fixture
def edge_prune():
    """Tool outputs large enough for omp's default pruning (protect 40,000 tokens, minimum saving
    20,000): two old results get pruned; a `read` result (protected tool), an already pruned result
    (prunedAt) and the newest results (protected window) are kept. One pruned result has an image."""
    s = Session()
    s.preamble()

    def big(n, seed):
        words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
        out, i = [], seed
        while sum(len(w) + 1 for w in out) < n:
            out.append(words[(i * 5 + 1) % len(words)])
            i += 1
        return " ".join(out)[:n]

    def tool_turn(n, tool, chars, image=False, pruned=False):
        s.user(f"u{n}", f"Step {n}: run {tool}.")
        args = {"path": f"src/m{n}.ts"} if tool in ("read", "edit") else {"command": f"step {n}"} if tool == "bash" else {"pattern": "TODO"}
        s.assistant(f"a{n}", [{"type": "toolCall", "id": f"call_{n}", "name": tool, "arguments": args}], stop="toolUse")
        sec = s.tick()
        text = f"[Output truncated - {chars // 4} tokens]" if pruned else big(chars, n)
        tm = s.tool_msg(f"call_{n}", tool, text)
        if image:
            tm["content"].append({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
        if pruned:
            tm["prunedAt"] = ms(sec) - 1000
        s.add("message", f"r{n}", sec=sec, message=tm)
        s.assistant(f"f{n}", [{"type": "text", "text": f"Step {n} done."}])

    tool_turn(0, "edit", 40000, image=True)
    tool_turn(1, "bash", 44000)
    tool_turn(2, "read", 20000)
    tool_turn(3, "bash", 30000, pruned=True)
    tool_turn(4, "grep", 48000)
    tool_turn(5, "bash", 40000)
    tool_turn(6, "bash", 100000)
    s.write("edge-prune")


# ============================================================================================
# tool-call ids (omp 18 strips calls no result answers; the agents compare ids as JS values)
# ============================================================================================

CALL_UNSET = object()  # a `toolCall` without `id` / a result without `toolCallId`


def call_block(call_id, n):
    b = {"type": "toolCall", "name": "read", "arguments": {"path": f"src/module-{n}.ts"}}
    if call_id is not CALL_UNSET:
        b["id"] = call_id
    return b


def call_turn(s, n, call_id, result_id, stop="toolUse"):
    """user n -> assistant (signed thinking, text, one call) -> its tool result -> final text, with
    the call's `id` and the result's `toolCallId` as given (CALL_UNSET: the field is left out)."""
    s.user(f"u{n}", f"Read module {n}, please.")
    s.assistant(f"a{n}", [{"type": "thinking", "thinking": f"Module {n} first.", "thinkingSignature": f"sig{n}"},
                          {"type": "text", "text": f"Reading module {n}."}, call_block(call_id, n)], stop=stop)
    sec = s.tick()
    tm = s.tool_msg(result_id, "read", lorem(400, n))
    if result_id is CALL_UNSET:
        del tm["toolCallId"]
    s.add("message", f"r{n}", sec=sec, message=tm)
    s.assistant(f"f{n}", [{"type": "text", "text": f"Module {n} read."}])


@fixture
def edge_call_no_ids():
    """A tool call without `id` answered by a result without `toolCallId` (a pair for the agents:
    undefined === undefined), then an aborted reply of the same shape followed by its result."""
    s = Session()
    s.preamble()
    call_turn(s, 1, CALL_UNSET, CALL_UNSET)
    s.user("u2", "Read module 2 as well.")
    s.assistant("a2", [{"type": "text", "text": "Reading module 2."}, call_block(CALL_UNSET, 2)], stop="aborted")
    sec = s.tick()
    tm = s.tool_msg(None, "read", "Tool execution was aborted.", is_error=True)
    del tm["toolCallId"]
    s.add("message", "r2", sec=sec, message=tm)
    s.user("u3", "Never mind, summarize module 1.")
    s.assistant("f3", [{"type": "text", "text": "Module 1 holds the lexer."}])
    s.write("edge-call-no-ids")


@fixture
def edge_call_no_ids_v1():
    """v1: an assistant with thinking, text and a call without `id`, answered by a result without
    `toolCallId` (migration gives entries ids, not calls)."""
    s = Session(version=1, header_extra={"provider": "anthropic", "modelId": "claude-sonnet-4-5", "thinkingLevel": "medium"})
    call_turn(s, 1, CALL_UNSET, CALL_UNSET)
    s.user("u2", "Thanks.")
    s.assistant("f2", [{"type": "text", "text": "You are welcome."}])
    s.write("edge-call-no-ids-v1")


@fixture
def edge_call_no_id_result_id():
    """A call without `id`; its result has a `toolCallId` (no pair: the call is unanswered)."""
    s = Session()
    s.preamble()
    call_turn(s, 1, CALL_UNSET, "call_1")
    s.write("edge-call-no-id-result-id")


@fixture
def edge_call_id_result_no_id():
    """A call with an `id`; its result has no `toolCallId` (no pair: the call is unanswered)."""
    s = Session()
    s.preamble()
    call_turn(s, 1, "call_1", CALL_UNSET)
    s.write("edge-call-id-result-no-id")


@fixture
def edge_call_ids_typed():
    """Ids that are not strings: null answers null, 7 answers 7.0, the string "8" does not answer
    the number 8, an object answers no equal object."""
    s = Session()
    s.preamble()
    call_turn(s, 1, None, None)
    call_turn(s, 2, 7, 7.0)
    call_turn(s, 3, "8", 8)
    call_turn(s, 4, {"k": 1}, {"k": 1})
    s.write("edge-call-ids-typed")


# ============================================================================================
# hostile text (the desktop app's security test)
# ============================================================================================

XSS = "<img src=x onerror=alert(1)> <script>alert(2)</script>"


@fixture
def xss():
    """HTML in every text the app shows: user and assistant text, tool output, a label, a custom
    entry's type and a custom message. The app must show it as text and create no element."""
    s = Session()
    s.preamble()
    s.user("u1", f"Render this for me: {XSS}")
    s.assistant("a1", [{"type": "text", "text": f"Reading the page {XSS}"},
                       {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "x.html"}}],
                stop="toolUse")
    s.tool("r1", "call_1", "read", f"<html>{XSS}</html>")
    s.add("label", "lab1", targetId="u1", label=f"label {XSS}")
    s.add("custom", "cus1", customType=f"ext {XSS}", data={"note": XSS})
    s.add("custom_message", "cm1", customType=f"ext {XSS}", content=f"custom message {XSS}", display=True)
    s.assistant("f1", [{"type": "text", "text": f"Done: {XSS}"}])
    s.write("xss")


def main():
    for name, fn in FILES.items():
        fn()
    sys.stderr.write(f"make-edge-fixtures: wrote {len(FILES)} files to {os.path.relpath(OUT)}\n")


if __name__ == "__main__":
    main()
