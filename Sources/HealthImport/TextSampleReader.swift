/// A reader of XML or CSV text fed in chunks.
protocol TextSampleReader: AnyObject {
    /// Whether the text is complete and later bytes are to be ignored.
    var isFinished: Bool { get }
    func feed(_ bytes: UnsafeRawBufferPointer) throws
    func finish() throws
}
