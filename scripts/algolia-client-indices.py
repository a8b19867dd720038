#!/usr/bin/env python3
"""Drives fedsearchd's HTTP API with the official Algolia Python client (algoliasearch 4.x) for
what InstantSearch pages and the clients' helpers need beyond plain search and writes.

usage: algolia-client-indices.py PORT MODE     (MODE: sync or async)

With the client pointed at 127.0.0.1:PORT (only the host changed): a federated multi-query
where only movies facets the refined attribute; browse_objects over the whole movies index;
save_objects to an index that does not exist; set_settings with Algolia settings the engine
stores or applies, then get_settings; copy (operation_index) with and without scope, move,
replace_all_objects over an existing index, delete_index; each write followed by
wait_for_task. Prints one JSON object summarising what came back; exits 1 with the error if
any call fails (the client's API errors and its typed models' validation errors included).
"""
import asyncio
import json
import sys

from algoliasearch.http.hosts import Host, HostsCollection
from algoliasearch.search.client import SearchClient, SearchClientSync
from algoliasearch.search.config import SearchConfig

port, mode = int(sys.argv[1]), sys.argv[2]
SETTINGS = {
    "hitsPerPage": 5, "attributesToHighlight": ["title"], "attributesToSnippet": ["title:3"],
    "attributesToRetrieve": ["title", "kind"], "maxValuesPerFacet": 7, "indexLanguages": ["en"],
    "renderingContent": {"facetOrdering": {"facets": {"order": ["kind"]}}}, "replicas": [],
    "searchableAttributes": ["title"], "attributesForFaceting": ["kind"], "customRanking": ["asc(title)"],
}


def config():
    c = SearchConfig("fedsearchd", "unused-key")
    c.hosts = HostsCollection([Host(url="127.0.0.1", port=port, scheme="http")])
    return c


async def call(value):
    """The value of a call, awaited in async mode."""
    return await value if asyncio.iscoroutine(value) else value


async def run(client):
    out = {}
    refined = [["genres:Science Fiction"]]
    multi = await call(client.search({"requests": [
        {"indexName": "movies", "query": "star", "facetFilters": refined, "facets": ["genres"]},
        {"indexName": "movies", "query": "star", "hitsPerPage": 0, "facets": ["genres"]},
        {"indexName": "products", "query": "star", "facetFilters": refined},
    ]}))
    r = [x.actual_instance for x in multi.results]
    out["federated"] = {"moviesHits": r[0].nb_hits, "allGenresHits": r[1].nb_hits, "productsHits": r[2].nb_hits,
                        "allScienceFiction": all("Science Fiction" in (h.to_dict().get("genres") or []) for h in r[0].hits)}
    browsed = []
    await call(client.browse_objects("movies", lambda page: browsed.extend(h.object_id for h in page.hits),
                                     {"hitsPerPage": 300, "attributesToRetrieve": ["title"]}))
    out["browse"] = {"count": len(browsed), "distinct": len(set(browsed))}
    saved = await call(client.save_objects("fresh", [{"objectID": f"f{i}", "title": f"fresh record {i}", "kind": "a" if i % 2 else "b"}
                                                     for i in range(25)], wait_for_tasks=True))
    out["saveObjects"] = {"batches": len(saved), "found": (await call(client.search_single_index("fresh", {"query": "fresh"}))).nb_hits}
    s = await call(client.set_settings("fresh", SETTINGS))
    await call(client.wait_for_task("fresh", s.task_id))
    got = (await call(client.get_settings("fresh"))).to_dict()
    out["settings"] = {k: got.get(k) for k in SETTINGS}
    page = await call(client.search_single_index("fresh", {"query": "record"}))
    out["settingsApplied"] = {"hitsPerPage": page.hits_per_page, "firstTitle": page.hits[0].to_dict().get("title")}
    copied = await call(client.operation_index("fresh", {"operation": "copy", "destination": "fresh_copy"}))
    await call(client.wait_for_task("fresh_copy", copied.task_id))
    scoped = await call(client.operation_index("fresh", {"operation": "copy", "destination": "fresh_settings", "scope": ["settings"]}))
    await call(client.wait_for_task("fresh_settings", scoped.task_id))
    out["copy"] = {"records": (await call(client.search_single_index("fresh_copy", {"query": ""}))).nb_hits,
                   "scopedRecords": (await call(client.search_single_index("fresh_settings", {"query": ""}))).nb_hits,
                   "scopedRanking": (await call(client.get_settings("fresh_settings"))).custom_ranking}
    moved = await call(client.operation_index("fresh_copy", {"operation": "move", "destination": "fresh_moved"}))
    await call(client.wait_for_task("fresh_copy", moved.task_id))
    names = [i.name for i in (await call(client.list_indices())).items]
    out["move"] = {"sourceGone": "fresh_copy" not in names,
                   "records": (await call(client.search_single_index("fresh_moved", {"query": ""}))).nb_hits}
    replaced = await call(client.replace_all_objects("fresh", [{"objectID": f"r{i}", "title": f"replacement {i}", "kind": "r"}
                                                              for i in range(7)], batch_size=3))
    after = await call(client.search_single_index("fresh", {"query": "", "hitsPerPage": 100}))
    names = [i.name for i in (await call(client.list_indices())).items]
    out["replaceAll"] = {"count": after.nb_hits, "ids": sorted(h.object_id for h in after.hits),
                         "tmpLeft": [n for n in names if n.startswith("fresh_tmp_")],
                         "rankingKept": (await call(client.get_settings("fresh"))).custom_ranking,
                         "moveTask": replaced.move_operation_response.task_id > 0}
    deleted = await call(client.delete_index("fresh_moved"))
    await call(client.wait_for_task("fresh_moved", deleted.task_id))
    names = [i.name for i in (await call(client.list_indices())).items]
    out["deleteIndex"] = {"gone": "fresh_moved" not in names}
    return out


async def main():
    client = SearchClient.create_with_config(config=config()) if mode == "async" else SearchClientSync.create_with_config(config=config())
    try:
        return await run(client)
    finally:
        if mode == "async":
            await client.close()


try:
    result = asyncio.run(main())
except Exception as e:  # the client's API errors and pydantic's validation errors
    print(f"{type(e).__name__}: {str(e)[:2000]}", file=sys.stderr)
    sys.exit(1)
print(json.dumps(result))
