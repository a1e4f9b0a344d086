import SleepCore
import SleepReports
import Testing
import WebPageFixtures

@testable import WebPages

/// The nights download: the admin tool's nights table (SleepReports' `NightsCSV`, whose
/// cells, formulas and controls SleepReportsTests checks), with its type and file name.
@Suite("Nights download")
struct NightsDownloadTests {
    @Test("the same table as the admin tool's, with a hostile source too; its type and file name")
    func download() throws {
        var nights = WebFixtures.windowNights(WebFixtures.rich(.weekly))
        #expect(!nights.isEmpty)
        #expect(NightsView.csv(nights) == NightsCSV.nights(nights, confidences: [:]).rendered)
        nights[0] = WebFixtures.hostileNight(nights[0])
        #expect(NightsView.csv(nights) == NightsCSV.nights(nights, confidences: [:]).rendered)
        #expect(NightsView.csv(nights).hasPrefix("wake_day,time_zone,"))
        #expect(NightsView.csvContentType == "text/csv; charset=utf-8")
        #expect(
            NightsView.csvFileName(from: LocalDate(year: 2025, month: 3, day: 1), to: WebFixtures.asOf)
                == "nights-2025-03-01-to-2025-03-16.csv")
    }
}
