#!/usr/bin/env python3
"""Live subscriptions under writes (`make bench-live`; #44).

Starts the release fedsearchd on the demo's writable indices (movies and products, durable,
in a temporary data folder), opens SUBS subscriptions (each a federated search of both
indices for a word of the demo's titles, 10 hits, minIntervalMs 100) over connections of up to
500 each, then sends single-document writes (a title word replaced, alternately in products and
movies) at RATE per second for SECONDS, one connection, each waiting for its acknowledgement.

Prints, against the targets of #44: the delay from a write's acknowledgement to each `update`
or `resync` frame of its index that follows it (p50, p99; a frame is counted against the last
write to its index acknowledged before it arrived), how many frames came, the searches the
daemon ran again (`stats.subscriptions.runs`), and the daemon's CPU per write, beside the same
writes with no subscription open (first phase).

With --corpus DIR (what ../shared/bench/corpus.py --export wrote: docs.ndjson, q_single.txt),
the index is that corpus instead (one durable index `docs`, its titles searched), the
subscriptions search it for the corpus's single-word queries, and each write replaces a word
of a document's title by a word of those queries.

Usage: python3 scripts/bench-live.py BIN_DIR [--subs N] [--rate R] [--seconds S] [--distinct K] [--corpus DIR]
"""
import argparse
import json
import os
import random
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def pct(xs, p):
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(p * len(s) + 0.5)) - 1))]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Line:
    """One connection's NDJSON lines."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.buf = b""

    def send(self, obj):
        self.s.sendall((json.dumps(obj) + "\n").encode())

    def lines(self):
        data = self.s.recv(1 << 20)
        if not data:
            raise EOFError
        self.buf += data
        *done, self.buf = self.buf.split(b"\n")
        return done

    def read_until(self, pred):
        while True:
            for line in self.lines():
                if pred(line):
                    return line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--subs", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=20)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--distinct", type=int, default=0,
                    help="how many distinct searches the subscriptions ask (0: each its own); equal ones share a run")
    ap.add_argument("--corpus", help="a benchmark corpus folder (docs.ndjson, q_single.txt) instead of the demo's indices")
    args = ap.parse_args()

    folder = tempfile.mkdtemp(prefix="fsb-live-")
    with open(os.path.join(ROOT, "Configs", "writable.json")) as f:
        config = json.load(f)
    sock = os.path.join(folder, "d.sock")
    config["socket"] = sock
    config["dataDir"] = os.path.join(folder, "data")
    config["logLevel"] = "warning"
    config["limits"] = {"maxSubscriptionsPerConnection": 500, "maxSubscriptions": max(10000, args.subs)}
    for s in config["searchables"].values():
        s["data"] = os.path.join(ROOT, "Configs", s["data"])
    if args.corpus:
        config["searchables"] = {"docs": {"backend": "embedded", "data": os.path.join(args.corpus, "docs.ndjson"),
                                          "searchableAttributes": ["title"], "attributesForFaceting": ["category", "price"],
                                          "timeoutMs": 5000}}
    indices = list(config["searchables"].keys())
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)
    daemon = subprocess.Popen([os.path.join(args.bin_dir, "fedsearchd"), "--config", os.path.join(folder, "config.json")],
                              stdout=subprocess.DEVNULL, stderr=open(os.path.join(folder, "daemon.log"), "w"))
    try:
        # A large corpus is stored and indexed before the socket opens.
        for _ in range(36000):
            if os.path.exists(sock):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        docs = {}
        words = []
        for index in indices:
            docs[index] = []
            path = config["searchables"][index]["data"]
            with open(path, encoding="utf-8") as f:
                for line in f:
                    d = json.loads(line)
                    docs[index].append(d)
                    if args.corpus:
                        continue
                    for w in str(d.get("title", "")).split():
                        if w.isalpha() and len(w) > 3 and w.lower() not in words:
                            words.append(w.lower())
        if args.corpus:
            with open(os.path.join(args.corpus, "q_single.txt"), encoding="utf-8") as f:
                words = [w for w in (line.strip() for line in f) if w]
        rng = random.Random(7)
        writer = Line(sock)
        sequence = [0]

        def write(index):
            d = dict(rng.choice(docs[index]))
            title = str(d.get("title", "")).split()
            if title:
                title[rng.randrange(len(title))] = rng.choice(words).capitalize()
            d["title"] = " ".join(title)
            sequence[0] += 1
            writer.send({"id": f"w{sequence[0]}", "op": "addDocuments", "index": index, "documents": [d]})
            writer.read_until(lambda l: l.startswith(b'{"id":"w'))
            return index

        def write_phase():
            """Writes at the rate for the duration; each write's index and acknowledgement time."""
            acks = []
            start = time.perf_counter()
            n = int(args.rate * args.seconds)
            for i in range(n):
                due = start + i / args.rate
                while time.perf_counter() < due:
                    time.sleep(max(0.0, min(0.001, due - time.perf_counter())))
                index = write(indices[i % len(indices)])
                acks.append((index, time.perf_counter()))
            return acks

        # Phase one: the writes alone.
        cpu0 = cpu_seconds(daemon.pid)
        acks = write_phase()
        alone_cpu = (cpu_seconds(daemon.pid) - cpu0) / len(acks)

        # Phase two: the subscriptions, then the same writes.
        conns = []
        for i in range(0, args.subs, 500):
            conns.append(Line(sock))
        # In rounds of 50 per connection, each round's first answers read before the next
        # (a client that only writes while the daemon waits for it to read is pushed back).
        opened = 0
        for start in range(0, args.subs, 50):
            c = conns[start // 500]
            batch = range(start, min(start + 50, args.subs))
            for i in batch:
                c.send({"id": f"s{i}", "op": "subscribe", "query": words[i % (args.distinct or len(words))], "indices": indices,
                        "params": {"hitsPerPage": 10}, "minIntervalMs": 100})
            seen = 0
            while seen < len(batch):
                for line in c.lines():
                    if b'"type":"done"' in line[:80]:
                        seen += 1
                    elif b'"type":"error"' in line[:80] and b'"index"' not in line[:120]:
                        sys.exit(f"a subscription was refused: {line[:200]!r}")
            opened += seen
        frames = []  # (index or "merged", arrival time)
        stop = threading.Event()

        def reader():
            sel = selectors.DefaultSelector()
            for c in conns:
                sel.register(c.s, selectors.EVENT_READ, c)
            while not stop.is_set():
                for key, _ in sel.select(timeout=0.1):
                    now = time.perf_counter()
                    for line in key.data.lines():
                        head = line[:120]
                        if b'"type":"update"' in head or b'"type":"resync"' in head:
                            if b'"merged":true' in head:
                                frames.append(("merged", now))
                            else:
                                i = head.find(b'"index":"')
                                frames.append((head[i + 9:head.index(b'"', i + 9)].decode(), now))

        t = threading.Thread(target=reader, daemon=True)
        t.start()
        time.sleep(1)
        first = stats(writer)
        runs_before, skipped_before = first["runs"], first.get("runsSkipped", 0)
        cpu0 = cpu_seconds(daemon.pid)
        acks = write_phase()
        time.sleep(2)  # the last updates
        live_cpu = (cpu_seconds(daemon.pid) - cpu0) / len(acks)
        stop.set()
        t.join()
        last = stats(writer)
        runs, skipped = last["runs"] - runs_before, last.get("runsSkipped", 0) - skipped_before
        delays = []
        for index, at in frames:
            if index == "merged":
                continue
            before = [a for (i, a) in acks if i == index and a <= at]
            if before:
                delays.append((at - before[-1]) * 1000)
        distinct = min(args.distinct or len(words), len(words), opened)
        print(f"live subscriptions: {opened} open, {distinct} distinct searches (of {' and '.join(indices)}, 10 hits, minIntervalMs 100), "
              f"{len(acks)} single-document writes at {args.rate:g}/s")
        print(f"  update delivered after the write's acknowledgement: p50 {pct(delays, 0.5):.1f} ms, p99 {pct(delays, 0.99):.1f} ms "
              f"over {len(delays)} index frames ({len(frames) - len(delays)} merged frames besides); target p50 <= 5 ms, p99 <= 50 ms")
        print(f"  searches run again: {runs} ({runs / len(acks):.0f} per write); spared by the writes' probes: {skipped} "
              f"({skipped / len(acks):.0f} per write)")
        print(f"  daemon CPU per write: {live_cpu * 1000:.1f} ms with the subscriptions, {alone_cpu * 1000:.2f} ms without")
    finally:
        daemon.terminate()
        daemon.wait()
        if os.environ.get("KEEP"): print("kept", folder)
        else: shutil.rmtree(folder, ignore_errors=True)


def stats(line):
    line.send({"id": "st", "op": "stats"})
    got = line.read_until(lambda l: l.startswith(b'{"id":"st"'))
    return json.loads(got)["subscriptions"]


if __name__ == "__main__":
    main()
