/// Amendment A2: the union of one source's asleep samples with stage precedence
/// deep > rem > core > asleepUnspecified, as disjoint stage segments.
struct StageUnion {
    /// An asleep sample reduced to what the union needs.
    struct Piece {
        var start: Int64
        var end: Int64
        /// Precedence rank: 0 unspecified, 1 core, 2 rem, 3 deep.
        var rank: UInt8
        /// Index of the sample in the builder's input.
        var sampleIndex: Int
    }

    private struct Event {
        var time: Int64
        var rank: UInt8
        var delta: Int8
    }

    /// Stage for each precedence rank.
    static let stageByRank: [SleepStage] = [.asleepUnspecified, .core, .rem, .deep]

    /// Precedence rank of an asleep stage; `nil` for inBed and awake.
    static func rank(of stage: SleepStage) -> UInt8? {
        switch stage {
        case .asleepUnspecified: return 0
        case .core: return 1
        case .rem: return 2
        case .deep: return 3
        case .inBed, .awake: return nil
        }
    }

    private var events: [Event] = []

    /// Appends the segments of `pieces` (sorted by start) to `segments`, merging touching
    /// segments of one stage; returns the asleep and staged (core/deep/rem) seconds.
    mutating func appendSegments(
        of pieces: ArraySlice<Piece>, to segments: inout [StageSegment]
    ) -> (asleep: Int64, staged: Int64) {
        let firstSegment = segments.count
        var asleep: Int64 = 0
        var staged: Int64 = 0
        func emit(_ rank: UInt8, _ start: Int64, _ end: Int64) {
            guard end > start else { return }
            asleep += end - start
            if rank > 0 { staged += end - start }
            let stage = StageUnion.stageByRank[Int(rank)]
            if segments.count > firstSegment, segments[segments.count - 1].stage == stage,
                segments[segments.count - 1].span.end == start
            {
                segments[segments.count - 1].span.end = end
            } else {
                segments.append(StageSegment(stage: stage, span: TimeSpan(start: start, end: end)))
            }
        }
        // Fast path: no piece overlaps an earlier one (the usual Apple Watch night).
        var runningEnd = Int64.min
        var overlapping = false
        for piece in pieces {
            if piece.start < runningEnd {
                overlapping = true
                break
            }
            runningEnd = piece.end
        }
        if !overlapping {
            for piece in pieces { emit(piece.rank, piece.start, piece.end) }
            return (asleep, staged)
        }
        // General case: sweep over start and end events, the highest active rank wins.
        events.removeAll(keepingCapacity: true)
        for piece in pieces {
            events.append(Event(time: piece.start, rank: piece.rank, delta: 1))
            events.append(Event(time: piece.end, rank: piece.rank, delta: -1))
        }
        events.sort { $0.time < $1.time }
        var active: (Int, Int, Int, Int) = (0, 0, 0, 0)
        var index = 0
        while index < events.count {
            let time = events[index].time
            while index < events.count, events[index].time == time {
                let delta = Int(events[index].delta)
                switch events[index].rank {
                case 0: active.0 += delta
                case 1: active.1 += delta
                case 2: active.2 += delta
                default: active.3 += delta
                }
                index += 1
            }
            guard index < events.count else { break }
            let next = events[index].time
            if active.3 > 0 {
                emit(3, time, next)
            } else if active.2 > 0 {
                emit(2, time, next)
            } else if active.1 > 0 {
                emit(1, time, next)
            } else if active.0 > 0 {
                emit(0, time, next)
            }
        }
        return (asleep, staged)
    }
}
