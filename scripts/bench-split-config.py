#!/usr/bin/env python3
"""Writes a fedsearchd config with the benchmark corpus split into three embedded indices.

    python3 scripts/bench-split-config.py CORPUS_DIR OUT_DIR

CORPUS_DIR is what ../shared/bench/corpus.py --export wrote (docs.ndjson). OUT_DIR gets
part0..2.ndjson and fedsearchd.json (title searchable, category a facet, price numeric).
"""
import json
import os
import sys

corpus, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
parts = [open(os.path.join(out, f"part{i}.ndjson"), "w") for i in range(3)]
with open(os.path.join(corpus, "docs.ndjson")) as f:
    for n, line in enumerate(f):
        doc = json.loads(line)
        doc["objectID"] = str(doc.get("objectID", doc.get("id", n)))
        doc.pop("id", None)
        parts[n % 3].write(json.dumps(doc) + "\n")
for p in parts:
    p.close()
config = {
    "socket": "/tmp/fedsearch-bench/split.sock",
    "searchables": {
        f"part{i}": {
            "data": f"part{i}.ndjson",
            "searchableAttributes": ["title"],
            "attributesForFaceting": ["category", "price"],
        }
        for i in range(3)
    },
}
with open(os.path.join(out, "fedsearchd.json"), "w") as f:
    json.dump(config, f, indent=2)
print(os.path.join(out, "fedsearchd.json"))
