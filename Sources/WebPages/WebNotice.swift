/// A message at the top of a page: what a form post did, or why it was refused.
public struct WebNotice: Sendable, Hashable {
    /// How the message reads.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Something worked.
        case success
        /// Something to know.
        case info
        /// Something was refused or failed.
        case error
    }

    /// How it reads.
    public var kind: Kind
    /// The message: plain text, escaped when shown.
    public var message: String

    /// A notice of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The markup: a status region people and screen readers notice (`role="alert"` for
    /// errors).
    var html: HTML {
        let role = kind == .error ? "alert" : "status"
        return "<p class=\"notice notice-\(kind.rawValue)\" role=\"\(role)\">\(message)</p>\n"
    }
}

extension Optional where Wrapped == WebNotice {
    /// The notice's markup, or nothing.
    var html: HTML { self?.html ?? .empty }
}
