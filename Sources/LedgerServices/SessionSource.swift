/// Where a service finds its database session for one call: a session of its own (the
/// command-line tools': every call uses it), or the server's ``SessionPool`` (each call
/// borrows one for its length and gives it back), so that no front end handles sessions.
public protocol SessionSource {
    /// Runs `body` with a session; what `body` throws is rethrown.
    func withSession<T>(_ body: (LedgerSession) throws -> T) throws -> T
}

extension LedgerSession: SessionSource {
    /// Runs `body` with this session.
    public func withSession<T>(_ body: (LedgerSession) throws -> T) throws -> T { try body(self) }
}
