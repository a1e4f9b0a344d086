/// What to do with a request whose head has arrived: answer now, or read its body first
/// and answer then. A step that fails throws; the error rendering middleware turns what
/// it throws into an answer, now or once the body arrived.
public enum RequestPlan {
    /// Answer now; the body (if any) is not read.
    case respond(HTTPResponse)
    /// Read a body of at most `limit` bytes into memory, then answer.
    case collect(limit: Int, (HTTPRequest) throws -> HTTPResponse)
    /// Read a form body of at most `limit` bytes into ``HTTPRequest/form`` (through
    /// libmicrohttpd's post processor), then answer.
    case form(limit: Int, (HTTPRequest) throws -> HTTPResponse)
    /// Stream the body into the receiver, then answer with `finish`.
    case upload(UploadReceiver, finish: (UploadReceiver) throws -> HTTPResponse)

    /// Whether the answer is known from the head (the body, if any, is not read).
    var isAnsweredFromHead: Bool {
        if case .respond = self { return true }
        return false
    }

    /// The same plan with its answer, now or once the body arrived, passed through `change`.
    func mapAnswer(_ change: @escaping (HTTPResponse) -> HTTPResponse) -> RequestPlan {
        switch self {
        case .respond(let response): return .respond(change(response))
        case .collect(let limit, let answer): return .collect(limit: limit) { change(try answer($0)) }
        case .form(let limit, let answer): return .form(limit: limit) { change(try answer($0)) }
        case .upload(let receiver, let finish): return .upload(receiver) { change(try finish($0)) }
        }
    }

    /// The same plan whose later steps answer with `render` when they throw.
    func rescuing(_ render: @escaping (any Error) -> HTTPResponse) -> RequestPlan {
        func safely<Input>(_ step: @escaping (Input) throws -> HTTPResponse) -> (Input) -> HTTPResponse {
            { input in
                do { return try step(input) } catch { return render(error) }
            }
        }
        switch self {
        case .respond: return self
        case .collect(let limit, let answer): return .collect(limit: limit, safely(answer))
        case .form(let limit, let answer): return .form(limit: limit, safely(answer))
        case .upload(let receiver, let finish):
            return .upload(receiver) { receiver in
                do { return try finish(receiver) } catch {
                    receiver.abandon()
                    return render(error)
                }
            }
        }
    }
}
