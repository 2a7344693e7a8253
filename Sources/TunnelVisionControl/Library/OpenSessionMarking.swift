import Foundation
import TunnelVisionModel
import TunnelVisionStore

/// The one way a marker is placed in whatever is recording: `tvctl mark` and `tvctl mark -i`
/// both come through here.
/// The instant is the caller's, taken before the database was opened; the store reads the
/// open session and inserts the marker in one write transaction, so a session ended by
/// another process in between refuses the marker rather than receiving it.
public struct OpenSessionMarking: Sendable {
    public let library: ControlLibrary
    /// The phone whose recording is marked; nil marks the only one open.
    public let phone: String?

    public init(library: ControlLibrary, phone: String? = nil) {
        self.library = library
        self.phone = phone
    }

    /// The marker as placed and where; a refusal when nothing is recording, or when several
    /// phones are and none was named.
    public func mark(_ kind: SessionMarkerKind, at instant: Date) throws(ControlError) -> (SessionMarker, RecordingWithProject) {
        let outcome: OpenSessionMarkerOutcome
        do {
            outcome = try library.visit { store in try store.addMarkerToOpenSession(kind, phone: phone, at: instant) }
        } catch {
            if case .historyUnanswered(let problem) = error { throw .markerNotPlaced(problem) }
            throw error
        }
        switch outcome {
        case .placed(let marker, let recording): return (marker, recording)
        case .noOpenSession:
            if let phone { throw .refusal(.phoneNotRecording(phone, purpose: .mark)) }
            throw .refusal(.noOpenRecording(purpose: .mark))
        case .severalOpen(let recordings):
            throw .refusal(.severalRecordings(recordings.map { OpenRecordingName($0.session) }, purpose: .mark))
        }
    }

    /// What a marker would go into now, named; nil when nothing is recording, a refusal when
    /// several phones are and none was named.
    public func recording() throws(ControlError) -> RecordingWithProject? {
        let recordings = try library.visit { store in try store.auditRecordings() }
        let candidates = phone.map { name in recordings.filter { $0.session.phone?.name == name } } ?? recordings
        guard candidates.count <= 1 else {
            throw .refusal(.severalRecordings(candidates.map { OpenRecordingName($0.session) }, purpose: .mark))
        }
        return candidates.first
    }

    /// "consent", "login", "logout", or any other text as a label of its own.
    public static func kind(of word: String) -> SessionMarkerKind {
        switch word.lowercased() {
        case "consent": .consentGiven
        case "login": .loggedIn
        case "logout": .loggedOut
        default: .custom(word)
        }
    }

    /// The key of `mark -i` that stands for each marker.
    public static func kind(ofKey key: UInt8) -> SessionMarkerKind? {
        switch key {
        case UInt8(ascii: "c"), UInt8(ascii: "C"): .consentGiven
        case UInt8(ascii: "l"), UInt8(ascii: "L"): .loggedIn
        case UInt8(ascii: "o"), UInt8(ascii: "O"): .loggedOut
        default: nil
        }
    }
}
