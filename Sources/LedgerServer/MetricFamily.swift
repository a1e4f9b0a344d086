/// One metric as Prometheus sees it at a scrape: a name, its help line, its type and one
/// value per set of label values. A plain value, built by ``MetricsRegistry`` from what was
/// recorded, or at scrape time from what is read then (queue depth, pool use); rendered by
/// ``PrometheusText``.
public struct MetricFamily: Sendable, Hashable {
    /// The Prometheus metric type.
    public enum Kind: String, Sendable, Hashable {
        /// Only goes up (restarts at zero with the process); names end in `_total`.
        case counter
        /// Goes up and down.
        case gauge
        /// Observations counted into cumulative buckets, with their sum and count.
        case histogram
    }

    /// Observations of one label set: how many fell into each bucket, their sum and count.
    public struct Histogram: Sendable, Hashable {
        /// Upper bounds of the buckets, ascending, without `+Inf`.
        public var upperBounds: [Double]
        /// Observations at most each upper bound (cumulative), one per bound.
        public var cumulativeCounts: [UInt64]
        /// The sum of every observation.
        public var sum: Double
        /// How many observations there were (the `+Inf` bucket).
        public var count: UInt64

        /// Creates a histogram value.
        public init(upperBounds: [Double], cumulativeCounts: [UInt64], sum: Double, count: UInt64) {
            self.upperBounds = upperBounds
            self.cumulativeCounts = cumulativeCounts
            self.sum = sum
            self.count = count
        }
    }

    /// The value of one label set.
    public enum Value: Sendable, Hashable {
        /// A counter's or a gauge's number.
        case number(Double)
        /// A histogram's buckets, sum and count.
        case histogram(Histogram)
    }

    /// One label set and its value.
    public struct Series: Sendable, Hashable {
        /// Label values in the order of ``MetricFamily/labelNames``.
        public var labelValues: [String]
        /// The value.
        public var value: Value

        /// Creates a series.
        public init(labelValues: [String] = [], value: Value) {
            self.labelValues = labelValues
            self.value = value
        }
    }

    /// The metric's name, such as `sleepledger_http_requests_total`.
    public var name: String
    /// One line saying what it measures, with its unit.
    public var help: String
    /// Its type.
    public var kind: Kind
    /// The names of its labels (never `le`, which histograms add).
    public var labelNames: [String]
    /// Its values, one per label set.
    public var series: [Series]

    /// Creates a family.
    public init(name: String, help: String, kind: Kind, labelNames: [String] = [], series: [Series] = []) {
        self.name = name
        self.help = help
        self.kind = kind
        self.labelNames = labelNames
        self.series = series
    }

    /// A gauge with one unlabelled value.
    public static func gauge(_ name: String, help: String, _ value: Double) -> MetricFamily {
        MetricFamily(name: name, help: help, kind: .gauge, series: [Series(value: .number(value))])
    }

    /// A counter with one unlabelled value (its name ends in `_total`).
    public static func counter(_ name: String, help: String, _ value: Double) -> MetricFamily {
        MetricFamily(name: name, help: help, kind: .counter, series: [Series(value: .number(value))])
    }
}
