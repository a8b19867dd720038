#!/usr/bin/env python3
"""Pipelining probe (docs/RELIABILITY.md): searches sent without waiting for answers.

  pipelining.py SOCKET one [N]             N searches (default 50) pipelined on one connection
  pipelining.py SOCKET many [C] [N]        C connections (default 1000), N searches each (default 20)

Prints how many requests were answered with `done`, how many refused (by error code), and the
wall time. Every request must end with exactly one `done` or request-level error frame.
"""
import json
import selectors
import socket
import sys
import time

QUERIES = ["star", "wars", "the", "love", "man", "night", "king", "war", "life", "world"]


def request_lines(tag, n):
    return b"".join(
        (json.dumps({"id": f"{tag}-{i}", "query": QUERIES[i % len(QUERIES)]}) + "\n").encode() for i in range(n)
    )


def ends(line):
    """The request id and outcome if this frame ends a request, else None."""
    frame = json.loads(line)
    if frame.get("type") == "done":
        return frame["id"], "done"
    if frame.get("type") == "error" and "index" not in frame:
        return frame.get("id"), frame["error"]["code"]
    return None


def run(path, connections, per_connection):
    sel = selectors.DefaultSelector()
    socks = []
    for c in range(connections):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        s.setblocking(False)
        socks.append(s)
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE,
                     {"out": request_lines(f"c{c}", per_connection), "buf": b"", "left": per_connection})
    outcomes = {}
    start = time.monotonic()
    open_count = connections
    while open_count and time.monotonic() - start < 300:
        for key, mask in sel.select(timeout=5):
            s, st = key.fileobj, key.data
            if mask & selectors.EVENT_WRITE and st["out"]:
                try:
                    sent = s.send(st["out"])
                    st["out"] = st["out"][sent:]
                except BlockingIOError:
                    pass
                if not st["out"]:
                    sel.modify(s, selectors.EVENT_READ, st)
            if mask & selectors.EVENT_READ:
                try:
                    data = s.recv(1 << 20)
                except BlockingIOError:
                    continue
                if not data:
                    outcomes["connection closed early"] = outcomes.get("connection closed early", 0) + st["left"]
                    sel.unregister(s)
                    open_count -= 1
                    continue
                st["buf"] += data
                *lines, st["buf"] = st["buf"].split(b"\n")
                for line in lines:
                    end = ends(line)
                    if end:
                        outcomes[end[1]] = outcomes.get(end[1], 0) + 1
                        st["left"] -= 1
                if st["left"] == 0:
                    sel.unregister(s)
                    open_count -= 1
    elapsed = time.monotonic() - start
    for s in socks:
        s.close()
    total = connections * per_connection
    answered = outcomes.get("done", 0)
    print(json.dumps({"connections": connections, "perConnection": per_connection, "requests": total,
                      "answered": answered, "outcomes": outcomes, "seconds": round(elapsed, 2)}))
    return answered == total


if __name__ == "__main__":
    path, mode = sys.argv[1], sys.argv[2]
    if mode == "one":
        ok = run(path, 1, int(sys.argv[3]) if len(sys.argv) > 3 else 50)
    else:
        ok = run(path, int(sys.argv[3]) if len(sys.argv) > 3 else 1000, int(sys.argv[4]) if len(sys.argv) > 4 else 20)
    sys.exit(0 if ok else 1)
