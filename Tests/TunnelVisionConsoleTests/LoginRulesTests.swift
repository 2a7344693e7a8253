import Foundation
import Testing
import TunnelVisionConsole
import TunnelVisionControl

/// The CSRF token, the login sessions and the growing delay after wrong passwords.
struct LoginRulesTests {
    let now = Date(timeIntervalSince1970: 1_790_845_200)

    func opened(_ sessions: inout LoginSessions, at date: Date) throws -> LoginSessions.Session {
        let session = sessions.open(at: date, authenticated: true)
        return try #require(session)
    }

    @Test func aChangeNeedsTheTokenOfItsOwnSession() throws {
        var sessions = LoginSessions()
        let mine = try opened(&sessions, at: now)
        let other = try opened(&sessions, at: now)
        #expect(mine.csrfToken.count == 64 && mine.id != mine.csrfToken && mine.csrfToken != other.csrfToken)
        #expect(CSRFCheck.accepts(Form(fields: [("csrf", mine.csrfToken)]), session: mine))
        #expect(!CSRFCheck.accepts(Form(fields: [("csrf", other.csrfToken)]), session: mine))
        #expect(!CSRFCheck.accepts(Form(fields: []), session: mine))
        #expect(!CSRFCheck.accepts(Form(fields: [("csrf", "")]), session: mine))
        #expect(!CSRFCheck.accepts(Form(fields: [("csrf", String(mine.csrfToken.dropLast()))]), session: mine))
    }

    @Test func aSessionEndsWhenIdleOrClosedAndItsMessageShowsOnce() throws {
        var sessions = LoginSessions()
        let session = try opened(&sessions, at: now)
        #expect(sessions.find(session.id, at: now.addingTimeInterval(3600)) != nil)
        sessions.leave(.init("Created project 1, 'x'.", refused: false), for: session.id)
        #expect(sessions.takeMessage(for: session.id)?.text == "Created project 1, 'x'.")
        #expect(sessions.takeMessage(for: session.id) == nil)
        #expect(sessions.find(session.id, at: now.addingTimeInterval(3600 + LoginSessions.idleLimit + 1)) == nil)
        let second = try opened(&sessions, at: now)
        sessions.close(second.id)
        #expect(sessions.find(second.id, at: now) == nil)
        #expect(sessions.find("not-an-id", at: now) == nil)
    }

    @Test func loginFormsNeverPushALoggedInSessionOut() throws {
        var sessions = LoginSessions()
        let technician = try opened(&sessions, at: now)
        for index in 1...(3 * LoginSessions.capacity) {
            _ = sessions.open(at: now.addingTimeInterval(Double(index)), authenticated: false)
        }
        #expect(sessions.find(technician.id, at: now.addingTimeInterval(1_000)) != nil)
        let form = try #require({ () -> LoginSessions.Session? in sessions.open(at: now, authenticated: false) }())
        #expect(sessions.find(form.id, at: now.addingTimeInterval(LoginSessions.formIdleLimit + 1)) == nil, "a login form goes idle sooner")
    }

    @Test func theTableIsBoundedByForgettingTheOldest() throws {
        var sessions = LoginSessions()
        let first = try opened(&sessions, at: now)
        for index in 1...LoginSessions.capacity {
            _ = sessions.open(at: now.addingTimeInterval(Double(index)), authenticated: true)
        }
        #expect(sessions.find(first.id, at: now.addingTimeInterval(100)) == nil)
    }

    @Test func tenWrongPasswordsAreFreeThenEachTryWaitsLonger() {
        var throttle = LoginThrottle()
        let client = "192.0.2.7"
        for failure in 1..<LoginThrottle.freeFailures {
            #expect(throttle.decision(for: client, at: now) == .allowed)
            #expect(throttle.failed(client, at: now) == nil, "failure \(failure)")
        }
        #expect(throttle.failed(client, at: now) == 2)
        #expect(throttle.decision(for: client, at: now) == .wait(seconds: 2))
        #expect(throttle.decision(for: client, at: now.addingTimeInterval(1.5)) == .wait(seconds: 1))
        #expect(throttle.decision(for: client, at: now.addingTimeInterval(2)) == .allowed)
        #expect(throttle.failed(client, at: now.addingTimeInterval(2)) == 4)
        #expect(throttle.failed(client, at: now.addingTimeInterval(6)) == 8)
        // Another address is not held up by this one.
        #expect(throttle.decision(for: "192.0.2.8", at: now.addingTimeInterval(6)) == .allowed)
        throttle.succeeded(client)
        #expect(throttle.decision(for: client, at: now.addingTimeInterval(6)) == .allowed)
        #expect(throttle.failures(of: client) == 0)
    }

    @Test func theDelayStopsGrowingAtItsLongestAndIsForgottenAfterAnHour() {
        #expect(LoginThrottle.delay(afterFailures: 9) == nil)
        #expect(LoginThrottle.delay(afterFailures: 10) == 2)
        #expect(LoginThrottle.delay(afterFailures: 1_000) == LoginThrottle.longestDelay)
        var throttle = LoginThrottle()
        for _ in 0..<12 { throttle.failed("a", at: now) }
        #expect(throttle.failed("a", at: now.addingTimeInterval(LoginThrottle.forgetAfter + 1)) == nil)
        #expect(throttle.failures(of: "a") == 1)
    }
}

/// The password as stored: scrypt, salted, checked in constant time.
struct ConsolePasswordTests {
    @Test func theRightPasswordMatchesAndNothingElseDoes() throws {
        let hash = try #require(ConsolePassword.hashing("correct horse battery", costExponent: 10))
        #expect(hash.matches("correct horse battery"))
        #expect(!hash.matches("correct horse batterY"))
        #expect(!hash.matches(""))
        let again = try #require(ConsolePassword.hashing("correct horse battery", costExponent: 10))
        #expect(again.salt != hash.salt && again.key != hash.key, "a new salt each time")
    }

    @Test func theStoredLineReadsBackAndStillMatches() throws {
        let hash = try #require(ConsolePassword.hashing("correct horse battery", costExponent: 10))
        #expect(hash.stored.hasPrefix("scrypt$10$8$1$"))
        let read = try #require(ConsolePassword(stored: hash.stored))
        #expect(read == hash && read.matches("correct horse battery"))
    }

    @Test(arguments: ["", "plain", "scrypt$10$8$1$00$00", "scrypt$30$8$1$" + String(repeating: "ab", count: 16) + "$" + String(repeating: "cd", count: 32),
                      "pbkdf2$10$8$1$" + String(repeating: "ab", count: 16) + "$" + String(repeating: "cd", count: 32),
                      "scrypt$10$8$1$" + String(repeating: "zz", count: 16) + "$" + String(repeating: "cd", count: 32)])
    func aLineItDidNotWriteIsRefused(_ text: String) {
        #expect(ConsolePassword(stored: text) == nil)
    }

    @Test func aGeneratedPasswordIsLongAndDiffers() throws {
        let one = try #require(ConsolePassword.generated()), two = try #require(ConsolePassword.generated())
        #expect(one.count == 20 && one != two)
    }
}
