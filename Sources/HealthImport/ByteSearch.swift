import Foundation

/// Small helpers over raw bytes for the scanners: `memchr`-based searches and literal
/// comparisons, so the hot loops never touch bytes one Swift iteration at a time where
/// libc can do it faster.
enum ByteSearch {
    /// Index of the first `byte` in `buffer[from..<to]`.
    @inline(__always)
    static func first(_ byte: UInt8, in buffer: UnsafeRawBufferPointer, from: Int, to: Int) -> Int? {
        guard from < to, let base = buffer.baseAddress else { return nil }
        guard let found = memchr(base + from, Int32(byte), to - from) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// Index of the first occurrence of `pattern` in `buffer[from..<to]`.
    static func first(_ pattern: [UInt8], in buffer: UnsafeRawBufferPointer, from: Int, to: Int)
        -> Int?
    {
        guard let lead = pattern.first else { return from }
        var index = from
        while let candidate = first(lead, in: buffer, from: index, to: to - pattern.count + 1) {
            var isMatch = true
            for offset in 1..<pattern.count where buffer[candidate + offset] != pattern[offset] {
                isMatch = false
                break
            }
            if isMatch { return candidate }
            index = candidate + 1
        }
        return nil
    }

    /// Whether `buffer[at...]` starts with `literal`; `nil` when too few bytes are
    /// available to tell.
    @inline(__always)
    static func hasPrefix(_ literal: [UInt8], in buffer: UnsafeRawBufferPointer, at index: Int)
        -> Bool?
    {
        let available = buffer.count - index
        for offset in 0..<min(available, literal.count) where buffer[index + offset] != literal[offset] {
            return false
        }
        return available >= literal.count ? true : nil
    }

    /// Whether `buffer[range]` equals `literal`.
    @inline(__always)
    static func equals(_ literal: [UInt8], in buffer: UnsafeRawBufferPointer, from: Int, to: Int)
        -> Bool
    {
        guard to - from == literal.count else { return false }
        for offset in 0..<literal.count where buffer[from + offset] != literal[offset] {
            return false
        }
        return true
    }

    /// Whether `buffer[first]` and `buffer[second]` hold the same bytes.
    @inline(__always)
    static func equalBytes(in buffer: UnsafeRawBufferPointer, _ first: Range<Int>, _ second: Range<Int>) -> Bool {
        guard first.count == second.count else { return false }
        guard !first.isEmpty, let base = buffer.baseAddress else { return true }
        return memcmp(base + first.lowerBound, base + second.lowerBound, first.count) == 0
    }

    /// Number of line feeds in `buffer[from..<to]` (`memchr` hops: export lines are
    /// long enough that this beats a byte loop).
    static func countNewlines(in buffer: UnsafeRawBufferPointer, from: Int, to: Int) -> Int {
        var total = 0
        var index = from
        while let found = first(0x0A, in: buffer, from: index, to: to) {
            total += 1
            index = found + 1
        }
        return total
    }

    /// Whether a byte is XML white space.
    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }
}
