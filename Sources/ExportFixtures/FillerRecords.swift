import SleepFixtures

/// Filler records of other types, in the proportions of a typical Watch wearer's export.
struct FillerRecords {
    let offset: Int32

    static func watchDevice(random: inout SplitMix64) -> String {
        let pointer = String(
            UInt64.random(in: 0x2_8000_0000...0x3_0FFF_FFFF, using: &random), radix: 16)
        return
            "&lt;&lt;HKDevice: 0x\(pointer)&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.2&gt;"
    }

    private func date(_ instant: Int64) -> String {
        AppleDateText.format(instant, utcOffsetSeconds: offset)
    }

    private func quantity(
        _ type: String, source: String, device: String?, unit: String, start: Int64, end: Int64,
        value: String,
        metadata: [(String, String)] = [], indent: String = "  "
    ) -> String {
        var text = "\(indent)<Record type=\"\(type)\" sourceName=\"\(source)\" sourceVersion=\"10.2\""
        if let device { text += " device=\"\(device)\"" }
        text +=
            " unit=\"\(unit)\" creationDate=\"\(date(end + 30))\" startDate=\"\(date(start))\" endDate=\"\(date(end))\" value=\"\(value)\""
        if metadata.isEmpty { return text + "/>\n" }
        text += ">\n"
        for (key, value) in metadata {
            text += "\(indent) <MetadataEntry key=\"\(key)\" value=\"\(value)\"/>\n"
        }
        return text + "\(indent)</Record>\n"
    }

    mutating func next(at instant: Int64, random: inout SplitMix64) -> String {
        let watch = "Anna’s Apple Watch"
        let phone = "Anna’s iPhone"
        let roll = Int.random(in: 0..<1000, using: &random)
        switch roll {
        case 0..<420:
            return quantity(
                "HKQuantityTypeIdentifierHeartRate", source: watch,
                device: Self.watchDevice(random: &random),
                unit: "count/min", start: instant, end: instant,
                value: String(Int.random(in: 48...150, using: &random)),
                metadata: [
                    ("HKMetadataKeyHeartRateMotionContext", String(Int.random(in: 0...2, using: &random)))
                ])
        case 420..<620:
            return quantity(
                "HKQuantityTypeIdentifierStepCount", source: phone, device: nil, unit: "count",
                start: instant,
                end: instant + 300, value: String(Int.random(in: 1...900, using: &random)))
        case 620..<820:
            return quantity(
                "HKQuantityTypeIdentifierActiveEnergyBurned", source: watch,
                device: Self.watchDevice(random: &random),
                unit: "kcal", start: instant, end: instant + 60,
                value: String(Double(Int.random(in: 1...900, using: &random)) / 100))
        case 820..<900:
            return quantity(
                "HKQuantityTypeIdentifierBasalEnergyBurned", source: watch,
                device: Self.watchDevice(random: &random),
                unit: "kcal", start: instant, end: instant + 900,
                value: String(Double(Int.random(in: 100...2000, using: &random)) / 100))
        case 900..<960:
            return quantity(
                "HKQuantityTypeIdentifierDistanceWalkingRunning", source: phone, device: nil, unit: "km",
                start: instant, end: instant + 120,
                value: String(Double(Int.random(in: 1...500, using: &random)) / 1000))
        case 960..<965:
            return
                "  <Record type=\"HKDataTypeSleepDurationGoal\" sourceName=\"Health\" sourceVersion=\"17.2.1\" unit=\"hr\" creationDate=\"\(date(instant))\" startDate=\"\(date(instant))\" endDate=\"\(date(instant))\" value=\"8\"/>\n"
        case 965..<980:
            // Blood pressure: the correlation with its nested records, then the same
            // records at top level, as Apple writes them.
            let systolic = String(Int.random(in: 100...140, using: &random))
            let diastolic = String(Int.random(in: 60...90, using: &random))
            let cuff = "Withings"
            let nested =
                quantity(
                    "HKQuantityTypeIdentifierBloodPressureSystolic", source: cuff, device: nil, unit: "mmHg",
                    start: instant, end: instant, value: systolic, indent: "   ")
                + quantity(
                    "HKQuantityTypeIdentifierBloodPressureDiastolic", source: cuff, device: nil, unit: "mmHg",
                    start: instant, end: instant, value: diastolic, indent: "   ")
            return
                "  <Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" sourceName=\"\(cuff)\" sourceVersion=\"6.3\" creationDate=\"\(date(instant))\" startDate=\"\(date(instant))\" endDate=\"\(date(instant))\">\n   <MetadataEntry key=\"HKWasUserEntered\" value=\"0\"/>\n"
                + nested + "  </Correlation>\n"
                + quantity(
                    "HKQuantityTypeIdentifierBloodPressureSystolic", source: cuff, device: nil, unit: "mmHg",
                    start: instant, end: instant, value: systolic)
                + quantity(
                    "HKQuantityTypeIdentifierBloodPressureDiastolic", source: cuff, device: nil, unit: "mmHg",
                    start: instant, end: instant, value: diastolic)
        case 980..<990:
            let minutes = Int.random(in: 15...90, using: &random)
            return
                "  <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"\(minutes)\" durationUnit=\"min\" sourceName=\"\(watch)\" sourceVersion=\"10.2\" device=\"\(Self.watchDevice(random: &random))\" creationDate=\"\(date(instant + Int64(minutes) * 60))\" startDate=\"\(date(instant))\" endDate=\"\(date(instant + Int64(minutes) * 60))\">\n   <MetadataEntry key=\"HKTimeZone\" value=\"Europe/Amsterdam\"/>\n   <MetadataEntry key=\"HKWeatherTemperature\" value=\"56 degF\"/>\n   <WorkoutEvent type=\"HKWorkoutEventTypeSegment\" date=\"\(date(instant))\" duration=\"5\" durationUnit=\"min\"/>\n   <WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" startDate=\"\(date(instant))\" endDate=\"\(date(instant + Int64(minutes) * 60))\" average=\"141\" minimum=\"98\" maximum=\"171\" unit=\"count/min\"/>\n  </Workout>\n"
        default:
            let dateComponents = AppleDateText.formatDay(instant)
            return
                "  <ActivitySummary dateComponents=\"\(dateComponents)\" activeEnergyBurned=\"\(Int.random(in: 100...900, using: &random))\" activeEnergyBurnedGoal=\"500\" activeEnergyBurnedUnit=\"kcal\" appleMoveTime=\"0\" appleMoveTimeGoal=\"0\" appleExerciseTime=\"\(Int.random(in: 0...90, using: &random))\" appleExerciseTimeGoal=\"30\" appleStandHours=\"\(Int.random(in: 2...16, using: &random))\" appleStandHoursGoal=\"12\"/>\n"
        }
    }
}
