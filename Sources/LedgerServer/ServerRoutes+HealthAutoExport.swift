extension ServerRoutes {
    /// Samples pushed by the Health Auto Export app.
    static let healthAutoExportRoutes: [Route] = []
}
