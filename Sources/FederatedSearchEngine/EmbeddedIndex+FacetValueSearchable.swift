import FederatedSearchCore

/// The embedded index answers the `searchForFacetValues` op.
extension EmbeddedIndex: FacetValueSearchable {}
