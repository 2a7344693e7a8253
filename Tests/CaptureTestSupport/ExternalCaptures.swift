import Foundation

/// Real captures from other projects: shared/ lies beside the repository (in CI too), else where
/// the sessions keep it.
public let externalCaptures: String = {
    let beside = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/captures/external").standardized.path
    return FileManager.default.fileExists(atPath: beside) ? beside : "/work/shared/captures/external"
}()
