#!/usr/bin/env python3
"""A single chain of N small pi v3 messages, user and assistant alternating: the memory benchmark
of docs/benchmarks.md ("Memory with many small entries"). Deterministic (random.Random(1)).
   scripts/gen-chain.py N OUT.jsonl        # N = 1000000: ~290 MB; 200000 for byte-identity checks
User lines are ~200 bytes, assistant lines ~390 (text block, provider, model, stopReason, usage)."""
import json, random, sys, time

n, out = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(1)
words = "the a session entry tree leaf parent branch token cache read write file test build run check".split()
ids = set()

def nid():
    while True:
        i = "%08x" % rnd.getrandbits(32)
        if i not in ids:
            ids.add(i)
            return i

def iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)

dump = lambda o: json.dumps(o, separators=(",", ":"), ensure_ascii=False) + "\n"
with open(out, "w") as f:
    t = 1762161125000
    f.write(dump({"type": "session", "version": 3, "id": "7dc6a82a-309c-436f-b3fb-6757af085356",
                  "timestamp": iso(t), "cwd": "/home/dev/work"}))
    parent = None
    for k in range(n):
        i, t = nid(), t + rnd.randint(200, 5000)
        text = " ".join(rnd.choice(words) for _ in range(rnd.randint(1, 4)))
        msg = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": t}
        if k % 2:
            inp, outp = rnd.randint(100, 9999), rnd.randint(10, 999)
            msg = {"role": "assistant", "content": [{"type": "text", "text": text}],
                   "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop",
                   "usage": {"input": inp, "output": outp, "cacheRead": 0, "cacheWrite": 0,
                             "totalTokens": inp + outp, "cost": {"input": 0, "output": 0,
                             "cacheRead": 0, "cacheWrite": 0, "total": 0}}, "timestamp": t}
        f.write(dump({"type": "message", "id": i, "parentId": parent, "timestamp": iso(t), "message": msg}))
        parent = i
