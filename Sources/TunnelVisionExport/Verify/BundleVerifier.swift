import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionDigest
import TunnelVisionEvidence

/// `tvctl verify`: checks a bundle someone handed over, reading the .zip in place (nothing is
/// unpacked or written): the zip itself, that every member lies in the bundle's folder, every
/// member against the manifest, the manifest's signature, the chain's links in capture.json, and
/// that capture.pcapng reads to its
/// end. Each check gives one line; a hostile bundle gets a line per thing wrong with it.
public struct BundleVerifier: Sendable {
    /// The public keys a signature may be from: the gateway's (current and retired) or one given.
    public let publicKeys: [MinisignPublicKey]
    /// The TSA's chain a timestamp is checked against; given, a bundle without one does not verify.
    public let tsaCAFile: String?

    public init(publicKeys: [MinisignPublicKey], tsaCAFile: String? = nil) {
        self.publicKeys = publicKeys
        self.tsaCAFile = tsaCAFile
    }

    public func verify(bundle path: String) -> BundleVerification {
        var lines: [BundleVerification.Line] = []
        let reader: ZipArchiveReader
        do {
            reader = try ZipArchiveReader(path: path)
        } catch {
            lines.append(.init(.zip, .fails, .zipUnreadable(Self.reason(error))))
            return BundleVerification(
                lines: lines + BundleVerification.Check.allCases.dropFirst().map { .init($0, .notChecked, .notChecked) },
                timestampRequired: tsaCAFile != nil)
        }
        let folder = Self.folder(of: reader.members)
        lines += folderLines(reader.members, folder: folder)
        // Two members of one name are two versions of a file: unzip keeps the last, we would read the first.
        let names = Dictionary(reader.members.map { ($0.name, 1) }, uniquingKeysWith: +)
        lines += names.filter { $0.value > 1 }.keys.sorted().map { .init(.zip, .fails, .memberTwice($0)) }
        let files = Dictionary(
            reader.members.filter { !$0.isDirectory }.map { (Self.fileName($0.name, in: folder), $0) }, uniquingKeysWith: { first, _ in first })

        // One pass over every member: CRC-32 (the zip's), SHA-256 (the manifest's), pcapng framing.
        var digests: [String: (count: UInt64, sha256: String)] = [:]
        var damaged: [BundleVerification.Line] = []
        var captureLine: BundleVerification.Line?
        var small: [String: [UInt8]] = [:]
        for (name, member) in files.sorted(by: { $0.key < $1.key }) {
            let hasher = SHA256Hasher()
            var walker = name == EvidenceFileName.capture ? PcapngWalker() : nil
            let beside = EvidenceFileName.beyondManifest.contains(name) && member.byteCount <= 1 << 20
            var kept: [UInt8]? = beside || (name == EvidenceFileName.captureDocument && member.byteCount <= 1 << 28) ? [] : nil
            do {
                try reader.read(member) { bytes in
                    hasher.update(bytes)
                    try walker?.feed(bytes)
                    kept?.append(contentsOf: bytes)
                }
                try walker?.finish()
                digests[name] = (member.byteCount, hasher.finish())
                if let kept { small[name] = kept }
                if let walker { captureLine = .init(.capture, .holds, .captureReads(packets: walker.packets, blocks: walker.blocks)) }
            } catch let failure as PcapngWalker.Failure {
                digests[name] = (member.byteCount, hasher.finish())
                captureLine = .init(.capture, .fails, .captureDamaged(Self.reason(failure)))
            } catch {
                damaged.append(.init(.zip, .fails, .memberDamaged(name: name, reason: Self.reason(error))))
            }
        }
        lines.insert(contentsOf: damaged.isEmpty ? [.init(.zip, .holds, .zipReads(members: files.count))] : damaged, at: 0)

        let manifestBytes = small[EvidenceFileName.manifest]
        let manifest = manifestBytes.flatMap { try? JSONDecoder().decode(ManifestReading.self, from: Data($0)) }
        lines += manifestLines(manifest, present: manifestBytes != nil, digests: digests, damaged: damaged)
        lines += [signatureLine(manifest: manifestBytes, keyID: manifest?.signatureKeyID, signature: small[EvidenceFileName.signature],
                                present: files[EvidenceFileName.signature] != nil)]
        lines.append(timestampLine(manifest: manifestBytes, reply: small[EvidenceFileName.timestamp], present: files[EvidenceFileName.timestamp] != nil))
        lines.append(chainLine(captureDocument: small[EvidenceFileName.captureDocument], present: files[EvidenceFileName.captureDocument] != nil))
        lines.append(captureLine ?? .init(.capture, .fails, files[EvidenceFileName.capture] == nil ? .captureMissing : .notChecked))
        return BundleVerification(lines: lines, timestampRequired: tsaCAFile != nil)
    }

    // MARK: The chain over the capture files

    private struct CaptureReading: Decodable {
        let captureChain: EvidenceCaptureChain?
    }

    /// capture.json's links checked against each other and against the daemon key it names (which
    /// the manifest, and so the signature, covers); the files it calls sealed each have a link.
    private func chainLine(captureDocument: [UInt8]?, present: Bool) -> BundleVerification.Line {
        guard let captureDocument else { return .init(.chain, .fails, present ? .chainUnreadable : .chainMissing) }
        guard let reading = try? JSONDecoder().decode(CaptureReading.self, from: Data(captureDocument)) else {
            return .init(.chain, .fails, .chainUnreadable)
        }
        guard let chain = reading.captureChain else { return .init(.chain, .absent, .chainMissing) }
        let seals = chain.links.compactMap(\.seal)
        let unsealed = chain.files.filter { $0.standing == .unsealed }.count
        guard seals.count == chain.links.count else { return .init(.chain, .fails, .chainUnreadable) }
        guard !seals.isEmpty else {
            return .init(.chain, chain.files.allSatisfy { $0.standing == .unsealed } ? .holds : .fails, .chainHolds(links: 0, unsealed: unsealed))
        }
        guard let key = chain.publicKey.flatMap(Hex.decode) else { return .init(.chain, .fails, .chainUnreadable) }
        switch CaptureChain.check(seals, publicKey: key) {
        case .forged(let seal)?: return .init(.chain, .fails, .chainLinkForged(file: seal.fileName))
        case .brokenLink(let seal)?: return .init(.chain, .fails, .chainLinkBroken(file: seal.fileName))
        case nil: break
        }
        let positions = Set(seals.map(\.position))
        let bySequence = Dictionary(seals.map { ($0.position, $0.sequence) }, uniquingKeysWith: { first, _ in first })
        for file in chain.files where file.standing == .sealed {
            guard let position = file.position, positions.contains(position), bySequence[position] == file.sequence else {
                return .init(.chain, .fails, .chainFileWithoutLink(sequence: file.sequence))
            }
        }
        return .init(.chain, .holds, .chainHolds(links: seals.count, unsealed: unsealed))
    }

    // MARK: The folder

    private func folderLines(_ members: [ZipArchiveReader.Member], folder: String?) -> [BundleVerification.Line] {
        guard let folder else { return [.init(.folder, .fails, .noSingleFolder)] }
        let outside = members.filter { member in
            member.name != folder + "/" && !Self.isPlainMember(member.name, in: folder)
        }
        guard !outside.isEmpty else { return [.init(.folder, .holds, .oneFolder(folder))] }
        return outside.map { .init(.folder, .fails, .memberOutsideFolder($0.name)) }
    }

    /// The top folder most members are in; nil when there is none.
    static func folder(of members: [ZipArchiveReader.Member]) -> String? {
        let tops = members.compactMap { $0.name.split(separator: "/", omittingEmptySubsequences: false).first.map(String.init) }
        let counts = Dictionary(tops.map { ($0, 1) }, uniquingKeysWith: +)
        guard let top = counts.max(by: { $0.value < $1.value })?.key, EvidenceManifest.isPlainName(top) else { return nil }
        return top
    }

    /// `FOLDER/NAME`, NAME plain: nothing climbs out, nothing is absolute, nothing is nested.
    static func isPlainMember(_ name: String, in folder: String) -> Bool {
        name.hasPrefix(folder + "/") && EvidenceManifest.isPlainName(String(name.dropFirst(folder.count + 1)))
    }

    static func fileName(_ name: String, in folder: String?) -> String {
        guard let folder, isPlainMember(name, in: folder) else { return name }
        return String(name.dropFirst(folder.count + 1))
    }

    // MARK: The manifest

    struct ManifestReading: Decodable {
        struct File: Decodable {
            let name: String
            let byteCount: UInt64
            let sha256: String
        }
        let files: [File]
        let signatureKeyID: String?
    }

    private func manifestLines(
        _ manifest: ManifestReading?, present: Bool, digests: [String: (count: UInt64, sha256: String)], damaged: [BundleVerification.Line]
    ) -> [BundleVerification.Line] {
        guard present else { return [.init(.manifest, .fails, .manifestMissing)] }
        guard let manifest else { return [.init(.manifest, .fails, .manifestUnreadable)] }
        var lines: [BundleVerification.Line] = []
        let listed = Set(manifest.files.map(\.name))
        for file in manifest.files {
            guard let found = digests[file.name] else {
                if !damaged.contains(where: { if case .memberDamaged(file.name, _) = $0.finding { true } else { false } }) {
                    lines.append(.init(.manifest, .fails, .memberMissing(file.name)))
                }
                continue
            }
            if found.count != file.byteCount || found.sha256 != file.sha256 {
                lines.append(.init(.manifest, .fails, .memberChanged(file.name)))
            }
        }
        for name in digests.keys.sorted() where !listed.contains(name) && !EvidenceFileName.beyondManifest.contains(name) {
            lines.append(.init(.manifest, .fails, .memberNotListed(name)))
        }
        return lines.isEmpty ? [.init(.manifest, .holds, .membersAgree(count: manifest.files.count))] : lines
    }

    // MARK: The signature

    private func signatureLine(manifest: [UInt8]?, keyID: String?, signature: [UInt8]?, present: Bool) -> BundleVerification.Line {
        guard present else { return .init(.signature, .absent, .signatureMissing) }
        guard let signature, let parsed = MinisignSignature(text: String(decoding: signature, as: UTF8.self)) else {
            return .init(.signature, .fails, .signatureUnreadable)
        }
        guard let manifest else { return .init(.signature, .fails, .notChecked) }
        guard let key = publicKeys.first(where: { $0.keyID == parsed.keyID }) else {
            return .init(.signature, .fails, .signedByUnknownKey(signedBy: parsed.keyIDText, known: publicKeys.map(\.keyIDText)))
        }
        guard keyID == parsed.keyIDText else {
            return .init(.signature, .fails, .keyIDDisagrees(manifest: keyID, signature: parsed.keyIDText))
        }
        switch parsed.verify(manifest, with: key) {
        case .valid: return .init(.signature, .holds, .signed(keyID: parsed.keyIDText, trustedComment: parsed.trustedComment))
        case .otherKey(let signedBy): return .init(.signature, .fails, .signedByUnknownKey(signedBy: signedBy, known: [key.keyIDText]))
        case .fileChanged: return .init(.signature, .fails, .manifestNotSigned(keyID: key.keyIDText))
        case .trustedCommentChanged: return .init(.signature, .fails, .trustedCommentChanged(keyID: key.keyIDText))
        }
    }

    // MARK: The timestamp

    private func timestampLine(manifest: [UInt8]?, reply: [UInt8]?, present: Bool) -> BundleVerification.Line {
        guard present else { return .init(.timestamp, .absent, .timestampMissing) }
        guard let reply, let manifest else { return .init(.timestamp, .fails, .notChecked) }
        let token: TimestampToken
        do { token = try TimestampToken(reply: reply) } catch { return .init(.timestamp, .fails, .timestampUnreadable) }
        guard token.digest == TimestampToken.sha256(manifest) else { return .init(.timestamp, .fails, .timestampOtherDigest) }
        guard let tsaCAFile else { return .init(.timestamp, .notChecked, .timestampNotChecked(instant: token.instant)) }
        guard TimestampToken.verify(reply: reply, data: manifest, caFile: tsaCAFile) else {
            return .init(.timestamp, .fails, .timestampSignatureFails(caFile: tsaCAFile))
        }
        return .init(.timestamp, .holds, .timestamped(instant: token.instant, caFile: tsaCAFile))
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case let failure as ZipArchiveReader.Failure:
            switch failure {
            case .unreadable(let why): "it cannot be read (\(why))"
            case .notAZip: "it is not a zip archive (no end of central directory)"
            case .damaged(let why): "it is damaged: \(why)"
            case .sizeBeyondArchive(let name, let claimed, let archive):
                "member \(name) claims \(claimed) bytes, more than the \(archive)-byte archive can hold"
            case .unsupported(let name, let what): "\(name.isEmpty ? "it" : name) uses \(what), which no bundle does"
            case .crcMismatch(let name): "\(name) does not match its CRC-32"
            case .lengthMismatch(let name): "\(name) is not the length its header gives"
            }
        case let failure as PcapngWalker.Failure:
            switch failure {
            case .notPcapng: "it does not begin with a pcapng section header"
            case .badBlock(let index, let why): "block \(index) is damaged: \(why)"
            case .endsInsideBlock(let index): "it ends inside block \(index)"
            }
        default: "\(error)"
        }
    }
}

/// What `tvctl verify` found, one line per check (more where a check found several things wrong).
public struct BundleVerification: Sendable, Hashable {
    public enum Check: String, Sendable, Hashable, CaseIterable {
        case zip, folder, manifest, signature, timestamp, chain, capture
    }

    public enum Standing: String, Sendable, Hashable {
        case holds, fails
        /// Not there to be checked (an unsigned bundle): stated, and never taken as holding.
        case absent
        case notChecked
    }

    public enum Finding: Sendable, Hashable {
        case zipReads(members: Int)
        case zipUnreadable(String)
        case memberDamaged(name: String, reason: String)
        case memberTwice(String)
        case oneFolder(String)
        case noSingleFolder
        case memberOutsideFolder(String)
        case membersAgree(count: Int)
        case manifestMissing
        case manifestUnreadable
        case memberMissing(String)
        case memberChanged(String)
        case memberNotListed(String)
        case signed(keyID: String, trustedComment: String)
        case signatureMissing
        case signatureUnreadable
        case keyIDDisagrees(manifest: String?, signature: String)
        case signedByUnknownKey(signedBy: String, known: [String])
        case manifestNotSigned(keyID: String)
        case trustedCommentChanged(keyID: String)
        case timestamped(instant: Date, caFile: String)
        /// The token is over the manifest; its signature was not checked: no TSA chain was given.
        case timestampNotChecked(instant: Date)
        case timestampMissing
        case timestampUnreadable
        case timestampOtherDigest
        case timestampSignatureFails(caFile: String)
        case chainHolds(links: Int, unsealed: Int)
        case chainMissing
        case chainUnreadable
        case chainLinkForged(file: String)
        case chainLinkBroken(file: String)
        case chainFileWithoutLink(sequence: UInt32)
        case captureReads(packets: Int, blocks: Int)
        case captureDamaged(String)
        case captureMissing
        case notChecked
    }

    public struct Line: Sendable, Hashable {
        public let check: Check
        public let standing: Standing
        public let finding: Finding

        init(_ check: Check, _ standing: Standing, _ finding: Finding) {
            self.check = check
            self.standing = standing
            self.finding = finding
        }
    }

    public let lines: [Line]
    /// A TSA chain was given: a bundle without a timestamp then does not verify.
    public let timestampRequired: Bool

    /// Every check held: nothing failed, nothing was absent or left unchecked, except a
    /// timestamp nobody asked for (the configuration's TSA is off by default).
    public var holds: Bool { failures.isEmpty }

    /// The lines that keep the bundle from verifying.
    public var failures: [Line] {
        lines.filter { !($0.standing == .holds || ($0.check == .timestamp && $0.standing == .absent && !timestampRequired)) }
    }
}
