import CaptureTestSupport
import Foundation
import Testing
@testable import TunnelVisionConsole
import TunnelVisionControl

/// What the administrator sets up: the password (`tvctl console password`), the configuration,
/// and the certificate the console makes at its first start.
struct ConsoleSetupTests {
    static func tvctl(_ arguments: [String], input: String? = nil) -> (status: Int32, output: String, error: String) {
        let output = Collected(), errors = Collected()
        let lines = Collected()
        let console = Console(
            writeOutput: { output.append($0) }, writeError: { errors.append($0) },
            readLine: { lines.text.isEmpty ? { lines.append("read"); return input }() : nil },
            outputIsTerminal: false, inputIsTerminal: false)
        let status = TVCtl.run(arguments, invocation: Invocation(console: console, environment: [:], startedAt: Date()))
        return (status, output.text, errors.text)
    }

    @Test func thePasswordFromStandardInputIsStoredAsAHashOnlyItsOwnerReads() throws {
        let folder = try TemporaryDirectory()
        let file = folder.file("console-password")
        let run = Self.tvctl(["console", "password", "--file", file], input: "a long enough secret")
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "Stored the console password's hash in \(file); restart the console to use it.\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!text.contains("a long enough secret"))
        #expect(ConsolePassword(stored: text)?.matches("a long enough secret") == true)
    }

    @Test func aShortOrMissingPasswordIsRefusedAndNothingIsWritten() throws {
        let folder = try TemporaryDirectory()
        let file = folder.file("console-password")
        let short = Self.tvctl(["console", "password", "--file", file], input: "short")
        #expect(short.status == 1 && short.error == "tvctl: Nothing was stored: the console's password needs at least 10 characters (or use --generate).\n")
        let none = Self.tvctl(["console", "password", "--file", file], input: nil)
        #expect(none.status == 1 && none.error.contains("no password was given"))
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func aGeneratedPasswordIsPrintedOnceAndMatchesTheStoredHash() throws {
        let folder = try TemporaryDirectory()
        let file = folder.file("console-password")
        let run = Self.tvctl(["console", "password", "--generate", "--file", file])
        let password = try #require(run.output.split(separator: "\n").first?.split(separator: " ").dropFirst().first.map(String.init))
        #expect(ConsolePassword(stored: try String(contentsOfFile: file, encoding: .utf8))?.matches(password) == true)
    }

    @Test func theCertificateIsMadeOnceWithAnOwnerOnlyKeyAndTvctlShowsItsFingerprint() throws {
        let folder = try TemporaryDirectory()
        let made = try ConsoleCertificate.loadOrCreate(in: folder.path, hostName: "gateway.lab")
        #expect(made.made)
        let key = try FileManager.default.attributesOfItem(atPath: ConsoleFiles.keyPath(in: folder.path))
        #expect((key[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let again = try ConsoleCertificate.loadOrCreate(in: folder.path, hostName: "gateway.lab")
        #expect(!again.made && again.fingerprint == made.fingerprint)
        let openssl = try run("/usr/bin/openssl", ["x509", "-in", ConsoleFiles.certificatePath(in: folder.path), "-noout", "-fingerprint", "-sha256", "-ext", "subjectAltName,extendedKeyUsage"])
        #expect(openssl.output.contains("=" + made.fingerprint))
        #expect(openssl.output.contains("DNS:gateway.lab") && openssl.output.contains("TLS Web Server Authentication"))
        let shown = Self.tvctl(["console", "fingerprint", "--certificate", ConsoleFiles.certificatePath(in: folder.path)])
        #expect(shown.output == "SHA-256 fingerprint: \(made.fingerprint)\n")
        chmod(ConsoleFiles.keyPath(in: folder.path), 0o640)
        #expect(throws: ConsoleCertificateFault.keyExposed(path: ConsoleFiles.keyPath(in: folder.path))) {
            try ConsoleCertificate.loadOrCreate(in: folder.path, hostName: "gateway.lab")
        }
    }

    @Test func theConfigurationReadsItsKeysAndRefusesOthers() throws {
        var configuration = ConsoleConfiguration()
        #expect(configuration.tls && configuration.port == 8443)
        try configuration.apply(file: "# comment\nlisten = ::1\nport = 9443   # trailing\n\ntls = off\nhistory = /srv/h.sqlite\n")
        #expect(configuration.listen == "::1" && configuration.port == 9443 && !configuration.tls && configuration.history == "/srv/h.sqlite")
        try configuration.apply(arguments: ["--config", "/x", "--port", "10443"])
        #expect(configuration.port == 10443)
        var fresh = ConsoleConfiguration()
        #expect(throws: ConsoleConfigurationFault.invalidValue(key: "tls", value: "maybe")) { try fresh.apply(file: "tls = maybe") }
        #expect(throws: ConsoleConfigurationFault.invalidValue(key: "listen", value: "gateway")) { try fresh.apply(file: "listen = gateway") }
        #expect(throws: ConsoleConfigurationFault.invalidValue(key: "port", value: "0")) { try fresh.apply(file: "port = 0") }
        #expect(throws: ConsoleConfigurationFault.unknownKey("colour")) { try fresh.apply(file: "colour = blue") }
        #expect(throws: ConsoleConfigurationFault.malformedLine(2)) { try fresh.apply(file: "port = 1\nport\n") }
        #expect(throws: ConsoleConfigurationFault.missingValue(flag: "--port")) { try fresh.apply(arguments: ["--port"]) }
    }
}
