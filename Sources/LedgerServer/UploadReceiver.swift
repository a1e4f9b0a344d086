public import LedgerServices

/// One upload's body as the HTTP server receives it: the file's bytes go to its
/// ``SpoolFile``; a form's other fields (the upload page's `csrf_token`) are kept small
/// beside it, with the file part's name and content type.
public final class UploadReceiver {
    /// Where the file's bytes go.
    public let file: SpoolFile
    /// The name the upload gave.
    public private(set) var fileName: String
    /// Its content type.
    public private(set) var contentType: String?

    /// The most bytes of a form's fields besides the file (``field(_:)``) kept: 16 KiB.
    public static let maximumFieldBytes = 16 << 10

    private var fields: [String: [UInt8]] = [:]
    private var fieldBytes = 0

    /// A receiver writing to `file`, recorded as `fileName` unless a form names its file.
    public init(file: SpoolFile, fileName: String, contentType: String?) {
        self.file = file
        self.fileName = fileName
        self.contentType = contentType
    }

    /// Takes the name and content type of a form's file part; the name cut to what a job
    /// stores (``LedgerServices/ImportQueue/storedFileName(_:)``: 255 Unicode scalars, not
    /// characters, which may hold several each), so a long name never fails the upload after
    /// its whole body arrived.
    public func rename(fileName: String, contentType: String?) {
        self.fileName = ImportQueue.storedFileName(fileName)
        self.contentType = contentType
    }

    /// Keeps the next piece of a form field that is no file (a multipart upload's other
    /// fields, such as the page's `csrf_token`); `continuing` when it extends the field's
    /// earlier piece. Pieces past ``maximumFieldBytes`` in all are dropped.
    public func appendField(_ name: String, _ bytes: UnsafeRawBufferPointer, continuing: Bool) {
        guard fieldBytes + bytes.count + name.utf8.count <= Self.maximumFieldBytes else { return }
        fieldBytes += bytes.count + (continuing ? 0 : name.utf8.count)
        if continuing { fields[name, default: []] += bytes } else { fields[name] = Array(bytes) }
    }

    /// A form field other than the file, as text; `nil` when the form had none of that name.
    public func field(_ name: String) -> String? {
        fields[name].map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes the next bytes of the file; `false` once it passed the cap or failed.
    public func append(_ bytes: UnsafeRawBufferPointer) -> Bool { file.append(bytes) }

    /// Whether more than the cap arrived.
    public var isOverCap: Bool { file.isOverCap }

    /// Whether the upload was cut because the spool ran short of space.
    public var isOutOfSpace: Bool { file.isOutOfSpace }

    /// Removes the partial file (a cut or failed upload); harmless twice.
    public func abandon() { file.abandon() }
}
