/// Typesense 0.24.1 answers for the mapping tests, in the shape the real server sends
/// (captured from `scripts/typesense_test_server.py`'s collection, trimmed to what the mapping reads).
enum TypesenseFixtures {
    /// `q=toner black`, `query_by=title,short_description`, `facet_by=supplier,price`, two per page,
    /// with full-field highlights in `<b>` tags.
    static let search = #"""
        {
          "facet_counts": [
            {"field_name": "price", "counts": [{"count": 1, "highlighted": "14394", "value": "14394"},
                                               {"count": 1, "highlighted": "14794", "value": "14794"}],
             "stats": {"avg": 33794.72727272727, "max": 64795.0, "min": 14394.0, "sum": 371742.0, "total_values": 11}},
            {"field_name": "supplier", "counts": [{"count": 9, "highlighted": "Lexmark", "value": "Lexmark"},
                                                  {"count": 2, "highlighted": "OKI", "value": "OKI"}],
             "stats": {"total_values": 2}}
          ],
          "found": 11,
          "hits": [
            {
              "document": {"id": "690277", "price": 14394, "supplier": "Lexmark",
                           "short_description": "C522, C524, C53x Black Return Program Toner Cartridge",
                           "title": "Lexmark C5220KS toner cartridge Original Black 1 pc(s)"},
              "highlight": {
                "short_description": {"matched_tokens": ["Black", "Toner"],
                                      "snippet": "C522, C524, C53x <b>Black</b> Return Program <b>Toner</b> Cartridge",
                                      "value": "C522, C524, C53x <b>Black</b> Return Program <b>Toner</b> Cartridge"},
                "title": {"matched_tokens": ["toner", "Black"],
                          "snippet": "Lexmark C5220KS <b>toner</b> cartridge Original <b>Black</b> 1 pc(s)",
                          "value": "Lexmark C5220KS <b>toner</b> cartridge Original <b>Black</b> 1 pc(s)"}
              },
              "highlights": [],
              "text_match": 1157451471172665466,
              "text_match_info": {"best_field_score": "2211897737216", "best_field_weight": 15, "fields_matched": 2,
                                  "score": "1157451471172665466", "tokens_matched": 2}
            },
            {
              "document": {"id": "3659405", "price": 14794, "supplier": "OKI",
                           "short_description": "X85xe Cartridge, 30K",
                           "title": "OKI X850H21G toner cartridge"},
              "highlight": {
                "title": {"matched_tokens": ["toner"], "snippet": "OKI X850H21G <b>toner</b> cartridge",
                          "value": "OKI X850H21G <b>toner</b> cartridge"}
              },
              "text_match": 578437695752307201
            }
          ],
          "out_of": 2000, "page": 1, "search_cutoff": false, "search_time_ms": 3
        }
        """#

    /// The same first hit with only the `highlights` array (as some versions send).
    static let highlightsArray = #"""
        {"found": 1, "hits": [{"document": {"id": 7, "title": "Brother Black Toner"},
          "highlights": [{"field": "title", "matched_tokens": ["Black"], "snippet": "Brother <b>Black</b> Toner"}],
          "text_match": 578730165532016642}]}
        """#

    /// A wildcard query (`q=*`): no `text_match`.
    static let wildcard = #"""
        {"found": 40, "hits": [{"document": {"id": "a", "title": "A"}, "highlight": {}},
                               {"document": {"id": "b", "title": "B"}, "highlight": {}}], "facet_counts": []}
        """#

    /// The second hit has no id.
    static let missingID = #"""
        {"found": 2, "hits": [{"document": {"id": "a"}}, {"document": {"title": "no id"}}]}
        """#
}
