import Synchronization

/// The metrics a process records as it runs: counters, gauges and histograms by label
/// values, safe to update from any thread (one `Mutex`), read as ``MetricFamily`` values
/// at a scrape. It holds numbers only; what they mean is ``ServerMetrics``'s.
public final class MetricsRegistry: Sendable {
    /// What one metric is: name, help, type, label names and, for a histogram, buckets.
    public struct Metric: Sendable, Hashable {
        /// The name, such as `sleepledger_http_requests_total`.
        public let name: String
        /// One line saying what it measures, with its unit.
        public let help: String
        /// Counter, gauge or histogram.
        public let kind: MetricFamily.Kind
        /// The names of its labels.
        public let labelNames: [String]
        /// A histogram's bucket upper bounds, ascending (without `+Inf`); empty otherwise.
        public let buckets: [Double]

        /// A counter (only goes up).
        public static func counter(_ name: String, help: String, labels: [String] = []) -> Metric {
            Metric(name: name, help: help, kind: .counter, labelNames: labels, buckets: [])
        }

        /// A gauge (set to the current value).
        public static func gauge(_ name: String, help: String, labels: [String] = []) -> Metric {
            Metric(name: name, help: help, kind: .gauge, labelNames: labels, buckets: [])
        }

        /// A histogram with `buckets` (upper bounds, sorted here).
        public static func histogram(_ name: String, help: String, labels: [String] = [], buckets: [Double])
            -> Metric
        {
            Metric(name: name, help: help, kind: .histogram, labelNames: labels, buckets: buckets.sorted())
        }
    }

    /// Observations of one label set of a histogram: per-bucket (not cumulative) counts,
    /// the overflow past the last bound, the sum.
    struct Observations: Sendable {
        var counts: [UInt64]
        var overflow: UInt64 = 0
        var sum: Double = 0

        init(bucketCount: Int) { counts = Array(repeating: 0, count: bucketCount) }

        /// Counts `value` in bucket `index` (`nil`: past the last bound).
        mutating func record(_ value: Double, bucket index: Int?) {
            if let index { counts[index] += 1 } else { overflow += 1 }
            sum += value
        }
    }

    struct Storage: Sendable {
        var numbers: [String: [[String]: Double]] = [:]
        var histograms: [String: [[String]: Observations]] = [:]
    }

    /// The metrics, in the order they are rendered.
    public let metrics: [Metric]
    private let storage = Mutex(Storage())

    /// A registry of `metrics`; nothing recorded yet.
    public init(_ metrics: [Metric]) {
        self.metrics = metrics
    }

    /// Adds `amount` (not negative) to a counter's label set; 0 makes the series appear.
    public func add(_ amount: Double = 1, to metric: Metric, labels: [String] = []) {
        guard amount >= 0 else { return }
        storage.withLock { $0.numbers[metric.name, default: [:]][labels, default: 0] += amount }
    }

    /// Sets a gauge's label set to `value`.
    public func set(_ value: Double, _ metric: Metric, labels: [String] = []) {
        storage.withLock { $0.numbers[metric.name, default: [:]][labels] = value }
    }

    /// Records one observation of a histogram: the first bucket whose bound is at least
    /// `value` counts it (`le` means "less than or equal").
    public func observe(_ value: Double, in metric: Metric, labels: [String] = []) {
        let index = metric.buckets.firstIndex { value <= $0 }
        storage.withLock { storage in
            storage.histograms[metric.name, default: [:]][
                labels, default: Observations(bucketCount: metric.buckets.count)
            ].record(value, bucket: index)
        }
    }

    /// Adds 1 to `counter`'s label set `counterLabels` and records `value` in
    /// `histogram`'s label set `histogramLabels`, under one lock: what the server does
    /// after every request, from many threads at once.
    public func count(
        _ counter: Metric, labels counterLabels: [String], observing value: Double, in histogram: Metric,
        labels histogramLabels: [String]
    ) {
        let index = histogram.buckets.firstIndex { value <= $0 }
        storage.withLock { storage in
            storage.numbers[counter.name, default: [:]][counterLabels, default: 0] += 1
            storage.histograms[histogram.name, default: [:]][
                histogramLabels, default: Observations(bucketCount: histogram.buckets.count)
            ].record(value, bucket: index)
        }
    }

    /// Every metric with what was recorded, series sorted by label values; a metric
    /// without labels and without records shows 0 (an empty histogram for histograms).
    public func snapshot() -> [MetricFamily] {
        let storage = storage.withLock { $0 }
        return metrics.map { metric in
            var series: [MetricFamily.Series] = []
            switch metric.kind {
            case .counter, .gauge:
                var values = storage.numbers[metric.name] ?? [:]
                if values.isEmpty, metric.labelNames.isEmpty { values[[]] = 0 }
                series = values.map { MetricFamily.Series(labelValues: $0.key, value: .number($0.value)) }
            case .histogram:
                var observed = storage.histograms[metric.name] ?? [:]
                if observed.isEmpty, metric.labelNames.isEmpty {
                    observed[[]] = Observations(bucketCount: metric.buckets.count)
                }
                series = observed.map { labels, observations in
                    var running: UInt64 = 0
                    let cumulative = observations.counts.map { count in
                        running += count
                        return running
                    }
                    return MetricFamily.Series(
                        labelValues: labels,
                        value: .histogram(
                            MetricFamily.Histogram(
                                upperBounds: metric.buckets, cumulativeCounts: cumulative, sum: observations.sum,
                                count: running + observations.overflow)))
                }
            }
            series.sort { $0.labelValues.lexicographicallyPrecedes($1.labelValues) }
            return MetricFamily(
                name: metric.name, help: metric.help, kind: metric.kind, labelNames: metric.labelNames, series: series)
        }
    }
}
