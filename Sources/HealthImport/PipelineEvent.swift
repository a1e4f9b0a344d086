/// What the reading thread hands to the scanning thread.
enum PipelineEvent: Sendable {
    /// The zip entry whose bytes follow.
    case entry(name: String)
    /// The next bytes of the XML or CSV text.
    case bytes([UInt8])
}
