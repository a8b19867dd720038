#!/usr/bin/env python3
"""Drives fedsearchd's HTTP API with the official Algolia Python client (algoliasearch 4.x).

usage: algolia-client-check.py PORT WRITABLE_INDEX

Points the client at 127.0.0.1:PORT (the daemon's http.listen), performs a multi-index search,
a single-index search, a facet value search, get_object, list_indices, a batch write
followed by wait_for_task and a search that finds it, and the rest of the write API (save,
partial update, get_objects, settings, delete, delete_by, clear). Every answer is decoded by the client
into its typed models (pydantic, strict about types). Prints one JSON object summarising what
came back, for the caller to check; exits 1 with the error if any call fails.
"""
import json
import sys

from algoliasearch.http.hosts import Host, HostsCollection
from algoliasearch.search.client import SearchClientSync
from algoliasearch.search.config import SearchConfig

port, writable = int(sys.argv[1]), sys.argv[2]
config = SearchConfig("fedsearchd", "unused-key")
config.hosts = HostsCollection([Host(url="127.0.0.1", port=port, scheme="http")])
client = SearchClientSync.create_with_config(config=config)
out = {}
try:
    multi = client.search({"requests": [
        {"indexName": "movies", "query": "star wars", "hitsPerPage": 3, "facets": ["genres"]},
        {"indexName": "products", "query": "star wars", "hitsPerPage": 3},
    ]})
    out["multi"] = [{"index": r.actual_instance.index, "nbHits": r.actual_instance.nb_hits,
                     "ids": [h.object_id for h in r.actual_instance.hits]} for r in multi.results]
    single = client.search_single_index("movies", {"query": "alien", "hitsPerPage": 2, "facetFilters": [["genres:Science Fiction"]]})
    out["single"] = {"nbHits": single.nb_hits, "ids": [h.object_id for h in single.hits], "page": single.page}
    facets = client.search_for_facet_values("movies", "genres", {"facetQuery": "dr"})
    out["facetValues"] = [{"value": f.value, "count": f.count} for f in facets.facet_hits]
    first = out["single"]["ids"][0]
    obj = client.get_object("movies", first)
    out["object"] = {"objectID": obj.get("objectID"), "title": obj.get("title")}
    indices = client.list_indices()
    out["indices"] = [{"name": i.name, "entries": i.entries} for i in indices.items]
    batch = client.batch(writable, {"requests": [
        {"action": "addObject", "body": {"objectID": "algolia-client-1", "title": "Zyzzyva by the official client"}},
    ]})
    task = client.wait_for_task(writable, batch.task_id)
    found = client.search_single_index(writable, {"query": "zyzzyva"})
    out["batch"] = {"taskID": batch.task_id, "objectIDs": batch.object_ids, "status": getattr(task.status, "value", task.status),
                    "found": [h.object_id for h in found.hits]}
    # The rest of the write API, each answer decoded into its model.
    saved = client.save_object(writable, {"title": "Quokka notes"})
    client.wait_for_task(writable, saved.task_id)
    client.partial_update_object(writable, "algolia-client-1", {"author": "Someone"})
    objects = client.get_objects({"requests": [{"indexName": writable, "objectID": "algolia-client-1"},
                                               {"indexName": writable, "objectID": "no-such-object"}]})
    settings = client.set_settings(writable, {"customRanking": ["asc(title)"]})
    client.wait_for_task(writable, settings.task_id)
    ranking = client.get_settings(writable).custom_ranking
    deleted = client.delete_object(writable, saved.object_id)
    client.wait_for_task(writable, deleted.task_id)
    client.delete_by(writable, {"filters": "author:Someone"})
    left = client.search_single_index(writable, {"query": ""}).nb_hits
    cleared = client.clear_objects(writable)
    client.wait_for_task(writable, cleared.task_id)
    out["writes"] = {"savedID": saved.object_id, "objects": [o.get("author") if o else None for o in objects.results],
                     "customRanking": ranking, "leftAfterDeletes": left,
                     "afterClear": client.search_single_index(writable, {"query": ""}).nb_hits}
except Exception as e:  # the client's API errors and pydantic's validation errors
    print(f"{type(e).__name__}: {str(e)[:2000]}", file=sys.stderr)
    sys.exit(1)
print(json.dumps(out))
