import Foundation

/// Who is logged in: a random session id (the cookie) with its CSRF token and the one message
/// the next page shows (what a POST did, said after its redirect). Sessions end when idle for
/// `idleLimit` (a login form's after `formIdleLimit`), at logout, or when the table is full and
/// they are the oldest — a login form's first, so that anyone who can load the login page
/// cannot push a logged-in technician out.
public struct LoginSessions: Sendable {
    public struct Session: Sendable, Equatable {
        public let id: String
        public let csrfToken: String
        /// False for the session of a login form, which only carries the form's token.
        public let authenticated: Bool
        public var lastSeen: Date
        public var message: Message?
    }

    /// What a change did, shown once on the next page: done, or refused with tvctl's sentence.
    public struct Message: Sendable, Equatable {
        public let text: String
        public let refused: Bool

        public init(_ text: String, refused: Bool) {
            self.text = text
            self.refused = refused
        }
    }

    public static let idleLimit: TimeInterval = 12 * 3600
    public static let formIdleLimit: TimeInterval = 600
    public static let capacity = 64
    private var sessions: [String: Session] = [:]

    public init() {}

    /// A new session; nil only without randomness.
    public mutating func open(at now: Date, authenticated: Bool) -> Session? {
        guard let id = Secrets.token(), let csrf = Secrets.token() else { return nil }
        expire(at: now)
        if sessions.count >= Self.capacity {
            let forms = sessions.values.filter { !$0.authenticated }
            if let oldest = (forms.isEmpty ? Array(sessions.values) : forms).min(by: { $0.lastSeen < $1.lastSeen }) {
                sessions[oldest.id] = nil
            }
        }
        let session = Session(id: id, csrfToken: csrf, authenticated: authenticated, lastSeen: now, message: nil)
        sessions[id] = session
        return session
    }

    /// The session a cookie names, kept alive; nil when there is none (or it went idle).
    public mutating func find(_ id: String, at now: Date) -> Session? {
        guard var session = sessions[id] else { return nil }
        guard now.timeIntervalSince(session.lastSeen) <= Self.limit(of: session) else {
            sessions[id] = nil
            return nil
        }
        session.lastSeen = now
        sessions[id] = session
        return session
    }

    public mutating func close(_ id: String) { sessions[id] = nil }

    public mutating func leave(_ message: Message, for id: String) { sessions[id]?.message = message }

    /// The message left for the next page, taken so that it shows once.
    public mutating func takeMessage(for id: String) -> Message? {
        defer { sessions[id]?.message = nil }
        return sessions[id]?.message
    }

    private mutating func expire(at now: Date) {
        sessions = sessions.filter { now.timeIntervalSince($0.value.lastSeen) <= Self.limit(of: $0.value) }
    }

    private static func limit(of session: Session) -> TimeInterval {
        session.authenticated ? idleLimit : formIdleLimit
    }
}

/// A POST is accepted only with the token of the session that sent it, in the form itself: a
/// page of another site can make the browser send the cookie, never read the token.
public enum CSRFCheck {
    public static let fieldName = "csrf"

    public static func accepts(_ form: Form, session: LoginSessions.Session) -> Bool {
        guard let given = form[fieldName] else { return false }
        return Secrets.same(given, session.csrfToken)
    }
}
