/// What the routes made of a request whose head arrived: the plan, the template of the
/// route its path matched (for logs and metrics; `nil` when none did), and, for a request
/// without a valid credential that holds the server past its head (a body to read, work
/// after it), the answer it gets when too many such requests are in progress
/// (``ServerConfiguration/maximumAnonymousRequests``).
public struct RoutedRequest {
    /// What to do with the request.
    public var plan: RequestPlan
    /// The matched route's template.
    public var template: String?
    /// The answer when the server holds too many requests without an account; `nil` for a
    /// request that never counts (a caller was found, or it is answered from its head).
    public var refusalWhenBusy: HTTPResponse?

    /// Creates a routed request.
    public init(plan: RequestPlan, template: String?, refusalWhenBusy: HTTPResponse? = nil) {
        self.plan = plan
        self.template = template
        self.refusalWhenBusy = refusalWhenBusy
    }
}
