/// The checks of a request head that libmicrohttpd 0.9.75 does not make (issue 20, F5):
/// a header name must be a token (no whitespace before its colon, which libmicrohttpd
/// keeps as part of the name), and the body's framing must be unambiguous (one
/// `Content-Length`, and not beside `Transfer-Encoding`). A missing `Host` on HTTP/1.1 is
/// refused by libmicrohttpd itself (`MHD_OPTION_STRICT_FOR_CLIENT`). Behind a proxy that
/// refuses these (Caddy does), they never arrive.
enum RequestHeadCheck {
    /// What is wrong with a head of headers `fields` (names as sent, values), in words for
    /// the client; `nil` when nothing is.
    static func problem(_ fields: [(name: String, value: String)]) -> String? {
        if let name = fields.first(where: { !isToken($0.name) })?.name {
            return name.contains(where: { $0 == " " || $0 == "\t" })
                ? "a header name has whitespace before its colon" : "a header name has characters a name cannot have"
        }
        let lengths = fields.filter { $0.name.lowercased() == "content-length" }
        if lengths.count > 1 { return "the request has more than one Content-Length" }
        if !lengths.isEmpty, fields.contains(where: { $0.name.lowercased() == "transfer-encoding" }) {
            return "the request has both Content-Length and Transfer-Encoding"
        }
        return nil
    }

    /// Whether `name` is an HTTP token (RFC 9110, section 5.6.2).
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    return true
                default:
                    return "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }
}
