import SleepCore

/// Why a person's dashboard has no summary to show, which decides what the page tells
/// them to do next (the cases of LedgerServices' `SummaryService.Absence`, which the
/// wiring maps one to one).
public enum DashboardAbsence: String, Sendable, Hashable, CaseIterable {
    /// Nothing was ever computed for the person: nothing uploaded yet, or the first upload
    /// is still waiting for its import.
    case neverRolledUp
    /// Nothing was imported for the person.
    case noSamples
    /// Samples were imported but none formed a night (all too short, or naps only).
    case samplesWithoutNights
    /// Nights are stored but no summary of this horizon is yet.
    case noStoredSummary

    /// The page's heading.
    var heading: String {
        switch self {
        case .neverRolledUp, .noSamples: return "No sleep data yet"
        case .samplesWithoutNights: return "No night found in your data yet"
        case .noStoredSummary: return "Your summary is on its way"
        }
    }

    /// What happened, in a sentence or two; the night rules' figures where it names them.
    func explanation(nightRules: NightRules = .standard) -> String {
        switch self {
        case .neverRolledUp:
            return
                "Nothing has been computed for you yet. Your dashboard fills in a few seconds after your first "
                + "export is imported."
        case .noSamples:
            return "You have not uploaded any sleep yet. Send an export and your dashboard fills in within seconds."
        case .samplesWithoutNights:
            return
                "Your sleep samples formed no night: a night needs at least "
                + "\(WebFormat.hoursInWords(nightRules.mainSleepMinimumSeconds)) of sleep in one stretch (pieces "
                + "less than \(WebFormat.hoursInWords(nightRules.fragmentChainGapSeconds)) apart are joined), and shorter sleeps count as naps. An export from "
                + "a phone or watch that tracks your whole night fixes this."
        case .noStoredSummary:
            return
                "Your nights are stored, but the summary of this horizon has not been computed yet. It is "
                + "computed after your next import, or by the nightly rollup."
        }
    }

    /// Whether the next steps are about sending data (rather than waiting).
    var needsData: Bool { self != .noStoredSummary }
}
