import Foundation
import TunnelVisionArchive
import TunnelVisionModel

/// What `tvctl archive` and the archive's line of `tvctl status` say.
extension Wording {
    static func sentence(for error: ArchiveError) -> String {
        switch error {
        case .unreachable(let detail):
            "The archive did not answer (\(detail)); this gateway keeps recording, and 'tvctl archive push' publishes what waits once it does."
        case .statementFailed(let state, let message):
            "The archive refused a statement (\(state): \(message)); nothing of the recording became visible there."
        case .newerSchema(let found, let supported):
            "The archive's schema is version \(found), newer than this tool's \(supported): update TunnelVision on this gateway."
        case .configuration(let detail):
            "The archive's configuration is not usable: \(detail)."
        case .history(let detail):
            "The gateway's history could not be read for publishing (\(detail))."
        case .recordingNotFound(let name):
            "The archive holds no recording \(name): 'tvctl archive recordings' lists them as GATEWAY:NUMBER."
        case .projectConflict(let name):
            "The project '\(name)' was changed both on this gateway and in the archive since they last agreed, so neither was kept over the other: make the two the same by hand, then pull again."
        case .foreignRow(let table, let detail):
            "A row of \(table) in the archive was published by a newer gateway (\(detail)): update TunnelVision here to read it."
        case .noBundle(let name):
            "The archive holds no bundle for \(name)."
        case .bundleNotReadBack(let path):
            "The bundle exported for publishing at \(path) could not be read back (its manifest or its bytes), so it was not published: look at that folder's disk, then push again."
        case .projectDeletedWithRecordings(let name, let recordings):
            "The project '\(name)' was deleted in the archive, but this gateway holds \(recordings == 1 ? "1 recording" : "\(recordings) recordings") of it, so it is kept here: delete it here with 'tvctl project delete' once its recordings are no longer needed (publishing one of them brings the project back to the archive)."
        case .held(let ids):
            "\(ids.count == 1 ? "Recording" : "Recordings") \(ids.map(String.init).joined(separator: ", ")) could not be exported and \(ids.count == 1 ? "waits" : "wait") for the next push; every other ended recording was published ('tvctl status' says why)."
        }
    }

    static func archiveHeld(_ reference: String, reason: String) -> String {
        "Recording \(reference) was not published: its bundle could not be exported (\(reason)). The recordings after it are published; it is tried again later."
    }

    static func archivePublished(_ reference: String, flows: Int) -> String {
        "Published recording \(reference) with \(flows) flows."
    }

    static func archiveExported(_ path: String, reference: String, manifest: String) -> String {
        "Wrote \(path), the bundle \(reference) published (manifest.json SHA-256 \(manifest)); 'tvctl verify' checks it."
    }

    static func archiveProjectPulled(_ name: String) -> String {
        "The project '\(name)' is now as the lab's archive has it."
    }

    static func archiveProjectPublished(_ name: String) -> String {
        "The project '\(name)' as this gateway has it is now the lab's."
    }

    static func archiveProjectDeleted(_ name: String) -> String {
        "The project '\(name)' was deleted in the lab's archive and is deleted here too (it had no recording here)."
    }

    static let archiveProjectsAgree = "This gateway's projects and the lab's agree."

    static func archiveNothingWaiting(gateway: String) -> String {
        "Every ended recording of \(gateway) is in the archive."
    }

    static func archiveBackingOff(until date: Date, zone: TimeZone) -> String {
        "The last publication failed; the next attempt is after \(Formatting.dateTime(date, in: zone)) (or now with --now)."
    }

    /// The line `tvctl status` adds once the gateway publishes to an archive.
    static func archiveStanding(waiting: Int, state: ArchiveState, zone: TimeZone) -> String {
        guard waiting > 0 else { return "Archive: every ended recording archived." }
        let count = waiting == 1 ? "1 ended recording" : "\(waiting) ended recordings"
        var line = "Archive: \(count) not yet archived"
        if let error = state.lastError {
            line += "; the last attempt failed (\(error))"
        }
        if let next = state.nextAttempt {
            line += "; next attempt after " + Formatting.dateTime(Date(nanosecondsSinceEpoch: next), in: zone)
        }
        for held in state.held {
            line += "; recording \(held.id)'s bundle could not be exported (\(held.reason)), next attempt after "
                + Formatting.dateTime(Date(nanosecondsSinceEpoch: held.nextAttempt), in: zone)
        }
        return line + "."
    }
}
