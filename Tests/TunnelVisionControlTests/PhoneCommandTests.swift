import Foundation
import Testing
import TunnelVisionControl
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl phone …` and the recordings of a gateway with phones, through the real binary.
struct PhoneCommandTests {
    /// 32 bytes each, as `wg pubkey` prints them.
    static let keyA = Data(repeating: 0xA1, count: 32).base64EncodedString()
    static let keyB = Data(repeating: 0xB2, count: 32).base64EncodedString()

    /// The fixture with phones A (10.77.0.2) and, when asked, B (10.77.0.3) added by tvctl.
    static func gateway(phones: Int = 2) throws -> ScratchHistory {
        let history = try ScratchHistory.seeded()
        for (name, number, key) in [("pixel", 2, keyA), ("iphone", 3, keyB)].prefix(phones) {
            let add = try TVCtlBinary.run(
                ["phone", "add", name, "--ipv4", "10.77.0.\(number)", "--ipv6", "fd77::\(number)", "--public-key", key],
                database: history.path)
            guard add.status == 0 else { throw TestFailure("phone add: \(add)") }
        }
        return history
    }

    static func start(_ history: ScratchHistory, _ extra: [String] = []) throws -> Run {
        try TVCtlBinary.run(
            ["session", "start", "Acme Health", "--baseline", "--device", "Pixel 8", "--os", "Android 15"] + extra,
            database: history.path)
    }

    @Test func anAddedPhoneIsListedWithItsAddressesAndKeyFingerprint() throws {
        let history = try Self.gateway(phones: 1)
        let run = try TVCtlBinary.run(["phone", "show", "pixel", "--json"], database: history.path)
        #expect(run.status == 0, "\(run)")
        let phone = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(phone["addresses"] as? [String] == ["10.77.0.2", "fd77::2"])
        // SHA-256 of 32 bytes of 0xA1, as sha256sum prints it.
        let expected = try #require(try ProcessRunner.sha256(of: Data(repeating: 0xA1, count: 32)))
        #expect(phone["keyFingerprint"] as? String == expected)
        #expect((phone["handshake"] as? [String: Any])?["state"] != nil)
    }

    // The history decides a new phone's number: tunnelvision-phone asks this before making keys.
    @Test func theNextNumberIsTheLowestNoPhoneInTheHistoryHolds() throws {
        let networks = ["--network", "10.77.0.0/24", "--network", "fd77::/64"]
        let empty = try ScratchHistory()
        let first = try TVCtlBinary.run(["phone", "next-number"] + networks, database: empty.path)
        #expect(first.status == 0 && first.output == "2\n", "\(first)")
        #expect(!FileManager.default.fileExists(atPath: empty.path))
        let history = try Self.gateway()
        let third = try TVCtlBinary.run(["phone", "next-number"] + networks, database: history.path)
        #expect(third.status == 0 && third.output == "4\n", "\(third)")
        #expect(try TVCtlBinary.run(["phone", "remove", "pixel"], database: history.path).status == 0)
        let gap = try TVCtlBinary.run(["phone", "next-number"] + networks, database: history.path)
        #expect(gap.status == 0 && gap.output == "2\n", "\(gap)")
        let refused = try TVCtlBinary.run(["phone", "next-number", "--network", "10.77.0.1/24"], database: history.path)
        #expect(refused.status == 1)
        #expect(refused.error.contains("'10.77.0.1/24' is not a client network phones can be numbered in"), "\(refused)")
    }

    @Test func aKeyThatIsNotAWireGuardKeyIsRefused() throws {
        let history = try ScratchHistory.seeded()
        let run = try TVCtlBinary.run(
            ["phone", "add", "x", "--ipv4", "10.77.0.9", "--ipv6", "fd77::9", "--public-key", "c2hvcnQ="], database: history.path)
        #expect(run.status == 1)
        #expect(run.error.contains("not a WireGuard public key"))
    }

    @Test func withSeveralPhonesStartNeedsOneNamedAndSaysWhich() throws {
        let history = try Self.gateway()
        let refused = try Self.start(history)
        #expect(refused.status == 1)
        #expect(refused.error == "tvctl: This gateway has several phones ('pixel', 'iphone'): say which one is recorded with --phone NAME.\n")
        let unknown = try Self.start(history, ["--phone", "nokia"])
        #expect(unknown.error == "tvctl: There is no phone 'nokia': the phones are 'pixel', 'iphone'.\n")
        let started = try Self.start(history, ["--phone", "iphone", "--json"])
        #expect(started.status == 0, "\(started)")
        let session = try #require(try JSONSerialization.jsonObject(with: Data(started.output.utf8)) as? [String: Any])
        #expect((session["phone"] as? [String: Any])?["name"] as? String == "iphone")
        #expect((session["phone"] as? [String: Any])?["addresses"] as? [String] == ["10.77.0.3", "fd77::3"])
    }

    @Test func withOnePhoneItIsRecordedWithoutBeingNamed() throws {
        let history = try Self.gateway(phones: 1)
        let started = try Self.start(history)
        #expect(started.status == 0, "\(started)")
        #expect(try history.open().openRecording()?.phone?.name == "pixel")
    }

    @Test func withTwoRecordingsMarkAndEndRefuseToGuessAndTakeThePhone() throws {
        let history = try Self.gateway()
        #expect(try Self.start(history, ["--phone", "pixel"]).status == 0)
        #expect(try Self.start(history, ["--phone", "iphone"]).status == 0)
        let open = try history.open().openRecordings()
        let pixel = try #require(open.first { $0.phone?.name == "pixel" }), iphone = try #require(open.first { $0.phone?.name == "iphone" })
        let mark = try TVCtlBinary.run(["mark", "consent"], database: history.path)
        #expect(mark.status == 1)
        #expect(mark.error == "tvctl: Nothing was marked: several phones are being recorded (session \(pixel.id) of phone 'pixel', session \(iphone.id) of phone 'iphone'); say which with --phone NAME.\n")
        #expect(try TVCtlBinary.run(["mark", "login", "--phone", "iphone"], database: history.path).status == 0)
        #expect(try history.open().markers(forSession: iphone.id).map(\.kind) == [.loggedIn])
        #expect(try history.open().markers(forSession: pixel.id).isEmpty)
        let end = try TVCtlBinary.run(["session", "end"], database: history.path)
        #expect(end.status == 1)
        #expect(end.error.contains("say which to end with --phone NAME or the session's number"))
        #expect(try TVCtlBinary.run(["session", "end", "--phone", "pixel"], database: history.path).status == 0)
        #expect(try history.open().openRecordings().map(\.id) == [iphone.id])
        let flows = try TVCtlBinary.run(["flows", "--phone", "pixel"], database: history.path)
        #expect(flows.error == "tvctl: Phone 'pixel' is not being recorded: 'tvctl session list' shows the recordings there are.\n")
    }

    @Test func aRecordedPhoneIsNotRemoved() throws {
        let history = try Self.gateway(phones: 1)
        #expect(try Self.start(history).status == 0)
        let run = try TVCtlBinary.run(["phone", "remove", "pixel"], database: history.path)
        #expect(run.status == 1)
        #expect(run.error.contains("is being recorded in session"))
        #expect(try history.open().phones().count == 1)
    }
}

/// sha256sum as an independent reading of a digest.
enum ProcessRunner {
    static func sha256(of data: Data) throws -> String? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tv-key-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return output.split(separator: " ").first.map(String.init)
    }
}
