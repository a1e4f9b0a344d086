import SleepCore

/// A hand-made week for the charts and the debt series, with figures worked out from
/// docs/sleep-rules.md ("Sleep debt", "Horizons and buckets") against the default goals
/// (target 8 h, minimum 7 h):
///
/// | wake day | asleep | shortfall | net | below 7 h | cumulative |
/// |---|---|---|---|---|---|
/// | 2025-03-11 | 6h | 2h | -2h | yes | 2h |
/// | 2025-03-12 | 7h 30m | 30m | -30m | no | 2h 30m |
/// | 2025-03-13 | none | 0 | 0 | no | 2h 30m |
/// | 2025-03-14 | 9h | 0 | +1h | no | 2h 30m |
/// | 2025-03-15, 16 | none | 0 | 0 | no | 2h 30m |
/// | 2025-03-17 | 5h | 3h | -3h | yes | 5h 30m |
///
/// Debt 5h 30m over 4 nights (critical: above 5 h), net -4h 30m.
enum ReportFixtures {
    static let asOf = LocalDate(year: 2025, month: 3, day: 17)
    static let days = (11...17).map { LocalDate(year: 2025, month: 3, day: $0) }
    static let asleep: [LocalDate: Int64] = [
        days[0]: 6 * 3600, days[1]: 7 * 3600 + 1800, days[3]: 9 * 3600, days[6]: 5 * 3600,
    ]
    /// Per day of the week: shortfall, net balance, tracked nights, average asleep, below
    /// minimum, cumulative debt.
    static let expectedBuckets: [(Int64, Int64, Int, Int64?, Bool, Int64)] = [
        (7_200, -7_200, 1, 21_600, true, 7_200), (1_800, -1_800, 1, 27_000, false, 9_000),
        (0, 0, 0, nil, false, 9_000), (0, 3_600, 1, 32_400, false, 9_000), (0, 0, 0, nil, false, 9_000),
        (0, 0, 0, nil, false, 9_000), (10_800, -10_800, 1, 18_000, true, 19_800),
    ]

    /// A night in UTC waking on `day`: in bed at 22:50 the evening before, asleep at 23:00,
    /// the first half Core and the second Deep, awake at the end of its sleep.
    static func night(_ day: LocalDate, asleep: Int64, source: String = "Watch") -> Night {
        let midnight = Int64(day.daysSinceEpoch) * 86_400
        let onset = midnight - 3_600
        let bedtime = onset - 600
        let wake = onset + asleep
        let half = asleep / 2
        return Night(
            wakeDay: day, timeZoneIdentifier: "UTC", bedtime: bedtime, onset: onset, wake: wake,
            asleepSeconds: asleep, timeInBedSeconds: wake - bedtime, awakeSeconds: 0, wakeUps: 0, latencySeconds: 600,
            stages: StageSeconds(deep: asleep - half, core: half), efficiency: Double(asleep) / Double(wake - bedtime),
            hasStageData: true, source: source, fragmentCount: 1, setAsideSources: [],
            asleepIntervals: [TimeSpan(start: onset, end: wake)],
            stageSegments: [
                StageSegment(stage: .core, span: TimeSpan(start: onset, end: onset + half)),
                StageSegment(stage: .deep, span: TimeSpan(start: onset + half, end: wake)),
            ])
    }

    static let nights = days.compactMap { day in asleep[day].map { night(day, asleep: $0) } }

    static func summary(_ horizon: Horizon = .weekly) -> Summary {
        SummaryBuilder(nights: nights).summary(horizon: horizon, asOf: asOf)
    }
}
