#!/usr/bin/env python3
"""Produces tests/golden/<fixture-stem>.<pi|omp>.json by running the reference oracle.

    python3 scripts/golden.py --oracle DIR [--jobs N] [--timeout S] [PATTERN ...]

Called by scripts/make-golden.sh (which also regenerates the fixtures). For every fixture in
tests/fixtures/{real,synthetic,generated,edge}/*.jsonl (or only those whose stem matches one of
the shell-style PATTERNs) and for each implementation (pi = `--impl pi`, omp = `--impl omp13`)
it opens a temporary copy of the file once in the oracle's `batch` mode and records:

    info, context, tokens        the oracle's documents, unchanged
    serialize                    {"length", "sha256"} only (the text is not stored)
    cut, cut8000, cut2000        cut with the default keepRecentTokens, 8000 and 2000
    prune                        omp13's pruneToolOutputs; in the pi file the same omp13 result
                                 when both agents parse the file identically (pi has no pruning)
    branch                       [{"args": [...], "result": {...}}] for chosen --to targets
    tree                         the agents' getTree() (scripts/oracle-tree.mjs)

A file the agent cannot load gives {"error": "..."} (crash, endless loop, or an invalid file
that the agent would reinitialise).  Python 3 stdlib only.
"""

import argparse
import concurrent.futures as cf
import fnmatch
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FIXTURE_GROUPS = ["real", "synthetic", "generated", "edge"]
GOLDEN = os.path.join(ROOT, "tests", "golden")
TREE_SCRIPT = os.path.join(ROOT, "scripts", "oracle-tree.mjs")
IMPLS = [("pi", "pi"), ("omp", "omp13")]  # (golden suffix, oracle --impl)

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


def crash_message(stderr):
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


def process(fixture, oracle, timeout):
    stem = os.path.splitext(os.path.basename(fixture))[0]
    branch_jobs = choose_branch_jobs(fixture)
    results = {}
    for suffix, impl in IMPLS:
        jobs = [j for _, j in BASE_JOBS]
        if impl != "pi":
            jobs.append(["prune"])
        jobs += branch_jobs
        docs, error = oracle_batch(oracle, impl, fixture, jobs, timeout)
        if error:
            results[suffix] = {"error": error}
            continue
        g = {}
        for (key, _), doc in zip(BASE_JOBS, docs):
            if key == "serialize" and "error" not in doc:
                doc = {"length": doc["length"], "sha256": doc["sha256"]}
            g[key] = doc
        rest = docs[len(BASE_JOBS):]
        if impl != "pi":
            g["prune"] = rest.pop(0)
        g["branch"] = [{"args": j[1:], "result": d} for j, d in zip(branch_jobs, rest)]
        g["tree"] = oracle_tree(oracle, impl, fixture, timeout)
        results[suffix] = g
    # pi has no pruning: record omp13's result for the pi dialect when both parse the file alike
    pi, omp = results["pi"], results["omp"]
    if "error" not in pi:
        if "error" not in omp and parse_signature(pi["tokens"]) == parse_signature(omp["tokens"]) and pi["tokens"]["leafId"] == omp["tokens"]["leafId"]:
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
    for suffix, g in results.items():
        out = os.path.join(GOLDEN, f"{stem}.{suffix}.json")
        with open(out, "w", encoding="utf-8") as f:
            f.write(json.dumps(g, ensure_ascii=False, separators=(",", ":")) + "\n")
        written.append((out, g.get("error")))
    return stem, written


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("ORACLE_TIMEOUT", "40")))
    ap.add_argument("patterns", nargs="*")
    a = ap.parse_args()
    oracle = os.path.abspath(a.oracle)
    fixtures = []
    for g in FIXTURE_GROUPS:
        d = os.path.join(ROOT, "tests", "fixtures", g)
        if os.path.isdir(d):
            fixtures += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".jsonl")]
    if a.patterns:
        fixtures = [f for f in fixtures if any(fnmatch.fnmatch(os.path.splitext(os.path.basename(f))[0], p) for p in a.patterns)]
    os.makedirs(GOLDEN, exist_ok=True)
    failures = 0
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = [ex.submit(process, f, oracle, a.timeout) for f in fixtures]
        for fut in cf.as_completed(futs):
            try:
                stem, written = fut.result()
            except Exception as e:  # a bug here, not an agent behaviour: report and go on
                failures += 1
                sys.stderr.write(f"golden: FAILED {e!r}\n")
                continue
            notes = "; ".join(f"{os.path.basename(p).split('.')[-2]}: {err}" for p, err in written if err)
            sys.stderr.write(f"golden: {stem}{'  (' + notes + ')' if notes else ''}\n")
    sys.stderr.write(f"golden: {len(fixtures)} fixtures -> {os.path.relpath(GOLDEN)}\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
