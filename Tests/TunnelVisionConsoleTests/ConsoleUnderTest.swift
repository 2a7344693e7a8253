import CaptureTestSupport
import ControlFixture
import Foundation
import TunnelVisionConsole
import TunnelVisionControl
import TunnelVisionModel
import TunnelVisionStore

/// A console over a real history file (seeded by tvfixture), driven request by request.
final class ConsoleUnderTest: @unchecked Sendable {
    let folder: TemporaryDirectory
    let database: String
    let runner: CommandRunner
    let app: ConsoleApp
    let journal = Journal()
    static let password = "correct horse battery"

    init() throws {
        folder = try TemporaryDirectory()
        database = folder.file("history.sqlite")
        runner = CommandRunner(database: database, toolVersion: "test")
        let seeded = TVFixture.seed(database: database, ["--at", "2026-10-01T09:00:00Z"])
        guard seeded.status == 0 else { throw Failure(seeded.error) }
        guard let hash = ConsolePassword.hashing(Self.password, costExponent: 10) else { throw Failure("no hash") }
        let journal = self.journal
        app = ConsoleApp(runner: runner, password: hash, secure: true, exportDirectory: folder.path, log: { journal.append($0) })
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func get(_ path: String, cookie: String?, query: [(String, String)] = []) -> HTTPResponse {
        app.handle(HTTPRequest(method: "GET", path: path, query: Form(fields: query), headers: cookie.map { ["cookie": "tvconsole=\($0)"] } ?? [:], client: "192.0.2.10"))
    }

    func post(_ path: String, _ fields: [(String, String)], cookie: String?, client: String = "192.0.2.10") -> HTTPResponse {
        let body = fields.map { "\(Self.encoded($0.0))=\(Self.encoded($0.1))" }.joined(separator: "&")
        return app.handle(HTTPRequest(
            method: "POST", path: path, headers: cookie.map { ["cookie": "tvconsole=\($0)"] } ?? [:], body: Array(body.utf8), client: client))
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// The login form's cookie and token.
    func loginForm() throws -> (cookie: String, token: String) {
        let page = get("/login", cookie: nil)
        guard let cookie = Self.cookie(of: page), let token = Self.token(in: Self.text(of: page)) else { throw Failure("no login form") }
        return (cookie, token)
    }

    /// Logged in: the session's cookie and its CSRF token.
    func login() throws -> (cookie: String, token: String) {
        let form = try loginForm()
        let answer = post("/login", [("csrf", form.token), ("password", Self.password)], cookie: form.cookie)
        guard answer.status == 303, let cookie = Self.cookie(of: answer) else { throw Failure("login answered \(answer.status)") }
        guard let token = Self.token(in: Self.text(of: get("/", cookie: cookie))) else { throw Failure("no token on the home page") }
        return (cookie, token)
    }

    static func cookie(of response: HTTPResponse) -> String? {
        guard let header = response.headers.first(where: { $0.0 == "Set-Cookie" })?.1,
              let value = header.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last
        else { return nil }
        return String(value)
    }

    static func token(in page: String) -> String? {
        guard let range = page.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(page[range.upperBound...].prefix(64))
    }

    /// The text of the last cell of a table row's HTML (`rowHTML` starts inside the row), whatever
    /// the cell's attributes.
    static func lastCell(ofRow rowHTML: String) -> String {
        let cell = rowHTML.components(separatedBy: "</tr>")[0].components(separatedBy: "<td").last ?? ""
        return String(cell.drop { $0 != ">" }.dropFirst()).replacingOccurrences(of: "</td>", with: "")
    }

    static func text(of response: HTTPResponse) -> String {
        if case .bytes(let bytes) = response.body { return String(decoding: bytes, as: UTF8.self) }
        return ""
    }

    static func location(of response: HTTPResponse) -> String? {
        response.headers.first { $0.0 == "Location" }?.1
    }
}

final class Journal: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}

/// Flows written the way the daemon writes them, while a recording is open.
struct DaemonWrites {
    let store: History
    let captureRun: Int64
    var handle: FlowHandle = 5_000

    init(database: String) throws {
        store = try History(path: database)
        captureRun = try store.beginCaptureRun(toolVersion: "test", input: "test", at: Date()).id
    }

    @discardableResult
    mutating func flow(to host: String, port: UInt16, bytesIn: UInt64 = 4_000) throws -> Int64 {
        let state = Self.state(host: host, port: port, bytesIn: bytesIn)
        handle += 1
        // From the phone's address, as the daemon says it: a phone's recording tags only its own flows.
        let upsert = FlowUpsert(handle: handle, rowID: nil, state: state, client: IPAddress(v4: 0x0A4D_0002))
        let rows = try store.write(HistoryBatch(flows: [upsert]), captureRun: captureRun)
        guard let row = rows[handle] else { throw ConsoleUnderTest.Failure("no row") }
        return row
    }

    /// A TLS 1.3 flow from the phone to the host, first seen now.
    static func state(host: String, port: UInt16, bytesIn: UInt64 = 4_000) -> FlowState {
        let key = FlowKey(
            proto: .tcp, Endpoint(address: IPAddress(v4: 0x0A4D_0002), port: port), Endpoint(address: IPAddress(v4: 0xC633_6407), port: 443))
        let now = Date()
        return FlowState(
            key: key, firstSeen: Instant(now), lastSeen: Instant(now), bytesOut: 500, bytesIn: bytesIn, packetCount: 6, tlsStatus: .encrypted, sni: host,
            serverTLS: .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301))),
            clientTLS: ClientTLSOffer(versionsForm: .listed, versions: [.tls13]), streamOpening: .tlsHandshake)
    }
}
