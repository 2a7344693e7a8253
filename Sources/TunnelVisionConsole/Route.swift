/// What a request asks for, decided from its method and path alone. Only POST routes change
/// anything; a GET never does.
public enum Route: Sendable, Equatable {
    case home
    case loginPage
    case login
    case logout
    case statusText
    case projects
    case createProject
    case project(Int64)
    case allow(project: Int64)
    case disallow(project: Int64)
    case startRecording
    case session(Int64)
    case mark(session: Int64)
    case end(session: Int64)
    case events(session: Int64)
    case export(session: Int64)
    case diff(session: Int64)
    /// A closed recording's flows with the findings each is behind.
    case flows(session: Int64)
    case asset(Asset)
    /// What browsers ask for on their own: answered with nothing rather than an error page.
    case favicon
    /// A known path with the wrong method.
    case methodNotAllowed(allowed: String)
    case notFound

    public enum Asset: String, Sendable, CaseIterable {
        case script = "console.js"
        case style = "console.css"
    }

    /// Whether the route may be used before logging in.
    public var isPublic: Bool {
        switch self {
        case .loginPage, .login, .asset, .favicon, .notFound, .methodNotAllowed: true
        default: false
        }
    }

    public var changesState: Bool {
        switch self {
        case .login, .logout, .createProject, .allow, .disallow, .startRecording, .mark, .end, .export: true
        default: false
        }
    }

    public init(method: String, path: String) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let (gets, posts) = Self.candidates(segments)
        switch method {
        case "GET", "HEAD":
            if let gets { self = gets } else if posts != nil { self = .methodNotAllowed(allowed: "POST") } else { self = .notFound }
        case "POST":
            if let posts { self = posts } else if gets != nil { self = .methodNotAllowed(allowed: "GET, HEAD") } else { self = .notFound }
        default:
            self = gets != nil ? .methodNotAllowed(allowed: "GET, HEAD") : posts != nil ? .methodNotAllowed(allowed: "POST") : .notFound
        }
    }

    /// The GET and POST meanings of a path (either may be nil).
    private static func candidates(_ segments: [String]) -> (Route?, Route?) {
        switch segments.count {
        case 1:
            switch segments[0] {
            case "": return (.home, nil)
            case "login": return (.loginPage, .login)
            case "logout": return (nil, .logout)
            case "status": return (.statusText, nil)
            case "projects": return (.projects, .createProject)
            case "sessions": return (nil, .startRecording)
            case "favicon.ico": return (.favicon, nil)
            default: return (nil, nil)
            }
        case 2:
            switch segments[0] {
            case "assets": return (Asset(rawValue: segments[1]).map(Route.asset), nil)
            case "project": return (number(segments[1]).map(Route.project), nil)
            case "session": return (number(segments[1]).map(Route.session), nil)
            default: return (nil, nil)
            }
        case 3:
            guard let id = number(segments[1]) else { return (nil, nil) }
            switch (segments[0], segments[2]) {
            case ("project", "allow"): return (nil, .allow(project: id))
            case ("project", "disallow"): return (nil, .disallow(project: id))
            case ("session", "mark"): return (nil, .mark(session: id))
            case ("session", "end"): return (nil, .end(session: id))
            case ("session", "events"): return (.events(session: id), nil)
            case ("session", "export"): return (nil, .export(session: id))
            case ("session", "diff"): return (.diff(session: id), nil)
            case ("session", "flows"): return (.flows(session: id), nil)
            default: return (nil, nil)
            }
        default:
            return (nil, nil)
        }
    }

    /// A positive decimal id of at most 18 digits: no sign, no leading zero, nothing else.
    static func number(_ text: String) -> Int64? {
        guard !text.isEmpty, text.count <= 18, text.first != "0", text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int64(text)
    }
}
