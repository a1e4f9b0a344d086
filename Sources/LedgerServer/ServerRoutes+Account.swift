extension ServerRoutes {
    /// The caller's own data: account, summaries, nights, debt, charts and tokens.
    static let accountRoutes: [Route] = []
}
