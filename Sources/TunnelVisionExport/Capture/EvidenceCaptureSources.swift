import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionEvidence
import TunnelVisionModel

/// Where each capture file of the history is on this disk. The history stores a path; when a
/// capture directory is given, the file is looked for there under its own name, so that a
/// directory moved whole still exports.
struct EvidenceCaptureSources {
    private let paths: [UInt32: String]
    private let directory: URL?

    init(files: [CaptureFile], directory: URL?) {
        paths = Dictionary(files.map { ($0.sequence, $0.path) }, uniquingKeysWith: { _, last in last })
        self.directory = directory
    }

    func path(of sequence: UInt32) -> String? {
        if let directory {
            if let stored = paths[sequence] {
                return directory.appendingPathComponent((stored as NSString).lastPathComponent).path
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.first { CaptureFileName.sequence(in: $0) == sequence }.map { directory.appendingPathComponent($0).path }
        }
        return paths[sequence]
    }

    /// A reader, or why the file gives no bytes: gone, or not readable as one of ours. A file
    /// that is there but cannot be opened or read (permissions, I/O), or is not a regular file,
    /// is no standing of the evidence but a fault of this machine: the export stops and names it.
    func open(sequence: UInt32) throws(EvidenceCaptureError) -> Result<CaptureFileReader, EvidenceCaptureDocument.SourceStanding> {
        guard let path = path(of: sequence) else { return .failure(.missing) }
        do {
            return .success(try CaptureFileReader(path: path))
        } catch {
            switch error {
            case .missing: return .failure(.missing)
            case .unreadable(let path, let errno): throw .sourceUnreadable(path: path, errno: errno)
            case .notRegularFile(let path): throw .sourceNotRegularFile(path: path)
            case .foreign, .noRecordAt, .recordLongerThanSnapshot, .recordCutShort: return .failure(.unreadable)
            }
        }
    }
}

extension EvidenceCaptureDocument.SourceStanding: Error {}
