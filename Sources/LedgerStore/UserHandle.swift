import CICU

/// How SleepLedger stores and compares user handles: by Unicode's rules through ICU, the
/// same on every machine whatever the database's locale (the embedded cluster's C locale
/// folds only ASCII in SQL's `lower()`).
///
/// - A handle is stored and shown as typed, normalized to NFC (``displayForm(_:)``):
///   `josé` typed with a combining accent (`e` + U+0301) is stored with the precomposed
///   `é`.
/// - Handles are unique and looked up by their key (``key(_:)``), the canonical caseless
///   form of Unicode's definition D145: canonical decomposition (NFD), full case folding
///   (CaseFolding.txt, statuses C and F, without the Turkic mappings), then NFC so the key
///   is stored composed. Two handles are one user exactly when their keys are equal:
///   `Åsa`, `åsa` and `A` + U+030A `sa` are one; `Straße`, `STRASSE` and `strasse` are one
///   (`ß` and `ẞ` fold to `ss`); `ΣΟΦΟΣ`, `σοφος` and `σοφοσ` are one (final `ς` folds
///   to `σ`); `İ` (U+0130) folds to `i` + U+0307, so `İsa` is not `Isa`, and the dotless
///   `ı` stays itself, so `ısa` is not `isa` either: no language's special rules apply.
///   Compatibility forms stay distinct (full-width `ａ` is not `a`).
///
/// Unicode's stability policies for normalization and case folding keep every key of
/// assigned characters the same in later ICU versions, so stored keys stay valid across
/// upgrades.
public enum UserHandle {
    /// The handle as stored and shown: NFC.
    public static func displayForm(_ handle: String) throws(StoreError) -> String {
        try transform(handle, "normalize") { CICU_normalize(1, $0, $1, $2, $3, $4) }
    }

    /// The key handles are unique by and looked up with: NFC of the full case folding of
    /// the NFD form (see the type's documentation).
    public static func key(_ handle: String) throws(StoreError) -> String {
        let decomposed = try transform(handle, "normalize") { CICU_normalize(0, $0, $1, $2, $3, $4) }
        let folded = try transform(decomposed, "case-fold") { CICU_foldCase($0, $1, $2, $3, $4) }
        return try transform(folded, "normalize") { CICU_normalize(1, $0, $1, $2, $3, $4) }
    }

    /// The Unicode version of ICU's data, such as `15.0`.
    public static var unicodeVersion: String { String(cString: CICU_unicodeVersion()) }

    /// Runs one ICU UTF-16 transformation, growing the output once when ICU asks for more.
    private static func transform(
        _ text: String, _ operation: String,
        _ call: (
            UnsafeMutablePointer<UInt16>?, Int32, UnsafePointer<UInt16>?, Int32, UnsafeMutablePointer<Int32>
        ) -> Int32
    ) throws(StoreError) -> String {
        let source = Array(text.utf16)
        guard !source.isEmpty else { return "" }
        var capacity = source.count * 3 + 8
        for _ in 0..<2 {
            var output = [UInt16](repeating: 0, count: capacity)
            var status: Int32 = 0
            let length = output.withUnsafeMutableBufferPointer { buffer in
                source.withUnsafeBufferPointer { input in
                    call(buffer.baseAddress, Int32(capacity), input.baseAddress, Int32(input.count), &status)
                }
            }
            if status == CICU_BUFFER_OVERFLOW, Int(length) > capacity {
                capacity = Int(length)
                continue
            }
            // Negative statuses are warnings (such as an output filling the buffer exactly).
            guard status <= 0, length >= 0, Int(length) <= capacity else { break }
            return String(decoding: output[..<Int(length)], as: UTF16.self)
        }
        throw StoreError(.invalidValue, "ICU could not \(operation) a handle")
    }
}
