import Foundation
import TunnelVisionControl

/// The console: a request in, an answer out. Logging in, the CSRF check and the routing are
/// here; what a page shows and what a form does are tvctl's commands (`CommandRunner`).
public final class ConsoleApp: @unchecked Sendable {
    let runner: CommandRunner
    let library: ControlLibrary
    let feed: FlowFeed
    /// A closed recording's findings and its flows with theirs, each assessed once for as long
    /// as nothing they were made from changes.
    let keptFindings: ClosedRecordingKeeper<CommandRunner.Outcome>
    let keptFlows: ClosedRecordingKeeper<LiveFlows.Opening>
    let password: ConsolePassword
    /// Whether the cookie may say Secure (only over TLS, or the browser would never send it back).
    let secure: Bool
    /// Where an export is written before it is sent (a private folder per export).
    let exportDirectory: String
    let log: @Sendable (String) -> Void
    let clock: @Sendable () -> Date
    private let lock = NSLock()
    /// One password check at a time: each takes scrypt's 32 MiB, and many at once would be a
    /// way to exhaust the gateway's memory.
    private let hashing = NSLock()
    private var sessions = LoginSessions()
    private var throttle = LoginThrottle()

    public init(
        runner: CommandRunner, password: ConsolePassword, secure: Bool, exportDirectory: String,
        log: @escaping @Sendable (String) -> Void, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.runner = runner
        library = ControlLibrary(location: DatabaseLocation(path: runner.database))
        feed = FlowFeed(library: library)
        keptFindings = ClosedRecordingKeeper(library: library)
        keptFlows = ClosedRecordingKeeper(library: library)
        self.password = password
        self.secure = secure
        self.exportDirectory = exportDirectory
        self.log = log
        self.clock = clock
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let route = Route(method: request.method, path: request.path)
        let now = clock()
        if case .asset(let asset) = route { return Assets.response(asset) }
        if route == .favicon { return HTTPResponse(status: 204, body: .bytes([])) }
        if case .methodNotAllowed(let allowed) = route {
            var response = HTTPResponse.text(Wording.consoleNotFound + "\n", status: 405)
            response.headers.append(("Allow", allowed))
            return response
        }
        let session = request.sessionCookie.flatMap { id in locked { sessions.find(id, at: now) } }
        let authenticated = session?.authenticated == true
        if route == .notFound {
            return .html(Pages(csrfToken: session?.csrfToken ?? "", message: nil).problem(Wording.consoleNotFound, title: "Not found"), status: 404)
        }
        if route.changesState {
            // Checked before anything else is read: a POST without this session's token does nothing.
            guard let session, let form = request.form, CSRFCheck.accepts(form, session: session) else {
                log(Wording.consoleLogForgedPost(path: request.path, client: request.client))
                return .html(Pages(csrfToken: "", message: nil).problem(Wording.consoleFormExpired), status: 403)
            }
            if route == .login { return login(form, session: session, client: request.client, now: now) }
            guard authenticated else { return .redirect(to: "/login") }
            return change(route, form: form, session: session, request: request, now: now)
        }
        if route == .loginPage { return loginPage(session: session, now: now) }
        guard let session, authenticated else { return .redirect(to: "/login") }
        let pages = Pages(csrfToken: session.csrfToken, message: locked { sessions.takeMessage(for: session.id) })
        return show(route, pages: pages, request: request)
    }

    func locked<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    // MARK: Logging in

    private func loginPage(session: LoginSessions.Session?, now: Date) -> HTTPResponse {
        if let session {
            return .html(Pages(csrfToken: session.csrfToken, message: nil).login(message: nil))
        }
        // Even the login form carries a token: a session that is not logged in yet.
        guard let opened = locked({ sessions.open(at: now, authenticated: false) }) else { return .text("", status: 503) }
        var response = HTTPResponse.html(Pages(csrfToken: opened.csrfToken, message: nil).login(message: nil))
        response.headers.append(HTTPResponse.sessionCookie(opened.id, secure: secure))
        return response
    }

    private func login(_ form: Form, session: LoginSessions.Session, client: String, now: Date) -> HTTPResponse {
        if case .wait(let seconds) = locked({ throttle.decision(for: client, at: now) }) {
            log(Wording.consoleLogThrottled(client: client, seconds: seconds))
            return .html(Pages(csrfToken: session.csrfToken, message: nil).login(message: Wording.consoleLoginDelayed(seconds: seconds)), status: 429)
        }
        hashing.lock()
        let matches = password.matches(form["password"] ?? "")
        hashing.unlock()
        guard matches else {
            let (failures, delay) = locked { () -> (Int, TimeInterval?) in
                let delay = throttle.failed(client, at: now)
                return (throttle.failures(of: client), delay)
            }
            log(Wording.consoleLogWrongPassword(client: client, failures: failures, delay: delay.map { Int($0) }))
            return .html(Pages(csrfToken: session.csrfToken, message: nil).login(message: Wording.consoleLoginRefused), status: 403)
        }
        // A new id at login: an id known before it (fixed by someone else) is worth nothing after.
        guard let opened = locked({ () -> LoginSessions.Session? in
            throttle.succeeded(client)
            sessions.close(session.id)
            return sessions.open(at: now, authenticated: true)
        }) else { return .text("", status: 503) }
        log(Wording.consoleLogLoggedIn(client: client))
        var response = HTTPResponse.redirect(to: "/")
        response.headers.append(HTTPResponse.sessionCookie(opened.id, secure: secure))
        return response
    }

    // MARK: Changes

    private func change(_ route: Route, form: Form, session: LoginSessions.Session, request: HTTPRequest, now: Date) -> HTTPResponse {
        let back: String
        let outcome: CommandRunner.Outcome
        switch route {
        case .logout:
            locked { sessions.close(session.id) }
            var response = HTTPResponse.redirect(to: "/login")
            response.headers.append(HTTPResponse.clearedCookie(secure: secure))
            return response
        case .createProject:
            back = "/projects"
            outcome = runner.run(["project", "create"] + CommandRunner.options([("bundle-id", form.given("bundle-id"))]) + ["--", form["name"] ?? ""])
        case .allow(let project):
            back = "/project/\(project)"
            outcome = runner.run(["project", "allow"] + CommandRunner.options([("note", form.given("note"))]) + ["--", String(project), form["pattern"] ?? ""])
        case .disallow(let project):
            back = "/project/\(project)"
            outcome = runner.run(["project", "disallow", "--", String(project), form["pattern"] ?? ""])
        case .startRecording:
            let started = runner.run(StartForm.arguments(form), at: now)
            if started.succeeded, let id = StartForm.sessionID(in: started.output) {
                back = "/session/\(id)"
            } else {
                back = form["project"].flatMap(Route.number).map { "/project/\($0)" } ?? "/"
            }
            outcome = started
        case .mark(let id):
            back = "/session/\(id)"
            outcome = mark(id, form: form, at: now)
        case .end(let id):
            back = "/session/\(id)"
            outcome = runner.run(["session", "end", "--", String(id)], at: now)
        case .export(let id):
            return export(id, withKeys: form["with-keys"] == "yes", session: session, client: request.client, now: now)
        default:
            return .redirect(to: "/")
        }
        locked { sessions.leave(.init(outcome.said, refused: !outcome.succeeded), for: session.id) }
        return .redirect(to: back)
    }

    /// A marker in this session, dated when the request arrived, through `tvctl mark`.
    private func mark(_ id: Int64, form: Form, at now: Date) -> CommandRunner.Outcome {
        let word: String
        switch form["what"] {
        case "consent", "login", "logout": word = form["what"] ?? ""
        default: word = form["label"] ?? ""
        }
        do throws(ControlError) {
            let facts = try ConsoleListings.session(id, library: library)
            guard facts.isOpen else {
                return .init(status: 1, output: "", refusal: ControlError.refusal(.audit(.sessionAlreadyEnded(id))).sentence)
            }
            return runner.run(["mark"] + CommandRunner.options([("phone", facts.phoneName)]) + ["--", word], at: now)
        } catch {
            return .init(status: error.exitCode, output: "", refusal: error.sentence)
        }
    }

    /// `tvctl export` into a private folder, sent as a download and then removed; the journal
    /// says who took which session's bundle.
    private func export(_ id: Int64, withKeys: Bool, session: LoginSessions.Session, client: String, now: Date) -> HTTPResponse {
        let folder = exportDirectory + "/export-" + (Secrets.token()?.prefix(16) ?? "x")
        guard mkdir(folder, 0o700) == 0 else {
            log(Wording.consoleLogExportFolder(folder, reason: String(cString: strerror(errno))))
            return .html(Pages(csrfToken: session.csrfToken, message: nil).problem(Wording.consoleExportFolderMissing), status: 500)
        }
        let outcome = runner.run(["export", "--json", "--output=\(folder)"] + (withKeys ? ["--with-keys"] : []) + ["--", String(id)], at: now)
        guard outcome.succeeded, let file = ExportAnswer.file(in: outcome.output),
              let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.uint64Value
        else {
            try? FileManager.default.removeItem(atPath: folder)
            locked { sessions.leave(.init(outcome.said, refused: true), for: session.id) }
            return .redirect(to: "/session/\(id)")
        }
        let name = URL(fileURLWithPath: file).lastPathComponent
        log(Wording.consoleLogDownload(sessionID: id, file: name, bytes: size, withKeys: withKeys, client: client, login: String(session.id.prefix(8)), at: now))
        return HTTPResponse(
            status: 200,
            headers: [("Content-Type", "application/zip"), ("Content-Disposition", "attachment; filename=\"\(name.filter { $0.isASCII && $0 != "\"" && $0 != "\\" })\"")],
            body: .file(path: file, size: size, removeFolder: folder))
    }
}

/// The start form as `tvctl session start`'s command line.
enum StartForm {
    static func arguments(_ form: Form) -> [String] {
        let baseline = form["kind"] == "baseline"
        var arguments = ["session", "start"] + (baseline ? ["--baseline"] : [])
        arguments += CommandRunner.options([
            ("release", baseline ? nil : form["release"]), ("build", baseline ? nil : form["build"]),
            ("device", form["device"]), ("os", form["os"]), ("phone", form.given("phone")),
            ("inspection", form.given("inspection")), ("notes", form.given("notes")), ("ca-trusted", form.given("ca-trusted")),
        ])
        return arguments + ["--", form["project"] ?? ""]
    }

    /// "Recording session 12, …": the id the new session's page is at.
    static func sessionID(in output: String) -> Int64? {
        let words = output.split(separator: " ", maxSplits: 3)
        guard words.count >= 3, words[0] == "Recording", words[1] == "session" else { return nil }
        return Route.number(String(words[2].filter(\.isNumber)))
    }
}

/// The path of the .zip in `tvctl export --json`'s answer.
enum ExportAnswer {
    struct Shape: Decodable { let file: String }

    static func file(in output: String) -> String? {
        (try? JSONDecoder().decode(Shape.self, from: Data(output.utf8)))?.file
    }
}
