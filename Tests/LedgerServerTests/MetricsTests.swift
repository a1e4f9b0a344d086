import EmbeddedPostgres
import Foundation
import LedgerReadServices
import LedgerServer
import LedgerStore
import Testing

/// The metrics without sockets: the text format, the registry, the server's labels and
/// the metrics route.
@Suite("Metrics: Prometheus text, registry, route templates")
struct MetricsTests {
    @Test(
        "label values escape backslash, double quote and line feed; nothing else",
        arguments: [
            ("plain", "plain"), (#"a\b"#, #"a\\b"#), (#"say "hi""#, #"say \"hi\""#), ("two\nlines", #"two\nlines"#),
            ("tab\tand é", "tab\tand é"), (#"\"#, #"\\"#),
        ])
    func labelEscaping(value: String, escaped: String) {
        #expect(PrometheusText.escapeLabelValue(value) == escaped)
    }

    @Test(
        "numbers: whole numbers without a fraction, infinities and NaN as the format spells them",
        arguments: [
            (0.0, "0"), (1.0, "1"), (2.5, "2.5"), (0.005, "0.005"), (-3.0, "-3"), (1e20, "1e+20"),
            (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"), (Double.nan, "NaN"),
        ])
    func numbers(value: Double, text: String) {
        #expect(PrometheusText.number(value) == text)
    }

    @Test("a counter and a gauge render HELP, TYPE and one line per label set; help escapes")
    func countersAndGauges() {
        let text = PrometheusText.render([
            MetricFamily(
                name: "x_requests_total", help: "Requests\nby \\ route", kind: .counter,
                labelNames: ["route", "status"],
                series: [
                    .init(labelValues: ["/a/{id}", "200"], value: .number(3)),
                    .init(labelValues: ["say \"x\"", "404"], value: .number(1)),
                ]),
            .gauge("x_up", help: "Up", 1),
        ])
        #expect(
            text == """
                # HELP x_requests_total Requests\\nby \\\\ route
                # TYPE x_requests_total counter
                x_requests_total{route="/a/{id}",status="200"} 3
                x_requests_total{route="say \\"x\\"",status="404"} 1
                # HELP x_up Up
                # TYPE x_up gauge
                x_up 1

                """)
    }

    @Test("a histogram: cumulative _bucket lines ending with le=\"+Inf\", then _sum and _count")
    func histogram() {
        let registry = MetricsRegistry([
            .histogram("x_duration_seconds", help: "Durations", labels: ["route"], buckets: [1, 0.1, 0.5])
        ])
        let metric = registry.metrics[0]
        #expect(metric.buckets == [0.1, 0.5, 1])
        for value in [0.05, 0.1, 0.3, 0.7, 2.0, 30.0] { registry.observe(value, in: metric, labels: ["/a"]) }
        let text = PrometheusText.render(registry.snapshot())
        #expect(
            text == """
                # HELP x_duration_seconds Durations
                # TYPE x_duration_seconds histogram
                x_duration_seconds_bucket{route="/a",le="0.1"} 2
                x_duration_seconds_bucket{route="/a",le="0.5"} 3
                x_duration_seconds_bucket{route="/a",le="1"} 4
                x_duration_seconds_bucket{route="/a",le="+Inf"} 6
                x_duration_seconds_sum{route="/a"} 33.15
                x_duration_seconds_count{route="/a"} 6

                """)
    }

    @Test("unlabelled metrics show 0 before anything is recorded; labelled ones show no series")
    func emptyMetrics() {
        let registry = MetricsRegistry([
            .counter("x_total", help: "X"), .counter("y_total", help: "Y", labels: ["kind"]),
            .histogram("z_seconds", help: "Z", buckets: [1]),
        ])
        #expect(
            PrometheusText.render(registry.snapshot()) == """
                # HELP x_total X
                # TYPE x_total counter
                x_total 0
                # HELP y_total Y
                # TYPE y_total counter
                # HELP z_seconds Z
                # TYPE z_seconds histogram
                z_seconds_bucket{le="1"} 0
                z_seconds_bucket{le="+Inf"} 0
                z_seconds_sum 0
                z_seconds_count 0

                """)
    }

    @Test(
        "the registry counts every update from many threads, one by one or a count with an observation together; gauges keep the last value; negative adds are ignored"
    )
    func concurrency() {
        let counter = MetricsRegistry.Metric.counter("c_total", help: "C", labels: ["n"])
        let histogram = MetricsRegistry.Metric.histogram("h_seconds", help: "H", buckets: [0.5])
        let gauge = MetricsRegistry.Metric.gauge("g", help: "G")
        let registry = MetricsRegistry([counter, histogram, gauge])
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            for step in 0..<1000 {
                let value = step % 2 == 0 ? 0.25 : 1
                if index < 4 {
                    registry.add(to: counter, labels: [String(index % 2)])
                    registry.observe(value, in: histogram)
                } else {
                    registry.count(counter, labels: [String(index % 2)], observing: value, in: histogram, labels: [])
                }
            }
        }
        registry.add(-5, to: counter, labels: ["0"])
        registry.set(7, gauge)
        registry.set(3, gauge)
        let families = registry.snapshot()
        #expect(families[0].series.map(\.value) == [.number(4000), .number(4000)])
        guard case .histogram(let observed) = families[1].series.first?.value else {
            Issue.record("no histogram")
            return
        }
        #expect(observed.cumulativeCounts == [4000] && observed.count == 8000 && observed.sum == 5000)
        #expect(families[2].series.map(\.value) == [.number(3)])
    }

    @Test(
        "requests are labelled with the route's template, never the raw path; unknown paths are unmatched",
        arguments: [
            ("/healthz", "/healthz"), ("/api/v1/imports", "/api/v1/imports"),
            ("/api/v1/imports/7", "/api/v1/imports/{id}"), ("/api/v1/imports/not-a-number", "/api/v1/imports/{id}"),
            ("/api/v1/me", "/api/v1/me"), ("/", "/"), ("/sign-in", "/sign-in"), ("/api/v1/imports/7/x", nil),
            ("/wp-login.php", nil),
        ] as [(String, String?)])
    func routeTemplates(path: String, template: String?) {
        #expect(Router(routes: ServerRoutes.table).match(method: "GET", path: path).template == template)
    }

    @Test("the server's metrics: methods outside the known ones are 'other', no answer is status 'none'")
    func serverLabels() throws {
        let metrics = ServerMetrics(version: "9.9.9", startTime: 1_700_000_000)
        metrics.recordRequest(route: "/api/v1/imports/{id}", method: "GET", status: 200, seconds: 0.02)
        metrics.recordRequest(route: nil, method: "BREW", status: 404, seconds: 0.001)
        metrics.recordRequest(route: "/api/v1/imports", method: "POST", status: nil, seconds: 3)
        metrics.recordUploadBytes(route: "/api/v1/imports", count: 1000)
        metrics.recordJob(state: .done, seconds: 1.5)
        metrics.recordJob(state: .queued, seconds: 60)
        metrics.recordRollup(succeeded: true, seconds: 0.2)
        let live = ServerMetrics.Live(
            queue: .init(queued: 4, running: 1, oldestQueuedSeconds: 12.5), poolInUse: 1, poolOpen: 3, poolCapacity: 64,
            requestsInFlight: 2, workers: 2, busyWorkers: 1)
        let text = PrometheusText.render(metrics.families(live: live))
        for line in [
            #"sleepledger_http_requests_total{route="/api/v1/imports/{id}",method="GET",status="200"} 1"#,
            #"sleepledger_http_requests_total{route="unmatched",method="other",status="404"} 1"#,
            #"sleepledger_http_requests_total{route="/api/v1/imports",method="POST",status="none"} 1"#,
            #"sleepledger_http_request_duration_seconds_bucket{route="/api/v1/imports",le="+Inf"} 1"#,
            #"sleepledger_http_upload_bytes_total{route="/api/v1/imports"} 1000"#,
            #"sleepledger_import_jobs_total{outcome="done"} 1"#, #"sleepledger_import_jobs_total{outcome="failed"} 0"#,
            #"sleepledger_import_jobs_total{outcome="requeued"} 1"#, "sleepledger_import_duration_seconds_count 1",
            #"sleepledger_rollups_total{outcome="succeeded"} 1"#, "sleepledger_rollup_duration_seconds_sum 0.2",
            "sleepledger_database_up 1", #"sleepledger_import_queue_jobs{state="queued"} 4"#,
            "sleepledger_import_queue_oldest_age_seconds 12.5", "sleepledger_database_pool_sessions_in_use 1",
            "sleepledger_database_pool_sessions_capacity 64", "sleepledger_http_requests_in_flight 2",
            #"sleepledger_build_info{version="9.9.9"} 1"#, "sleepledger_start_time_seconds 1700000000",
        ] {
            #expect(text.split(separator: "\n").contains { $0 == line }, "missing \(line)")
        }
        let down = PrometheusText.render(
            metrics.families(
                live: .init(
                    queue: nil, poolInUse: 0, poolOpen: 0, poolCapacity: 1, requestsInFlight: 0, workers: 0,
                    busyWorkers: 0)))
        #expect(down.contains("sleepledger_database_up 0\n"))
        #expect(!down.contains("sleepledger_import_queue_jobs{"))
    }

    @Test("backup metrics: archiving from pg_stat_archiver, backups from db backup's status file, none when not read")
    func backupMetrics() {
        let metrics = ServerMetrics(version: "9.9.9", startTime: 1_700_000_000)
        let record = BackupRecord(
            label: "20261206-081340F", type: .full, startedAt: 1_796_544_820, stoppedAt: 1_796_544_827,
            databaseBytes: 30_000_000, repositoryBytes: 3_773_440)
        let good = BackupStatus.Run(type: .full, startedAt: 1_796_544_819, endedAt: 1_796_544_829, record: record)
        let failed = BackupStatus.Run(
            type: .diff, startedAt: 1_796_600_000, endedAt: 1_796_600_005, failure: "disk full")
        let health = BackupHealth(
            isSetUp: true,
            archiver: ArchiverStatus(
                archiveMode: "on", archivedCount: 7, lastArchivedAt: 1_796_544_900,
                lastArchivedWAL: "0000000100000000000000AB",
                failedCount: 2, lastFailedAt: 1_796_545_000, lastFailedWAL: "0000000100000000000000AC"),
            status: BackupStatus(lastAttempt: failed, lastSuccess: good, lastFullSuccess: good))
        let live = ServerMetrics.Live(
            queue: nil, poolInUse: 0, poolOpen: 0, poolCapacity: 1, requestsInFlight: 0, workers: 0, busyWorkers: 0,
            backups: health)
        let lines = PrometheusText.render(metrics.families(live: live)).split(separator: "\n")
        for line in [
            "sleepledger_wal_archiving_enabled 1", "sleepledger_wal_archived_segments_total 7",
            "sleepledger_wal_archive_failures_total 2", "sleepledger_wal_last_archived_timestamp_seconds 1796544900",
            "sleepledger_wal_last_failure_timestamp_seconds 1796545000",
            "sleepledger_backup_last_success_timestamp_seconds 1796544827",
            "sleepledger_backup_last_full_success_timestamp_seconds 1796544827", "sleepledger_backup_last_run_failed 1",
            "sleepledger_backup_last_duration_seconds 10", "sleepledger_backup_last_repository_bytes 3773440",
        ] {
            #expect(lines.contains { $0 == line }, "missing \(line)")
        }
        #expect(!health.archiver!.isWorking)
        let none = PrometheusText.render(
            metrics.families(
                live: .init(
                    queue: nil, poolInUse: 0, poolOpen: 0, poolCapacity: 1, requestsInFlight: 0, workers: 0,
                    busyWorkers: 0)))
        #expect(!none.contains("sleepledger_wal_") && !none.contains("sleepledger_backup_"))
    }

    @Test(
        "the metrics route: GET and HEAD /metrics answer the exposition; other methods 405; other paths 404",
        arguments: [("GET", "/metrics", 200), ("HEAD", "/metrics", 200), ("POST", "/metrics", 405), ("GET", "/", 404)]
    )
    func metricsRoute(method: String, path: String, status: Int) throws {
        let routes = MetricsRoutes { [.gauge("x_up", help: "Up", 1)] }
        guard case .respond(let response) = routes.plan(HTTPRequest(method: method, path: path)) else {
            Issue.record("the metrics route reads no body")
            return
        }
        #expect(response.status == status)
        if status == 200 {
            #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            #expect(String(decoding: response.body, as: UTF8.self).hasSuffix("x_up 1\n"))
        }
        if status == 405 { #expect(response.header("Allow") == "GET") }
    }
}
