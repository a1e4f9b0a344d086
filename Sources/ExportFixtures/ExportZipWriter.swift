import CArchive
public import SleepCore

/// Writes an `export.zip` with libarchive's zip writer: the Health entry (default
/// `apple_health_export/export.xml`, deflated, streamed with a data descriptor since its
/// size is not known in advance) and, by default, an `export_cda.xml` entry.
public enum ExportZipWriter {
    /// Errors from libarchive while writing.
    public struct WriteError: Error, CustomStringConvertible {
        /// libarchive's message.
        public var description: String
    }

    /// Writes the zip to `path`.
    public static func write(samples: [SleepSample], spec: ExportSpec, toPath path: String) throws {
        try withZip(toPath: path) { archive, check in
            try writeEntry(archive, name: spec.zipEntryName, size: nil, check: check) { sink in
                try ExportXMLWriter.write(samples: samples, spec: spec, to: sink)
            }
            guard spec.includesClinicalDocument else { return }
            let cda = Array(clinicalDocument.utf8)
            let directory = spec.zipEntryName.split(separator: "/").dropLast().joined(separator: "/")
            let cdaName = directory.isEmpty ? "export_cda.xml" : directory + "/export_cda.xml"
            try writeEntry(archive, name: cdaName, size: Int64(cda.count), check: check) { sink in
                try sink.write(bytes: cda)
                try sink.flush()
            }
        }
    }

    /// Writes a zip to `path` holding one deflated entry, `entryName`, whose bytes `body`
    /// writes (any XML: hostile shapes for tests and benchmarks), streamed with a data
    /// descriptor.
    public static func write(
        entryName: String = "apple_health_export/export.xml", toPath path: String, body: (ByteSink) throws -> Void
    ) throws {
        try withZip(toPath: path) { archive, check in
            try writeEntry(archive, name: entryName, size: nil, check: check) { sink in
                try body(sink)
                try sink.flush()
            }
        }
    }

    /// Writes a zip to `path` holding the given deflated entries in order, each streamed
    /// with a data descriptor, its bytes written by its `body` (hostile shapes for tests:
    /// large entries of zeros beside a small export, say).
    public static func write(
        entries: [(name: String, body: (ByteSink) throws -> Void)], toPath path: String
    ) throws {
        try withZip(toPath: path) { archive, check in
            for (name, body) in entries {
                try writeEntry(archive, name: name, size: nil, check: check) { sink in
                    try body(sink)
                    try sink.flush()
                }
            }
        }
    }

    /// Opens a deflating zip writer on `path`, lets `fill` write the entries (with `check`,
    /// which turns a libarchive status below `ARCHIVE_WARN` into a ``WriteError``), and
    /// closes it.
    private static func withZip(
        toPath path: String, _ fill: (OpaquePointer, (Int32, String) throws -> Void) throws -> Void
    ) throws {
        guard let archive = archive_write_new() else {
            throw WriteError(description: "archive_write_new failed")
        }
        defer { archive_write_free(archive) }
        func check(_ status: Int32, _ what: String) throws {
            guard status >= ARCHIVE_WARN else {
                let message = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
                throw WriteError(description: "\(what): \(message)")
            }
        }
        try check(archive_write_set_format_zip(archive), "zip format")
        try check(archive_write_zip_set_compression_deflate(archive), "deflate")
        try check(archive_write_open_filename(archive, path), "open \(path)")
        try fill(archive, check)
        try check(archive_write_close(archive), "close")
    }

    private static func writeEntry(
        _ archive: OpaquePointer, name: String, size: Int64?, check: (Int32, String) throws -> Void,
        body: (ByteSink) throws -> Void
    ) throws {
        guard let entry = archive_entry_new() else {
            throw WriteError(description: "archive_entry_new failed")
        }
        defer { archive_entry_free(entry) }
        archive_entry_set_pathname_utf8(entry, name)
        archive_entry_set_filetype(entry, 0o100000)
        archive_entry_set_perm(entry, 0o644)
        archive_entry_set_mtime(entry, 1_704_067_200, 0)
        if let size { archive_entry_set_size(entry, size) }
        try check(archive_write_header(archive, entry), "header of \(name)")
        let sink = ByteSink { bytes in
            guard let base = bytes.baseAddress else { return }
            let written = archive_write_data(archive, base, bytes.count)
            guard written == bytes.count else {
                throw WriteError(description: "writing \(name) failed")
            }
        }
        try body(sink)
        try check(archive_write_finish_entry(archive), "finish \(name)")
    }

    /// A minimal clinical document like the one the Health app adds.
    static let clinicalDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ClinicalDocument xmlns="urn:hl7-org:v3">
         <title>Health Data Export</title>
         <effectiveTime value="20240101120000+0100"/>
        </ClinicalDocument>

        """
}
