#!/usr/bin/env python3
"""Measures fedsearchd's resident memory with many idle connections and with slow readers.

    python3 scripts/measure-rss.py BIN_DIR CONFIG

Starts BIN_DIR/fedsearchd on CONFIG with a temporary socket, then reports RSS (from
/proc/PID/status) at rest, with 1,000 idle connections, and with 100 clients that each send
searches without ever reading the answers (the daemon pauses reading them once
limits.maxPendingOutputBytes is queued, and disconnects them at four times that).
"""
import json, os, resource, socket, subprocess, sys, time

bin_dir, config = sys.argv[1], sys.argv[2]
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
sock = f"/tmp/fedsearch-rss-{os.getpid()}.sock"
daemon = subprocess.Popen([f"{bin_dir}/fedsearchd", "--config", config, "--socket", sock, "--log-level", "error"],
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096)))

def rss_mb():
    with open(f"/proc/{daemon.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0

def connect():
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    return s

for _ in range(300):
    try:
        c = connect(); c.sendall(b'{"op":"ping"}\n'); c.recv(100); c.close(); break
    except OSError:
        time.sleep(0.05)
time.sleep(0.5)
print(f"at rest: {rss_mb():.1f} MB")
idle = [connect() for _ in range(1000)]
time.sleep(1.0)
print(f"1000 idle connections: {rss_mb():.1f} MB")
for s in idle: s.close()
time.sleep(1.0)
print(f"after closing them: {rss_mb():.1f} MB")
request = (json.dumps({"query": "the", "params": {"hitsPerPage": 200}}) + "\n").encode()
slow = []
for _ in range(100):
    s = connect(); s.setblocking(False); slow.append(s)
peak = 0.0
for round in range(40):
    for s in slow:
        try: s.sendall(request * 20)
        except (BlockingIOError, OSError): pass
    time.sleep(0.05)
    peak = max(peak, rss_mb())
time.sleep(1.0)
peak = max(peak, rss_mb())
alive = 0
for s in slow:
    try:
        s.send(b"")  # still connected?
        alive += 1
    except OSError:
        pass
print(f"100 slow readers: peak {peak:.1f} MB, now {rss_mb():.1f} MB")
for s in slow: s.close()
for wait in (1, 5):
    time.sleep(wait)
    print(f"{wait} s after they left: {rss_mb():.1f} MB")
c = connect(); c.sendall(b'{"id":"p","op":"ping"}\n'); print("daemon still answers:", c.recv(200).decode().strip())
daemon.terminate(); daemon.wait()
os.unlink(sock) if os.path.exists(sock) else None
