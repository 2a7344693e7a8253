import Foundation
import TunnelVisionModel

/// capture.json's `captureChain`: the links of the chain over the capture files for the files this
/// capture was copied from, and every link between them, so that a reader can check each link's
/// signature against the daemon's public key and each link's `previous` against the one before.
/// The exporter checked each sealed file's size and SHA-256 against its link before copying it.
public struct EvidenceCaptureChain: Codable, Sendable, Hashable {
    public struct Link: Codable, Sendable, Hashable {
        public let position: Int64
        public let sequence: UInt32
        public let file: String
        public let bytes: UInt64
        public let sha256: String
        public let origin: String
        /// Seconds since 1970 (UTC), as signed.
        public let sealed: Int64
        public let previous: String
        public let signature: String

        public init(_ seal: CaptureSeal) {
            position = seal.position
            sequence = seal.sequence
            file = seal.fileName
            bytes = seal.bytes
            sha256 = seal.sha256
            origin = seal.origin.rawValue
            sealed = Int64(seal.sealedAt.timeIntervalSince1970.rounded(.down))
            previous = seal.previous
            signature = seal.signature
        }

        /// The link as the chain holds it; nil for an origin this build does not know.
        public var seal: CaptureSeal? {
            CaptureSeal.Origin(rawValue: origin).map {
                CaptureSeal(position: position, sequence: sequence, fileName: file, bytes: bytes, sha256: sha256, origin: $0,
                            sealedAt: Date(timeIntervalSince1970: Double(sealed)), previous: previous, signature: signature)
            }
        }
    }

    public enum Standing: String, Codable, Sendable, Hashable {
        /// Its size and SHA-256 were fixed when the daemon finished it, and the file matched them.
        case sealed
        /// Still being written when the export ran, or finished before the daemon sealed files.
        case unsealed
    }

    public struct File: Codable, Sendable, Hashable {
        public let sequence: UInt32
        public let standing: Standing
        /// The file's link in `links`, when sealed.
        public let position: Int64?

        public init(sequence: UInt32, standing: Standing, position: Int64?) {
            self.sequence = sequence
            self.standing = standing
            self.position = position
        }
    }

    /// The daemon's Ed25519 public key (hex); absent when this gateway's daemon has sealed nothing.
    public let publicKey: String?
    public let files: [File]
    public let links: [Link]
    public var contents = EvidenceWording.Note.captureChain

    public init(publicKey: String?, files: [File], links: [Link]) {
        self.publicKey = publicKey
        self.files = files
        self.links = links
    }
}
