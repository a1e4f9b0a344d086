public import LedgerStore
public import SleepCore

/// What issue 24 shows beside a summary: the need estimate and chronotype as of a day, and
/// the confidence of the nights of a window (each night's and their aggregate).
public struct PersonalResults: Sendable, Hashable, Encodable {
    /// The day the estimates are as of.
    public var asOf: LocalDate
    /// The need estimate (the prior with its reason when there are too few nights).
    public var need: SleepNeedEstimate
    /// The chronotype, or why it is undefined.
    public var chronotype: Chronotype
    /// The confidence of the window's nights that have one, by wake day.
    public var nightConfidence: [LocalDate: NightConfidence]
    /// Their aggregate: night count, mean, low nights, small-sample flag.
    public var confidence: ConfidenceSummary

    /// Creates a value.
    public init(
        asOf: LocalDate, need: SleepNeedEstimate, chronotype: Chronotype, nightConfidence: [LocalDate: NightConfidence],
        confidence: ConfidenceSummary
    ) {
        self.asOf = asOf
        self.need = need
        self.chronotype = chronotype
        self.nightConfidence = nightConfidence
        self.confidence = confidence
    }

    enum CodingKeys: String, CodingKey {
        case asOf = "as_of"
        case need
        case chronotype
        case confidence
        case nightConfidence = "night_confidence"
    }

    /// Encodes the per-night confidence keyed by wake day (`YYYY-MM-DD`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(asOf, forKey: .asOf)
        try container.encode(need, forKey: .need)
        try container.encode(chronotype, forKey: .chronotype)
        try container.encode(confidence, forKey: .confidence)
        try container.encode(
            Dictionary(uniqueKeysWithValues: nightConfidence.map { ($0.key.description, $0.value) }),
            forKey: .nightConfidence)
    }
}

extension SummaryService {
    /// The personal results of `user` as of `asOf` with the confidence of the nights waking
    /// in `window`: the rollup's stored estimates when they are as of that day and of the
    /// current rules, else computed from the stored nights through the same SleepCore
    /// functions.
    public func personal(for user: User, asOf: LocalDate, window: WakeDayRange) throws(ServiceError)
        -> PersonalResults
    {
        try SupportedDates.check(asOf, "the as-of day")
        return try ServiceError.wrapping {
            let nights = NightStore(connection: session.connection)
            let confidences = try nights.confidences(userID: user.id, from: window.first, through: window.last)
            var need: SleepNeedEstimate
            var chronotype: Chronotype
            if let stored = try PersonalEstimateStore(connection: session.connection).read(userID: user.id),
                stored.asOf == asOf, stored.rulesVersion == PersonalSleepRules.version
            {
                (need, chronotype) = (stored.need, stored.chronotype)
            } else {
                let range = LookBack.personalNights(asOf: asOf)
                let recent = try nights.nights(
                    userID: user.id, from: range.first, through: range.last, segmentsFrom: asOf)
                need = SleepNeedEstimate.estimate(nights: recent, asOf: asOf, workDays: user.goals.workDays)
                chronotype = Chronotype.estimate(nights: recent, asOf: asOf, workDays: user.goals.workDays)
            }
            return PersonalResults(
                asOf: asOf, need: need, chronotype: chronotype, nightConfidence: confidences,
                confidence: ConfidenceSummary(confidences.values.map(\.value)))
        }
    }

    /// Each stored night's confidence waking from `first` through `last`, by wake day.
    public func confidences(for user: User, from first: LocalDate? = nil, through last: LocalDate? = nil)
        throws(ServiceError) -> [LocalDate: NightConfidence]
    {
        try ServiceError.wrapping {
            try NightStore(connection: session.connection).confidences(userID: user.id, from: first, through: last)
        }
    }
}
