#!/usr/bin/env python3
"""Keystroke to screen in the terminal dashboard (docs/PERFORMANCE.md; `make bench-dashboard`).

  bench-dashboard.py BIN_DIR [demo|corpus]

Starts fedsearchd (the demo config, or the 100k benchmark corpus exported by
../shared/bench/corpus.py to /tmp/fedsearch-bench/corpus) and `fedsearch dashboard --trace` in a
real terminal (tmux, 200x50), types 20 queries at 80 ms per key (Ctrl-U between them), and
reads the trace: for each keystroke, the time from reading the key to the refresh that first
shows each index's results for it. Prints one JSON line: p50/p99 of the first index shown and
of every index, the keystrokes traced, and the dashboard's CPU per keystroke.
Targets (#40): first index p99 <= 16 ms, p50 <= 4 ms.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "probes"))
from memory import demo_config, start_daemon  # noqa: E402  (the probes' daemon start)

DEMO_QUERIES = ["star wars", "batman", "lamp", "toner", "the godfather", "love", "printer", "night", "alien",
                "hp ink", "comedy", "cable", "spider", "jones", "usb", "war", "canon", "king", "paper", "ghost"]


def corpus_queries():
    with open("/tmp/fedsearch-bench/corpus/q_two.txt") as f:
        return [line.strip() for line in f if line.strip()][:20]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else None


def main():
    bin_dir = sys.argv[1]
    which = sys.argv[2] if len(sys.argv) > 2 else "demo"
    folder = tempfile.mkdtemp()
    if which == "demo":
        config = demo_config(folder)
        indices, queries = "movies,products", DEMO_QUERIES
    else:
        config = {"socket": os.path.join(folder, "d.sock"),
                  "searchables": {"corpus": {"data": "/tmp/fedsearch-bench/corpus/docs.ndjson",
                                             "searchableAttributes": ["title"], "attributesForFaceting": ["category"]}}}
        indices, queries = "corpus", corpus_queries()
    sock = config["socket"]
    daemon = start_daemon(bin_dir, config, folder)
    trace = os.path.join(folder, "trace.jsonl")
    server = f"bench-{os.getpid()}"
    tmux = ["tmux", "-L", server, "-f", "/dev/null"]
    command = f"env LANG=C.UTF-8 TERM=tmux-256color {bin_dir}/fedsearch --socket {sock} dashboard --index {indices} --trace {trace}"
    subprocess.run(tmux + ["new-session", "-d", "-s", "b", "-x", "200", "-y", "50", command], check=True,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)
    time.sleep(2)
    pid = int(subprocess.run(tmux + ["display-message", "-p", "-t", "b", "#{pane_pid}"], capture_output=True,
                             text=True).stdout.strip())
    # The pane runs env, which execs fedsearch: the same pid.
    before = cpu_seconds(pid)
    keys = 0
    for q in queries:
        for ch in q:
            subprocess.run(tmux + ["send-keys", "-t", "b", "-l", ch])
            keys += 1
            time.sleep(0.08)
        time.sleep(0.3)
        subprocess.run(tmux + ["send-keys", "-t", "b", "C-u"])
        time.sleep(0.3)
    cpu = cpu_seconds(pid) - before
    subprocess.run(tmux + ["send-keys", "-t", "b", "C-c"])
    time.sleep(0.5)
    subprocess.run(tmux + ["kill-server"], stderr=subprocess.DEVNULL)
    daemon.terminate()
    daemon.wait()
    records = [json.loads(line) for line in open(trace) if line.strip()]
    first = [r["ms"] for r in records if r["rank"] == 1]
    every = [r["ms"] for r in records]
    result = {"bench": "dashboard", "data": which, "keystrokes": keys, "traced": len(first),
              "firstIndexP50Ms": percentile(first, 50), "firstIndexP99Ms": percentile(first, 99),
              "everyIndexP50Ms": percentile(every, 50), "everyIndexP99Ms": percentile(every, 99),
              "cpuMsPerKeystroke": round(cpu * 1000 / max(1, keys), 3)}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
