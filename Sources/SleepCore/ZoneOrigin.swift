/// Which rule of spec section 2 supplied a sample's local zone.
public enum ZoneOrigin: String, Sendable, Hashable, Codable {
    /// The sample's own `HKTimeZone` metadata (a valid IANA identifier).
    case sampleTimeZone
    /// The user's configured IANA zone (the sample had no usable `HKTimeZone`).
    case userTimeZone
    /// A fixed-offset zone built from the UTC offset printed with the sample.
    case printedOffset
    /// Nothing was known at all; UTC is used.
    case utcFallback
}
