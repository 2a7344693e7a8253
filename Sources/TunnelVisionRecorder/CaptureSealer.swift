import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionModel

/// Adds a signed link to the chain over the capture files for each file the daemon finishes (live
/// or importing), each made from the chain's last link in the transaction that appends it.
public final class CaptureSealer {
    private let key: Ed25519Key
    private let history: CaptureHistory

    public init(key: Ed25519Key, history: CaptureHistory) {
        self.key = key
        self.history = history
    }

    public func seal(_ file: CaptureFile, sha256: String, origin: CaptureSeal.Origin) throws {
        let name = URL(fileURLWithPath: file.path).lastPathComponent
        try history.appendCaptureSeal { last in
            guard let seal = CaptureChain.seal(after: last, sequence: file.sequence, fileName: name, bytes: file.bytes, sha256: sha256,
                                               origin: origin, at: file.closedAt ?? Date(), key: key) else {
                throw CaptureSealError.notSigned(path: file.path)
            }
            return seal
        }
    }
}

enum CaptureSealError: Error {
    case notSigned(path: String)
}
