import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionDigest
import TunnelVisionEvidence
import TunnelVisionModel

/// Why a source file does not agree with the chain over the capture files.
public enum CaptureSealMismatch: Sendable, Hashable {
    /// The file's size or SHA-256 is not what its link fixed when the daemon finished it.
    case contentChanged(sealedBytes: UInt64, foundBytes: UInt64)
    /// The link is not signed by the daemon's key: edited or forged.
    case linkForged
    /// The link does not follow the one before it (one removed, or put in).
    case linkBroken
    /// The file was finished after the daemon began sealing and has no link.
    case notSealed
    /// Links are there and the daemon's public key is not (or not readable): nothing can be checked.
    case publicKeyMissing
}

/// Checks a capture's source files against the chain before a byte of them is copied, and says
/// which links capture.json carries.
struct EvidenceCaptureSeals {
    let files: [CaptureFile]
    let seals: [CaptureSeal]
    /// The daemon's published public key; nil when it published none.
    let publicKey: [UInt8]?

    func check(sequences: [UInt32], sources: EvidenceCaptureSources) throws(EvidenceCaptureError) -> EvidenceCaptureChain {
        let byFile = Dictionary(files.map { ($0.sequence, $0) }, uniquingKeysWith: { _, last in last })
        let bySequence = Dictionary(seals.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
        let pathOf = { (sequence: UInt32, name: String) in sources.path(of: sequence) ?? name }
        if let first = seals.first {
            guard let publicKey else { throw .notAsSealed(path: pathOf(first.sequence, first.fileName), .publicKeyMissing) }
            // The whole chain: a link edited anywhere is a history someone changed.
            switch CaptureChain.check(seals, publicKey: publicKey) {
            case .forged(let seal)?: throw .notAsSealed(path: pathOf(seal.sequence, seal.fileName), .linkForged)
            case .brokenLink(let seal)?: throw .notAsSealed(path: pathOf(seal.sequence, seal.fileName), .linkBroken)
            case nil: break
            }
        }
        var listed: [EvidenceCaptureChain.File] = []
        for sequence in sequences.sorted() {
            // A file the history no longer lists, or that is gone, gives no bytes: capture.json says so.
            // One that is not a regular file is refused when opened, with its own sentence.
            var status = stat()
            guard let file = byFile[sequence], let path = sources.path(of: sequence), stat(path, &status) == 0,
                  status.st_mode & S_IFMT == S_IFREG else { continue }
            guard let seal = bySequence[sequence] else {
                // Still written, or finished before the first link: nothing fixed its digest.
                if file.closedAt == nil || seals.first.map({ sequence < $0.sequence }) ?? true {
                    listed.append(.init(sequence: sequence, standing: .unsealed, position: nil))
                    continue
                }
                throw .notAsSealed(path: path, .notSealed)
            }
            let found: (bytes: UInt64, sha256: String)
            do { found = try CaptureFileDigest.sha256(ofFileAt: path) } catch {
                if case .unreadable(let path, let errno) = error { throw .sourceUnreadable(path: path, errno: errno) }
                throw .sourceUnreadable(path: path, errno: EIO)
            }
            guard found.bytes == seal.bytes, found.sha256 == seal.sha256 else {
                throw .notAsSealed(path: path, .contentChanged(sealedBytes: seal.bytes, foundBytes: found.bytes))
            }
            listed.append(.init(sequence: sequence, standing: .sealed, position: seal.position))
        }
        // The links of the listed files and every one between them: consecutive, so they check alone.
        let positions = listed.compactMap(\.position)
        let links = positions.min().map { low in seals.filter { $0.position >= low && $0.position <= positions.max()! } } ?? []
        return EvidenceCaptureChain(publicKey: publicKey.map(Hex.encode), files: listed, links: links.map(EvidenceCaptureChain.Link.init))
    }
}
