/// Pairwise disjoint spans kept sorted by start, for the overlap checks of rule 4.
struct AcceptedSpans {
    private var starts: [Int64] = []
    private var ends: [Int64] = []
    private var ids: [Int] = []

    /// Ids of the kept spans that overlap `start ..< end` (touching is not overlapping).
    func overlapping(start: Int64, end: Int64) -> [Int] {
        // Spans are disjoint, so ends are sorted too: the first span ending after `start`.
        var low = 0
        var high = ends.count
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] <= start { low = middle + 1 } else { high = middle }
        }
        var found: [Int] = []
        var index = low
        while index < starts.count, starts[index] < end {
            found.append(ids[index])
            index += 1
        }
        return found
    }

    /// Keeps a span that overlaps none already kept.
    mutating func insert(start: Int64, end: Int64, id: Int) {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] < start { low = middle + 1 } else { high = middle }
        }
        starts.insert(start, at: low)
        ends.insert(end, at: low)
        ids.insert(id, at: low)
    }
}
