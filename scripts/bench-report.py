#!/usr/bin/env python3
"""Prints scripts/bench.sh's Markdown tables from the runs it recorded.

    python3 scripts/bench-report.py WORK RUNS AGENT_RUNS [IMPL ...]

WORK holds `files.tsv` (name, bytes, entries), `runs.tsv` (file, tool, run, wall seconds, peak
RSS KiB, exit status) and each agent run's oracle output `<file>-<impl>-<run>.json`. Only runs
that exited 0 count; a tool with none shows "failed". Wall: the median of the runs; peak RSS: the
highest of them.
"""
import json
import os
import statistics
import sys

work, runs, agent_runs, impls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
DEFAULT_LABEL = {"pi16": "pi 1.6.0", "omp18": "omp 18.2.3", "omp183": "omp 18.3.4"}


def read_tsv(name):
    with open(os.path.join(work, name)) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


files = [(name, int(size), int(entries)) for name, size, entries in read_tsv("files.tsv")]
ok = {}  # (file, tool) -> [(run, wall s, rss KiB)]
for file, tool, run, wall, rss, status in read_tsv("runs.tsv"):
    if status == "0":
        ok.setdefault((file, tool), []).append((run, float(wall), int(rss)))


def oracle_outputs(file, impl):
    docs = []
    for run, _, _ in ok.get((file, impl), []):
        try:
            with open(os.path.join(work, f"{file}-{impl}-{run}.json")) as f:
                docs.append(json.load(f))
        except (OSError, ValueError):
            pass  # exited 0 without a document: counted for its time, not for its phases
    return docs


def label(impl):
    # The version the oracle reports having loaded, so the header cannot outlive a pin change.
    for file, _, _ in files:
        for doc in oracle_outputs(file, impl):
            meta = doc.get("oracle", {})
            version, core = meta.get("version"), meta.get("agentCore")
            if version:
                # omp183 is 18.3.4's coding agent on an older core: the header says so.
                return ("pi " if impl == "pi16" else "omp ") + version + (f" (core {core})" if core and core != version else "")
    return DEFAULT_LABEL.get(impl, impl)


def wall(file, tool):
    r = ok.get((file, tool))
    return statistics.median(w for _, w, _ in r) if r else None


def rss_mib(file, tool):
    r = ok.get((file, tool))
    return max(k for _, _, k in r) / 1024 if r else None


def sec(x):
    return "failed" if x is None else f"{x:.3f}"


def mib(x):
    return "failed" if x is None else f"{x:.0f}"


def size(b):
    return f"{b / 1e6:.0f} MB"


def times(x):
    return f"{x:.1f}×" if x < 10 else f"{x:.0f}×"


def runs_of(n):
    return f"{n} run" if n == 1 else f"{n} runs"


def table(head, rows):
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


labels = {impl: label(impl) for impl in impls}

if impls:
    print(f"contextree and the agents, same run (s: wall time, the median of {runs_of(runs)} of contextree "
          f"and {runs_of(agent_runs)} of each agent; MiB: peak RSS, the highest run):")
    print()
    head = ["file", "size", "entries", "contextree s", "contextree MiB"]
    for impl in impls:
        head += [f"{labels[impl]} s", f"{labels[impl]} MiB"]
    head.append("faster agent / contextree")
    rows = []
    for name, b, entries in files:
        row = [name, size(b), f"{entries:,}", sec(wall(name, "contextree")), mib(rss_mib(name, "contextree"))]
        for impl in impls:
            row += [sec(wall(name, impl)), mib(rss_mib(name, impl))]
        agent_walls = [w for w in (wall(name, impl) for impl in impls) if w is not None]
        ours = wall(name, "contextree")
        row.append(times(min(agent_walls) / ours) if agent_walls and ours else "—")
        rows.append(row)
    table(head, rows)

print("contextree context FILE --json alone:")
print()
rows = []
for name, b, entries in files:
    w, r = wall(name, "contextree"), rss_mib(name, "contextree")
    rows.append([name, size(b), f"{entries:,}", sec(w), mib(r), "—" if r is None else f"{r * 1048576 / b:.2f}"])
table(["file", "size", "entries", f"wall s (median of {runs})", "peak RSS MiB", "RSS / file size"], rows)

if impls:
    print("The agents' time, in process (oracle `bench` timingsMs, medians; start + exit = wall - "
          "in-process total):")
    print()
    rows = []
    for name, _, _ in files:
        for impl in impls:
            docs = [d["timingsMs"] for d in oracle_outputs(name, impl) if "timingsMs" in d]
            w = wall(name, impl)
            if not docs or w is None:
                rows.append([name, labels[impl], sec(w)] + ["failed"] * 5)
                continue
            med = {k: statistics.median(d.get(k, 0) for d in docs) / 1000 for k in ("total", "import", "open")}
            rest = statistics.median((d["total"] - d.get("import", 0) - d.get("open", 0)) / 1000 for d in docs)
            rows.append([name, labels[impl], sec(w), sec(med["total"]), sec(med["import"]), sec(med["open"]),
                         sec(rest), sec(w - med["total"])])
    table(["file", "agent", "wall s", "in-process total s", "import modules", "open file",
           "tree, context, estimate", "start + exit"], rows)
