/// How an export is written: seed, size, DTD style, locale and printed offset.
public struct ExportSpec: Sendable, Hashable {
    /// The DOCTYPE block at the top of `export.xml`.
    public enum DoctypeStyle: String, Sendable, Hashable, CaseIterable {
        /// Apple's DTD with `#REQUIRED`/`#IMPLIED` attribute lists (crashes XMLParser on Linux).
        case apple
        /// The iOS 16 DTD, where the `<!ATTLIST WorkoutActivity` declaration lacks its closing `>`.
        case iOS16Malformed
        /// No DOCTYPE at all (as in hand-trimmed exports).
        case none
    }

    /// Seed of the filler records. Default 1.
    public var seed: UInt64
    /// The approximate size of `export.xml` in bytes; filler records of other types are
    /// spread between the sleep records until it is reached. 0 writes only a few filler
    /// records per sleep record. Default 0.
    public var approximateXMLBytes: Int64
    /// Default ``DoctypeStyle/apple``.
    public var doctypeStyle: DoctypeStyle
    /// The offset printed with every date (the phone's at export time). Default +01:00.
    public var exportUTCOffsetSeconds: Int32
    /// The `locale` attribute of `HealthData`. Default `en_NL`.
    public var locale: String
    /// Name of the Health entry in a zip. Default `apple_health_export/export.xml`.
    public var zipEntryName: String
    /// Whether a zip also holds `apple_health_export/export_cda.xml`. Default true.
    public var includesClinicalDocument: Bool

    /// Creates a spec; every parameter defaults to the documented default.
    public init(
        seed: UInt64 = 1, approximateXMLBytes: Int64 = 0, doctypeStyle: DoctypeStyle = .apple,
        exportUTCOffsetSeconds: Int32 = 3600, locale: String = "en_NL",
        zipEntryName: String = "apple_health_export/export.xml", includesClinicalDocument: Bool = true
    ) {
        self.seed = seed
        self.approximateXMLBytes = approximateXMLBytes
        self.doctypeStyle = doctypeStyle
        self.exportUTCOffsetSeconds = exportUTCOffsetSeconds
        self.locale = locale
        self.zipEntryName = zipEntryName
        self.includesClinicalDocument = includesClinicalDocument
    }
}
