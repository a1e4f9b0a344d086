import Foundation
import SleepCore
import SleepFixtures
import Testing

@testable import LedgerStore

@Suite("Streaming JSON encoder for summaries")
struct StreamingJSONEncoderTests {
    /// Summaries of every horizon over a generated history (watch stages, phone, naps,
    /// travel), as of several days, plus the summaries of a user with no nights.
    static func sampleSummaries() -> [Summary] {
        var summaries: [Summary] = []
        for seed: UInt64 in [3, 11] {
            let samples = SleepStreamGenerator(seed: seed).samples(
                forUser: Int(seed), from: LocalDate(year: 2023, month: 11, day: 1),
                through: LocalDate(year: 2024, month: 3, day: 10))
            let nights = NightBuilder().build(from: samples, userTimeZoneIdentifier: "Europe/Berlin").nights
            let builder = SummaryBuilder(nights: nights)
            for asOf in [LocalDate(year: 2024, month: 3, day: 11), LocalDate(year: 2024, month: 1, day: 2)] {
                summaries += builder.summaries(asOf: asOf)
            }
        }
        summaries += SummaryBuilder(nights: []).summaries(asOf: LocalDate(year: 2024, month: 3, day: 1))
        return summaries
    }

    @Test("every summary's JSON decodes back to the same Summary and equals JSONEncoder's JSON as a value")
    func sameAsFoundation() throws {
        let summaries = Self.sampleSummaries()
        #expect(summaries.count == 30)
        for summary in summaries {
            let streamed = try SummaryStore.jsonText(of: summary)
            let decoded = try JSONDecoder().decode(Summary.self, from: Data(streamed.utf8))
            #expect(decoded == summary)
            let foundation = try StreamingJSONEncoder.foundationText(of: summary)
            let streamedObject = try JSONSerialization.jsonObject(with: Data(streamed.utf8)) as? NSDictionary
            let foundationObject = try JSONSerialization.jsonObject(with: Data(foundation.utf8)) as? NSDictionary
            #expect(streamedObject != nil)
            #expect(streamedObject == foundationObject)
        }
    }

    @Test(
        "a person's need estimate and chronotype: decoded back the same, and JSONEncoder's JSON as a value",
        arguments: [UInt64(3), 11, 29])
    func personalEstimates(seed: UInt64) throws {
        let samples = SleepStreamGenerator(seed: seed).samples(
            forUser: Int(seed), from: LocalDate(year: 2023, month: 11, day: 1),
            through: LocalDate(year: 2024, month: 3, day: 10))
        let nights = NightBuilder().build(from: samples, userTimeZoneIdentifier: "Europe/Berlin").nights
        for asOf in [LocalDate(year: 2024, month: 3, day: 11), LocalDate(year: 2023, month: 11, day: 3)] {
            let need = SleepNeedEstimate.estimate(nights: nights, asOf: asOf)
            let chronotype = Chronotype.estimate(nights: nights, asOf: asOf)
            let needText = try StreamingJSONEncoder.text(of: need)
            let chronotypeText = try StreamingJSONEncoder.text(of: chronotype)
            #expect(try JSONDecoder().decode(SleepNeedEstimate.self, from: Data(needText.utf8)) == need)
            #expect(try JSONDecoder().decode(Chronotype.self, from: Data(chronotypeText.utf8)) == chronotype)
            for (streamed, foundation) in [
                (needText, try StreamingJSONEncoder.foundationText(of: need)),
                (chronotypeText, try StreamingJSONEncoder.foundationText(of: chronotype)),
            ] {
                let streamedObject = try JSONSerialization.jsonObject(with: Data(streamed.utf8)) as? NSDictionary
                let foundationObject = try JSONSerialization.jsonObject(with: Data(foundation.utf8)) as? NSDictionary
                #expect(streamedObject != nil && streamedObject == foundationObject, "\(streamed)")
            }
        }
    }

    struct Sample: Encodable {
        var text: String
        var ratio: Double
        var count: Int64
        var flag: Bool
        var missing: Int?
        var list: [Double]
        var nested: [String: [Int]]
        var day: LocalDate
    }

    @Test(
        "scalars are written as JSONEncoder writes them",
        arguments: [
            (0.1, "0.1"), (3.0, "3"), (-2.5, "-2.5"), (1e-05, "1e-05"), (123_456_789.125, "123456789.125"),
            (0.0, "0"),
        ])
    func scalars(value: Double, expected: String) throws {
        let sample = Sample(
            text: "a\"b\\c\nd\te\u{01}/é", ratio: value, count: -9_000_000_000, flag: true, missing: nil,
            list: [value], nested: ["k": [1, 2]], day: LocalDate(year: 2024, month: 2, day: 29))
        let text = String(decoding: try StreamingJSONEncoder().encode(sample), as: UTF8.self)
        let expectedText =
            #"{"text":"a\"b\\c\nd\te\u0001/é","ratio":\#(expected),"count":-9000000000,"flag":true,"#
            + #""list":[\#(expected)],"nested":{"k":[1,2]},"day":"2024-02-29"}"#
        #expect(text == expectedText)
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.withoutEscapingSlashes]
        let reference = try JSONSerialization.jsonObject(with: foundation.encode(sample)) as? NSDictionary
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary == reference)
    }

    @Test("integers at the ends of their ranges")
    func integers() throws {
        let signed = try StreamingJSONEncoder().encode([Int64.min, -1, 0, 7, Int64.max])
        #expect(String(decoding: signed, as: UTF8.self) == "[-9223372036854775808,-1,0,7,9223372036854775807]")
        let unsigned = try StreamingJSONEncoder().encode([UInt64.max, 0])
        #expect(String(decoding: unsigned, as: UTF8.self) == "[18446744073709551615,0]")
    }

    struct Nested: Encodable {
        enum Keys: CodingKey { case inner }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var inner = container.nestedUnkeyedContainer(forKey: .inner)
            try inner.encode(1)
        }
    }

    @Test("a nested container is refused (the caller falls back to JSONEncoder), non-finite numbers too")
    func refusals() {
        #expect(throws: StreamingJSONEncoder.Unsupported.self) { try StreamingJSONEncoder().encode(Nested()) }
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode([Double.nan]) }
    }

    struct Special: Encodable {
        var data: Data?
        var url: URL?
        var decimal: Decimal?
    }

    @Test("Data, URL and Decimal, which JSONEncoder writes its own way, are refused, nested or not")
    func foundationTypes() throws {
        let url = try #require(URL(string: "https://example.org/a"))
        for value in [Special(data: Data([1, 2])), Special(url: url), Special(decimal: Decimal(string: "1.5"))] {
            #expect(throws: StreamingJSONEncoder.Unsupported.self) { try StreamingJSONEncoder().encode(value) }
        }
        #expect(throws: StreamingJSONEncoder.Unsupported.self) { try StreamingJSONEncoder().encode([url]) }
        #expect(try StreamingJSONEncoder().encode(Special()) == Array("{}".utf8))
    }
}
