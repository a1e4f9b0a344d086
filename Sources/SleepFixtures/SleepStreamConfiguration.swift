public import SleepCore

/// What a generated sample stream looks like. Every field has a realistic default; the
/// defaults give an Apple Watch with sleep stages, an iPhone writing fragmented InBed
/// records, an occasional third-party app without time zones, naps, missing nights,
/// Europe/Berlin daylight-saving changes and a week a year in Los Angeles.
public struct SleepStreamConfiguration: Sendable, Hashable {
    /// The user's home zone (also what the user configured). Default `Europe/Berlin`.
    public var homeTimeZoneIdentifier: String
    /// First name used in device source names ("Anna's Apple Watch"); user n > 0 gets
    /// " n" appended. Default "Anna".
    public var personName: String
    /// Source name of the third-party app (no `HKTimeZone`). Default "Garmin Connect".
    public var thirdPartySource: String
    /// The UTC offset the export prints on every record (the phone's offset at export
    /// time, in seconds); `nil` prints none. Default +02:00.
    public var printedUTCOffset: Int32?
    /// Mean in-bed time, in minutes after local midnight of the evening. Default 22:50.
    public var meanBedtimeMinutes: Int
    /// Standard deviation of the in-bed time in minutes. Default 40.
    public var bedtimeSpreadMinutes: Double
    /// How much later Friday and Saturday in-bed times are, in minutes. Default 70.
    public var weekendDelayMinutes: Int
    /// Mean sleep length from onset to wake, in hours. Default 7.3.
    public var meanSleepHours: Double
    /// Standard deviation of the sleep length in hours. Default 0.8.
    public var sleepSpreadHours: Double
    /// Probability that a night has no sample at all. Default 0.04.
    public var missingNightProbability: Double
    /// Probability that the watch is worn on a night (it then writes stages). Default 0.85.
    public var watchNightProbability: Double
    /// Probability that the iPhone writes InBed records on a night. Default 0.8.
    public var phoneNightProbability: Double
    /// Probability that the third-party app records a night. Default 0.12 (0.5 when the
    /// watch is not worn).
    public var thirdPartyNightProbability: Double
    /// Probability of an afternoon nap recorded by the watch. Default 0.08.
    public var napProbability: Double
    /// Probability that a night is broken by a long awake stretch (95-170 minutes), so
    /// it arrives as two fragments. Default 0.03.
    public var brokenNightProbability: Double
    /// Most phone pick-ups in one night (each splits the InBed record). Default 40.
    public var maximumPhonePickUps: Int
    /// Nights before this date carry unstaged (legacy `Asleep`) watch sleep; `nil` means
    /// staged throughout. Default `nil`.
    public var stagedSleepSince: LocalDate?
    /// Zone of the yearly trip; `nil` for none. Default `America/Los_Angeles`.
    public var yearlyTripTimeZoneIdentifier: String?
    /// Length of the yearly trip in nights. Default 7.
    public var yearlyTripNights: Int
    /// Further explicit stays away.
    public var travelStays: [TravelStay]

    /// Creates a configuration; see each field for its default.
    public init(
        homeTimeZoneIdentifier: String = "Europe/Berlin",
        personName: String = "Anna",
        thirdPartySource: String = "Garmin Connect",
        printedUTCOffset: Int32? = 7200,
        meanBedtimeMinutes: Int = 22 * 60 + 50,
        bedtimeSpreadMinutes: Double = 40,
        weekendDelayMinutes: Int = 70,
        meanSleepHours: Double = 7.3,
        sleepSpreadHours: Double = 0.8,
        missingNightProbability: Double = 0.04,
        watchNightProbability: Double = 0.85,
        phoneNightProbability: Double = 0.8,
        thirdPartyNightProbability: Double = 0.12,
        napProbability: Double = 0.08,
        brokenNightProbability: Double = 0.03,
        maximumPhonePickUps: Int = 40,
        stagedSleepSince: LocalDate? = nil,
        yearlyTripTimeZoneIdentifier: String? = "America/Los_Angeles",
        yearlyTripNights: Int = 7,
        travelStays: [TravelStay] = []
    ) {
        self.homeTimeZoneIdentifier = homeTimeZoneIdentifier
        self.personName = personName
        self.thirdPartySource = thirdPartySource
        self.printedUTCOffset = printedUTCOffset
        self.meanBedtimeMinutes = meanBedtimeMinutes
        self.bedtimeSpreadMinutes = bedtimeSpreadMinutes
        self.weekendDelayMinutes = weekendDelayMinutes
        self.meanSleepHours = meanSleepHours
        self.sleepSpreadHours = sleepSpreadHours
        self.missingNightProbability = missingNightProbability
        self.watchNightProbability = watchNightProbability
        self.phoneNightProbability = phoneNightProbability
        self.thirdPartyNightProbability = thirdPartyNightProbability
        self.napProbability = napProbability
        self.brokenNightProbability = brokenNightProbability
        self.maximumPhonePickUps = maximumPhonePickUps
        self.stagedSleepSince = stagedSleepSince
        self.yearlyTripTimeZoneIdentifier = yearlyTripTimeZoneIdentifier
        self.yearlyTripNights = yearlyTripNights
        self.travelStays = travelStays
    }
}
