import Foundation
import TunnelVisionEvidence

/// The bundle's .zip: one folder of the bundle's name, each file written into it as it is made
/// and hashed on the way for the manifest. capture.pcapng is stored as it is: it is mostly TLS
/// ciphertext and hundreds of megabytes, and deflating it would double the export for a few per
/// cent. Every other file is deflated at the fastest level: the documents are text that shrinks
/// by nine tenths, and report.pdf is compressed by cairo only in part (its fonts and cross
/// references are not), so it still shrinks by about a third.
final class EvidenceArchive {
    /// One file as the archive holds it, for the result and for a benchmark's table.
    struct Member: Sendable, Hashable {
        let name: String
        let stored: Bool
        let byteCount: UInt64
        let compressedCount: UInt64
    }

    static let storedUncompressed: Set<String> = [EvidenceFileName.capture]

    /// Unpacked, nobody but the owner may change the bundle and the group may only read it: without
    /// modes, unzip gives the folder 0777 less the umask, and at umask 000 anyone could swap a file.
    static let folderMode = mode_t(S_IFDIR) | 0o750
    static let fileMode = mode_t(S_IFREG) | 0o640

    let url: URL
    private let folder: String
    private let zip: ZipArchiveWriter
    /// What the manifest lists, in the order written.
    private(set) var entries: [EvidenceManifest.Entry] = []
    private(set) var members: [Member] = []

    /// `folder` is the name of the archive's single top folder.
    init(url: URL, folder: String, modifiedAt: Date) throws {
        self.url = url
        self.folder = folder
        zip = try ZipArchiveWriter(path: url.path, modifiedAt: modifiedAt)
        try zip.addDirectory(folder, mode: Self.folderMode)
    }

    var fileNames: [String] { members.map(\.name).sorted() }

    /// Writes one file: `body` writes its bytes into the output it is handed. `mayPass4GiB`: the
    /// file may be too long for a zip without zip64 (a capture).
    @discardableResult
    func add<Result>(_ name: String, mayPass4GiB: Bool = false, _ body: (ZipMemberOutput) throws -> Result) throws -> Result {
        let stored = Self.storedUncompressed.contains(name)
        let (result, written) = try zip.addMember(
            folder + "/" + name, method: stored ? .stored : .deflated, mode: Self.fileMode, mayPass4GiB: mayPass4GiB, body)
        entries.append(EvidenceManifest.Entry(name: name, byteCount: written.byteCount, sha256: written.sha256))
        members.append(Member(name: name, stored: stored, byteCount: written.byteCount, compressedCount: written.compressedCount))
        return result
    }

    func add(_ document: EvidenceDocument) throws {
        try add(document.name) { try document.write(to: $0) }
    }

    /// The manifest of what was written, written last but for what `seal` makes of its bytes
    /// (its signature); then the central directory.
    func finish(
        sessionID: Int64, exportedAt: Date, signatureKeyID: String? = nil, seal: (Data) throws -> [EvidenceFile] = { _ in [] }
    ) throws {
        let manifest = try EvidenceManifest(
            sessionID: sessionID, exportedAt: exportedAt, entries: entries, signatureKeyID: signatureKeyID).file()
        try add(manifest.name) { try $0.write(Array(manifest.data)) }
        for file in try seal(manifest.data) {
            try add(file.name) { try $0.write(Array(file.data)) }
        }
        try zip.finish()
    }
}
