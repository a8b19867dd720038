#!/usr/bin/env python3
"""Decodes fedsearchd payloads with the official Algolia Python client's typed models.

Reads JSON lines (from the file named, or stdin), each {"model": "search" | "facetValues", "payload": {...}}, and
validates each payload as algoliasearch's SearchResponse or SearchForFacetValuesResponse
(and strictly from the JSON text: an integer where Algolia's API has an integer, not 2.0). Prints one line per payload,
"ok MODEL" or "FAILED MODEL: reason", and exits 1 if any failed.
"""
import json
import sys

from algoliasearch.search.models.search_for_facet_values_response import SearchForFacetValuesResponse
from algoliasearch.search.models.ranking_info import RankingInfo
from algoliasearch.search.models.search_response import SearchResponse

MODELS = {"search": SearchResponse, "facetValues": SearchForFacetValuesResponse}

failed = 0
source = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
for line in source:
    if not line.strip():
        continue
    item = json.loads(line)
    model = item["model"]
    try:
        payload = item["payload"]
        # The models coerce when decoding (2.0 or "2" pass as an integer), so each payload is
        # also validated strictly from its JSON text: every field must have the API's own type.
        # Hits are left out of that (their _highlightResult is a oneOf of an object, a map and
        # a list, which only from_dict resolves), but their _rankingInfo is checked.
        strict = dict(payload)
        if model == "search":
            strict["hits"] = []
            for hit in payload.get("hits", []):
                if "_rankingInfo" in hit:
                    RankingInfo.model_validate_json(json.dumps(hit["_rankingInfo"]), strict=True)
        MODELS[model].model_validate_json(json.dumps(strict), strict=True)
        decoded = MODELS[model].from_dict(payload)
        if decoded is None:
            raise ValueError("the model decoded nothing")
        if model == "search":
            # Hits are decoded too (objectID, _highlightResult, _snippetResult, _rankingInfo).
            for hit in decoded.hits:
                if hit.object_id is None:
                    raise ValueError("a hit has no objectID")
        print(f"ok {model}")
    except Exception as e:  # pydantic's ValidationError, or the checks above
        failed += 1
        print(f"FAILED {model}: {str(e)[:2000]}")
sys.exit(1 if failed else 0)
