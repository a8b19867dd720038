#!/usr/bin/env python3
"""Secured API keys made by the official Algolia Python client (algoliasearch 4.x,
generate_secured_api_key), used against fedsearchd's HTTP API.

usage: algolia-secured-key.py PORT PARENT_SEARCH_KEY [sync|async]

Makes keys restricted by a filter, an expiry, indices and client addresses from the parent
key, searches (one index, several, browse) with them, and tries what they must not do. Prints
one JSON object of what came back; exits 1 if a call that must work fails.
"""
import asyncio
import json
import sys
import time

from algoliasearch.http.hosts import Host, HostsCollection
from algoliasearch.search.client import SearchClient, SearchClientSync
from algoliasearch.search.config import SearchConfig

port, parent = int(sys.argv[1]), sys.argv[2]
mode = sys.argv[3] if len(sys.argv) > 3 else "sync"
clients = []


def client(key):
    c = SearchConfig("fedsearchd", key)
    c.hosts = HostsCollection([Host(url="127.0.0.1", port=port, scheme="http")])
    made = SearchClient.create_with_config(config=c) if mode == "async" else SearchClientSync.create_with_config(config=c)
    clients.append(made)
    return made


async def call(value):
    """The value of a call, awaited in async mode."""
    return await value if asyncio.iscoroutine(value) else value


async def status(make_call):
    """The HTTP status a refused call got (200 if it worked)."""
    try:
        await call(make_call())
        return 200
    except Exception as e:  # the client's ApiError carries the status
        return getattr(e, "status_code", None) or getattr(e, "status", None) or str(e)[:200]


maker = client(parent)


async def run():
    future = int(time.time()) + 3600
    comedy = await call(maker.generate_secured_api_key(
        parent, {"filters": "genres:Comedy", "validUntil": future, "restrictIndices": ["movies"]}))
    expired = await call(maker.generate_secured_api_key(parent, {"filters": "genres:Comedy", "validUntil": int(time.time()) - 10}))
    local = await call(maker.generate_secured_api_key(parent, {"restrictSources": "127.0.0.1/32", "hitsPerPage": 3}))
    elsewhere = await call(maker.generate_secured_api_key(parent, {"restrictSources": "10.0.0.0/8"}))
    forged = await call(maker.generate_secured_api_key("not-the-parent-key", {"filters": "genres:Comedy"}))
    out = {}
    c = client(comedy)
    found = await call(c.search_single_index("movies", {"query": "", "hitsPerPage": 1000, "filters": "year > 1990"}))
    out["comedy"] = {"nbHits": found.nb_hits, "allComedy": all("Comedy" in (h.to_dict().get("genres") or []) for h in found.hits),
                     "allAfter1990": all((h.to_dict().get("year") or 0) > 1990 for h in found.hits)}
    multi = await call(c.search({"requests": [{"indexName": "movies", "query": "love", "facets": ["genres"]}]}))
    r = multi.results[0].actual_instance
    out["multi"] = {"nbHits": r.nb_hits, "allComedy": all("Comedy" in (h.to_dict().get("genres") or []) for h in r.hits)}
    browsed = []
    await call(c.browse_objects("movies", lambda page: browsed.extend(h.to_dict().get("genres") or [] for h in page.hits),
                                {"hitsPerPage": 200}))
    out["browse"] = {"count": len(browsed), "allComedy": all("Comedy" in g for g in browsed)}
    out["otherIndex"] = await status(lambda: c.search_single_index("products", {"query": ""}))
    out["getObject"] = await status(lambda: c.get_object("movies", "1"))
    out["write"] = await status(lambda: c.save_object("movies", {"title": "x"}))
    out["expired"] = await status(lambda: client(expired).search_single_index("movies", {"query": ""}))
    page = await call(client(local).search_single_index("movies", {"query": "", "hitsPerPage": 50}))
    out["local"] = {"hitsPerPage": page.hits_per_page}
    out["elsewhere"] = await status(lambda: client(elsewhere).search_single_index("movies", {"query": ""}))
    out["forged"] = await status(lambda: client(forged).search_single_index("movies", {"query": ""}))
    out["parentSeesAll"] = (await call(maker.search_single_index("movies", {"query": ""}))).nb_hits
    return out


async def main():
    try:
        return await run()
    finally:
        if mode == "async":
            for made in clients:
                await made.close()


try:
    result = asyncio.run(main())
except Exception as e:
    print(f"{type(e).__name__}: {str(e)[:2000]}", file=sys.stderr)
    sys.exit(1)
print(json.dumps(result))
