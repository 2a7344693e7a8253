import Foundation
import Testing
import TunnelVisionCaptureFiles
import TunnelVisionDigest
import TunnelVisionModel

@Suite struct CaptureChainTests {
    let key = Ed25519Key.generate()!
    let noon = Date(timeIntervalSince1970: 1_780_000_000)

    private func chain(_ count: Int) -> [CaptureSeal] {
        var seals: [CaptureSeal] = []
        for index in 1...count {
            let digest = SHA256Hasher.hex(of: Data("file \(index)".utf8))
            seals.append(CaptureChain.seal(after: seals.last, sequence: UInt32(index), fileName: "tv-\(index).pcap", bytes: UInt64(index * 100),
                                           sha256: digest, origin: .written, at: noon + Double(index), key: key)!)
        }
        return seals
    }

    @Test func eachLinkHoldsTheDigestOfTheOneBeforeAndTheChainChecks() {
        let seals = chain(4)
        #expect(seals.map(\.position) == [1, 2, 3, 4])
        #expect(seals[0].previous == CaptureChain.start)
        for index in 1..<seals.count { #expect(seals[index].previous == CaptureChain.digest(of: seals[index - 1])) }
        #expect(CaptureChain.check(seals, publicKey: key.publicKey) == nil)
        // A part of the chain checks on its own: the exporter reads the links of its files.
        #expect(CaptureChain.check(Array(seals[1...2]), publicKey: key.publicKey) == nil)
    }

    @Test func aLinkLeftOutBreaksTheChain() {
        var seals = chain(4)
        seals.remove(at: 2)
        #expect(CaptureChain.check(seals, publicKey: key.publicKey) == .brokenLink(seals[2]))
    }

    @Test func anEditedLinkIsNoLongerSignedByTheDaemon() {
        var seals = chain(3)
        let edited = seals[1]
        let other = SHA256Hasher.hex(of: Data("edited".utf8))
        seals[1] = CaptureSeal(position: edited.position, sequence: edited.sequence, fileName: edited.fileName, bytes: edited.bytes,
                               sha256: other, origin: edited.origin, sealedAt: edited.sealedAt, previous: edited.previous,
                               signature: edited.signature)
        #expect(CaptureChain.check(seals, publicKey: key.publicKey) == .forged(seals[1]))
    }

    @Test func aLinkResignedWithAnotherKeyIsForgedAndSoIsTheChainAfterIt() {
        var seals = chain(3)
        let member = Ed25519Key.generate()!
        let replaced = CaptureChain.seal(after: seals[0], sequence: 2, fileName: "tv-2.pcap", bytes: 1,
                                         sha256: SHA256Hasher.hex(of: Data("forged".utf8)), origin: .written, at: noon, key: member)!
        seals[1] = replaced
        #expect(CaptureChain.check(seals, publicKey: key.publicKey) == .forged(replaced))
        // Checked against the forger's key instead, the next link (the daemon's) no longer follows.
        #expect(CaptureChain.check(Array(seals[0...1]), publicKey: member.publicKey) == .forged(seals[0]))
        #expect(CaptureChain.check(Array(seals[1...2]), publicKey: key.publicKey) == .forged(replaced))
    }

    @Test func aSignatureThatIsNotHexIsForged() {
        var seals = chain(1)
        let seal = seals[0]
        seals[0] = CaptureSeal(position: 1, sequence: seal.sequence, fileName: seal.fileName, bytes: seal.bytes, sha256: seal.sha256,
                               origin: seal.origin, sealedAt: seal.sealedAt, previous: seal.previous, signature: "zz")
        #expect(CaptureChain.check(seals, publicKey: key.publicKey) == .forged(seals[0]))
    }

    @Test func aChangedFileNoLongerMatchesItsSeal() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try CaptureFileWriter(configuration: .init(directory: directory.path), highestSequenceInHistory: 0)
        let packet = [UInt8](repeating: 0x45, count: 60)
        _ = try packet.withUnsafeBytes { try writer.write($0, timestampNanoseconds: 1_780_000_000_000_000_000) }
        try writer.close(at: noon)
        guard case .closed(let file, let sha256)? = writer.takeChanges().last else { Issue.record("no file finished"); return }
        let seal = CaptureChain.seal(after: nil, sequence: file.sequence, fileName: "f", bytes: file.bytes, sha256: sha256,
                                     origin: .written, at: noon, key: key)!
        #expect(try CaptureFileDigest.sha256(ofFileAt: file.path).sha256 == seal.sha256)
        // One byte changed in place, the size kept.
        let handle = try #require(FileHandle(forUpdatingAtPath: file.path))
        try handle.seek(toOffset: 40)
        try handle.write(contentsOf: Data([0x00]))
        try handle.close()
        let read = try CaptureFileDigest.sha256(ofFileAt: file.path)
        #expect(read.bytes == seal.bytes)
        #expect(read.sha256 != seal.sha256)
    }

    @Test func theDaemonsKeyIsItsAloneAndItsPublicHalfIsPublished() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let keys = CaptureSealKey(folder: folder.path)
        #expect(try keys.publicKey() == nil)
        let made = try keys.loadOrCreate()
        #expect(try keys.publicKey() == made.publicKey)
        #expect(try keys.loadOrCreate().publicKey == made.publicKey)
        let mode = { (path: String) in ((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1 }
        #expect(try mode(keys.privateKeyPath) == 0o600)
        #expect(try mode(keys.publicKeyPath) == 0o640)
        #expect(try keys.trustedPublicKey() == made.publicKey)
        // A folder others may write is not the daemon's: its key is not taken.
        chmod(folder.path, 0o770)
        #expect(throws: CaptureSealKey.Failure.notTheDaemons(path: folder.path, problem: .writableByOthers(mode: 0o770))) { try keys.trustedPublicKey() }
    }
}
