import Foundation

/// One link of the chain over the capture files: a finished file's size and SHA-256, fixed by the
/// daemon when it finished the file, holding the SHA-256 of the link before it and signed with the
/// daemon's own Ed25519 key (readable by the daemon alone), so that a group member who edits a file
/// or a row cannot make the chain agree again. Hex is lower case.
public struct CaptureSeal: Sendable, Hashable {
    /// How the digest was taken.
    public enum Origin: String, Sendable, Hashable {
        /// Over the bytes as the writer wrote them.
        case written
        /// By reading the file at the daemon's next start, after a run that did not finish it.
        case recovered
    }

    /// 1 for the first link; each link is the one before plus one.
    public let position: Int64
    public let sequence: UInt32
    /// The file's name in the capture directory.
    public let fileName: String
    public let bytes: UInt64
    public let sha256: String
    public let origin: Origin
    public let sealedAt: Date
    /// The SHA-256 of the link before (its signed text); 64 zeros for the first.
    public let previous: String
    /// Ed25519 over the signed text, hex.
    public let signature: String

    public init(position: Int64, sequence: UInt32, fileName: String, bytes: UInt64, sha256: String, origin: Origin,
                sealedAt: Date, previous: String, signature: String) {
        self.position = position
        self.sequence = sequence
        self.fileName = fileName
        self.bytes = bytes
        self.sha256 = sha256
        self.origin = origin
        self.sealedAt = sealedAt
        self.previous = previous
        self.signature = signature
    }
}
