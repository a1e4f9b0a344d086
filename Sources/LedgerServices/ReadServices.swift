// The read-only services and the basics (sessions, `ServiceError`, `UserService`,
// `SummaryService`, ...) are a target of their own so that `sleepledger-admin` links none of
// the importer, the password hashing or the server; every caller of the use cases imports
// `LedgerServices` and sees them too (docs/architecture.md).
@_exported public import LedgerReadServices
