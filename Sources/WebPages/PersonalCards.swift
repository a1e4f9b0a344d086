public import SleepCore
import SleepReports

/// The dashboard's cards of issue 24: the person's own need with its interval and how it
/// was found, chronotype with its night counts and today's sleep-pressure curve, and how
/// far the window's nights can be trusted (a mark per night and for the window). Each says
/// in a plain sentence when the data are too thin.
public struct PersonalCards: Sendable, Hashable {
    /// The need estimate.
    public var need: SleepNeedEstimate
    /// Chronotype, or why it is undefined.
    public var chronotype: Chronotype
    /// The window's confidence.
    public var confidence: ConfidenceSummary
    /// Each night's confidence in the window, by wake day.
    public var nightConfidence: [LocalDate: NightConfidence]
    /// Today's pressure curve; `nil` without chronotype.
    public var pressure: SleepPressureCurve?
    /// What the person's debt is measured against.
    public var target: SleepTarget

    /// Creates the cards' values.
    public init(
        need: SleepNeedEstimate, chronotype: Chronotype, confidence: ConfidenceSummary,
        nightConfidence: [LocalDate: NightConfidence], pressure: SleepPressureCurve?, target: SleepTarget
    ) {
        self.need = need
        self.chronotype = chronotype
        self.confidence = confidence
        self.nightConfidence = nightConfidence
        self.pressure = pressure
        self.target = target
    }

    /// The three cards.
    var html: HTML { needCard + bodyClockCard + confidenceCard }

    var needCard: HTML {
        var card: HTML = """
            <section class="card need" aria-labelledby="need-heading">
            <h2 id="need-heading">Your sleep need</h2>
            <p class="figure"><span class="big">\(ReportFormat.hours(need.needSeconds))</span> \
            <span class="unit">a night</span></p>
            <p>80 % interval: \(ReportFormat.hours(need.lowSeconds)) to \(ReportFormat.hours(need.highSeconds)).</p>

            """
        switch need.method {
        case .recoveryRun:
            card +=
                "<p>Found from a run of \(need.nightsUsed) free nights in a row, as sleep settles back to what you need.</p>\n"
        case .freeNights:
            card +=
                "<p>Found from \(need.nightsUsed) free nights; sleep after short work nights runs long, so the interval is wide.</p>\n"
        case .prior:
            card +=
                "<p class=\"thin\">Too few nights to estimate your own need (\(need.tooFewNightsReason ?? "")): this is the average adult's need.</p>\n"
        }
        if need.method != .prior, let hidden = need.hiddenDebtSeconds, hidden > 0 {
            card += "<p>Your work nights run \(ReportFormat.hours(hidden)) short of it on average.</p>\n"
        }
        card +=
            target == .estimatedNeed
            ? "<p>Your debt is measured against this need (settings).</p>\n"
            : "<p>Your debt is measured against the target you set, not this estimate.</p>\n"
        return card + "</section>\n"
    }

    var bodyClockCard: HTML {
        var card: HTML = """
            <section class="card body-clock" aria-labelledby="body-clock-heading">
            <h2 id="body-clock-heading">Body clock</h2>

            """
        if let msfsc = chronotype.msfscSeconds {
            card += """
                <p class="figure"><span class="big">\(PersonalText.clock(msfsc))</span> \
                <span class="unit">mid-sleep on free days</span></p>
                <p>Corrected for catch-up sleep, from \(chronotype.freeNights) free and \
                \(chronotype.workNights) work nights of the last 42 days.</p>

                """
        } else {
            card += "<p class=\"thin\">No chronotype yet: \(chronotype.undefinedReason ?? "").</p>\n"
        }
        if let pressure {
            card += """
                <h3>Sleep pressure today</h3>
                \(InlineChart.figure(
                    PressureChart.svg(pressure),
                    caption: "Relative, from your nights and body clock: higher is sleepier. The shaded hour is your "
                        + "evening window, \(PersonalText.clock(pressure.eveningWindowStartSeconds)) to "
                        + "\(PersonalText.clock(pressure.eveningWindowEndSeconds)). Not a prediction of how you will perform.",
                    kind: "pressure"))
                """
        } else {
            card += "<p>Today's sleep-pressure curve needs your chronotype.</p>\n"
        }
        return card + "</section>\n"
    }

    var confidenceCard: HTML {
        var card: HTML = """
            <section class="card confidence" aria-labelledby="confidence-heading">
            <h2 id="confidence-heading">How far these nights can be trusted</h2>

            """
        if let mark = confidence.mark {
            card += """
                <p class="figure">\(WebFormat.mark(mark)) \
                <span class="unit">\(PersonalText.confidence(confidence))</span></p>

                """
            if confidence.isSmallSample {
                card += "<p class=\"thin\">With so few nights, spreads and averages can mislead.</p>\n"
            }
            let nights = nightConfidence.sorted { $0.key > $1.key }.prefix(14)
            card += "<ul class=\"night-marks\">\n"
            for (day, night) in nights {
                card +=
                    "<li>\(WebFormat.mark(night.mark)) \(WebFormat.weekday(day)) \(day.description): \(PersonalText.decimal(night.value))</li>\n"
            }
            card += "</ul>\n"
        } else {
            card +=
                "<p class=\"thin\">No night of this window has a confidence yet: it is computed by the next rollup.</p>\n"
        }
        card += "<p>Shown only: debt, score and patterns never use it.</p>\n"
        return card + "</section>\n"
    }
}
