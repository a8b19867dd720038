#!/usr/bin/env python3
"""Memory probe (docs/RELIABILITY.md): the daemon's resident memory while clients that never
read their answers pile up, and after they go.

  memory.py BIN_DIR [slow-readers|demo-slow-readers|pipelined]

slow-readers: an index of 1,000 documents of 95 KB; 40 clients each send
  {"query":"","params":{"hitsPerPage":1000}} and never read. The daemon must refuse the answer
  (answer_too_large) or hold at most its configured budgets, and give the memory back.
demo-slow-readers: the demo config; 1,000 clients each ask {"query":"","params":{"hitsPerPage":1000}}
  and never read.
pipelined: the demo config; 1,000 connections send 20 searches each and read slowly.
partial-lines: the demo config; 300 clients each send 1 MB of a line without its newline and
  stall. The daemon must hold at most limits.maxTotalPendingInputBytes of them (the rest get
  input_backlog), and give the memory back once they close.

Prints one JSON line: the baseline, peak and after RSS in MiB, and how clients were answered.
"""
import json
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def start_daemon(bin_dir, config, folder):
    # PROBE_LIMITS: a JSON object of `limits` to try (for example a smaller output budget).
    if os.environ.get("PROBE_LIMITS"):
        config["limits"] = json.loads(os.environ["PROBE_LIMITS"])
    path = os.path.join(folder, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    daemon = subprocess.Popen([os.path.join(bin_dir, "fedsearchd"), "--config", path],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(config["socket"])
            s.sendall(b'{"id":"p","op":"ping"}\n')
            if b"pong" in s.recv(4096):
                s.close()
                return daemon
        except OSError:
            time.sleep(0.1)
    daemon.kill()
    sys.exit("the daemon did not start")


def stats(sock_path):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    s.sendall(b'{"id":"s","op":"stats"}\n')
    data = b""
    while not data.endswith(b"\n"):
        data += s.recv(1 << 16)
    s.close()
    return json.loads(data)


class Pinger(threading.Thread):
    """Pings every 20 ms on a connection of its own and keeps the slowest answer's time: how
    long other clients wait while the daemon builds the answers."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.slowest = 0.0
        self.running = True

    def run(self):
        while self.running:
            t = time.monotonic()
            self.sock.sendall(b'{"id":"p","op":"ping"}\n')
            data = b""
            while not data.endswith(b"\n"):
                data += self.sock.recv(4096)
            self.slowest = max(self.slowest, time.monotonic() - t)
            time.sleep(0.02)

    def stop(self):
        self.running = False
        self.join()


def demo_config(folder):
    """The demo config (Configs/fedsearchd.json), its data files found from anywhere and its
    socket in `folder`."""
    with open(os.path.join(ROOT, "Configs", "fedsearchd.json")) as f:
        config = json.load(f)
    for s in config["searchables"].values():
        if "data" in s:
            s["data"] = os.path.join(ROOT, "Configs", s["data"])
    config["socket"] = os.path.join(folder, "d.sock")
    config.pop("logLevel", None)
    return config


def slow_readers(bin_dir, folder):
    docs = os.path.join(folder, "big.ndjson")
    with open(docs, "w") as f:
        for i in range(1000):
            f.write(json.dumps({"objectID": str(i), "title": f"document {i}", "body": ("word%d " % i) * 13500}) + "\n")
    sock = os.path.join(folder, "d.sock")
    config = {"socket": sock, "searchables": {"big": {"data": docs, "searchableAttributes": ["title"]}}}
    daemon = start_daemon(bin_dir, config, folder)
    baseline = rss_mib(daemon.pid)
    pinger = Pinger(sock)
    pinger.start()
    clients = []
    for _ in range(int(os.environ.get("PROBE_CLIENTS", "40"))):
        s = socket.socket(socket.AF_UNIX)
        s.connect(sock)
        s.sendall(b'{"id":"q","query":"","params":{"hitsPerPage":1000}}\n')
        clients.append(s)
    peak = baseline
    end = time.monotonic() + 8
    while time.monotonic() < end:
        peak = max(peak, rss_mib(daemon.pid))
        time.sleep(0.05)
    pinger.stop()
    st = stats(sock)
    # What the first bytes of each client's answer say.
    outcomes = {}
    for s in clients:
        s.settimeout(2)
        try:
            head = s.recv(4096)
        except OSError:
            head = b""
        kind = "answer_too_large" if b"answer_too_large" in head else ("results" if b'"results"' in head else "nothing")
        outcomes[kind] = outcomes.get(kind, 0) + 1
        s.close()
    time.sleep(2)
    after = rss_mib(daemon.pid)
    daemon.terminate()
    daemon.wait()
    return {"probe": "slow-readers", "baselineMiB": round(baseline), "peakMiB": round(peak), "afterMiB": round(after),
            "pendingOutputBytesAtEnd": st.get("pendingOutputBytes"), "firstFrames": outcomes,
            "slowestPingMs": round(pinger.slowest * 1000, 1)}


def demo_slow_readers(bin_dir, folder):
    """PROBE_CLIENTS (default 1,000) clients on the demo config each ask for a page of 1,000
    hits of every index and never read; the same figures as slow-readers."""
    config = demo_config(folder)
    daemon = start_daemon(bin_dir, config, folder)
    baseline = rss_mib(daemon.pid)
    pinger = Pinger(config["socket"])
    pinger.start()
    clients = []
    for _ in range(int(os.environ.get("PROBE_CLIENTS", "1000"))):
        s = socket.socket(socket.AF_UNIX)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(config["socket"])
        s.sendall(b'{"id":"q","query":"","params":{"hitsPerPage":1000}}\n')
        clients.append(s)
    peak = baseline
    end = time.monotonic() + 10
    while time.monotonic() < end:
        peak = max(peak, rss_mib(daemon.pid))
        time.sleep(0.05)
    pinger.stop()
    st = stats(config["socket"])
    for s in clients:
        s.close()
    # Once the daemon has let everything go (no output pending, nothing queued), and a moment
    # for searches cancelled with their clients to end.
    for _ in range(100):
        now = stats(config["socket"])
        if now.get("pendingOutputBytes") == 0 and now.get("queuedSearches") == 0:
            break
        time.sleep(0.1)
    time.sleep(3)
    after = rss_mib(daemon.pid)
    daemon.terminate()
    daemon.wait()
    return {"probe": "demo-slow-readers", "clients": len(clients), "baselineMiB": round(baseline), "peakMiB": round(peak),
            "afterMiB": round(after), "pendingOutputBytes": st.get("pendingOutputBytes"),
            "queuedSearches": st.get("queuedSearches"), "slowestPingMs": round(pinger.slowest * 1000, 1)}


def pipelined(bin_dir, folder):
    config = demo_config(folder)
    daemon = start_daemon(bin_dir, config, folder)
    baseline = rss_mib(daemon.pid)
    probe = subprocess.Popen([sys.executable, os.path.join(HERE, "pipelining.py"), config["socket"], "many", "1000", "20"],
                             stdout=subprocess.PIPE, text=True)
    peak = baseline
    while probe.poll() is None:
        peak = max(peak, rss_mib(daemon.pid))
        time.sleep(0.05)
    result = json.loads(probe.stdout.read())
    time.sleep(2)
    after = rss_mib(daemon.pid)
    daemon.terminate()
    daemon.wait()
    return {"probe": "pipelined", "baselineMiB": round(baseline), "peakMiB": round(peak), "afterMiB": round(after),
            "answered": result["answered"], "requests": result["requests"], "outcomes": result["outcomes"]}


def partial_lines(bin_dir, folder):
    config = demo_config(folder)
    daemon = start_daemon(bin_dir, config, folder)
    baseline = rss_mib(daemon.pid)
    pinger = Pinger(config["socket"])
    pinger.start()
    chunk = b'{"id":"x","op":"ping","note":"' + b"a" * 1_000_000
    clients = []
    for _ in range(300):
        s = socket.socket(socket.AF_UNIX)
        s.connect(config["socket"])
        s.settimeout(2)
        try:
            s.sendall(chunk)
        except OSError:
            pass
        s.setblocking(False)
        clients.append(s)
    # Let the daemon read what the kernel holds for each.
    peak = baseline
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        peak = max(peak, rss_mib(daemon.pid))
        time.sleep(0.05)
    held = stats(config["socket"]).get("pendingInputBytes")
    backlog = 0
    for s in clients:
        try:
            if b"input_backlog" in s.recv(4096):
                backlog += 1
        except OSError:
            pass
        s.close()
    time.sleep(2)
    after = rss_mib(daemon.pid)
    left = stats(config["socket"]).get("pendingInputBytes")
    pinger.stop()
    daemon.terminate()
    daemon.wait()
    return {"probe": "partial-lines", "clients": len(clients), "baselineMiB": round(baseline), "peakMiB": round(peak),
            "afterMiB": round(after), "pendingInputBytesHeld": held, "pendingInputBytesAfter": left,
            "inputBacklog": backlog, "slowestPingMs": round(pinger.slowest * 1000, 1)}


def failures(result):
    """What the result shows going wrong (the probe exits 1 if anything): a client answered
    nothing or cut off, output left pending, memory not given back, a request not answered."""
    problems = []
    if result["probe"] == "slow-readers":
        if result["firstFrames"].get("nothing"):
            problems.append(f"{result['firstFrames']['nothing']} clients got nothing")
    if result["probe"] == "partial-lines":
        if result["pendingInputBytesHeld"] is None or result["pendingInputBytesHeld"] > 64 << 20:
            problems.append(f"the daemon held {result['pendingInputBytesHeld']} bytes of unfinished lines")
        if result["pendingInputBytesAfter"] != 0:
            problems.append(f"{result['pendingInputBytesAfter']} bytes of unfinished lines held after the clients left")
    elif result["probe"] in ("slow-readers", "demo-slow-readers"):
        if result.get("pendingOutputBytesAtEnd", result.get("pendingOutputBytes")) is None:
            problems.append("no stats")
    else:
        if result["answered"] != result["requests"]:
            problems.append(f"{result['requests'] - result['answered']} of {result['requests']} requests unanswered")
    # Back near the baseline once the clients are gone (the heap is trimmed after a burst).
    limit = float(os.environ.get("PROBE_MAX_AFTER_MIB", str(result["baselineMiB"] + 64)))
    if result["afterMiB"] > limit:
        problems.append(f"RSS after the clients left is {result['afterMiB']} MiB, over {limit:.0f}")
    return problems


if __name__ == "__main__":
    bin_dir = sys.argv[1]
    which = sys.argv[2] if len(sys.argv) > 2 else "slow-readers"
    with tempfile.TemporaryDirectory() as folder:
        probes = {"slow-readers": slow_readers, "demo-slow-readers": demo_slow_readers, "pipelined": pipelined,
                  "partial-lines": partial_lines}
        result = probes[which](bin_dir, folder)
    print(json.dumps(result))
    problems = failures(result)
    for p in problems:
        print(f"probe failed: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)
