import Foundation
import LedgerServices

/// A request body holding one JSON object, read with the rules every route shares: an
/// object (an empty body counts as `{}`), only the fields the route takes, each of the
/// type it expects; otherwise 400 `bad_body` with a message naming the field. The
/// `Content-Type` is not checked: JSON is the only body these routes take.
enum JSONBody {
    /// The refusal: the 400 response to send.
    struct Refusal: Error {
        let response: HTTPResponse

        init(_ message: String) {
            response = .error(400, code: "bad_body", message: message)
        }
    }

    /// The plan of a route that reads a JSON body: no query parameters, a body of at most
    /// ``ServerConfiguration/maximumBodyBytes`` (a larger declared length is 413 before any
    /// of it is read), then `answer` with its bytes.
    static func plan(_ context: RequestContext, _ answer: @escaping ([UInt8]) throws -> HTTPResponse) throws
        -> RequestPlan
    {
        _ = try context.query([])
        let limit = context.server.configuration.maximumBodyBytes
        if let length = context.request.contentLength, length > Int64(limit) {
            return .respond(.error(413, code: "too_large", message: "the body is larger than this route accepts"))
        }
        return .collect(limit: limit) { request in try answer(request.body) }
    }

    /// The body as `T`, refusing fields outside `fields` (the JSON names `T` decodes).
    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], fields: [String]) throws(Refusal) -> T {
        let data =
            body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) ? Data("{}".utf8) : Data(body)
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw Refusal("the body must be a JSON object, such as {\"\(fields.first ?? "name")\": ...}")
        }
        for name in object.keys.sorted() where !fields.contains(name) {
            throw Refusal("unknown field \(MessageText.quoted(name)); send any of \(fields.joined(separator: ", "))")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            // Name the field: the decoder's coding path is not always filled in (a number
            // out of range), so each field is tried alone (every field is optional).
            for name in object.keys.sorted() {
                guard let value = object[name],
                    let alone = try? JSONSerialization.data(withJSONObject: [name: value], options: [.fragmentsAllowed])
                else { continue }
                do {
                    _ = try JSONDecoder().decode(T.self, from: alone)
                } catch let DecodingError.typeMismatch(expected, _) {
                    throw Refusal(message(field: name, expected: expected))
                } catch let DecodingError.valueNotFound(expected, _) {
                    throw Refusal(message(field: name, expected: expected))
                } catch {
                    throw Refusal(message(field: name, expected: nil))
                }
            }
            throw Refusal("the body could not be read as the JSON this route takes")
        }
    }

    private static func message(field: String, expected: Any.Type?) -> String {
        let kind: String
        switch expected {
        case is String.Type: kind = "a string"
        case is Int64.Type, is Int.Type: kind = "a whole number"
        case is Bool.Type: kind = "true or false"
        default: return "field \(MessageText.quoted(field)) has a value out of range or of the wrong type"
        }
        return "field \(MessageText.quoted(field)) must be \(kind)"
    }
}
