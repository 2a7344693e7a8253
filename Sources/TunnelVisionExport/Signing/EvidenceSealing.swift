import Foundation
import TunnelVisionEvidence

/// What an export seals its manifest with: the gateway's key (or none), the names its
/// signature's trusted comment gives, so that `minisign -V` shows which session, gateway, tool
/// and instant the signature vouches for, and the time-stamping authority asked for a token
/// over the manifest (or why none was).
public struct EvidenceSealing: Sendable, Hashable {
    public let signer: GatewaySigner?
    public let hostName: String
    public let timestamp: EvidenceTimestampPlan

    public init(signer: GatewaySigner?, hostName: String, timestamp: EvidenceTimestampPlan = .notConfigured) {
        self.signer = signer
        self.hostName = hostName
        self.timestamp = timestamp
    }

    public static let unsigned = EvidenceSealing(signer: nil, hostName: "")

    var note: EvidenceSignatureNote { EvidenceSignatureNote(keyID: signer?.publicKey.keyIDText) }

    var timestampNote: EvidenceTimestampNote {
        switch timestamp {
        case .notConfigured: EvidenceTimestampNote(authority: nil, skipped: false)
        case .skipped(let url): EvidenceTimestampNote(authority: url, skipped: true)
        case .requested(let authority): EvidenceTimestampNote(authority: authority.url, skipped: false)
        }
    }

    /// The members made of the manifest's bytes: its signature, when there is a key, and the
    /// TSA's reply, when one is asked for; `stamped` is handed the reply's instant.
    func seal(
        _ manifest: Data, sessionID: Int64, exportedWith: String, exportedAt: Date, stamped: (TimestampReply) -> Void
    ) throws -> [EvidenceFile] {
        var files: [EvidenceFile] = []
        if let signer {
            let comment = Self.trustedComment(sessionID: sessionID, hostName: hostName, exportedWith: exportedWith, exportedAt: exportedAt)
            guard let signature = signer.sign(Array(manifest), trustedComment: comment) else { throw EvidenceSealingError.notSigned }
            files.append(EvidenceFile(name: EvidenceFileName.signature, data: Data(signature.text.utf8)))
        }
        if case .requested(let authority) = timestamp {
            let reply: TimestampReply
            do { reply = try authority.stamp(Array(manifest)) } catch { throw EvidenceSealingError.notTimestamped(error) }
            stamped(reply)
            files.append(EvidenceFile(name: EvidenceFileName.timestamp, data: Data(reply.der)))
        }
        return files
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

/// Whether an export asks a TSA: the configuration names none, names one and `--no-timestamp`
/// was given, or names one that is asked.
public enum EvidenceTimestampPlan: Sendable, Hashable {
    case notConfigured
    case skipped(url: String)
    case requested(TimestampAuthority)
}

enum EvidenceSealingError: Error {
    case notSigned
    case notTimestamped(TimestampError)
}
