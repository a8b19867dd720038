#!/usr/bin/env python3
"""A small JSON search service for the http backend's tests. Listens on 127.0.0.1 only.

Prints "PORT <n>" on its first line, then serves until stdin closes (the test stops it by
closing stdin or terminating it). Routes:
  GET/POST /search   q, page (from 0), size, filters: searches the documents below by word
                     prefix; answers {"results": {"items": [{"id", "doc", "score"}], "total",
                     "max_score", "facets"}}. With --token, requires "Authorization: Bearer <token>".
  GET/POST /echo     one hit whose doc holds the raw path, the parsed query, the body, X-Test.
  GET /status/<n>    answers status n with a JSON error body.
  GET /notjson       answers 200 with text.
  GET /badshape      answers a hit without its id.
  GET /slow?ms=n     waits up to n ms, stopping early when the client disconnects.
  GET /stats         {"requests", "connections", "inflight", "disconnects"}.
  GET /drop-once     the first time, closes the connection without answering (as a server
                     closing an idle keep-alive connection just as a request arrives); then 200.
"""
import json, select, socket, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

DOCS = [
    {"id": 1, "title": "Star Wars", "genre": "SF", "year": 1977},
    {"id": 2, "title": "Star Trek", "genre": "SF", "year": 1979},
    {"id": 3, "title": "Stardust", "genre": "Fantasy", "year": 2007},
    {"id": 4, "title": "Amelie", "genre": "Comedy", "year": 2001},
]
TOKEN = sys.argv[sys.argv.index("--token") + 1] if "--token" in sys.argv else None
lock = threading.Lock()
stats = {"requests": 0, "connections": 0, "inflight": 0, "disconnects": 0}


def bump(key, n=1):
    with lock:
        stats[key] += n


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        bump("connections")

    def log_message(self, *args):
        pass

    def send_json(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.route(None)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.route(json.loads(self.rfile.read(length) or b"null"))

    def route(self, body):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        if url.path != "/stats":
            bump("requests")
        if url.path == "/stats":
            with lock:
                self.send_json(200, dict(stats))
        elif url.path == "/search":
            if TOKEN and self.headers.get("Authorization") != "Bearer " + TOKEN:
                self.send_json(401, {"error": "bad token: " + str(self.headers.get("Authorization"))})
                return
            self.search(dict(query, **(body or {})))
        elif url.path == "/echo":
            doc = {"path": self.path, "query": query, "body": body, "xtest": self.headers.get("X-Test")}
            self.send_json(200, {"results": {"items": [{"id": "echo", "doc": doc, "score": 1}], "total": 1}})
        elif url.path.startswith("/status/"):
            self.send_json(int(url.path.split("/")[2]), {"error": "failing on purpose"})
        elif url.path == "/notjson":
            body = b"<html>oops</html>"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif url.path == "/badshape":
            self.send_json(200, {"results": {"items": [{"doc": {}, "score": 1}], "total": 1}})
        elif url.path == "/slow":
            self.slow(int(query.get("ms", "10000")))
        elif url.path == "/drop-once":
            with lock:
                first = not stats.get("dropped")
                stats["dropped"] = 1
            if first:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
            else:
                self.send_json(200, {"results": {"items": [], "total": 0}})
        else:
            self.send_json(404, {"error": "no route"})

    def search(self, params):
        words = str(params.get("q", "")).lower().split()
        page, size = int(params.get("page", 0)), int(params.get("size", 10))
        genre = None
        if str(params.get("filters", "")).startswith("genre:"):
            genre = str(params["filters"])[len("genre:"):]
        def matches(d):
            title = d["title"].lower().split()
            return all(any(t.startswith(w) for t in title) for w in words) and (genre is None or d["genre"] == genre)
        found = [d for d in DOCS if matches(d)]
        items = [{"id": d["id"], "doc": {k: v for k, v in d.items() if k != "id"}, "score": 10 - i}
                 for i, d in enumerate(found)][page * size:(page + 1) * size]
        facets = {}
        for d in found:
            facets.setdefault("genre", {}).setdefault(d["genre"], 0)
            facets["genre"][d["genre"]] += 1
        self.send_json(200, {"results": {"items": items, "total": len(found), "max_score": 10, "facets": facets}})

    def slow(self, ms):
        bump("inflight")
        try:
            end = time.monotonic() + ms / 1000
            while time.monotonic() < end:
                readable, _, _ = select.select([self.connection], [], [], 0.02)
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    bump("disconnects")
                    self.close_connection = True
                    return
            self.send_json(200, {"results": {"items": [], "total": 0}})
        finally:
            bump("inflight", -1)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print("PORT", server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
