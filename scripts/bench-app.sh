#!/usr/bin/env bash
# Measures the desktop app (not part of scripts/test.sh; numbers go to docs/benchmarks.md, "App"):
#  (a) open → first tree paint for generated sessions: from the app process's start (read from
#      /proc, to a clock tick), and from the page's open, split into the core's load (open_session)
#      and what follows it (tree_table over IPC, decoding, filtering, drawing the first rows),
#      from the `performance.now()` marks the UI leaves in body[data-perf-*] (ui/src/tree/perf.js);
#  (b) leaf changes (a double click on a row: until the tree, then the context, is drawn), search
#      and filters, and scrolling: a loop that moves the tree's scrollTop every animation frame,
#      recording the frame intervals and the time of each redraw (tree[data-render-ms]), p50 / p95;
#  (c) memory: the peak resident size (VmHWM) of the app's process (Rust, GTK and WebKit's UI
#      side) after the first paint and after (b), and apart from it WebKit's web process's;
#  (d) the branch graph (ui/src/graph/), last: the Graph button clicked → its first draw
#      (body[data-perf-graph-drawn]: turns, lanes and colours worked out, then one frame), and
#      frames of zooming (a wheel event every frame) and panning (a drag every frame).
# Runs the release app under Xvfb with tauri-driver (the e2e test's ports: hence the lock).
#   scripts/bench-app.sh [SESSION.jsonl ...]      RUNS=5 BENCH_DIR=/tmp/contextree-bench APP=… QUICK=1
# Without arguments: a ~100 MB session (g100, seed 13 as scripts/bench.sh) and a 200,000-entry
# one (e200k: --entries 200000 --output-scale 0.1 --seed 5), generated once into $BENCH_DIR.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
gen="${GEN_SESSION:-$root/tests/agents/gen-session.py}"
bench_dir="${BENCH_DIR:-/tmp/contextree-bench}"
runs="${RUNS:-5}"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

sessions=("$@")
if [ ${#sessions[@]} -eq 0 ]; then
  mkdir -p "$bench_dir"
  [ -f "$bench_dir/g100.jsonl" ] || python3 "$gen" --target-mb 100 --seed 13 -o "$bench_dir/g100.jsonl" >/dev/null
  [ -f "$bench_dir/e200k.jsonl" ] || python3 "$gen" --entries 200000 --output-scale 0.1 --seed 5 -o "$bench_dir/e200k.jsonl" >/dev/null
  sessions=("$bench_dir/g100.jsonl" "$bench_dir/e200k.jsonl")
fi
for s in "${sessions[@]}"; do [ -f "$s" ] || { echo "bench-app: $s not found" >&2; exit 2; }; done

# APP=path/to/contextree-app measures that build instead (another branch's, for a before/after).
if [ -n "${APP:-}" ]; then
  app="$APP"
else
  (cd "$root" && cargo build --release -p contextree-app --quiet)
  app="${CARGO_TARGET_DIR:-$root/target}/release/contextree-app"
fi
command -v tauri-driver >/dev/null || { echo "bench-app: tauri-driver not found (scripts/install-deps.sh)" >&2; exit 2; }

echo "machine: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
exec flock /tmp/e2e.lock xvfb-run -a -s '-screen 0 1280x800x24' \
  python3 - "$app" "$runs" "${sessions[@]}" <<'PY'
import json, os, statistics, subprocess, sys, time, urllib.request

app, runs, sessions = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
# QUICK=1: the open, the leaf changes, filters and search only (no scrolling, no branch graph).
QUICK = os.environ.get("QUICK") == "1"
URL = "http://127.0.0.1:4444"

def http(method, path, body=None, timeout=300):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(URL + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read() or b"null")["value"]

def note(*a):
    print("bench-app:", *a, file=sys.stderr, flush=True)

log = open(os.path.join(os.path.dirname(app), "bench-app-driver.log"), "w")
driver = None

def start_driver():
    # One driver per app session: WebKitWebDriver does not always survive a large session.
    global driver
    driver = subprocess.Popen(["tauri-driver", "--port", "4444", "--native-port", "4445",
                               "--native-driver", "/usr/bin/WebKitWebDriver"], stdout=log, stderr=log)
    for _ in range(200):
        try:
            urllib.request.urlopen(URL + "/status", timeout=1)
            return
        except Exception:
            time.sleep(0.1)
    raise SystemExit("bench-app: tauri-driver did not start")

def port_busy(port):
    import socket
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0

def stop_driver():
    driver.terminate()
    driver.wait(timeout=10)
    # Its WebKitWebDriver goes a moment later; the next driver needs both ports.
    end = time.time() + 20
    while time.time() < end and (port_busy(4444) or port_busy(4445)):
        time.sleep(0.2)

def stop_at_exit():
    if driver is not None and driver.poll() is None:
        stop_driver()

import atexit
atexit.register(stop_at_exit)

def start(session):
    note("starting the app on", os.path.basename(session))
    start_driver()
    caps = {"capabilities": {"alwaysMatch": {"browserName": "wry", "tauri:options": {"application": app, "args": [session]}}}}
    for attempt in range(10):
        try:
            sid = http("POST", "/session", caps)["sessionId"]
            break
        except Exception as err:  # the native driver still starting, or the last one leaving
            note("no session yet:", err)
            time.sleep(1)
    else:
        raise SystemExit("bench-app: no WebDriver session")
    http("POST", f"/session/{sid}/timeouts", {"script": 300000})
    return sid

def run(sid, script, args=(), asynchronous=False):
    kind = "async" if asynchronous else "sync"
    return http("POST", f"/session/{sid}/execute/{kind}", {"script": script, "args": list(args)})

def wait(sid, script, timeout=300):
    end = time.time() + timeout
    while time.time() < end:
        if run(sid, script):
            return
        time.sleep(0.05)
    raise SystemExit(f"bench-app: timed out waiting for {script}")

def wait_for_exit(timeout=60):
    # The next app must not start while this one still frees its memory.
    end = time.time() + timeout
    while time.time() < end:
        if subprocess.run(["pgrep", "-x", "-f", f"{app} .*"], capture_output=True).returncode != 0:
            break
        time.sleep(0.2)
    time.sleep(0.5)

def status_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0

def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    stat = f.read()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return out

def memory(path):
    # The app's own process (its Rust side, GTK and WebKit's UI process) and, apart, WebKit's
    # web process it starts: peak resident sizes (VmHWM) so far, in MB.
    found = subprocess.run(["pgrep", "-x", "-f", f"{app} {path}"], capture_output=True, text=True).stdout.split()
    if not found:
        return None
    pid = int(found[0])
    web = [c for c in children(pid) if "WebProces" in open(f"/proc/{c}/comm").read()]
    return {"app": status_kb(pid, "VmHWM") / 1024, "appNow": status_kb(pid, "VmRSS") / 1024,
            "web": sum(status_kb(c, "VmHWM") for c in web) / 1024}

def started_at(path):
    # When the app's process started (seconds since the epoch, to a clock tick): the page's
    # marks count from its own start, which comes after the process's and the web view's.
    found = subprocess.run(["pgrep", "-x", "-f", f"{app} {path}"], capture_output=True, text=True).stdout.split()
    if not found:
        return None
    with open(f"/proc/{found[0]}/stat") as f:
        ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    # Boot time from the uptime (10 ms resolution; /proc/stat's btime is whole seconds).
    with open("/proc/uptime") as f:
        boot = time.time() - float(f.read().split()[0])
    return boot + ticks / os.sysconf("SC_CLK_TCK")

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

if True:
    print("| session | size MB | entries | rows shown | app process start → first tree paint ms | page's open → paint ms | core load ms | after core load → first tree paint ms (IPC+encode / decode / filter+rows / paint) |")
    print("|---|---|---|---|---|---|---|---|")
    scroll_rows, ops_rows, contexts, memory_rows, leaf_rows = [], [], [], [], []
    graph_marks, graph_frames = [], []
    for path in sessions:
        marks, mems, leaf_changes = [], [], []
        r, failures = 0, 0
        while r < runs:
            kept = (len(marks), len(ops_rows), len(scroll_rows), len(graph_marks), len(graph_frames))
            sid = start(path)
            try:
                wait(sid, "return document.body.dataset.state === 'ready' || document.body.dataset.state === 'error';")
                m = run(sid, "const d = document.body.dataset; return { origin: performance.timeOrigin, open: +d.perfOpen, opened: +d.perfOpened, req: +d.perfTreeRequest, data: +d.perfTreeData, dec: +d.perfTreeDecoded, applied: +d.perfTreeApplied, paint: +d.perfTreePainted, ctxData: +d.perfContextData, ctxShown: +d.perfContextShown, backend: d.perfTreeBackend, rows: Number(document.getElementById('tree').dataset.rowCount), entries: document.getElementById('session-summary').textContent, state: d.state };")
                if m["state"] != "ready":
                    raise SystemExit(f"bench-app: the app reports an error for {path}")
                m["started"] = started_at(path)
                marks.append(m)
                mem = memory(path)
                if mem:
                    mems.append(mem)
                note("marks", json.dumps(m), "memory MB", json.dumps(mem))
                if r == 0:
                    # Leaf changes (a double click on a row on screen), alternating between two rows.
                    note("leaf changes")
                    for j in range(6):
                        lc = run(sid, """
const [k] = arguments; const done = arguments[arguments.length - 1];
const d = document.body.dataset;
const rows = [...document.querySelectorAll('#tree-rows .row')].filter((r) => r.dataset.entryId !== d.leaf);
const target = rows[Math.min(k, rows.length - 1)];
const id = target.dataset.entryId;
target.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
const poll = () => {
  if (d.leaf === id && d.busy !== 'true') {
    done({ id, req: +d.perfTreeRequest, data: +d.perfTreeData, dec: +d.perfTreeDecoded, applied: +d.perfTreeApplied, paint: +d.perfTreePainted, ctx: +d.perfContextShown, backend: d.perfTreeBackend });
  } else setTimeout(poll, 5);
};
poll();""", (3 + 4 * (j % 2),), asynchronous=True)
                        note("leaf change", json.dumps(lc))
                        leaf_changes.append(lc)
                    # All rows (metadata too), then the scroll loops.
                    run(sid, "document.getElementById('tree-metadata').click();")
                    wait(sid, "return /^\\d+ rows$/.test(document.getElementById('tree-count').textContent);")
                    note("filters and search")
                    ops = run(sid, """
const t = (f) => { const t0 = performance.now(); f(); return performance.now() - t0; };
const search = document.getElementById('tree-search'), filter = document.getElementById('tree-filter');
const type = (v) => { search.value = v; search.dispatchEvent(new Event('input')); };
const pick = (v) => { filter.value = v; filter.dispatchEvent(new Event('change')); };
const out = { search: t(() => type('assistant')), searchMiss: t(() => type('zzzz qqqq')), clear: t(() => type('')),
  userOnly: t(() => pick('user')), all: t(() => pick('all')) };
return out;""")
                    ops_rows.append((os.path.basename(path), ops))
                    note("scrolling")
                    for name, step in () if QUICK else (("idle (no scrolling: the frame rate of this display)", 0), ("10 rows / frame", 240), ("a new window every frame (1,000 rows / frame)", 24000)):
                        res = run(sid, """
const [step, frames] = [arguments[0], arguments[1]]; const done = arguments[arguments.length - 1];
const tree = document.getElementById('tree'); tree.scrollTop = 0;
const map = document.getElementById('map');
const gaps = [], renders = [], maps = []; let last = null, k = 0;
function frame(ts) {
  if (last !== null) { gaps.push(ts - last); renders.push(Number(tree.dataset.renderMs)); maps.push(Number(map?.dataset.drawMs ?? 0)); }
  last = ts;
  if (k++ >= frames) return done({ gaps, renders, maps, rows: Number(tree.dataset.rowCount), top: tree.scrollTop });
  tree.scrollTop = (tree.scrollTop + step) % Math.max(1, tree.scrollHeight - tree.clientHeight);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);""", (step, 300), asynchronous=True)
                        scroll_rows.append((os.path.basename(path), name, res))
                    mem = memory(path)
                    if mem:
                        mems.append(mem)
                        note("memory MB after scrolling and search", json.dumps(mem))
                if QUICK:
                    r += 1
                    continue
                # The branch graph, after everything else (open, it would redraw with each leaf).
                gm = run(sid, """
const done = arguments[arguments.length - 1]; const d = document.body.dataset; const c = document.getElementById('graph');
const t0 = performance.now(); document.getElementById('graph-toggle').click();
const poll = () => (+d.perfGraphDrawn >= t0
  ? done({ ms: +d.perfGraphDrawn - t0, draw: +c.dataset.drawMs, nodes: +c.dataset.nodes, lanes: +c.dataset.lanes, drawn: +c.dataset.drawn })
  : setTimeout(poll, 5));
poll();""", asynchronous=True)
                graph_marks.append((os.path.basename(path), gm))
                note("graph", json.dumps(gm))
                if r == 0:
                    for name in ("zoom", "pan"):
                        res = run(sid, """
const [name, frames] = [arguments[0], arguments[1]]; const done = arguments[arguments.length - 1];
const c = document.getElementById('graph'); const r = c.getBoundingClientRect();
document.getElementById('graph-fit').click();
const at = (type, x, y, extra = {}) => c.dispatchEvent(new (type === 'wheel' ? WheelEvent : MouseEvent)(type, { clientX: r.left + x, clientY: r.top + y, bubbles: true, cancelable: true, ...extra }));
if (name === 'pan') { for (let k = 0; k < 12; k++) at('wheel', 40, r.height / 2, { deltaY: -200 }); at('mousedown', 40, r.height - 10, { button: 0 }); }
const gaps = [], draws = []; let last = null, k = 0;
function frame(ts) {
  if (last !== null) { gaps.push(ts - last); draws.push(Number(c.dataset.drawMs)); }
  last = ts;
  if (k++ >= frames) { if (name === 'pan') at('mouseup', 40, 10); return done({ gaps, draws, scale: Number(c.dataset.scale), drawn: Number(c.dataset.drawn) }); }
  if (name === 'zoom') at('wheel', 40, r.height / 2, { deltaY: (k % 60 < 30 ? -1 : 1) * 120 });
  else at('mousemove', 40, r.height - 10 - (k % 100) * 6);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);""", (name, 300), asynchronous=True)
                        graph_frames.append((os.path.basename(path), name, res))
                r += 1
            except (OSError, ValueError) as err:
                # WebKitWebDriver now and then drops a session of a large file: run it again.
                failures += 1
                note("run failed, again:", err)
                del marks[kept[0]:], ops_rows[kept[1]:], scroll_rows[kept[2]:], graph_marks[kept[3]:], graph_frames[kept[4]:]
                mems.clear()
                if r == 0:
                    leaf_changes.clear()
                if failures > 3:
                    raise
            finally:
                try:
                    http("DELETE", f"/session/{sid}")
                    wait_for_exit()
                except (OSError, ValueError):
                    pass
                finally:
                    stop_driver()
        med = lambda f: statistics.median(f(m) for m in marks)
        # From the process's start (a clock tick's resolution) to the paint, on the page's clock.
        launch = [m["origin"] + m["paint"] - 1000 * m["started"] for m in marks if m.get("started")]
        launch_txt = f"{statistics.median(launch):.0f} (min {min(launch):.0f})" if launch else "—"
        page = med(lambda m: m["paint"] - m["open"])
        core = med(lambda m: m["opened"] - m["open"])
        after = med(lambda m: m["paint"] - m["opened"])
        ipc = med(lambda m: m["data"] - m["req"])
        dec = med(lambda m: m["dec"] - m["data"])
        shown = med(lambda m: m["applied"] - m["dec"])
        draw = med(lambda m: m["paint"] - m["applied"])
        ctx_data = med(lambda m: m["ctxData"] - m["paint"])
        ctx_shown = med(lambda m: m["ctxShown"] - m["ctxData"])
        contexts.append((os.path.basename(path), ctx_data, ctx_shown))
        size = os.path.getsize(path) / 1e6
        if leaf_changes:
            lmed = lambda f: statistics.median(f(m) for m in leaf_changes)
            leaf_rows.append((os.path.basename(path), len(leaf_changes), lmed(lambda m: m["paint"] - m["req"]), lmed(lambda m: m["data"] - m["req"]),
                              lmed(lambda m: m["dec"] - m["data"]), lmed(lambda m: m["applied"] - m["dec"]), lmed(lambda m: m["paint"] - m["applied"]),
                              lmed(lambda m: m["ctx"] - m["req"])))
        if mems:
            peak = max(m["app"] for m in mems)
            memory_rows.append((os.path.basename(path), size, peak, statistics.median(m["appNow"] for m in mems), max(m["web"] for m in mems)))
        print(f"| {os.path.basename(path)} | {size:.0f} | {marks[0]['entries']} | {marks[0]['rows']} | {launch_txt} | {page:.0f} | {core:.0f} | **{after:.0f}** ({ipc:.0f} / {dec:.0f} / {shown:.0f} / {draw:.0f}) |")
    print()
    print("| session | then: context and budget over IPC ms | context panel drawn ms |")
    print("|---|---|---|")
    for base, d, shown in contexts:
        print(f"| {base} | {d:.0f} | {shown:.0f} |")
    print()
    print("| session | leaf changes | → tree painted ms (IPC+encode / decode / filter+rows / paint) | → context shown ms |")
    print("|---|---|---|---|")
    for base, count, paint, ipc, dec, shown, draw, ctx in leaf_rows:
        print(f"| {base} | {count} | **{paint:.0f}** ({ipc:.0f} / {dec:.0f} / {shown:.0f} / {draw:.0f}) | {ctx:.0f} |")
    print()
    print("| session | app process peak RSS (VmHWM) MB | × file | app RSS at the end MB | WebKit web process peak RSS MB (not included) |")
    print("|---|---|---|---|---|")
    for base, size, peak, now, web in memory_rows:
        print(f"| {base} | {peak:.0f} | {peak * 1.048576 / size:.2f} | {now:.0f} | {web:.0f} |")
    print()
    print("| session | search `assistant` ms | search, no match ms | clear ms | filter user only ms | filter all ms |")
    print("|---|---|---|---|---|---|")
    for base, o in ops_rows:
        print(f"| {base} | {o['search']:.0f} | {o['searchMiss']:.0f} | {o['clear']:.0f} | {o['userOnly']:.0f} | {o['all']:.0f} |")
    print()
    print("| session | scroll | rows | frames | frame interval p50 / p95 ms | tree redraw p50 / p95 / max ms | branch map redraw p50 / p95 / max ms |")
    print("|---|---|---|---|---|---|---|")
    for base, name, res in scroll_rows:
        g, rr, mm = res["gaps"], res["renders"], res.get("maps") or [0]
        redraw = "—" if name.startswith("idle") else f"{pct(rr, 50):.2f} / {pct(rr, 95):.2f} / {max(rr):.2f}"
        mapdraw = "—" if name.startswith("idle") else f"{pct(mm, 50):.2f} / {pct(mm, 95):.2f} / {max(mm):.2f}"
        print(f"| {base} | {name} | {res['rows']} | {len(g)} | {pct(g, 50):.1f} / {pct(g, 95):.1f} | {redraw} | {mapdraw} |")
    print()
    print("| session | graph turns | lanes | Graph clicked → first draw ms, median (min–max) | that draw ms |")
    print("|---|---|---|---|---|")
    for base in dict.fromkeys(b for b, _ in graph_marks):
        gs = [g for b, g in graph_marks if b == base]
        ms = [g["ms"] for g in gs]
        print(f"| {base} | {gs[0]['nodes']} | {gs[0]['lanes']} | **{statistics.median(ms):.0f}** ({min(ms):.0f}–{max(ms):.0f}) | {statistics.median(g['draw'] for g in gs):.1f} |")
    print()
    print("| session | graph | frames | frame interval p50 / p95 ms | graph draw p50 / p95 / max ms | turns on screen at the end |")
    print("|---|---|---|---|---|---|")
    for base, name, res in graph_frames:
        g, dd = res["gaps"], res["draws"]
        print(f"| {base} | {name} | {len(g)} | {pct(g, 50):.1f} / {pct(g, 95):.1f} | {pct(dd, 50):.2f} / {pct(dd, 95):.2f} / {max(dd):.2f} | {res['drawn']} |")
PY
