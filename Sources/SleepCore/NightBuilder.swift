/// Turns one user's sleep samples into nights and naps by spec section 3: Onset's five
/// rules with amendments A1 (fragments) and A2 (union with stage precedence), local days
/// by section 2.
///
/// Pure and deterministic: the result does not depend on the order of the input, exact
/// duplicates change nothing, and zones are resolved once per night or nap, not per
/// sample. Samples whose end is not after their start, or with an instant beyond
/// ±2^53 seconds, are ignored (validation rejects them before they get here).
public struct NightBuilder: Sendable {
    /// The rule constants.
    public var rules: NightRules

    /// Creates a builder; the default rules are the spec's.
    public init(rules: NightRules = NightRules()) {
        self.rules = rules
    }

    private typealias Piece = StageUnion.Piece

    /// Instants beyond ±2^53 seconds (about 285 million years) are not real samples; the
    /// limit keeps every sum and difference far from overflow.
    static let instantLimit: Int64 = 1 << 53

    /// A run of one source's asleep samples joined by rule 1.
    private struct Cluster {
        var sourceRank: Int
        var start: Int64
        var end: Int64
        var asleep: Int64
        var staged: Int64
        var segments: Range<Int>
        /// Input index of the sample that ends the cluster.
        var endingSample: Int
    }

    /// Consecutive clusters of one source chained by rule 2 (A1).
    private struct Candidate {
        var sourceRank: Int
        var clusters: Range<Int>
        var onset: Int64
        var wake: Int64
        var asleep: Int64
        var staged: Int64
        var hasStageData: Bool { 2 * staged >= asleep }
    }

    /// Asleep pieces by source, in order of first appearance, and every source's in-bed starts.
    private struct SourceGroups {
        var names: [String] = []
        var pieces: [[Piece]] = []
        var inBedStarts: [Int64] = []
    }

    /// The main candidates accepted as nights, by rule 4, with what each set aside.
    private struct NightChoice {
        var picks: [(candidate: Int, zone: ResolvedZone, wakeDay: LocalDate)] = []
        var accepted = AcceptedSpans()
        /// Per accepted night: the source ranks set aside.
        var setAside: [Set<Int>] = []
    }

    /// Builds the nights and naps of one user's samples.
    ///
    /// - Parameters:
    ///   - samples: validated samples of one user, any order, any sources.
    ///   - userTimeZoneIdentifier: the user's configured IANA zone, used for samples
    ///     without a valid `HKTimeZone`.
    public func build(from samples: [SleepSample], userTimeZoneIdentifier: String? = nil) -> NightBuildResult {
        let rules = rules.clamped
        var resolver = SampleZoneResolver(userTimeZoneIdentifier: userTimeZoneIdentifier)
        var groups = Self.groupBySource(samples)
        // Sources in ascending name order, so every tie-break is an integer comparison.
        let sourceOrder = groups.names.indices.sorted { groups.names[$0] < groups.names[$1] }
        func sourceName(_ rank: Int) -> String { groups.names[sourceOrder[rank]] }

        // Rules 1 and 7: clusters per source, with their stage segments; rule 2 (A1) chains them.
        var clusters: [Cluster] = []
        var segments: [StageSegment] = []
        var candidates: [Candidate] = []
        var union = StageUnion()
        for (sourceRank, sourceID) in sourceOrder.enumerated() {
            var pieces = groups.pieces[sourceID]
            groups.pieces[sourceID] = []
            pieces.sort { Self.precedes($0, $1, samples) }
            let firstCluster = clusters.count
            Self.appendClusters(
                of: pieces, sourceRank: sourceRank, rules: rules, union: &union, to: &clusters, segments: &segments)
            Self.appendCandidates(
                chaining: clusters, from: firstCluster, sourceRank: sourceRank, rules: rules, to: &candidates)
        }

        // Rule 3: short candidates become naps, cluster by cluster.
        var napClusters: [Int] = []
        var mainCandidates: [Int] = []
        for index in candidates.indices {
            if candidates[index].asleep >= rules.mainSleepMinimumSeconds {
                mainCandidates.append(index)
            } else {
                napClusters.append(contentsOf: candidates[index].clusters)
            }
        }
        var choice = Self.chooseNights(
            mainCandidates, candidates: candidates, clusters: clusters, samples: samples, resolver: &resolver,
            demotedClusters: &napClusters)
        let naps = Self.chooseNaps(
            napClusters, clusters: clusters, samples: samples, choice: &choice, resolver: &resolver,
            sourceName: sourceName)

        // Rules 5 to 7: fill in every night.
        var nights: [Night] = []
        nights.reserveCapacity(choice.picks.count)
        for (nightID, chosen) in choice.picks.enumerated() {
            let candidate = candidates[chosen.candidate]
            let firstSegment = clusters[candidate.clusters.lowerBound].segments.lowerBound
            let lastSegment = clusters[candidate.clusters.upperBound - 1].segments.upperBound
            nights.append(
                makeNight(
                    rules: rules, candidate: candidate, segments: Array(segments[firstSegment..<lastSegment]),
                    zone: chosen.zone, wakeDay: chosen.wakeDay, inBedStarts: groups.inBedStarts,
                    source: sourceName(candidate.sourceRank),
                    setAsideSources: choice.setAside[nightID].sorted().map(sourceName)))
        }
        nights.sort { $0.onset < $1.onset }
        return NightBuildResult(nights: nights, naps: naps)
    }

    /// Groups the asleep samples by source and collects the in-bed starts of every source
    /// (rule 6), sorted. Samples that end before they start or lie beyond ``instantLimit``
    /// are left out.
    private static func groupBySource(_ samples: [SleepSample]) -> SourceGroups {
        var groups = SourceGroups()
        var sourceIDs: [String: Int] = [:]
        var lastSource = ""
        var lastSourceID = -1
        for index in samples.indices {
            let sample = samples[index]
            guard sample.end > sample.start, sample.start >= -instantLimit, sample.end <= instantLimit
            else { continue }
            if sample.stage == .inBed { groups.inBedStarts.append(sample.start) }
            guard let rank = StageUnion.rank(of: sample.stage) else { continue }
            let sourceID: Int
            if lastSourceID >= 0, sample.source == lastSource {
                sourceID = lastSourceID
            } else if let known = sourceIDs[sample.source] {
                sourceID = known
            } else {
                sourceID = groups.names.count
                sourceIDs[sample.source] = sourceID
                groups.names.append(sample.source)
                groups.pieces.append([])
            }
            lastSource = sample.source
            lastSourceID = sourceID
            groups.pieces[sourceID].append(
                Piece(start: sample.start, end: sample.end, rank: rank, sampleIndex: index))
        }
        groups.inBedStarts.sort()
        return groups
    }

    /// Rules 1 and 7: joins one source's sorted pieces into clusters, appending their stage
    /// segments.
    private static func appendClusters(
        of pieces: [Piece], sourceRank: Int, rules: NightRules, union: inout StageUnion, to clusters: inout [Cluster],
        segments: inout [StageSegment]
    ) {
        var clusterStart = 0
        while clusterStart < pieces.count {
            var runningEnd = pieces[clusterStart].end
            var endingPiece = clusterStart
            var next = clusterStart + 1
            while next < pieces.count, pieces[next].start <= runningEnd + rules.clusterJoinGapSeconds {
                if pieces[next].end >= runningEnd {
                    runningEnd = pieces[next].end
                    endingPiece = next
                }
                next += 1
            }
            let firstSegment = segments.count
            let totals = union.appendSegments(of: pieces[clusterStart..<next], to: &segments)
            clusters.append(
                Cluster(
                    sourceRank: sourceRank, start: pieces[clusterStart].start, end: runningEnd,
                    asleep: totals.asleep, staged: totals.staged,
                    segments: firstSegment..<segments.count,
                    endingSample: pieces[endingPiece].sampleIndex))
            clusterStart = next
        }
    }

    /// Rule 2 (A1): chains one source's clusters, `clusters[firstCluster...]`, into candidates.
    private static func appendCandidates(
        chaining clusters: [Cluster], from firstCluster: Int, sourceRank: Int, rules: NightRules,
        to candidates: inout [Candidate]
    ) {
        var chainStart = firstCluster
        while chainStart < clusters.count {
            var candidate = Candidate(
                sourceRank: sourceRank, clusters: chainStart..<(chainStart + 1),
                onset: clusters[chainStart].start, wake: clusters[chainStart].end,
                asleep: clusters[chainStart].asleep, staged: clusters[chainStart].staged)
            var next = chainStart + 1
            while next < clusters.count, clusters[next].start - candidate.wake <= rules.fragmentChainGapSeconds {
                candidate.wake = max(candidate.wake, clusters[next].end)
                candidate.asleep += clusters[next].asleep
                candidate.staged += clusters[next].staged
                next += 1
            }
            candidate.clusters = chainStart..<next
            candidates.append(candidate)
            chainStart = next
        }
    }

    /// Rule 4: most sleep first across all wake days. A candidate overlapping an accepted
    /// night is set aside (recorded with that night); one whose wake day is taken becomes
    /// naps (its clusters go to `demotedClusters`).
    private static func chooseNights(
        _ mainCandidates: [Int], candidates: [Candidate], clusters: [Cluster], samples: [SleepSample],
        resolver: inout SampleZoneResolver, demotedClusters: inout [Int]
    ) -> NightChoice {
        let order = mainCandidates.sorted { lhs, rhs in
            let a = candidates[lhs]
            let b = candidates[rhs]
            if a.asleep != b.asleep { return a.asleep > b.asleep }
            if a.hasStageData != b.hasStageData { return a.hasStageData }
            if a.sourceRank != b.sourceRank { return a.sourceRank < b.sourceRank }
            return a.onset < b.onset
        }
        var choice = NightChoice()
        var takenWakeDays: Set<Int> = []
        for index in order {
            let candidate = candidates[index]
            let overlapped = choice.accepted.overlapping(start: candidate.onset, end: candidate.wake)
            if !overlapped.isEmpty {
                for night in overlapped { choice.setAside[night].insert(candidate.sourceRank) }
                continue
            }
            let ending = samples[clusters[candidate.clusters.upperBound - 1].endingSample]
            let zone = resolver.zone(for: ending)
            let wakeDay = LocalTime.localDate(of: candidate.wake, in: zone.timeZone)
            if takenWakeDays.insert(wakeDay.daysSinceEpoch).inserted {
                choice.accepted.insert(start: candidate.onset, end: candidate.wake, id: choice.picks.count)
                choice.picks.append((index, zone, wakeDay))
                choice.setAside.append([])
            } else {
                demotedClusters.append(contentsOf: candidate.clusters)
            }
        }
        return choice
    }

    /// Naps: most sleep first; one overlapping a night is set aside (recorded with the
    /// night), one overlapping a kept nap of another source repeats it and is dropped.
    private static func chooseNaps(
        _ napClusters: [Int], clusters: [Cluster], samples: [SleepSample], choice: inout NightChoice,
        resolver: inout SampleZoneResolver, sourceName: (Int) -> String
    ) -> [Nap] {
        let order = napClusters.sorted { lhs, rhs in
            let a = clusters[lhs]
            let b = clusters[rhs]
            if a.asleep != b.asleep { return a.asleep > b.asleep }
            let aStaged = 2 * a.staged >= a.asleep
            let bStaged = 2 * b.staged >= b.asleep
            if aStaged != bStaged { return aStaged }
            if a.sourceRank != b.sourceRank { return a.sourceRank < b.sourceRank }
            return a.start < b.start
        }
        var keptNaps = AcceptedSpans()
        var naps: [Nap] = []
        for index in order {
            let cluster = clusters[index]
            let overlappedNights = choice.accepted.overlapping(start: cluster.start, end: cluster.end)
            if !overlappedNights.isEmpty {
                for night in overlappedNights { choice.setAside[night].insert(cluster.sourceRank) }
                continue
            }
            guard keptNaps.overlapping(start: cluster.start, end: cluster.end).isEmpty else { continue }
            keptNaps.insert(start: cluster.start, end: cluster.end, id: naps.count)
            let zone = resolver.zone(for: samples[cluster.endingSample])
            naps.append(
                Nap(
                    wakeDay: LocalTime.localDate(of: cluster.end, in: zone.timeZone),
                    timeZoneIdentifier: zone.identifier, source: sourceName(cluster.sourceRank),
                    start: cluster.start, end: cluster.end, asleepSeconds: cluster.asleep))
        }
        naps.sort { $0.start < $1.start }
        return naps
    }

    private func makeNight(
        rules: NightRules, candidate: Candidate, segments: [StageSegment], zone: ResolvedZone, wakeDay: LocalDate,
        inBedStarts: [Int64], source: String, setAsideSources: [String]
    ) -> Night {
        var stages = StageSeconds()
        var intervals: [TimeSpan] = []
        for segment in segments {
            let length = segment.span.duration
            switch segment.stage {
            case .deep: stages.deep += length
            case .rem: stages.rem += length
            case .core: stages.core += length
            default: stages.unspecified += length
            }
            if let last = intervals.last, last.end == segment.span.start {
                intervals[intervals.count - 1].end = segment.span.end
            } else {
                intervals.append(segment.span)
            }
        }
        var wakeUps = 0
        for index in intervals.indices.dropFirst()
        where intervals[index].start - intervals[index - 1].end >= rules.wakeUpMinimumSeconds {
            wakeUps += 1
        }
        let onset = candidate.onset
        let wake = candidate.wake
        let asleep = stages.total
        // Rule 6: the earliest in-bed start in [onset - lookback, onset].
        var latency: Int64?
        let earliest = Self.lowerBound(of: onset - rules.inBedLookbackSeconds, in: inBedStarts)
        if earliest < inBedStarts.count, inBedStarts[earliest] <= onset {
            latency = onset - inBedStarts[earliest]
        }
        let bedtime = onset - (latency ?? 0)
        let timeInBed = wake - bedtime
        return Night(
            wakeDay: wakeDay, timeZoneIdentifier: zone.identifier, bedtime: bedtime, onset: onset, wake: wake,
            asleepSeconds: asleep, timeInBedSeconds: timeInBed, awakeSeconds: (wake - onset) - asleep,
            wakeUps: wakeUps, latencySeconds: latency, stages: stages,
            efficiency: timeInBed > 0 ? min(1, Double(asleep) / Double(timeInBed)) : 0,
            hasStageData: 2 * (stages.core + stages.deep + stages.rem) >= asleep,
            source: source, fragmentCount: candidate.clusters.count, setAsideSources: setAsideSources,
            asleepIntervals: intervals, stageSegments: segments)
    }

    /// Total order on one source's pieces: start, end, stage rank, then the zone fields
    /// (so even samples that differ only in zone are ordered independently of input order).
    private static func precedes(_ a: Piece, _ b: Piece, _ samples: [SleepSample]) -> Bool {
        if a.start != b.start { return a.start < b.start }
        if a.end != b.end { return a.end < b.end }
        if a.rank != b.rank { return a.rank < b.rank }
        let x = samples[a.sampleIndex]
        let y = samples[b.sampleIndex]
        let xZone = x.timeZoneIdentifier ?? ""
        let yZone = y.timeZoneIdentifier ?? ""
        if xZone != yZone { return xZone < yZone }
        return (x.printedUTCOffset ?? Int32.min) < (y.printedUTCOffset ?? Int32.min)
    }

    /// First index whose value is at least `value`.
    static func lowerBound(of value: Int64, in sorted: [Int64]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
