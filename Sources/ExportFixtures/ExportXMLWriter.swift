public import SleepCore
import SleepFixtures

/// Writes an `export.xml` like the Health app's: DOCTYPE, `ExportDate`, `Me`, and the
/// given sleep samples between filler records of many other types (heart rate with
/// metadata, steps, energy, distance, the sleep-duration goal, blood-pressure
/// correlations whose nested records are repeated at top level, workouts, activity
/// summaries), all with Apple's escaped `device` text.
public enum ExportXMLWriter {
    /// Writes the document to `sink`. With ``ExportSpec/approximateXMLBytes`` set, filler
    /// records are spread evenly between the sleep records until the size is reached.
    public static func write(samples: [SleepSample], spec: ExportSpec, to sink: ByteSink) throws {
        var random = SplitMix64(seed: spec.seed)
        let offset = spec.exportUTCOffsetSeconds
        let exportInstant = (samples.map(\.end).max() ?? 1_700_000_000) + 86_400
        try sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        try sink.write(ExportDoctype.text(spec.doctypeStyle))
        try sink.write("<HealthData locale=\"\(escape(spec.locale))\">\n")
        try sink.write(
            " <ExportDate value=\"\(AppleDateText.format(exportInstant, utcOffsetSeconds: offset))\"/>\n")
        try sink.write(
            " <Me HKCharacteristicTypeIdentifierDateOfBirth=\"1988-04-12\" HKCharacteristicTypeIdentifierBiologicalSex=\"HKBiologicalSexFemale\" HKCharacteristicTypeIdentifierBloodType=\"HKBloodTypeNotSet\" HKCharacteristicTypeIdentifierFitzpatrickSkinType=\"HKFitzpatrickSkinTypeNotSet\" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse=\"None\"/>\n"
        )
        let startBytes = sink.bytesWritten
        let closing = "</HealthData>\n"
        let target = max(spec.approximateXMLBytes - Int64(closing.utf8.count), 0)
        var filler = FillerRecords(offset: offset)
        var clock = samples.first?.start ?? exportInstant - 86_400 * 30
        let slots = max(samples.count, 1)
        for slot in 0..<slots {
            if slot < samples.count {
                let sample = samples[slot]
                clock = sample.start
                try sink.write(sleepRecord(sample, offset: offset, random: &random))
            }
            let budget = startBytes + (target - startBytes) * Int64(slot + 1) / Int64(slots)
            var written = 0
            while sink.bytesWritten < budget || (spec.approximateXMLBytes == 0 && written < 3) {
                clock += Int64.random(in: 5...600, using: &random)
                try sink.write(filler.next(at: clock, random: &random))
                written += 1
            }
        }
        try sink.write(closing)
        try sink.flush()
    }

    /// The `value` attribute for a stage.
    public static func healthKitValue(_ stage: SleepStage) -> String {
        switch stage {
        case .inBed: return "HKCategoryValueSleepAnalysisInBed"
        case .asleepUnspecified: return "HKCategoryValueSleepAnalysisAsleepUnspecified"
        case .core: return "HKCategoryValueSleepAnalysisAsleepCore"
        case .deep: return "HKCategoryValueSleepAnalysisAsleepDeep"
        case .rem: return "HKCategoryValueSleepAnalysisAsleepREM"
        case .awake: return "HKCategoryValueSleepAnalysisAwake"
        }
    }

    static func sleepRecord(_ sample: SleepSample, offset: Int32, random: inout SplitMix64)
        -> String
    {
        let printed = sample.printedUTCOffset ?? offset
        let isWatch = sample.stage != .inBed
        let device =
            isWatch
            ? " sourceVersion=\"10.2\" device=\"\(FillerRecords.watchDevice(random: &random))\""
            : " sourceVersion=\"17.2.1\""
        var text =
            "  <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"\(escape(sample.source))\"\(device)"
        text += " creationDate=\"\(AppleDateText.format(sample.end + 600, utcOffsetSeconds: printed))\""
        text += " startDate=\"\(AppleDateText.format(sample.start, utcOffsetSeconds: printed))\""
        text += " endDate=\"\(AppleDateText.format(sample.end, utcOffsetSeconds: printed))\""
        text += " value=\"\(healthKitValue(sample.stage))\""
        if let zone = sample.timeZoneIdentifier {
            text += ">\n   <MetadataEntry key=\"HKTimeZone\" value=\"\(escape(zone))\"/>\n  </Record>\n"
        } else {
            text += "/>\n"
        }
        return text
    }

    /// Escapes text for a double-quoted attribute value.
    static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            default: output.append(character)
            }
        }
        return output
    }
}
