#!/usr/bin/env python3
"""Produces golden outputs of the reference oracle, one JSON file per fixture and implementation.

    python3 scripts/golden.py [--oracle DIR] [--impls pi,omp13] [--jobs N] [--timeout S] [PATTERN ...]

Called by scripts/make-golden.sh (which also regenerates the fixtures). --oracle is the agents'
folder (default: $ORACLE, else tests/agents, installed by scripts/install-agents.sh). --impls picks the rule
sets (default `pi,omp13`, the original behaviour):

    impl    oracle --impl   output                                fixture folders (tests/fixtures/)
    pi      pi    (0.73.1)  tests/golden/<stem>.pi.json           real synthetic generated edge
    omp13   omp13 (13.19.0) tests/golden/<stem>.omp.json          real synthetic generated edge
    pi16    pi16  (1.6.0)   tests/golden-pi16/<stem>.pi16.json    the four above + pi16
    omp18   omp18 (18.2.3)  tests/golden-omp18/<stem>.omp18.json  the four above + omp18
    omp183  omp183 (18.3.4) tests/golden-omp183/<stem>.omp183.json the four above + omp18 + omp183

For every fixture *.jsonl of those folders (or only those whose stem matches one of the
shell-style PATTERNs) and each selected implementation it opens a temporary copy of the file once
in the oracle's `batch` mode and records:

    info, context, tokens        the oracle's documents, unchanged (pi16's extra fields included)
    serialize                    {"length", "sha256"} only (the text is not stored)
    cut, cut8000, cut2000        cut with the default keepRecentTokens, 8000 and 2000
    cut<K>                       pi16/omp18/omp183 only, small keepRecentTokens where the spec's
                                 examples use them (EXTRA_CUTS: synthetic K 0, 8, 20, 25; pi16 K
                                 100, 250, 300; omp18 and omp183 K 100, 300)
    <command>@<leaf>             pi16/omp18/omp183 only, FIXTURE_JOBS: context / cut at another leaf
                                 of a few hand-made files; for the generated g183-* files, the
                                 entries where oh-my-pi 18.3's rules act (choose_feature_jobs)
    prune                        omp13 / omp18 / omp183: the agent's pruneToolOutputs; pi: the omp13 result
                                 when both agents parse the file identically (pi has no pruning);
                                 pi16: absent (pi 1.6.0 has no pruning, the oracle refuses it)
    branch                       [{"args": [...], "result": {...}}] for chosen --to targets
    tree                         the agents' getTree() (scripts/oracle-tree.mjs)

A file the agent cannot load gives {"error": "..."} (crash, endless loop — a timeout or an
out-of-memory crash —, or an invalid file that the agent would reinitialise; pi 1.6.0 rejects a
non-empty invalid file instead: "oracle: not a session file (...)"). When the file loads but one
job crashes the agent, the jobs are run one at a time and only that job's value is
{"error": "agent crashed: ...", "job": [...]}.  Python 3 stdlib only.
"""

import argparse
import concurrent.futures as cf
import fnmatch
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FIXTURE_GROUPS = ["real", "synthetic", "generated", "edge"]
GOLDEN = os.path.join(ROOT, "tests", "golden")
TREE_SCRIPT = os.path.join(ROOT, "scripts", "oracle-tree.mjs")

# Small keepRecentTokens values per fixture folder, for the implementations with extra_cuts: the
# values the specs' examples use (pi-1.6.md §4.3, omp-18.md §5.4, examples.md) -> jobs "cut<K>".
EXTRA_CUTS = {"synthetic": (0, 8, 20, 25), "pi16": (100, 250, 300), "omp18": (100, 300), "omp183": (100, 300)}
# Jobs at another leaf for some hand-made files (same implementations): "<command>@<leaf id>".
FIXTURE_JOBS = {
    "pi16-edit-example": ["context@r1"],  # pi-1.6.md §2.2: before the edits, the original three messages
    "pi16-usage": ["context@u2", "cut@u2"],  # §3.3: usage-based 7010 before the edit
    "pi16-system": ["context@e4"],  # §2.2: a null edit of the latest compaction
    "omp18-reset": ["context@f1", "cut@f1"],  # omp-18.md §2.2: before the reset boundary
    # omp-18.3.md §1.1/§2.1: at the snapshot compaction itself, before the turns after it
    "omp183-snapshot-replay": ["context@cmp1", "cut@cmp1"],
}


# Generated oh-my-pi 18.3 sessions (tests/agents/gen-session.py --omp183-features): their jobs at
# another leaf are chosen from what the file holds (choose_feature_jobs), not listed by id.
FEATURE_JOB_PREFIX = "g183-"


# Fixtures without golden outputs (tests/fixtures/README.md): xss is for the desktop app's e2e test;
# edge-missing-id-leaf is compared with the agents live (missing_id_parity.rs: its context), since
# the agents' getBranch() is empty for a leaf without an id (no cut, branch or prune there), which
# contextree does not reproduce yet.
NO_GOLDEN = {"xss", "edge-missing-id-leaf"}


class Impl:
    def __init__(self, name, oracle_impl, suffix, golden, groups, prune, extra_cuts=False, reinit_invalid=False):
        self.name = name                # --impls name
        self.oracle_impl = oracle_impl  # oracle.mjs --impl
        self.suffix = suffix            # <stem>.<suffix>.json
        self.golden = golden            # output folder
        self.groups = groups            # fixture folders under tests/fixtures
        self.prune = prune              # "run" | "from-omp13" (pi) | None (pi16)
        self.extra_cuts = extra_cuts    # add the EXTRA_CUTS and FIXTURE_JOBS jobs
        # the agent overwrites a file without a valid header with a fresh one (pi 0.73.1, omp 13);
        # pi 1.6.0 and omp 18 refuse such a file instead (0-byte files aside)
        self.reinit_invalid = reinit_invalid


IMPLS = {
    "pi": Impl("pi", "pi", "pi", GOLDEN, FIXTURE_GROUPS, "from-omp13", reinit_invalid=True),
    "omp13": Impl("omp13", "omp13", "omp", GOLDEN, FIXTURE_GROUPS, "run", reinit_invalid=True),
    "pi16": Impl("pi16", "pi16", "pi16", os.path.join(ROOT, "tests", "golden-pi16"), FIXTURE_GROUPS + ["pi16"],
                 None, extra_cuts=True),
    "omp18": Impl("omp18", "omp18", "omp18", os.path.join(ROOT, "tests", "golden-omp18"), FIXTURE_GROUPS + ["omp18"],
                  "run", extra_cuts=True),
    # 18.3.4's coding agent on the newest published core (18.2.11): tests/agents/README.md
    "omp183": Impl("omp183", "omp183", "omp183", os.path.join(ROOT, "tests", "golden-omp183"),
                   FIXTURE_GROUPS + ["omp18", "omp183"], "run", extra_cuts=True),
}
DEFAULT_IMPLS = "pi,omp13"

BASE_JOBS = [
    ("info", ["info"]),
    ("context", ["context"]),
    ("tokens", ["tokens"]),
    ("serialize", ["serialize"]),
    ("cut", ["cut"]),
    ("cut8000", ["cut", "--keep-recent", "8000"]),
    ("cut2000", ["cut", "--keep-recent", "2000"]),
]

ERR_NOT_TERMINATED = "no result: the agent did not finish (it loops forever on this file)"
ERR_INVALID = ("invalid session file: no valid session header; the agent treats the file as empty "
               "and overwrites it with a fresh session header")


# --------------------------------------------------------------------------------------------
# choosing branch targets (own lenient parse, pi rules: one JSON value per line)
# --------------------------------------------------------------------------------------------
def parse_like_pi(path):
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    text = text.strip(" \t\r\n\ufeff\u00a0")
    vals = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            vals.append(json.loads(line))
        except ValueError:
            pass
    if vals and isinstance(vals[0], dict) and vals[0].get("type") == "title" and vals[0].get("v") == 1:
        vals = vals[1:]  # omp 18's title slot line before the header (omp-18.md §1.1)
    if not vals or not isinstance(vals[0], dict) or vals[0].get("type") != "session" or not isinstance(vals[0].get("id"), str):
        return None
    header, entries = vals[0], [v for v in vals[1:] if isinstance(v, dict)]
    if (header.get("version") or 1) < 2:
        for n, e in enumerate(entries, 1):
            e["id"] = f"{n:08x}"
            e["parentId"] = entries[n - 2]["id"] if n > 1 else None
    return [e for e in entries if isinstance(e.get("id"), str)]


def choose_branch_jobs(path):
    entries = parse_like_pi(path)
    if not entries:
        return []
    by_id = {e["id"]: e for e in entries}
    children = {}
    for e in entries:
        p = e.get("parentId")
        if isinstance(p, str) and p in by_id and p != e["id"]:
            children.setdefault(p, []).append(e["id"])

    def walk(eid):
        """(root-first path, cyclic): the agents loop forever on a cyclic (or self-parented) chain."""
        out, seen = [], set()
        while eid in by_id:
            if eid in seen:
                return out[::-1], True
            seen.add(eid)
            out.append(eid)
            p = by_id[eid].get("parentId")
            eid = p if isinstance(p, str) else None
        return out[::-1], False

    def path_of(eid):
        return walk(eid)[0]

    def acyclic(eid):
        return not walk(eid)[1]

    leaf = entries[-1]["id"]
    leaf_path, cyclic = walk(leaf)
    if cyclic:
        return []
    on_path = set(leaf_path)

    def is_user(eid):
        e = by_id[eid]
        return e.get("type") == "message" and isinstance(e.get("message"), dict) and e["message"].get("role") == "user"

    jobs = []
    leaves = [e["id"] for e in entries if e["id"] not in children and e["id"] != leaf]
    other_leaves = [l for l in leaves if l not in on_path and acyclic(l)]
    if other_leaves:
        # another branch's leaf: the one with the longest path (first in file order on ties)
        target = max(other_leaves, key=lambda l: (len(path_of(l)), -leaves.index(l)))
        jobs += [["branch", "--to", target], ["branch", "--to", target, "--budget", "2000"]]
        # the deepest branch point on the current path (an ancestor of the leaf)
        bps = [e for e in leaf_path if len(children.get(e, [])) > 1 and e != leaf]
        if bps:
            jobs.append(["branch", "--to", bps[-1]])
        # a user message on another branch
        users = [e["id"] for e in entries if e["id"] not in on_path and is_user(e["id"]) and acyclic(e["id"])]
        if users:
            jobs += [["branch", "--to", users[-1]], ["branch", "--to", users[-1], "--budget", "500"]]
    else:
        # linear file: navigate back to the user message nearest the middle of the path
        users = [e for e in leaf_path[:-1] if is_user(e)]
        if users:
            target = users[len(users) // 2]
            jobs += [["branch", "--to", target], ["branch", "--to", target, "--budget", "2000"]]
    unique = []
    for j in jobs:
        if j not in unique:
            unique.append(j)
    return unique


def choose_feature_jobs(path):
    """For a generated omp 18.3 session: `context@<id>` at the entries where 18.3's rules act, so
    they are checked wherever the generator put them, not only when they fall in the last leaf's
    context (spec omp-18.3.md): each interrupted-thinking note (up to three; the interrupted reply
    before it reaches convertToLlm, §1.3), the first developer message (§3), the first reply cut
    at `length` (§2.2), the first of each new hidden notice type (§3), and the first Anthropic
    compaction of each kind as the leaf: kept tail, snapshot, snapshot with a replay point (§1.1,
    §1.2). `cut@<id>` where the agent compacted again after a kept-tail or plain snapshot
    compaction (the entry before the next compaction on its path). Not after a snapshot with a
    replay point: there 18.3.4's prepareCompaction (§2.1) is in its unpublished core and the
    reference runs 18.2.11's."""
    entries = parse_like_pi(path)
    if not entries:
        return []
    by_id = {e["id"]: e for e in entries}

    def ancestors(eid):
        seen = set()
        eid = by_id[eid].get("parentId")
        while isinstance(eid, str) and eid in by_id and eid not in seen:
            seen.add(eid)
            yield eid
            eid = by_id[eid].get("parentId")

    def role(e):
        m = e.get("message")
        return m.get("role") if e.get("type") == "message" and isinstance(m, dict) else None

    keys, notes, kinds = [], 0, set()
    for e in entries:
        eid, kind = e["id"], None
        if e.get("type") == "custom_message" and e.get("customType") == "interrupted-thinking":
            notes += 1
            kind = "note" if notes <= 3 else None
        elif e.get("type") == "custom_message" and e.get("customType") in (
                "session-agent-notice", "eval-prelude-notice", "anthropic-usage-wrap-up"):
            kind = e["customType"]
        elif role(e) == "developer":
            kind = "developer"
        elif role(e) == "assistant" and e["message"].get("stopReason") == "length":
            kind = "length"
        elif e.get("type") == "compaction" and isinstance((e.get("preserveData") or {}).get("anthropicCompaction"), dict):
            replay = "providerReplayThroughEntryId" in e
            kind = "snapshot+replay" if e.get("firstKeptEntryId") == "" and replay else (
                "snapshot" if e.get("firstKeptEntryId") == "" else "kept")
        if kind is None or (kind != "note" and kind in kinds):
            continue
        kinds.add(kind)
        keys.append(f"context@{eid}")
        if kind in ("kept", "snapshot"):
            later = next((c for c in entries if c.get("type") == "compaction" and eid in set(ancestors(c["id"]))), None)
            if later is not None and isinstance(later.get("parentId"), str):
                keys.append(f"cut@{later['parentId']}")
    return keys


# --------------------------------------------------------------------------------------------
# running the oracle
# --------------------------------------------------------------------------------------------
def run(cmd, cwd, timeout):
    """Runs cmd in its own process group; returns (rc, stdout, stderr); rc None = timeout."""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8"), err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.communicate()
        return None, "", ""


def strip_dirs(msg):
    """Error texts name the oracle's temporary copy: keep only the file name (deterministic)."""
    return re.sub(r"(?:/[^/\s:()'\"]+)+/(?=[^/\s:()'\"]+\.jsonl\b)", "", msg)


def crash_message(stderr):
    msg = strip_dirs(crash_message_raw(stderr))
    # An endless loop that allocates (the path walk on a parent cycle) ends either at the timeout
    # or, when memory runs short first, with an out-of-memory crash: the same behaviour.
    if re.search(r"RangeError: Out of memory|heap out of memory", msg):
        return ERR_NOT_TERMINATED
    return msg


def crash_message_raw(stderr):
    for line in stderr.splitlines():
        s = line.strip()
        if s.startswith("[Uncaught Exception] "):
            s = s[len("[Uncaught Exception] "):]
        head = s.split(":", 1)[0]
        if head.endswith("Error") and " " not in head and ":" in s:
            return "agent crashed: " + s
        if s.startswith("oracle: "):
            return s
    tail = [l for l in stderr.strip().splitlines() if l.strip()]
    return "agent crashed: " + (tail[-1] if tail else "no message")


def oracle_batch(oracle, impl, fixture, jobs, timeout):
    """Returns (results list | None, error | None)."""
    with tempfile.TemporaryDirectory(prefix="ct-golden-") as tmp:
        copy = os.path.join(tmp, os.path.basename(fixture))
        shutil.copyfile(fixture, copy)
        with open(copy, "rb") as f:
            before = f.read()
        jobfile = os.path.join(tmp, "jobs.jsonl")
        with open(jobfile, "w") as f:
            for j in jobs:
                f.write(json.dumps(j) + "\n")
        rc, out, err = run(["node", os.path.join(oracle, "oracle.mjs"), "--impl", impl, "batch", copy, "--jobs", jobfile],
                           oracle, timeout)
        if rc is None:
            return None, ERR_NOT_TERMINATED
        if rc != 0:
            return None, crash_message(err)
        with open(copy, "rb") as f:
            after = f.read()
        docs = [json.loads(l) for l in out.splitlines() if l.strip()]
        if len(docs) != len(jobs):
            return None, f"oracle printed {len(docs)} documents for {len(jobs)} jobs"
        if before != after:
            # The oracle opens migrated files from its own copy, so a change here means the agent
            # found no valid header and reinitialised the file.
            return None, ERR_INVALID
        return docs, None


def oracle_tree(oracle, impl, fixture, timeout):
    """impl: the oracle --impl name (pi runs under node, the others under the oracle's bun)."""
    runtime = "node" if impl == "pi" else os.path.join(oracle, "node_modules", ".bin", "bun")
    rc, out, err = run([runtime, TREE_SCRIPT, oracle, impl, fixture], oracle, timeout)
    if rc is None:
        return {"error": ERR_NOT_TERMINATED}
    if rc != 0:
        return {"error": crash_message(err)}
    return json.loads(out)


def parse_signature(tokens_doc):
    if not isinstance(tokens_doc, dict) or "entries" not in tokens_doc:
        return None
    return [(e.get("id"), e.get("type"), e.get("role")) for e in tokens_doc["entries"]]


def invalid_reinitialised(fixture, info):
    """The oracle opens a file whose first line has no session version from its own copy, so the
    agent's overwrite of an invalid file does not show in oracle_batch's before/after check: such a
    file is one where the oracle reports no original version and no valid header can be parsed."""
    h = info.get("header") if isinstance(info, dict) else None
    return isinstance(h, dict) and h.get("originalVersion") is None and parse_like_pi(fixture) is None


def fresh_header(doc):
    """pi 1.6.0 and omp 18 give a 0-byte file a fresh header (oracle: on its copy) whose id is a
    time-based UUIDv7 and whose cwd is the oracle's working directory: neither is reproducible."""
    h = doc.get("header") if isinstance(doc, dict) else None
    if isinstance(h, dict):
        doc = dict(doc, header=dict(h, **{k: f"<fresh header {k}: not reproducible>" for k in ("id", "cwd") if k in h}))
    return doc


def group_of(fixture):
    return os.path.basename(os.path.dirname(fixture))


def jobs_for(impl, group, stem, feature_jobs=()):
    """[(key, oracle job)] of the fixed jobs (before prune and branch)."""
    jobs = list(BASE_JOBS)
    if impl.extra_cuts:
        jobs += [(f"cut{k}", ["cut", "--keep-recent", str(k)]) for k in EXTRA_CUTS.get(group, ())]
        for key in [*FIXTURE_JOBS.get(stem, ()), *feature_jobs]:
            command, leaf = key.split("@")
            jobs.append((key, [command, "--leaf", leaf]))
    return jobs


def process(fixture, oracle, timeout, impls):
    stem = os.path.splitext(os.path.basename(fixture))[0]
    group = group_of(fixture)
    branch_jobs = choose_branch_jobs(fixture)
    feature_jobs = choose_feature_jobs(fixture) if stem.startswith(FEATURE_JOB_PREFIX) else []
    results = {}  # impl name -> golden document
    for impl in impls:
        if group not in impl.groups:
            continue
        fixed = jobs_for(impl, group, stem, feature_jobs)
        jobs = [j for _, j in fixed]
        if impl.prune == "run":
            jobs.append(["prune"])
        jobs += branch_jobs
        docs, error = oracle_batch(oracle, impl.oracle_impl, fixture, jobs, timeout)
        if error and error.startswith("agent crashed") and not oracle_batch(oracle, impl.oracle_impl, fixture, [["info"]], timeout)[1]:
            # the file loads, one of the jobs crashed the agent: run them one by one
            docs, error = [], None
            for j in jobs:
                d, e = oracle_batch(oracle, impl.oracle_impl, fixture, [j], timeout)
                docs.append(d[0] if d else {"error": e, "job": j})
        if not error and impl.reinit_invalid and invalid_reinitialised(fixture, docs[0]):
            error = ERR_INVALID
        if error:
            results[impl.name] = {"error": error}
            continue
        if os.path.getsize(fixture) == 0:
            docs = [fresh_header(d) for d in docs]
        g = {}
        for (key, _), doc in zip(fixed, docs):
            if key == "serialize" and "error" not in doc:
                doc = {"length": doc["length"], "sha256": doc["sha256"]}
            g[key] = doc
        rest = docs[len(fixed):]
        if impl.prune == "run":
            g["prune"] = rest.pop(0)
        g["branch"] = [{"args": j[1:], "result": d} for j, d in zip(branch_jobs, rest)]
        g["tree"] = oracle_tree(oracle, impl.oracle_impl, fixture, timeout)
        results[impl.name] = g
    # pi has no pruning: record omp13's result for the pi dialect when both parse the file alike
    if "pi" in results:
        pi, omp = results["pi"], results.get("omp13", {"error": "omp13 not run"})
        if "error" not in pi:
            if "error" not in omp and parse_signature(pi["tokens"]) == parse_signature(omp["tokens"]) and pi["tokens"].get("leafId") == omp["tokens"].get("leafId"):
                prune = omp["prune"]
            else:
                prune = {"error": "not recorded: pi has no pruning and omp13 parses this file differently (see the .omp.json golden)"}
            ordered = {}
            for k, v in pi.items():
                if k == "branch":
                    ordered["prune"] = prune
                ordered[k] = v
            results["pi"] = ordered
    written = []
    for name, g in results.items():
        impl = IMPLS[name]
        out = os.path.join(impl.golden, f"{stem}.{impl.suffix}.json")
        with open(out, "w", encoding="utf-8") as f:
            f.write(json.dumps(g, ensure_ascii=False, separators=(",", ":")) + "\n")
        written.append((out, g.get("error")))
    return stem, written


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--oracle", default=os.environ.get("ORACLE") or os.path.join(ROOT, "tests", "agents"))
    ap.add_argument("--impls", default=DEFAULT_IMPLS,
                    help=f"comma-separated, of {', '.join(IMPLS)} (default {DEFAULT_IMPLS})")
    ap.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("ORACLE_TIMEOUT", "40")))
    ap.add_argument("patterns", nargs="*")
    a = ap.parse_args()
    names = [n.strip() for n in a.impls.split(",") if n.strip()]
    unknown = [n for n in names if n not in IMPLS]
    if unknown or not names:
        ap.error(f"--impls: unknown {', '.join(unknown) or '(empty)'}; choose from {', '.join(IMPLS)}")
    if "pi" in names and "omp13" not in names:
        ap.error("--impls: pi needs omp13 too (the .pi.json prune field is omp13's result)")
    impls = [IMPLS[n] for n in IMPLS if n in names]  # registry order: omp13 is run before pi's prune is merged
    oracle = os.path.abspath(a.oracle)
    groups = []
    for impl in impls:
        groups += [g for g in impl.groups if g not in groups]
    fixtures = []
    for g in groups:
        d = os.path.join(ROOT, "tests", "fixtures", g)
        if os.path.isdir(d):
            fixtures += [os.path.join(d, f) for f in sorted(os.listdir(d))
                         if f.endswith(".jsonl") and f[:-len(".jsonl")] not in NO_GOLDEN]
    if a.patterns:
        fixtures = [f for f in fixtures if any(fnmatch.fnmatch(os.path.splitext(os.path.basename(f))[0], p) for p in a.patterns)]
    for impl in impls:
        os.makedirs(impl.golden, exist_ok=True)
    failures = 0
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = [ex.submit(process, f, oracle, a.timeout, impls) for f in fixtures]
        for fut in cf.as_completed(futs):
            try:
                stem, written = fut.result()
            except Exception as e:  # a bug here, not an agent behaviour: report and go on
                failures += 1
                sys.stderr.write(f"golden: FAILED {e!r}\n")
                continue
            notes = "; ".join(f"{os.path.basename(p).split('.')[-2]}: {err}" for p, err in written if err)
            sys.stderr.write(f"golden: {stem}{'  (' + notes + ')' if notes else ''}\n")
    outs = sorted({os.path.relpath(i.golden) for i in impls})
    sys.stderr.write(f"golden: {len(fixtures)} fixtures, {','.join(names)} -> {' '.join(outs)}\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
