#!/usr/bin/env python3
"""Writes the small hand-made oh-my-pi 18 session files of tests/fixtures/omp18/ (omp18-*.jsonl).

    python3 scripts/make-omp18-fixtures.py [OUT_DIR]     (default: tests/fixtures/omp18)

omp 18.x files start with a 256-byte title slot line before the session header (spec/omp-18.md
§1.1) and may hold the new entry types reset_boundary, credential_pin, model_usage, title_change
(§1.3). pi and omp 13.19 reject such files (the first value is not a header). Deterministic; uses
the Session builder of scripts/make-pi16-fixtures.py. Python 3 stdlib only.
"""

import hashlib
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("make_pi16_fixtures", os.path.join(HERE, "make-pi16-fixtures.py"))
P = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(P)
Session, call, t, text, usage, iso = P.Session, P.call, P.t, P.text, P.usage, P.iso

MODEL = ("anthropic", "claude-sonnet-4-5")
CWD = "/home/dev/work/omp18-app"


def title_slot(title, source, updated_sec):
    """The fixed-width title slot: one JSON line of exactly 256 UTF-8 bytes including "\\n"."""
    obj = {"type": "title", "v": 1, "title": title}
    if source is not None:
        obj["source"] = source
    obj["updatedAt"] = iso(updated_sec)
    obj["pad"] = ""
    bare = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    n = 255 - len(bare.encode("utf-8"))
    assert n >= 0, "title too long for the slot"
    obj["pad"] = " " * n
    line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
    assert len(line.encode("utf-8")) == 256
    return line


def omp_session(out, sid, header_extra=None):
    s = Session(out, sid=sid, header_extra=header_extra, cwd=CWD, model=MODEL)
    s.add("model_change", "mc1", model=f"{MODEL[0]}/{MODEL[1]}", role="default")
    s.add("thinking_level_change", "tl1", thinkingLevel="medium", configured="auto")
    return s


def model_usage(s, id_, purpose, parent="<last>"):
    s.add("model_usage", id_, parent, purpose=purpose, role="smol", api="anthropic-messages", provider=MODEL[0],
          model="claude-haiku-4-5", usage=usage(420, out=12), stopReason="stop")


def credential_pin(s, id_):
    s.add("credential_pin", id_, provider=MODEL[0], hash=hashlib.sha256(b"oauth-account-1|scope").hexdigest())


def omp18_reset(out):
    """Title slot (source auto), credential_pin, model_usage, title_change, then a reset_boundary
    (/clear): context = only the entries after it (§2.2.1); jobs context@f1 / cut@f1 = before it."""
    s = omp_session(out, "omp18-session-reset")
    s.user("u1", "Read the parser and explain the failing test.")
    s.assistant("a1", [call("c1", "read", path="src/parser.ts")], stop="toolUse", use=usage(1500))
    s.tool("r1", "c1", "read", text(3000, 30))
    s.assistant("f1", [t("The tokenizer drops the last byte. " + text(300, 31))], use=usage(2400))
    credential_pin(s, "cp1")
    model_usage(s, "mu1", "title")
    s.add("title_change", "tc1", title="Fix the parser", source="auto", trigger="first-message")
    s.add("reset_boundary", "rb1")
    s.user("u2", "after")
    s.assistant("a2", [call("c2", "bash", command="npm test")], stop="toolUse", use=usage(800))
    s.tool("r2", "c2", "bash", text(1200, 32))
    s.assistant("f2", [t("Tests pass now.")], use=usage(1200))
    s.write("omp18-reset", prefix=title_slot("Fix the parser", "auto", 5))


def omp18_compaction(out):
    """Title slot (source user, non-ASCII) over a header title; reset_boundary before a compaction
    (method soft, tokensAfter): the compaction applies (§2.2.2); a dangling tool call and an empty
    error turn are dropped (§2.3/2.4); custom_message -> developer (§3); credential_pin and
    model_usage between messages; cut100/cut300 for the new findCutPoint (§5.4)."""
    s = omp_session(out, "omp18-session-compaction", header_extra={"title": "old header title"})
    s.user("u0", "Set up the project.")
    s.assistant("f0", [t("Done setting up.")], use=usage(400))
    s.add("reset_boundary", "rb1")
    s.user("u1", "Find why the build is slow — naïve guess: the cache 🚀")
    s.assistant("a1", [t("Reading the build script."), call("c1", "read", path="scripts/build.sh")],
                stop="toolUse", use=usage(1600))
    s.tool("r1", "c1", "read", text(2400, 40))
    s.assistant("a2", [t("Also checking the config."), call("c2", "read", path="build.config.json"),
                       call("c3", "read", path="missing.json")], stop="toolUse", use=usage(2300))
    s.tool("r2", "c2", "read", text(800, 41))  # c3 gets no result: a dangling tool call
    s.assistant("a3", [], stop="error", use=usage(0, out=0), errorMessage="overloaded")  # empty error turn
    credential_pin(s, "cp1")
    s.add("custom_message", "cm1", customType="note", content="remember: CI uses node 22", display=True)
    s.assistant("f1", [t("The cache key includes a timestamp. " + text(400, 42))], use=usage(2900))
    model_usage(s, "mu1", "compaction-short-summary")
    s.add("compaction", "cmp1", summary="## Goal\nSpeed up the build.\n\n## Findings\n- cache key has a timestamp",
          shortSummary="Build cache key fix", firstKeptEntryId="a2", tokensBefore=2900,
          details={"readFiles": ["scripts/build.sh", "build.config.json"], "modifiedFiles": []},
          tokensAfter=900, method="soft")
    s.user("u2", "Fix it.")
    s.assistant("a4", [call("c4", "edit", path="scripts/build.sh", oldText="$(date)", newText="$HASH")],
                stop="toolUse", use=usage(1800))
    s.tool("r4", "c4", "edit", "Edited scripts/build.sh")
    s.user("u3", text(600, 43))
    s.assistant("f4", [t("Fixed. " + text(500, 44))], use=usage(2600))
    s.write("omp18-compaction", prefix=title_slot("Build speed — café ✓ 日本語 🚀", "user", 60))


def omp18_title_empty(out):
    """Empty slot title (no source): the header's own title is deleted (§1.1); an assistant with
    thinking and a tool call for the new serializer labels (§5.6)."""
    s = omp_session(out, "omp18-session-title-empty", header_extra={"title": "Header title", "titleSource": "user"})
    s.user("u1", "hello")
    s.assistant("a1", [{"type": "thinking", "thinking": "Greet back and look around.", "thinkingSignature": "sig"},
                       t("Hi! Listing files."), call("c1", "ls", path=".")], stop="toolUse", use=usage(300))
    s.tool("r1", "c1", "ls", "README.md\nsrc/\n")
    s.assistant("f1", [t("Two entries.")], use=usage(350))
    s.write("omp18-title-empty", prefix=title_slot("", None, 2))


def omp18_notices(out):
    """Command output notices in omp 18's words (tools/output-meta.ts formatOutputNotice): middle
    truncation (head and tail ranges, computed elisions, bytes only, neither), a partial line,
    a report's artifact, an artifact error, column units, and LSP diagnostics grouped as a
    prefix-folded tree; bash and python runs."""
    s = omp_session(out, "omp18-session-notices")
    s.user("u1", "Run the checks.")

    def run(id_, meta, role="bashExecution", output="ok\nok"):
        m = {"role": role, "output": output, "exitCode": 0, "cancelled": False, "truncated": True, "meta": meta}
        if role == "bashExecution":
            m["command"] = "make check"
        else:
            m["code"] = "print('check')"
        s.msg(id_, m)

    run("b1", {"truncation": {"direction": "middle", "truncatedBy": "lines", "totalLines": 20000, "outputLines": 400,
                              "totalBytes": 3000000, "outputBytes": 50000, "headRange": {"start": 1, "end": 200},
                              "tailRange": {"start": 19801, "end": 20000}, "nextOffset": 201, "artifactId": "11"}})
    run("b2", {"truncation": {"direction": "middle", "truncatedBy": "bytes", "totalLines": 1, "outputLines": 1,
                              "totalBytes": 9000, "outputBytes": 1000}})
    run("b3", {"truncation": {"direction": "middle", "truncatedBy": "lines", "totalLines": 12, "outputLines": 30,
                              "totalBytes": 10, "outputBytes": 10, "elidedLines": 1, "elidedBytes": 0}})
    run("b4", {"truncation": {"partialLine": True, "truncatedBy": "bytes", "totalLines": 3, "outputLines": 1,
                              "outputBytes": 2048, "totalBytes": 4096, "shownRange": {"start": 2, "end": 2},
                              "nextOffset": 3, "artifactId": "12"}})
    run("b5", {"truncation": {"truncatedBy": "bytes", "totalLines": 500, "outputLines": 120, "outputBytes": 51200,
                              "shownRange": {"start": 1, "end": 120}, "nextOffset": 121, "artifactId": "13"},
               "source": {"type": "report", "value": "coverage.md"}, "artifactError": "write",
               "limits": {"columnTruncated": {"maxColumn": 300, "unit": "bytes", "artifactId": "14"},
                          "matchLimit": {"reached": 100, "suggestion": 200}}})
    run("b6", {"limits": {"columnTruncated": {"maxColumn": 768}},
               "diagnostics": {"summary": "3 errors, 1 warning", "messages": [
                   "src/a/x.ts:1:2 [error] bad", "main.ts:3:4 [error] worse", "src/a/x.ts:5:6 [warning] meh",
                   "src\\b\\y.ts:7:8 [error] x", "packages/p/src/deep/z.ts:9:1 [error] y", "no location"]}})
    run("b7", {"truncation": {"truncatedBy": "lines", "totalLines": 40, "outputLines": 10,
                              "shownRange": {"start": 31, "end": 40}}}, role="pythonExecution")
    s.assistant("f1", [t("Checks ran.")], use=usage(900))
    s.write("omp18-notices", prefix=title_slot("Checks", "auto", 3))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "fixtures", "omp18")
    os.makedirs(out, exist_ok=True)
    for fn in (omp18_reset, omp18_compaction, omp18_title_empty, omp18_notices):
        fn(out)


if __name__ == "__main__":
    main()
