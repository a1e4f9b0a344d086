import Foundation
import SleepFixtures

/// Seeded, well-formed but hostile export.xml documents for the differential test of the
/// pre-filter: attribute values holding `>` and the sleep type name, both quote styles,
/// entity-encoded type names, tags spanning lines, comments / CDATA / processing
/// instructions holding fake sleep records, sleep records nested in `Correlation` and
/// `Workout`, look-alike element names, and metadata children.
struct AdversarialExport {
    /// The document with Apple's DTD.
    var withDoctype: String
    /// The same document without the DOCTYPE (what the reference parser reads).
    var withoutDoctype: String

    static let sleepType = "HKCategoryTypeIdentifierSleepAnalysis"

    init(seed: UInt64) {
        var generator = Generator(random: SplitMix64(seed: seed))
        let body = generator.document()
        let prolog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let beforeRoot = generator.pick([
            "", "<!-- prolog <Record type=\"\(Self.sleepType)\"/> -->\n", "<?app data?>\n",
        ])
        let doctype = """
            <!DOCTYPE HealthData [
            <!-- HealthKit Export Version: 3 ]> not the end -->
            <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>
            <!ATTLIST HealthData
              locale CDATA #REQUIRED
            >
            <!ATTLIST Record
              type          CDATA #REQUIRED
              value         CDATA #IMPLIED
            >
            ]>

            """
        withDoctype = prolog + beforeRoot + doctype + body
        withoutDoctype = prolog + beforeRoot + body
    }

    private struct Generator {
        var random: SplitMix64

        mutating func pick<T>(_ options: [T]) -> T {
            options[Int.random(in: 0..<options.count, using: &random)]
        }

        mutating func chance(_ percent: Int) -> Bool {
            Int.random(in: 0..<100, using: &random) < percent
        }

        mutating func space() -> String {
            pick([" ", " ", " ", "\n", "\n    ", "\t", "  \n\t "])
        }

        /// `name="value"` with a random quote, random spacing around `=` and escaping that
        /// keeps the document well-formed.
        mutating func attribute(_ name: String, _ value: String) -> String {
            let quote: Character = chance(50) ? "\"" : "'"
            var escaped = ""
            for character in value {
                switch character {
                case "&": escaped += "&amp;"
                case "<": escaped += "&lt;"
                case "\"" where quote == "\"": escaped += "&quot;"
                case "'" where quote == "'": escaped += "&apos;"
                case ">": escaped += chance(50) ? ">" : "&gt;"
                default: escaped.append(character)
                }
            }
            let equals = pick(["=", "=", " = ", "\n=\n"])
            return "\(name)\(equals)\(quote)\(escaped)\(quote)"
        }

        mutating func date() -> String {
            let day = Int.random(in: 1...28, using: &random)
            let hour = Int.random(in: 0...23, using: &random)
            let offset = pick(["+0100", "+0200", "-0700", "+0000"])
            return "2024-03-\(day < 10 ? "0" : "")\(day) \(hour < 10 ? "0" : "")\(hour):15:00 \(offset)"
        }

        mutating func trickyText() -> String {
            pick([
                "Watch", "Anna's \"Watch\"", "a > b", AdversarialExport.sleepType,
                "type=\"\(AdversarialExport.sleepType)\"", "x<y&z", "Ünïcödé ⌚",
                "<Record type='\(AdversarialExport.sleepType)'/>",
                "]]> --> ?>", "line\nbreak",
            ])
        }

        mutating func typeValueForSleep() -> String {
            pick([
                AdversarialExport.sleepType, AdversarialExport.sleepType, AdversarialExport.sleepType,
                "HKCategoryTypeIdentifierSleep&#65;nalysis", "&#x48;KCategoryTypeIdentifierSleepAnalysis",
            ])
        }

        mutating func sleepRecord(depth: Int) -> String {
            var attributes: [String] = []
            attributes.append("type=\"\(typeValueForSleep())\"")
            if !chance(5) { attributes.append(attribute("sourceName", trickyText())) }
            let start = date()
            let end = chance(8) ? start : (chance(5) ? "not a date" : date())
            attributes.append(attribute("startDate", start))
            attributes.append(attribute("endDate", end))
            let values = [
                "HKCategoryValueSleepAnalysisInBed", "HKCategoryValueSleepAnalysisAsleepCore",
                "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM",
                "HKCategoryValueSleepAnalysisAwake", "HKCategoryValueSleepAnalysisAsleep",
                "HKCategoryValueSleepAnalysisAsleepUnspecified", "HKCategoryValueSleepAnalysisBogus",
            ]
            attributes.append(attribute("value", pick(values)))
            if chance(50) {
                attributes.append(attribute("device", "<<HKDevice: 0x1>, name:Apple Watch>"))
            }
            if chance(30) { attributes.append(attribute("xtype", AdversarialExport.sleepType)) }
            if chance(30) { attributes.append(attribute("note", trickyText())) }
            attributes.shuffle(using: &random)
            var children = ""
            let childCount = Int.random(in: 0...3, using: &random)
            for _ in 0..<childCount {
                children += child(depth: depth + 1)
            }
            let open = "<Record" + attributes.map { space() + $0 }.joined() + (chance(30) ? space() : "")
            if children.isEmpty && chance(60) { return open + "/>" }
            return open + ">" + children + "</Record" + (chance(20) ? " " : "") + ">"
        }

        mutating func child(depth: Int) -> String {
            switch Int.random(in: 0..<6, using: &random) {
            case 0, 1:
                return space() + "<MetadataEntry " + attribute("key", "HKTimeZone") + " "
                    + attribute("value", pick(["Europe/Paris", "America/New_York", "Asia/Tokyo", ""])) + "/>"
            case 2:
                return space() + "<MetadataEntry " + attribute("key", "type") + " "
                    + attribute("value", AdversarialExport.sleepType) + "/>"
            case 3:
                return "<!-- <Record type=\"\(AdversarialExport.sleepType)\" sourceName=\"comment\"/> > -->"
            case 4:
                return
                    "<![CDATA[<Record type=\"\(AdversarialExport.sleepType)\"/> <MetadataEntry key=\"HKTimeZone\" value=\"X\"/>]]>"
            default: return " text > with > brackets "
            }
        }

        mutating func otherRecord() -> String {
            let type = pick([
                "HKQuantityTypeIdentifierHeartRate", "HKCategoryTypeIdentifierSleepAnalysisX",
                " \(AdversarialExport.sleepType)", "\(AdversarialExport.sleepType) ",
                "HKDataTypeSleepDurationGoal",
                "\(AdversarialExport.sleepType)&#10;",
            ])
            var attributes = [
                "type=\"\(type)\"", attribute("sourceName", trickyText()), attribute("startDate", date()),
                attribute("endDate", date()),
                attribute("value", chance(50) ? "72" : "HKCategoryValueSleepAnalysisInBed"),
            ]
            if chance(40) {
                attributes.append(attribute("comment", "type=\"\(AdversarialExport.sleepType)\" />"))
            }
            attributes.shuffle(using: &random)
            let open = "<Record" + attributes.map { space() + $0 }.joined()
            if chance(50) { return open + "/>" }
            return open + ">" + child(depth: 2) + "</Record>"
        }

        mutating func topLevelItem() -> String {
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<35: return sleepRecord(depth: 1)
            case 35..<60: return otherRecord()
            case 60..<66:
                var nested = ""
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    nested += space() + (chance(60) ? sleepRecord(depth: 2) : otherRecord())
                }
                return "<Correlation " + attribute("type", "HKCorrelationTypeIdentifierBloodPressure") + ">"
                    + space() + "<MetadataEntry key=\"HKTimeZone\" value=\"Europe/Oslo\"/>" + nested + space()
                    + "</Correlation>"
            case 66..<70:
                return "<Workout " + attribute("workoutActivityType", "HKWorkoutActivityTypeRunning") + ">"
                    + space()
                    + sleepRecord(depth: 2) + "<WorkoutEvent type=\"x\"/>" + "</Workout>"
            case 70..<76:
                return "<!-- " + sleepRecord(depth: 1).replacingOccurrences(of: "--", with: "- -") + " -->"
            case 76..<80:
                let record = sleepRecord(depth: 1)
                return "<![CDATA[" + record.replacingOccurrences(of: "]]>", with: "]] >") + "]]>"
            case 80..<84:
                let record = sleepRecord(depth: 1)
                return "<?fake " + record.replacingOccurrences(of: "?>", with: "? >") + " ?>"
            case 84..<88:
                let name = pick(["RecordX", "Records", "record", "ns:Record"])
                return
                    "<\(name) type=\"\(AdversarialExport.sleepType)\" sourceName=\"lookalike\" startDate=\"\(date())\" endDate=\"\(date())\" value=\"HKCategoryValueSleepAnalysisInBed\"/>"
            case 88..<92:
                return "<MetadataEntry key=\"HKTimeZone\" value=\"Top/Level\"/>"
            case 92..<96:
                return " stray > text &amp; more &gt; "
            default:
                return "<ActivitySummary " + attribute("dateComponents", "2024-03-01") + space() + "/>"
            }
        }

        mutating func document() -> String {
            var text =
                "<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-06-01 08:10:05 +0200\"/>\n"
            for _ in 0..<Int.random(in: 20...120, using: &random) {
                text += pick([" ", "\n ", "\n", ""]) + topLevelItem()
            }
            text += "\n</HealthData" + (chance(30) ? " " : "") + ">\n"
            if chance(50) {
                text += "<!-- after the root <Record type=\"\(AdversarialExport.sleepType)\"/> -->\n"
            }
            return text
        }
    }
}
