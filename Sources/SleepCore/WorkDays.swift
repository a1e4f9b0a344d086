/// The days a person works (a per-person setting, issue 24): a set of ISO weekdays, stored
/// as a bit mask with Monday as bit 0. A night's day is its wake day; the other days are
/// free days. The default, Monday to Friday, makes Saturday and Sunday the free days, as
/// the Somnus social jet lag and the mid-sleep jet lag always read them.
public struct WorkDays: Sendable, Hashable, Codable {
    /// Bit `weekday - 1` is set for each ISO weekday (1 = Monday ... 7 = Sunday) worked.
    public var mask: Int

    /// Creates the set from a mask; bits beyond Sunday are dropped.
    public init(mask: Int) {
        self.mask = mask & 0x7F
    }

    /// Creates the set from ISO weekdays (1 = Monday ... 7 = Sunday); others are ignored.
    public init(isoWeekdays: some Sequence<Int>) {
        var mask = 0
        for day in isoWeekdays where (1...7).contains(day) { mask |= 1 << (day - 1) }
        self.init(mask: mask)
    }

    /// Monday to Friday, the default.
    public static let mondayToFriday = WorkDays(mask: 0x1F)

    /// Whether `day`'s weekday is a work day.
    public func isWorkDay(_ day: LocalDate) -> Bool { mask & (1 << (day.isoWeekday - 1)) != 0 }

    /// The ISO weekdays worked, ascending.
    public var isoWeekdays: [Int] { (1...7).filter { mask & (1 << ($0 - 1)) != 0 } }

    /// Number of work days in a week (0-7): the w of the MCTQ's week average.
    public var count: Int { isoWeekdays.count }

    /// Encodes as the list of ISO weekdays.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(isoWeekdays)
    }

    /// Decodes from a list of ISO weekdays.
    public init(from decoder: any Decoder) throws {
        self.init(isoWeekdays: try decoder.singleValueContainer().decode([Int].self))
    }
}
