import Foundation

/// One request as the console reads it: never more than `HTTPLimits` allow.
public struct HTTPRequest: Sendable {
    public let method: String
    public let path: String
    public let query: Form
    /// Header names in lower case.
    public let headers: [String: String]
    public let body: [UInt8]
    /// The client's address, as text: what the login throttle and the journal name.
    public let client: String

    public init(method: String, path: String, query: Form = Form(fields: []), headers: [String: String] = [:], body: [UInt8] = [], client: String = "") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.client = client
    }

    /// The login session's id from the Cookie header.
    public var sessionCookie: String? {
        guard let header = headers["cookie"] else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0] == HTTPResponse.cookieName { return pair[1] }
        }
        return nil
    }

    /// The body as a form; nil when it is not one.
    public var form: Form? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        return Form(encoded: text)
    }
}

/// What the console answers: a status, headers, and a body of bytes, a stream or a file.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// Server-Sent Events: `next` blocks until it has text to send, nil ends the stream;
        /// `finished` is called once when the stream is over (ended, or the client left).
        case stream(next: @Sendable () -> String?, finished: @Sendable () -> Void)
        /// A file sent and then removed (an exported bundle in a private folder).
        case file(path: String, size: UInt64, removeFolder: String)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body

    public static let cookieName = "tvconsole"

    /// Every answer forbids inline script, framing, sniffing and caching; only this origin is used.
    public static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
    ]

    public init(status: Int, headers: [(String, String)] = [], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func html(_ page: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: .bytes(Array(page.utf8)))
    }

    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: .bytes(Array(text.utf8)))
    }

    /// After a POST, to a path the console built itself (never one the request named).
    public static func redirect(to route: String) -> HTTPResponse {
        HTTPResponse(status: 303, headers: [("Location", route)], body: .bytes([]))
    }

    /// The login cookie: not readable by script, only over TLS (when TLS is on), never sent from another site.
    public static func sessionCookie(_ id: String, secure: Bool) -> (String, String) {
        ("Set-Cookie", "\(cookieName)=\(id); Path=/; HttpOnly;\(secure ? " Secure;" : "") SameSite=Strict")
    }

    public static func clearedCookie(secure: Bool) -> (String, String) {
        ("Set-Cookie", "\(cookieName)=; Path=/; Max-Age=0; HttpOnly;\(secure ? " Secure;" : "") SameSite=Strict")
    }
}

/// The bounds of a request: what is larger is refused unread.
public enum HTTPLimits {
    /// A form of the console is a few hundred bytes; notes are at most 4096.
    public static let body = 64 * 1024
    /// Request line and headers together (libmicrohttpd's connection memory).
    public static let connectionMemory = 32 * 1024
    public static let connections: UInt32 = 64
    public static let connectionsPerAddress: UInt32 = 32
    /// A client that sends nothing for this long is dropped.
    public static let idleSeconds: UInt32 = 30
}
