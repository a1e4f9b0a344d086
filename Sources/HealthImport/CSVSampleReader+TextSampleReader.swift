extension CSVSampleReader: TextSampleReader {
    var isFinished: Bool { false }
}
