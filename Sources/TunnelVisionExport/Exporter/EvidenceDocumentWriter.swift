import Dispatch
import Foundation
import TunnelVisionEvidence

/// Writes the bundle's four documents on a thread of their own while the capture is sliced:
/// neither needs the other, and together they take about as long as the longer of the two.
final class EvidenceDocumentWriter: @unchecked Sendable {
    // Unchecked: `outcome` is written once on the worker and read only after `done` is waited for.
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<[EvidenceManifest.Entry], any Error> = .success([])
    private var waited = false

    init(bundle: EvidenceBundle, folder: URL, save: @escaping @Sendable (EvidenceFile, URL) throws -> Void) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            outcome = Result {
                var entries: [EvidenceManifest.Entry] = []
                try bundle.eachDocumentFile { file in
                    try save(file, folder)
                    entries.append(EvidenceManifest.Entry(hashing: file))
                }
                return entries
            }
            done.signal()
        }
    }

    /// The documents' manifest entries, once all four are on disk.
    func entries() throws -> [EvidenceManifest.Entry] {
        wait()
        return try outcome.get()
    }

    /// Returns once the worker is done; the folder may only be removed after that.
    func wait() {
        guard !waited else { return }
        done.wait()
        waited = true
    }
}
