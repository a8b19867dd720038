import FederatedSearchCore

/// Loads documents from NDJSON files (one object per line) or JSON arrays.
package enum DocumentLoader {
    /// Parses one data file; errors name the file and the line (NDJSON) or item (array).
    package static func parse(_ bytes: [UInt8], file: String, field: String) throws(SearchError) -> [JSONObject] {
        var i = 0
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "[") {
            let value: JSONValue
            do { value = try JSONParser.parse(bytes) } catch {
                throw SearchError(.invalidJSON, "\(field): '\(file)': \(error.reason) at byte \(error.offset)")
            }
            var docs: [JSONObject] = []
            for (n, item) in (value.arrayValue ?? []).enumerated() {
                guard case .object(let o) = item else {
                    throw SearchError(.invalidField, "\(field): '\(file)' item \(n): expected an object, got \(item.typeName)")
                }
                docs.append(o)
            }
            return docs
        }
        var docs: [JSONObject] = []
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            lineNumber += 1
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            let line = Array(bytes[start..<end])
            start = end + 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            let value: JSONValue
            do { value = try JSONParser.parse(line) } catch {
                throw SearchError(.invalidJSON, "\(field): '\(file)' line \(lineNumber): \(error.reason) at byte \(error.offset)")
            }
            guard case .object(let o) = value else {
                throw SearchError(.invalidField, "\(field): '\(file)' line \(lineNumber): expected an object, got \(value.typeName)")
            }
            docs.append(o)
        }
        return docs
    }
}
