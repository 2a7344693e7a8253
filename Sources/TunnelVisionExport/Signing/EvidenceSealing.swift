import Foundation
import TunnelVisionEvidence

/// What an export seals its manifest with: the gateway's key (or none) and the names its
/// signature's trusted comment gives, so that `minisign -V` shows which session, gateway, tool
/// and instant the signature vouches for.
public struct EvidenceSealing: Sendable, Hashable {
    public let signer: GatewaySigner?
    public let hostName: String

    public init(signer: GatewaySigner?, hostName: String) {
        self.signer = signer
        self.hostName = hostName
    }

    public static let unsigned = EvidenceSealing(signer: nil, hostName: "")

    var note: EvidenceSignatureNote { EvidenceSignatureNote(keyID: signer?.publicKey.keyIDText) }

    /// The members made of the manifest's bytes: its signature, when there is a key.
    func seal(_ manifest: Data, sessionID: Int64, exportedWith: String, exportedAt: Date) throws -> [EvidenceFile] {
        guard let signer else { return [] }
        let comment = Self.trustedComment(sessionID: sessionID, hostName: hostName, exportedWith: exportedWith, exportedAt: exportedAt)
        guard let signature = signer.sign(Array(manifest), trustedComment: comment) else { throw EvidenceSealingError.notSigned }
        return [EvidenceFile(name: EvidenceFileName.signature, data: Data(signature.text.utf8))]
    }

    /// `tunnelvision session=7 host=gw1 tool=0.1.0+1a2b3c4d5e6f exported=2026-11-30T07:05:07Z`: each
    /// value with `_` for anything but printable ASCII, so the comment stays one line of four words.
    static func trustedComment(sessionID: Int64, hostName: String, exportedWith: String, exportedAt: Date) -> String {
        func word(_ text: String) -> String {
            let kept = String(text.unicodeScalars.map { $0.value > 0x20 && $0.value < 0x7F ? Character($0) : "_" })
            return kept.isEmpty ? "unknown" : String(kept.prefix(200))
        }
        let instant = ISO8601DateFormatter().string(from: exportedAt)
        return "tunnelvision session=\(sessionID) host=\(word(hostName)) tool=\(word(exportedWith)) exported=\(instant)"
    }

    /// This machine's name, as gethostname(2) gives it.
    public static var localHostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

enum EvidenceSealingError: Error {
    case notSigned
}
