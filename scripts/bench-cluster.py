#!/usr/bin/env python3
"""The cost fedsearchd adds in front of a Typesense cluster (`make bench-cluster`; #20).

Starts three Typesense 0.24.1 nodes with the demo products (scripts/typesense_cluster.py) and
the release fedsearchd with the products as a `typesense` index on them, then measures, in one
run, with the same minimal Python clients on both sides:

- search: the same queries (words of the products' titles) through fedsearchd's socket (one
  line out, frames read until `done`) and straight to the cluster's HTTP API with the very
  parameters fedsearchd sends for them, highlighting included (one keep-alive connection per
  node, nodes in turn, as fedsearchd picks them), each query sent to both sides
  in turn; p50 and p99 per side, medians over the runs, and the ratio of p50s (target <= 1.2);
- import: the same documents in batches of 100, through `fedsearch import` and straight to the
  import API; documents per second per side.

Usage: python3 scripts/bench-cluster.py BIN_DIR [--runs N] [--queries N]
"""
import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KEY = "bench-cluster-key"


def pct(xs, p):
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(p * len(s) + 0.5)) - 1))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()
    data = os.path.join(ROOT, "Configs", "data", "products.ndjson")
    cluster = subprocess.Popen([sys.executable, os.path.join(HERE, "typesense_cluster.py"), "--api-key", KEY, "--data", data],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    first = cluster.stdout.readline()
    if not first.startswith("NODES"):
        sys.exit(f"the cluster did not start: {first.strip()}")
    ports = [int(p) for p in first.split()[1].split(",")]
    folder = tempfile.mkdtemp(prefix="fsb-cluster-")
    sock = os.path.join(folder, "d.sock")
    config = {"socket": sock, "logLevel": "warning", "searchables": {"shop": {
        "backend": "typesense", "nodes": [f"http://127.0.0.1:{p}" for p in ports], "collection": "products",
        "apiKey": {"env": "FSB_TS_KEY"}, "queryBy": ["title", "short_description"], "timeoutMs": 5000}}}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)
    daemon = subprocess.Popen([os.path.join(args.bin_dir, "fedsearchd"), "--config", os.path.join(folder, "config.json")],
                              env={**os.environ, "FSB_TS_KEY": KEY}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            if os.path.exists(sock):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        words = []
        with open(data, encoding="utf-8") as f:
            for line in f:
                for w in json.loads(line).get("title", "").split():
                    if w.isalpha() and len(w) > 3 and w.lower() not in words:
                        words.append(w.lower())
        queries = words[:args.queries]

        s = socket.socket(socket.AF_UNIX)
        s.connect(sock)
        reader = s.makefile("rb")
        conns = [http.client.HTTPConnection("127.0.0.1", p, timeout=30) for p in ports]
        turn = [0]

        source_ms = []

        def via_daemon(i, q):
            s.sendall((json.dumps({"id": str(i), "query": q, "indices": ["shop"], "params": {"hitsPerPage": 10}}) + "\n").encode())
            while True:
                line = reader.readline()
                if not line or b'"type":"done"' in line[:60] or (b'"type":"error"' in line[:60] and b'"index"' not in line):
                    if line.startswith(b'{"id"') and b'"type":"done"' in line[:60]:
                        source_ms.append(json.loads(line)["sources"]["shop"]["ms"])
                    return
        def direct(i, q):
            c = conns[turn[0] % len(conns)]
            turn[0] += 1
            # The search fedsearchd sends for the query (TypesenseRequest): the same work on the node.
            c.request("GET", "/collections/products/documents/search?q=" + q + "&query_by=title,short_description&page=1&per_page=10"
                      "&highlight_full_fields=title,short_description&highlight_start_tag=%3Cem%3E&highlight_end_tag=%3C%2Fem%3E",
                      headers={"X-TYPESENSE-API-KEY": KEY})
            c.getresponse().read()

        for i, q in enumerate(queries[:50]):  # warm both sides
            via_daemon(i, q)
            direct(i, q)
        runs = {"fedsearchd": [], "direct": [], "source": [], "around": []}
        for r in range(args.runs):
            samples = {"fedsearchd": [], "direct": [], "source": [], "around": []}
            for i, q in enumerate(queries):
                order = [("fedsearchd", via_daemon), ("direct", direct)]
                if i % 2:
                    order.reverse()
                for name, f in order:
                    t = time.perf_counter()
                    f(i, q)
                    samples[name].append((time.perf_counter() - t) * 1e6)
                    if name == "fedsearchd" and source_ms:
                        # The source's own time (its done frame), and the daemon's path around it.
                        samples["source"].append(source_ms[-1] * 1000)
                        samples["around"].append(samples[name][-1] - source_ms[-1] * 1000)
                        source_ms.clear()
            for name in samples:
                runs[name].append((pct(samples[name], 0.5), pct(samples[name], 0.99)))
        med = {n: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for n, v in runs.items()}
        print(f"search ({len(queries)} queries x {args.runs} runs, hitsPerPage 10): through fedsearchd p50 {med['fedsearchd'][0]:.0f} us "
              f"(p99 {med['fedsearchd'][1]:.0f}); straight to the cluster p50 {med['direct'][0]:.0f} us (p99 {med['direct'][1]:.0f}); "
              f"ratio of p50s {med['fedsearchd'][0] / med['direct'][0]:.2f}")
        print(f"  of which: the shop source's own time (its done frame) p50 {med['source'][0]:.0f} us, "
              f"the daemon's path around it (socket, planning, frames) p50 {med['around'][0]:.0f} us")

        # Import: the same documents through fedsearch import and straight to the import API.
        docs = []
        with open(data, encoding="utf-8") as f:
            for line in f:
                docs.append(json.loads(line))
        def ids(prefix):
            out = []
            for d in docs:
                e = dict(d)
                e["objectID"] = prefix + str(d["objectID"])
                out.append(e)
            return out
        # One batch in flight (each waits for the last), then fedsearch import's default 128.
        rates = {}
        for depth in (1, 128):
            path = os.path.join(folder, f"import-{depth}.ndjson")
            with open(path, "w") as f:
                for d in ids(f"via{depth}-"):
                    f.write(json.dumps(d) + "\n")
            t = time.perf_counter()
            done = subprocess.run([os.path.join(args.bin_dir, "fedsearch"), "import", "shop", path, "--batch", "100", "--in-flight",
                                   str(depth), "--socket", sock], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            rates[depth] = len(docs) / (time.perf_counter() - t)
            if done.returncode != 0:
                sys.exit(f"fedsearch import failed: {done.stderr[-300:]}")
        through = rates[1]
        straight = ids("direct-")
        t = time.perf_counter()
        c = conns[0]
        for b in range(0, len(straight), 100):
            lines = []
            for d in straight[b:b + 100]:
                e = dict(d)
                e["id"] = str(e.pop("objectID"))
                lines.append(json.dumps(e))
            c.request("POST", "/collections/products/documents/import?action=upsert", body="\n".join(lines).encode(),
                      headers={"X-TYPESENSE-API-KEY": KEY, "Content-Type": "text/plain"})
            body = c.getresponse().read()
            if body.count(b'"success":true') != len(lines):
                sys.exit(f"direct import failed: {body[:200]!r}")
        direct_rate = len(docs) / (time.perf_counter() - t)
        print(f"import ({len(docs)} documents in batches of 100, one batch in flight): through fedsearch import {through:.0f} docs/s; "
              f"straight to the cluster {direct_rate:.0f} docs/s; ratio {direct_rate / through:.2f}")
        print(f"  with fedsearch import's default 128 batches in flight: {rates[128]:.0f} docs/s "
              "(a batch is answered once every node serves it; later batches reach the cluster meanwhile)")

        # Single-document writes from many clients at once: each document its own batch, up to
        # 256 unanswered on one connection (as 256 clients writing one at a time would).
        singles = ids("single-")
        w = socket.socket(socket.AF_UNIX)
        w.connect(sock)
        wr = w.makefile("rb")
        sent = answered = 0
        t = time.perf_counter()
        while answered < len(singles):
            while sent < len(singles) and sent - answered < 256:
                w.sendall((json.dumps({"id": f"s{sent}", "op": "addDocuments", "index": "shop", "documents": [singles[sent]]}) + "\n").encode())
                sent += 1
            line = wr.readline()
            if b'"type":"written"' not in line:
                sys.exit(f"a single-document write failed: {line[:200]!r}")
            answered += 1
        single_rate = len(singles) / (time.perf_counter() - t)
        w.close()
        print(f"single-document writes, {len(singles)} with up to 256 unanswered: {single_rate:.0f} writes/s "
              "(batches that queue up behind the import in flight go to the cluster together)")
    finally:
        daemon.terminate()
        daemon.wait()
        cluster.stdin.close()
        cluster.wait()


if __name__ == "__main__":
    main()
