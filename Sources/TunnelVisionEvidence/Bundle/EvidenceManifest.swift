import Foundation

/// manifest.json: every other file of the bundle by name, with its size and SHA-256, so that the
/// evidence can be shown to be unaltered after export. It does not list itself.
public struct EvidenceManifest: Encodable, Sendable, Hashable {
    public struct Entry: Encodable, Sendable, Hashable {
        public let name: String
        public let byteCount: UInt64
        /// Lower case hex, as `sha256sum` prints it.
        public let sha256: String

        public init(name: String, byteCount: UInt64, sha256: String) {
            self.name = name
            self.byteCount = byteCount
            self.sha256 = sha256
        }
    }

    public let format = "tunnelvision.evidence.manifest"
    public let formatVersion = 1
    public let sessionID: Int64
    public let exportedAt: Date
    /// Sorted by name.
    public let files: [Entry]
    /// minisign's id of the gateway key whose signature of this file is manifest.json.minisig;
    /// nil: the bundle is not signed. Said here so that a reader knows which key to ask for.
    public let signatureKeyID: String?

    public init(sessionID: Int64, exportedAt: Date, entries: [Entry], signatureKeyID: String? = nil) throws(EvidenceManifestError) {
        guard !entries.isEmpty else { throw .noFiles }
        var seen = Set<String>()
        for entry in entries {
            guard Self.isPlainName(entry.name) else { throw .nameNotPlain(entry.name) }
            guard !EvidenceFileName.beyondManifest.contains(entry.name) else { throw .listsItself }
            guard seen.insert(entry.name).inserted else { throw .duplicateName(entry.name) }
            guard Self.isDigest(entry.sha256) else { throw .malformedDigest(name: entry.name) }
        }
        self.sessionID = sessionID
        self.exportedAt = exportedAt
        self.signatureKeyID = signatureKeyID
        files = entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    public func file() throws -> EvidenceFile {
        EvidenceFile(name: EvidenceFileName.manifest, data: try EvidenceJSON.encode(self))
    }

    /// A name that stays in the folder: no separator, nothing hidden, nothing unprintable.
    public static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && name.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0x20 && scalar.value != 0x7F && scalar != "/" && scalar != "\\"
        }
    }

    static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private enum CodingKeys: String, CodingKey { case format, formatVersion, sessionID, exportedAt, files, signatureKeyID }
}

public enum EvidenceManifestError: Error, Sendable, Hashable {
    case noFiles
    case nameNotPlain(String)
    case duplicateName(String)
    /// manifest.json cannot hold its own digest, nor those of its signature and timestamp.
    case listsItself
    case malformedDigest(name: String)
}
