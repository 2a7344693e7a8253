import Foundation
import Testing
import TunnelVisionExport

/// `tvctl key` and `tvctl verify` through the binary: the key beside the history signs the
/// export, verify checks it, a rotation keeps the old key so the earlier bundle still verifies.
/// (The tests run as root here; the refusal to a group member is the command's first line.)
struct KeyCommandTests {
    static func export(_ history: ScratchHistory, session: String = "2") throws -> String {
        let run = try TVCtlBinary.run(["export", session, "--output", history.folder.path, "--json"], database: history.path)
        #expect(run.status == 0, "\(run)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        return try #require(result["file"] as? String)
    }

    @Test func theKeyMadeBesideTheHistorySignsTheExportAndVerifyChecksIt() throws {
        let history = try ScratchHistory.seeded()
        let created = try TVCtlBinary.run(["key", "create"], database: history.path)
        #expect(created.status == 0, "\(created)")
        #expect(created.output.hasPrefix("Made the gateway's signing key "))
        let show = try TVCtlBinary.run(["key", "show"], database: history.path)
        #expect(show.status == 0, "\(show)")
        let lines = show.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("untrusted comment: minisign public key "))
        let keyID = String(lines[0].split(separator: " ").last ?? "")
        #expect(lines[2] == "Key id \(keyID). An auditor checks a bundle's manifest with: minisign -Vm manifest.json -P \(lines[1])")
        #expect(try TVCtlBinary.run(["key", "create"], database: history.path).output == "The gateway already has the signing key \(keyID); it was kept.\n")

        let bundle = try Self.export(history)
        let verify = try TVCtlBinary.run(["verify", bundle], database: history.path)
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.output.contains("ok     signature manifest.json is signed by gateway key \(keyID); its trusted comment: tunnelvision session=2 host="))
        #expect(verify.output.contains("ok     capture   capture.pcapng reads to its end: 0 packets in 2 pcapng blocks."))
    }

    @Test func aRotationKeepsTheOldKeySoTheEarlierBundleStillVerifies() throws {
        let history = try ScratchHistory.seeded()
        #expect(try TVCtlBinary.run(["key", "create"], database: history.path).status == 0)
        let first = try Self.export(history, session: "1")
        let rotated = try TVCtlBinary.run(["key", "rotate", "--json"], database: history.path)
        #expect(rotated.status == 0, "\(rotated)")
        let shape = try #require(try JSONSerialization.jsonObject(with: Data(rotated.output.utf8)) as? [String: Any])
        let new = try #require((shape["current"] as? [String: Any])?["keyID"] as? String)
        let old = try #require(((shape["retired"] as? [[String: Any]])?.first)?["keyID"] as? String)
        #expect(new != old)
        let all = try TVCtlBinary.run(["key", "show", "--all"], database: history.path)
        #expect(all.output.contains("Retired key \(old):") && all.output.contains("Current key \(new):"), "\(all)")
        #expect(try TVCtlBinary.run(["verify", first], database: history.path).status == 0)
        let second = try Self.export(history, session: "2")
        #expect(try TVCtlBinary.run(["verify", second], database: history.path).output.contains("signed by gateway key \(new)"))
    }

    @Test func aBundleCheckedAgainstAnotherKeyOrUnsignedFailsWithItsSentence() throws {
        let history = try ScratchHistory.seeded()
        let unsigned = try Self.export(history, session: "1")
        let verify = try TVCtlBinary.run(["verify", unsigned], database: history.path)
        #expect(verify.status == 1)
        #expect(verify.output.contains("ABSENT signature The bundle is not signed: it has no manifest.json.minisig"))
        #expect(verify.error == "tvctl: \(unsigned) does not verify: 1 check above did not hold.\n")

        #expect(try TVCtlBinary.run(["key", "create"], database: history.path).status == 0)
        let signed = try Self.export(history, session: "2")
        let other = try ScratchHistory.seeded()
        #expect(try TVCtlBinary.run(["key", "create"], database: other.path).status == 0)
        let otherKey = GatewayKeys(besideHistory: other.path).publicKeyPath
        let refused = try TVCtlBinary.run(["verify", signed, "--public-key", otherKey, "--json"], database: history.path)
        #expect(refused.status == 1)
        let shape = try #require(try JSONSerialization.jsonObject(with: Data(refused.output.utf8)) as? [String: Any])
        #expect(shape["holds"] as? Bool == false)
        let signature = (shape["checks"] as? [[String: Any]])?.first { $0["check"] as? String == "signature" }
        #expect(signature?["standing"] as? String == "fails")
        #expect((signature?["sentence"] as? String)?.contains("which is not the key given") == true)
    }

    @Test func whatIsNotAZipOrNotAKeyIsSaidInOneSentence() throws {
        let history = try ScratchHistory.seeded()
        let junk = history.folder.appendingPathComponent("junk.zip")
        try Data("not a zip".utf8).write(to: junk)
        let run = try TVCtlBinary.run(["verify", junk.path], database: history.path)
        #expect(run.status == 1)
        #expect(run.output.hasPrefix("FAILED zip       The zip cannot be read: it is not a zip archive (no end of central directory); nothing else was checked.\n"))
        let key = try TVCtlBinary.run(["verify", junk.path, "--public-key", "RWQnope"], database: history.path)
        #expect(key.status == 2)
        #expect(key.error == "tvctl: 'RWQnope' is neither a minisign public key file nor its base64 line: give what 'tvctl key show' prints to 'tvctl verify --public-key'.\n")
        let show = try TVCtlBinary.run(["key", "show"], database: history.path)
        #expect(show.status == 1)
        #expect(show.error.hasPrefix("tvctl: This gateway has no signing key yet ("))
    }
}
