#!/usr/bin/env python3
"""Writes the small hand-made oh-my-pi 18.3 session files of tests/fixtures/omp183/ (omp183-*.jsonl).

    python3 scripts/make-omp183-fixtures.py [OUT_DIR]     (default: tests/fixtures/omp183)

Each file holds what 18.3.4 writes and 18.2.3 did not (spec/omp-18.3.md §3), shaped as 18.3.4's
session code writes it: Anthropic-native compactions (snapshot `firstKeptEntryId: ""` with and
without `providerReplayThroughEntryId`, a kept tail, `preserveData.anthropicCompaction.signature`),
user-interrupted replies with `requestControls`, developer messages after a tool batch's results,
the new hidden custom messages, a spilled MCP result, `session_init.compactionThreshold`, a
truncated (`length`) reply that stays on the branch. Every file opens in 18.3.4 (its oracle
`--impl omp183` and the whole agent through tests/agents/wire.mjs). Deterministic; the Session
builder is scripts/make-pi16-fixtures.py's, the title slot make-omp18-fixtures.py's. Python 3
stdlib only.
"""

import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


P = _load("make_pi16_fixtures", "make-pi16-fixtures.py")
O18 = _load("make_omp18_fixtures", "make-omp18-fixtures.py")
call, t, text, usage, ms = P.call, P.t, P.text, P.usage, P.ms
title_slot = O18.title_slot

MODEL = ("anthropic", "claude-sonnet-4-5")
CWD = "/home/dev/work/omp183-app"
# What 18.3.4 stamps on a user interrupt (pi-tui USER_INTERRUPT_LABEL).
USER_INTERRUPT = "Interrupted by user"


def omp_session(out, sid, header_extra=None):
    s = P.Session(out, sid=sid, header_extra=header_extra, cwd=CWD, model=MODEL)
    s.add("model_change", "mc1", model=f"{MODEL[0]}/{MODEL[1]}", role="default")
    s.add("thinking_level_change", "tl1", thinkingLevel="medium", configured="auto")
    return s


def anthropic_preserve(summary, seed):
    """preserveData of an Anthropic-native compaction as 18.3.4 writes it (`signature`, §2.4)."""
    return {"anthropicCompaction": {"provider": MODEL[0], "content": summary, "signature": f"sig-{seed:04d}-" + "Q" * 40,
                                    "model": MODEL[1], "usedTokens": 41000}}


def first_turns(s, n0):
    """Two tool rounds before a compaction: user, assistant+call, result, assistant text."""
    s.user(f"u{n0}", "Profile the importer and make it faster — naïve loop? 🚀")
    s.assistant(f"a{n0}", [t("Reading the importer."), call(f"c{n0}", "read", path="src/importer.ts")],
                stop="toolUse", use=usage(1800))
    s.tool(f"r{n0}", f"c{n0}", "read", text(1600, 50 + n0))
    s.assistant(f"f{n0}", [t("The importer parses every row twice. " + text(200, 60 + n0))], use=usage(2600))
    s.user(f"u{n0 + 1}", "Fix the double parse.")
    s.assistant(f"a{n0 + 1}", [call(f"c{n0 + 1}", "edit", path="src/importer.ts", oldText="parse(row)", newText="row")],
                stop="toolUse", use=usage(3000))
    s.tool(f"r{n0 + 1}", f"c{n0 + 1}", "edit", "Edited src/importer.ts")
    s.assistant(f"f{n0 + 1}", [t("Done; one parse per row now.")], use=usage(3300))


SUMMARY = "## Goal\nSpeed up the importer.\n\n## Done\n- rows parsed once"


def snapshot_replay(out):
    """§1.1, §1.2, §2.1: an Anthropic snapshot compaction (`firstKeptEntryId: ""`) whose
    `providerReplayThroughEntryId` names f1, an entry before it: 18.3.4 keeps u2..f2 (the entries
    after the replay point) between the summary and the later turns, and stamps the summary with
    `historyRewriteAt` = u2's time - 1 ms (its `timestamp` stays the compaction's); 18.2.3 kept
    nothing. The next compaction's range starts after f1 (§2.1)."""
    s = omp_session(out, "omp183-session-snapshot-replay")
    first_turns(s, 1)
    s.add("compaction", "cmp1", summary=SUMMARY, shortSummary="Importer speed-up", firstKeptEntryId="",
          tokensBefore=3300, tokensAfter=700, method="remote", providerReplayThroughEntryId="f1",
          preserveData=anthropic_preserve(SUMMARY, 1))
    s.user("u3", "Now add a benchmark.")
    s.assistant("a3", [call("c3", "write", path="bench/importer.bench.ts", content="bench('rows', run)")],
                stop="toolUse", use=usage(2100))
    s.tool("r3", "c3", "write", "Wrote bench/importer.bench.ts")
    s.assistant("f3", [t("Benchmark added. " + text(300, 70))], use=usage(2400))
    s.write("omp183-snapshot-replay", prefix=title_slot("Importer speed-up", "auto", 30))


def snapshot_noreplay(out):
    """§1.1/§1.2 without a replay point: `firstKeptEntryId: ""` and no
    `providerReplayThroughEntryId`: nothing before the compaction is kept (as in 18.2.3);
    `historyRewriteAt` = the time of the entry after the compaction (u3) - 1 ms."""
    s = omp_session(out, "omp183-session-snapshot-noreplay")
    first_turns(s, 1)
    s.add("compaction", "cmp1", summary=SUMMARY, shortSummary="Importer speed-up", firstKeptEntryId="",
          tokensBefore=3300, tokensAfter=500, method="remote", preserveData=anthropic_preserve(SUMMARY, 2))
    s.user("u3", "Now add a benchmark.")
    s.assistant("f3", [t("Benchmark added.")], use=usage(1900))
    s.write("omp183-snapshot-noreplay", prefix=title_slot("Importer speed-up", "auto", 30))


def native_kept(out):
    """§1.2, §2.4: an Anthropic-native compaction with a kept tail (`firstKeptEntryId` a2, later
    than a local cut would be) and `signature` instead of `encryptedContent`: the summary's
    `historyRewriteAt` = a2's time - 1 ms, its `timestamp` the compaction's (18.2.3 moved the
    timestamp itself). A local compaction before it (method soft) is superseded."""
    s = omp_session(out, "omp183-session-native-kept")
    first_turns(s, 1)
    s.add("compaction", "cmp0", summary="## Goal\nImporter.", shortSummary="Importer", firstKeptEntryId="u2",
          tokensBefore=3300, tokensAfter=1200, method="soft",
          details={"readFiles": ["src/importer.ts"], "modifiedFiles": ["src/importer.ts"]})
    s.user("u3", "Also stream the rows.")
    s.assistant("a3", [t("Switching to a stream."), call("c3", "edit", path="src/importer.ts", oldText="rows",
                                                            newText="stream")], stop="toolUse", use=usage(2800))
    s.tool("r3", "c3", "edit", "Edited src/importer.ts")
    s.assistant("f3", [t("Streaming now. " + text(200, 71))], use=usage(3100))
    s.add("compaction", "cmp1", summary=SUMMARY + "\n- rows streamed", shortSummary="Importer streamed",
          firstKeptEntryId="a3", tokensBefore=3100, tokensAfter=900, method="remote",
          preserveData=anthropic_preserve(SUMMARY + "\n- rows streamed", 3))
    s.user("u4", "Thanks. Anything left?")
    s.assistant("f4", [t("Nothing left.")], use=usage(1500))
    s.write("omp183-native-kept", prefix=title_slot("Importer streaming", "user", 40))


def interrupted(out):
    """§1.3, §3: user-interrupted replies (stopReason aborted, errorMessage "Interrupted by user")
    whose only content is an unsigned thinking run: i1 has `requestControls` and no continuity
    note, i2 has `requestControls` and its hidden `interrupted-thinking` note, i3 has neither.
    buildSessionContext drops an aborted reply unless the note follows it, so only i2 reaches
    convertToLlm (thinking stripped, kept). Assistants with `credentialId` and
    `fallbackCreditHandle` (18.3 fields, inert)."""
    s = omp_session(out, "omp183-session-interrupted")
    s.user("u1", "Plan the migration.")
    s.assistant("f1", [t("Plan: three steps.")], use=usage(900), credentialId="cred-7f3a",
                fallbackCreditHandle={"id": "fch-01", "provider": MODEL[0]})
    controls = {"messageIndex": 2, "tools": {"declared": ["read", "bash", "edit"]}}
    s.user("u2", "Start with step one.")
    s.assistant("i1", [{"type": "thinking", "thinking": "Step one needs the schema first, so"}], stop="aborted",
                use=usage(0, out=0), errorMessage=USER_INTERRUPT, requestControls=controls)
    s.user("u3", "Actually, start with step two.")
    s.assistant("i2", [{"type": "thinking", "thinking": "Step two is the data copy; before that"}], stop="aborted",
                use=usage(0, out=0), errorMessage=USER_INTERRUPT,
                requestControls={"messageIndex": 4, "tools": {"declared": ["read", "bash"]}})
    s.add("custom_message", "n2", customType="interrupted-thinking", content="Step two is the data copy; before that",
          display=False, details={"interruptedAt": ms(s.sec + 1), "provider": MODEL[0], "model": MODEL[1],
                                  "blockCount": 1})
    s.user("u4", "Never mind, step three.")
    s.assistant("i3", [{"type": "thinking", "thinking": "Step three: switch traffic"}], stop="aborted",
                use=usage(0, out=0), errorMessage=USER_INTERRUPT)
    s.user("u5", "Go on with step three then.")
    s.assistant("f5", [t("Step three: traffic switched.")], use=usage(1400), credentialId="cred-7f3a")
    s.write("omp183-interrupted", prefix=title_slot("Migration plan", "auto", 12))


def developer_notices(out):
    """§3: a developer message (attribution agent) right after a tool batch's results; the new
    hidden custom messages session-agent-notice, eval-prelude-notice, anthropic-usage-wrap-up
    (generic conversion: developer); a spilled MCP result without details.structuredContent."""
    s = omp_session(out, "omp183-session-developer")
    s.user("u1", "Check the two configs and the issue tracker.")
    s.assistant("a1", [t("Reading both."), call("c1", "read", path="a.json"), call("c2", "read", path="b.json")],
                stop="toolUse", use=usage(1200))
    s.tool("r1", "c1", "read", '{"a": 1}')
    s.tool("r2", "c2", "read", '{"b": 2}')
    s.msg("d1", {"role": "developer", "content": [t("Extension context: both files are generated; edit the templates.")],
                 "attribution": "agent"})
    s.add("custom_message", "n1", customType="session-agent-notice", content="Session agent: reviewer (read-only).",
          display=False, details={"agent": "reviewer"})
    s.assistant("a2", [call("c3", "mcp__tracker__search", query="importer")], stop="toolUse", use=usage(1600))
    s.tool("r3", "c3", "mcp__tracker__search",
           "[MCP output spilled to artifact 21: 48213 bytes; read it with read(artifact://21)]",
           details={"spilled": {"artifactId": "21", "bytes": 48213}})
    s.add("custom_message", "n2", customType="eval-prelude-notice", content="Eval prelude loaded: numpy, pandas.",
          display=False)
    s.assistant("f2", [t("Both configs are generated; the tracker has 3 importer issues.")], use=usage(2000))
    s.add("custom_message", "n3", customType="anthropic-usage-wrap-up",
          content="Usage is near the plan limit; wrap up soon.", display=False)
    s.user("u2", "Summarize the issues.")
    s.assistant("f3", [t("Three issues: speed, memory, encoding.")], use=usage(2200))
    s.write("omp183-developer", prefix=title_slot("Configs and tracker", "auto", 20))


def threshold(out, name, pair, sid):
    """§2.3: a subagent file whose session_init records its per-agent compaction threshold
    (`{thresholdPercent, thresholdTokens}`; percent -> {p, -1}, tokens -> {-1, n}). The last usage
    (9,300 tokens) is above a 6,000-token or 4 % threshold and far below the default one."""
    s = P.Session(out, sid=sid, cwd=CWD, model=MODEL)
    s.add("session_init", "si1", parent=None, systemPrompt="You are the scout subagent. Read, never write.",
          task="Find where rows are parsed.", tools=["read", "grep"], agent="scout", modelRole="smol",
          resolvedModel=f"{MODEL[0]}/{MODEL[1]}", readOnly=True, compactionThreshold=pair)
    s.add("model_change", "mc1", model=f"{MODEL[0]}/{MODEL[1]}", role="default")
    s.user("u1", "Find where rows are parsed.")
    s.assistant("a1", [call("c1", "grep", pattern="parse\\(row")], stop="toolUse", use=usage(2500))
    s.tool("r1", "c1", "grep", "src/importer.ts:41: parse(row)\n" + text(5000, 80))
    s.assistant("a2", [call("c2", "read", path="src/importer.ts")], stop="toolUse", use=usage(5200))
    s.tool("r2", "c2", "read", text(9000, 81))
    s.assistant("f2", [t("Rows are parsed in src/importer.ts:41.")], use=usage(9300))
    s.write(name)


def length_kept(out):
    """§2.2: the last reply stopped at its output limit (`length`) after delivering text, with the
    context far below the threshold: 18.3.4 keeps the turn (a warning, no compaction, no retry);
    18.2.3 recovered it with an `incomplete` compaction."""
    s = omp_session(out, "omp183-session-length")
    s.user("u1", "Write the release notes.")
    s.assistant("f1", [t("# Release notes\n\n- Faster importer\n- Streamed rows\n- " + text(400, 90))], stop="length",
                use=usage(3200, out=8192))
    s.write("omp183-length", prefix=title_slot("Release notes", "auto", 8))


def eval_snapshot_length(out):
    """§1.1 and §1.4 together, written line by line: an eval tool call and result, a snapshot
    compaction replayed through `a2` (its tail u3, a3 kept), then a reply cut at its output limit:
    what the file cannot reproduce lists the live eval-state notice and the length-stop retry note."""
    stamp = "2026-09-27T10:00:%02d.000Z"
    base = 1790503200000
    cost = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}

    def use(i, o=10):
        return {"input": i, "output": o, "cacheRead": 0, "cacheWrite": 0, "totalTokens": i + o, "cost": cost}

    def entry(i, eid, parent, kind, **kw):
        return {"type": kind, "id": eid, "parentId": parent, "timestamp": stamp % i, **kw}

    def reply(content, stop, i, o, sec):
        return {"role": "assistant", "content": content, "api": "anthropic-messages", "provider": MODEL[0],
                "model": MODEL[1], "usage": use(i, o), "stopReason": stop, "timestamp": base + sec * 1000}

    lines = [
        {"type": "session", "version": 3, "id": "0123456789abcdef", "timestamp": stamp % 0, "cwd": "/w"},
        entry(1, "u1", None, "message", message={"role": "user", "content": "first question", "timestamp": base + 1000}),
        entry(2, "a1", "u1", "message", message=reply([{"type": "text", "text": "first answer"},
                                                       {"type": "toolCall", "id": "call_eval", "name": "eval", "arguments": {"code": "1+1"}}],
                                                      "toolUse", 100, 10, 2)),
        entry(3, "t1", "a1", "message", message={"role": "toolResult", "toolCallId": "call_eval", "toolName": "eval",
                                                 "content": [{"type": "text", "text": "2"}], "isError": False, "timestamp": base + 3000}),
        entry(4, "a2", "t1", "message", message=reply([{"type": "text", "text": "second answer"}], "stop", 200, 10, 4)),
        entry(5, "u3", "a2", "message", message={"role": "user", "content": "third question (after the snapshot)", "timestamp": base + 5000}),
        entry(6, "a3", "u3", "message", message=reply([{"type": "text", "text": "third answer"}], "stop", 300, 10, 6)),
        entry(7, "c1", "a3", "compaction", summary="Summary of the first turns.", firstKeptEntryId="",
              providerReplayThroughEntryId="a2", tokensBefore=310,
              preserveData={"anthropicCompaction": {"provider": "anthropic", "content": "native summary", "signature": "sig123"}}),
        entry(8, "u4", "c1", "message", message={"role": "user", "content": "fourth question", "timestamp": base + 8000}),
        entry(9, "a4", "u4", "message", message=reply([{"type": "text", "text": "a long answer cut at the output lim"}], "length", 400, 4000, 9)),
    ]
    with open(os.path.join(out, "omp183-snapshot.jsonl"), "w", encoding="utf-8") as f:
        f.writelines(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "fixtures", "omp183")
    os.makedirs(out, exist_ok=True)
    for fn in (snapshot_replay, snapshot_noreplay, native_kept, interrupted, developer_notices, length_kept, eval_snapshot_length):
        fn(out)
    threshold(out, "omp183-threshold-tokens", {"thresholdPercent": -1, "thresholdTokens": 6000},
              "omp183-session-threshold-tokens")
    threshold(out, "omp183-threshold-percent", {"thresholdPercent": 4, "thresholdTokens": -1},
              "omp183-session-threshold-percent")


if __name__ == "__main__":
    main()
