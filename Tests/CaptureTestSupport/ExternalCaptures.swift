import Foundation

/// Real captures from other projects, an extra beside the project's own corpus:
/// `TV_EXTERNAL_CAPTURES`, else shared/ beside the repository (as CI lays it out).
public let externalCaptures: String = ProcessInfo.processInfo.environment["TV_EXTERNAL_CAPTURES"]
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/captures/external").standardized.path

/// Suites that read the external corpus are switched off, by name, when it is absent.
public let externalCapturesArePresent = FileManager.default.fileExists(atPath: externalCaptures)
