import Foundation
import Testing
import TunnelVisionConsole
import TunnelVisionControl

/// The console as a browser meets it, request by request, on a real history.
struct ConsoleAppTests {
    @Test func nothingButTheLoginIsShownBeforeLoggingIn() throws {
        let console = try ConsoleUnderTest()
        for path in ["/", "/projects", "/session/1", "/status", "/session/1/events"] {
            let answer = console.get(path, cookie: nil)
            #expect(answer.status == 303 && ConsoleUnderTest.location(of: answer) == "/login", "\(path)")
        }
        #expect(console.get("/login", cookie: nil).status == 200)
    }

    @Test func theCookieIsHttpOnlySecureAndStrictAndChangesAtLogin() throws {
        let console = try ConsoleUnderTest()
        let form = try console.loginForm()
        let answer = console.post("/login", [("csrf", form.token), ("password", ConsoleUnderTest.password)], cookie: form.cookie)
        let header = try #require(answer.headers.first { $0.0 == "Set-Cookie" }?.1)
        #expect(header.contains("HttpOnly") && header.contains("Secure") && header.contains("SameSite=Strict"))
        #expect(ConsoleUnderTest.cookie(of: answer) != form.cookie, "a new session id at login")
        #expect(console.get("/", cookie: form.cookie).status == 303, "the login form's session is not logged in")
        #expect(console.journal.all.contains { $0.contains("logged in from 192.0.2.10") })
    }

    @Test func aWrongPasswordIsRefusedAndTheEleventhWaits() throws {
        let console = try ConsoleUnderTest()
        let form = try console.loginForm()
        for _ in 1...10 {
            let answer = console.post("/login", [("csrf", form.token), ("password", "wrong")], cookie: form.cookie, client: "192.0.2.66")
            #expect(answer.status == 403)
            #expect(ConsoleUnderTest.text(of: answer).contains(HTML.escaped(Wording.consoleLoginRefused)))
        }
        // Even the right password waits now: the delay is not a hint that it was right.
        let eleventh = console.post("/login", [("csrf", form.token), ("password", ConsoleUnderTest.password)], cookie: form.cookie, client: "192.0.2.66")
        #expect(eleventh.status == 429)
        #expect(ConsoleUnderTest.text(of: eleventh).contains("wait 2 s"))
        #expect(console.journal.all.contains { $0.contains("wrong password from 192.0.2.66 (10 failures in a row); its next try waits 2 s") })
        #expect(console.journal.all.contains { $0.contains("login from 192.0.2.66 refused unread") })
        // Another client is served.
        let other = console.post("/login", [("csrf", form.token), ("password", ConsoleUnderTest.password)], cookie: form.cookie, client: "192.0.2.67")
        #expect(other.status == 303)
    }

    @Test func aPOSTWithoutTheTokenChangesNothing() throws {
        let console = try ConsoleUnderTest()
        let session = try console.login()
        let before = console.runner.run(["project", "list"]).output
        // One character changed: a token that starts with "0" must not be forged into itself.
        let forged = (session.token.first == "0" ? "1" : "0") + session.token.dropFirst()
        for fields in [[("name", "Forged")], [("name", "Forged"), ("csrf", forged)]] {
            let answer = console.post("/projects", fields, cookie: session.cookie)
            #expect(answer.status == 403)
        }
        let started = console.post("/session/2/end", [], cookie: session.cookie)
        #expect(started.status == 403)
        #expect(console.runner.run(["project", "list"]).output == before)
        #expect(console.journal.all.contains { $0.contains("refused a change to /projects from 192.0.2.10") })
    }

    @Test func aProjectNamedWithMarkupShowsAsText() throws {
        let console = try ConsoleUnderTest()
        let session = try console.login()
        let name = "<script>alert(1)</script>"
        let created = console.post("/projects", [("csrf", session.token), ("name", name)], cookie: session.cookie)
        #expect(created.status == 303 && ConsoleUnderTest.location(of: created) == "/projects")
        let page = ConsoleUnderTest.text(of: console.get("/projects", cookie: session.cookie))
        #expect(!page.contains(name))
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.contains(HTML.escaped("Created project 2, ")), "tvctl's sentence, once: \(page)")
        #expect(!ConsoleUnderTest.text(of: console.get("/projects", cookie: session.cookie)).contains("Created project"), "the message shows once")
    }

    @Test func refusalsAreTvctlsOwnSentences() throws {
        let console = try ConsoleUnderTest()
        let session = try console.login()
        let start = console.post("/sessions", [("csrf", session.token), ("project", "1"), ("kind", "release"), ("device", "Pixel 8"), ("os", "Android 15")], cookie: session.cookie)
        #expect(start.status == 303)
        let direct = console.runner.run(["session", "start", "--device=Pixel 8", "--os=Android 15", "--", "1"])
        let page = ConsoleUnderTest.text(of: console.get(ConsoleUnderTest.location(of: start) ?? "/", cookie: session.cookie))
        #expect(!direct.succeeded && page.contains(HTML.escaped(direct.refusal)), "\(direct.refusal)")
    }

    @Test func aRecordingIsStartedMarkedAndEndedWithTheStoredInstant() throws {
        let console = try ConsoleUnderTest()
        let session = try console.login()
        let start = console.post("/sessions", [
            ("csrf", session.token), ("project", "1"), ("kind", "release"), ("release", "2.5.0"), ("build", "320"),
            ("device", "Pixel 8"), ("os", "Android 15"), ("notes", "--db=/etc/passwd"),
        ], cookie: session.cookie)
        #expect(ConsoleUnderTest.location(of: start) == "/session/3")
        let mark = console.post("/session/3/mark", [("csrf", session.token), ("what", "consent")], cookie: session.cookie)
        #expect(ConsoleUnderTest.location(of: mark) == "/session/3")
        let page = ConsoleUnderTest.text(of: console.get("/session/3", cookie: session.cookie))
        let shown = console.runner.run(["session", "show", "--json", "--", "3"]).output
        #expect(shown.contains("\"notes\" : \"--db=/etc/passwd\""), "a dash-led value stays a value")
        #expect(page.contains("consent given at ") && page.contains("in session 3"), "\(page)")
        #expect(page.contains("id=\"mark-consent\"") && page.contains("data-events=\"/session/3/events\""))
        let end = console.post("/session/3/end", [("csrf", session.token)], cookie: session.cookie)
        #expect(ConsoleUnderTest.location(of: end) == "/session/3")
        let closed = ConsoleUnderTest.text(of: console.get("/session/3", cookie: session.cookie))
        #expect(closed.contains(HTML.escaped(console.runner.run(["findings", "--", "3"]).output.trimmingCharacters(in: .newlines))))
        #expect(!closed.contains("export-keys"), "no keys were kept, so none are offered")
        let late = console.post("/session/3/mark", [("csrf", session.token), ("what", "login")], cookie: session.cookie)
        #expect(ConsoleUnderTest.location(of: late) == "/session/3")
        #expect(ConsoleUnderTest.text(of: console.get("/session/3", cookie: session.cookie)).contains("Session 3 has already ended"))
    }

    @Test func everyAnswerCarriesTheSecurityHeaders() {
        let csp = HTTPResponse.securityHeaders.first { $0.0 == "Content-Security-Policy" }?.1 ?? ""
        #expect(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline") && csp.contains("frame-ancestors 'none'"))
    }
}

/// A closed recording's flows, each with the findings `tvctl flows --json` says it is behind.
struct ConsoleFlowFindingsTests {
    @Test func eachFlowShowsTheFindingsItIsBehind() throws {
        let console = try ConsoleUnderTest()
        let session = try console.login()
        #expect(ConsoleUnderTest.text(of: console.get("/session/2", cookie: session.cookie)).contains("href=\"/session/2/flows\""))
        let page = ConsoleUnderTest.text(of: console.get("/session/2/flows", cookie: session.cookie))
        #expect(page.contains(">FINDINGS</th>"))
        let listed = console.runner.run(["flows", "--json", "--", "2"]).output
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])
        let flows = try #require(object["flows"] as? [[String: Any]])
        #expect(!flows.isEmpty)
        for flow in flows {
            let id = try #require(flow["id"] as? Int)
            let ids = (flow["findingIDs"] as? [String]) ?? []
            let row = try #require(page.range(of: "<tr data-id=\"\(id)\">").map { String(page[$0.upperBound...].prefix { $0 != "\n" }) })
            let lastCell = ConsoleUnderTest.lastCell(ofRow: row)
            #expect(lastCell == (ids.isEmpty ? "—" : ids.joined(separator: " ")), "flow \(id)")
        }
    }
}

/// The release diff of a closed recording: `tvctl diff`'s answer on the page.
struct ConsoleDiffTests {
    @Test func theDiffPageIsTvctlDiffsAnswer() throws {
        let console = try ConsoleUnderTest()
        let session = try console.login()
        let closed = ConsoleUnderTest.text(of: console.get("/session/2", cookie: session.cookie))
        #expect(closed.contains("action=\"/session/2/diff\""))
        let page = ConsoleUnderTest.text(of: console.get("/session/2/diff", cookie: session.cookie, query: [("against", "1")]))
        let direct = console.runner.run(["diff", "--", "1", "2"])
        #expect(page.contains(HTML.escaped(direct.said)), "\(direct.said)")
    }
}
