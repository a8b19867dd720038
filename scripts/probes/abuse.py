#!/usr/bin/env python3
"""Abuse probe (docs/RELIABILITY.md): the requests of #17's items 2, 3, 5, 7 and 8, sent to the
release daemon on the demo config as an attacker or a careless client would.

  abuse.py BIN_DIR

markup:      snippetEllipsisText of 500,000 characters with hitsPerPage 1000, a 100 KB
             highlightPreTag, and 10,000 aliases of one index: the answer, its size, the time,
             and the slowest ping of another client meanwhile.
pipelined:   two searches of 1,000 hits pipelined on one connection, read after 0.5 s: how
             each ended (the first must arrive whole; a refusal must be a coded frame).
breaker:     five searches of movies with timeoutMs 1 and a heavy page, then one every 100 ms
             for 3 s, while another client searches movies every 100 ms: how many of its
             searches found movies skipped (suspended).
half-close:  40 facet value searches, each from a client that shuts its sending side after
             sending (shutdown(SHUT_WR)): how many were answered.
drain:       20 idle clients connected, then SIGTERM: how long until the daemon exits.

Prints one JSON line and exits 1 if any result shows the failure the issue described.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memory import Pinger, demo_config, start_daemon  # noqa: E402


def answer(path, request):
    """Sends one request; returns (its frames, bytes received, seconds)."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    t = time.monotonic()
    s.sendall((json.dumps(request) + "\n").encode())
    data = b""
    frames = []
    while True:
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        data += chunk
        *lines, rest = data.split(b"\n")
        for line in lines:
            frames.append(json.loads(line))
        data = rest
        if frames and (frames[-1].get("type") in ("done", "error", "facetHits") and frames[-1].get("index") is None):
            break
    s.close()
    return frames, sum(len(json.dumps(f)) for f in frames), time.monotonic() - t


def markup(path):
    out = {}
    cases = {
        "snippetEllipsisText": {"query": "love", "params": {"hitsPerPage": 1000, "attributesToSnippet": ["extract:5"],
                                                            "snippetEllipsisText": "x" * 500_000}},
        "highlightPreTag": {"query": "love", "params": {"hitsPerPage": 1000, "highlightPreTag": "<" * 100_000}},
        "indices": {"query": "love", "indices": [{"index": "movies", "as": f"m{i}"} for i in range(10_000)]},
    }
    for name, request in cases.items():
        pinger = Pinger(path)
        pinger.start()
        frames, size, seconds = answer(path, dict(request, id=name))
        pinger.stop()
        last = frames[-1] if frames else {}
        out[name] = {"answer": last.get("error", {}).get("code", last.get("type")), "bytes": size,
                     "ms": round(seconds * 1000, 1), "slowestPingMs": round(pinger.slowest * 1000, 1)}
    return out


def pipelined_pages(path):
    """Two searches of 1,000 hits pipelined, read after half a second: how each ended."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    line = lambda i: json.dumps({"id": i, "query": "", "indices": ["movies"], "params": {"hitsPerPage": 1000}}) + "\n"
    s.sendall((line("first") + line("second")).encode())
    time.sleep(0.5)
    s.settimeout(10)
    data = b""
    ends = {}
    try:
        while len(ends) < 2:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            data += chunk
            *lines, data = data.split(b"\n")
            for l in lines:
                f = json.loads(l)
                if f.get("type") == "done":
                    ends[f["id"]] = "done"
                elif f.get("type") == "error" and f.get("index") is None:
                    ends[f["id"]] = f["error"]["code"]
    except OSError:
        pass
    s.close()
    return ends


def breaker(path):
    heavy = {"query": "", "indices": ["movies"], "timeoutMs": 1, "params": {"hitsPerPage": 1000}}
    for i in range(5):
        answer(path, dict(heavy, id=f"h{i}"))
    stop = time.monotonic() + 3
    skipped = asked = 0

    def attacker():
        while time.monotonic() < stop:
            answer(path, dict(heavy, id="a"))
            time.sleep(0.1)

    t = threading.Thread(target=attacker)
    t.start()
    while time.monotonic() < stop:
        frames, _, _ = answer(path, {"id": "v", "query": "star", "indices": ["movies"]})
        done = frames[-1] if frames else {}
        asked += 1
        if done.get("sources", {}).get("movies", {}).get("status") == "skipped":
            skipped += 1
        time.sleep(0.1)
    t.join()
    return {"othersSearches": asked, "foundMoviesSkipped": skipped}


def half_close(path):
    answered = 0
    for _ in range(40):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        s.sendall(b'{"id":"f","op":"searchForFacetValues","index":"movies","facetName":"genres","facetQuery":"sci"}\n')
        s.shutdown(socket.SHUT_WR)
        data = b""
        s.settimeout(5)
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        answered += b'"type":"facetHits"' in data
        s.close()
    return {"answered": answered, "of": 40}


def drain(daemon, path):
    idle = []
    for _ in range(20):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        idle.append(s)
    time.sleep(0.2)
    t = time.monotonic()
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(timeout=60)
    seconds = time.monotonic() - t
    for s in idle:
        s.close()
    return {"idleClients": 20, "exitSeconds": round(seconds, 2)}


if __name__ == "__main__":
    bin_dir = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        config = demo_config(folder)
        daemon = start_daemon(bin_dir, config, folder)
        path = config["socket"]
        result = {"markup": markup(path), "pipelinedPages": pipelined_pages(path), "breaker": breaker(path),
                  "halfClose": half_close(path)}
        result["drain"] = drain(daemon, path)
    print(json.dumps(result))
    problems = [f"{k}: {v}" for k, v in result["markup"].items() if v["answer"] != "invalid_field"]
    if result["pipelinedPages"].get("first") != "done" or len(result["pipelinedPages"]) != 2:
        problems.append(f"pipelined pages: {result['pipelinedPages']}")
    if result["breaker"]["foundMoviesSkipped"]:
        problems.append(f"breaker: movies was skipped for another client {result['breaker']['foundMoviesSkipped']} times")
    if result["halfClose"]["answered"] != 40:
        problems.append(f"half-close: {result['halfClose']['answered']} of 40 answered")
    if result["drain"]["exitSeconds"] > 5:
        problems.append(f"drain: {result['drain']['exitSeconds']} s with 20 idle clients")
    for p in problems:
        print(f"probe failed: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)
