/// What an input turned out to be, decided by its content, never by its name.
public enum InputKind: String, Sendable, Hashable, Codable {
    /// A zip archive (the `export.zip` the Health app shares); starts with `PK\u{3}\u{4}`.
    case zip
    /// A bare `export.xml`; starts with `<` after an optional byte-order mark and spaces.
    case xml
    /// A CSV of sleep samples with a recognised header line.
    case csv
    /// A JSON payload of the iOS app Health Auto Export (`{"data":{"metrics":[...]}}`);
    /// starts with `{` after an optional byte-order mark and white space. Stored as `hae`.
    case healthAutoExport = "hae"
}
