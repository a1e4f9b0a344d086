import LedgerServices
import WebPages

/// The nights of a range: `GET /nights?from=&to=` (the last 30 days by default, at most
/// ``AccountService/maximumPageDays`` shown: a longer range shows its first 366 days and
/// says so) and `GET /nights.csv?from=&to=`, the whole range as the admin tool's CSV, read
/// in one snapshot, as a download.
enum NightsPage {
    static let routes: [Route] = [
        Route("GET", WebPaths.nights, access: .signedIn, readsFromReplica: true) { context in
            let (query, _) = try PageRendering.query(context, taking: ["from", "to"])
            let (first, last) = (try query.date("from"), try query.date("to"))
            let page = try context.account().nights(from: first, through: last, now: context.server.now())
            var notice: WebNotice?
            if page.last < page.requestedLast {
                notice = WebNotice(
                    .info,
                    "A page shows at most \(AccountService.maximumPageDays) days: these are \(page.first) "
                        + "through \(page.last). The CSV download has the whole range.")
            }
            let view = NightsView.page(
                nights: page.nights, from: page.first, to: page.requestedLast, confidences: page.confidences,
                notice: notice)
            return .respond(PageRendering.personal(view, try context.requireVisitor(), handle: page.user.handle))
        },
        Route("GET", WebPaths.nightsCSV, access: .signedIn, readsFromReplica: true) { context in
            let (query, _) = try PageRendering.query(context, taking: ["from", "to"])
            let (first, last) = (try query.date("from"), try query.date("to"))
            let range = try context.account().allNights(from: first, through: last, now: context.server.now())
            let name = NightsView.csvFileName(from: range.first, to: range.last)
            return .respond(
                HTTPResponse(
                    status: 200,
                    headers: [
                        .init("Content-Type", NightsView.csvContentType),
                        .init("Content-Disposition", "attachment; filename=\"\(name)\""),
                        .init("Cache-Control", "no-store"),
                    ] + HTTPResponse.pageSecurityHeaders,
                    body: Array(NightsView.csv(range.nights, confidences: range.confidences).utf8)))
        },
    ]
}
