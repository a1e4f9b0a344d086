/// The XML side: the pre-filter scanner feeding the sleep-record parser.
final class XMLSampleReader: TextSampleReader {
    private let scanner: HealthXMLScanner
    private let parser: SleepRecordParser
    private let session: ReadSession

    init(fileName: String, session: ReadSession) {
        let parser = SleepRecordParser(fileName: fileName, session: session)
        self.parser = parser
        self.session = session
        scanner = HealthXMLScanner(
            fileName: fileName, options: session.options,
            onSleepRecord: { bytes, line in try parser.add(record: bytes, line: line) },
            onBrokenSleepRecord: { line, rejection in
                session.reject(file: fileName, line: line, rejection)
            })
    }

    var isFinished: Bool { scanner.isRootClosed }

    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        try scanner.feed(bytes)
        updateCounts()
    }

    func finish() throws {
        defer { updateCounts() }
        try scanner.finish()
        try parser.flush()
    }

    private func updateCounts() {
        session.report.recordsSeen = scanner.recordsSeen
        session.report.sleepRecords = scanner.sleepRecordsSeen
    }
}
