public import Foundation

/// Swift values that convert to a ``SQLValue`` parameter.
public protocol SQLValueConvertible {
    /// The parameter value.
    var sqlValue: SQLValue { get }
}

extension String: SQLValueConvertible {
    /// `.text(self)`.
    public var sqlValue: SQLValue { .text(self) }
}

extension Int64: SQLValueConvertible {
    /// `.int64(self)`.
    public var sqlValue: SQLValue { .int64(self) }
}

extension Int: SQLValueConvertible {
    /// `.int(self)`.
    public var sqlValue: SQLValue { .int(self) }
}

extension Double: SQLValueConvertible {
    /// `.double(self)`.
    public var sqlValue: SQLValue { .double(self) }
}

extension Bool: SQLValueConvertible {
    /// `.bool(self)`.
    public var sqlValue: SQLValue { .bool(self) }
}

extension PostgresDate: SQLValueConvertible {
    /// `.date(self)`.
    public var sqlValue: SQLValue { .date(self) }
}

extension Data: SQLValueConvertible {
    /// `.bytes(self)`.
    public var sqlValue: SQLValue { .bytes(self) }
}
