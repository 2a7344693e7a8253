import TunnelVisionArchive
import TunnelVisionExport
import TunnelVisionModel
import TunnelVisionStore

/// Everything a tvctl command can fail with, sorted by what the person can do about it.
/// The exit code follows from the case: a refusal the user can act on is 1, a command line
/// that does not say something runnable is 2, a history that did not answer (or capture files
/// that do not agree with the chain the daemon sealed) is 3.
public enum ControlError: Error, Sendable, Equatable {
    case refusal(Refusal)
    case usage(UsageError)
    case historyUnanswered(HistoryProblem)
    /// A marker the history did not take: said as such, so that it is never taken for placed.
    case markerNotPlaced(HistoryProblem)

    public var exitCode: Int32 {
        switch self {
        // Evidence that does not agree with what was sealed is a history problem, not a refusal to retry.
        case .refusal(.export(.captureNotAsSealed, _)): 3
        case .refusal: 1
        case .usage: 2
        case .historyUnanswered, .markerNotPlaced: 3
        }
    }

    /// The one sentence printed on standard error.
    public var sentence: String {
        switch self {
        case .refusal(let refusal): Wording.sentence(for: refusal)
        case .usage(let usage): Wording.sentence(for: usage)
        case .historyUnanswered(let problem): Wording.sentence(for: problem)
        case .markerNotPlaced(let problem): Wording.markerNotPlaced(problem)
        }
    }
}

/// A rule of the audit model or of the command said no; nothing was changed.
public enum Refusal: Sendable, Equatable {
    /// A rule of the audit model the history keeps, as the history said it.
    case audit(AuditStoreError)
    /// No project by this name or id (a name is looked up here, an id by the history).
    case projectNotFound(String)
    case projectNameAmbiguous(String, ids: [Int64])
    case projectNameTaken(String)
    case patternNotInAllowlist(String, project: String)
    /// `mark`, `session end` and `flows` without a session need an open recording.
    case noOpenRecording(purpose: OpenRecordingPurpose)
    case deletionDeclined
    case diff(DiffRefusal)
    /// The lab's archive refused or did not answer; the gateway's own history is untouched.
    case archive(ArchiveError)
    case catalogue(CatalogueRefusal)
    /// No evidence bundle was written (nothing is left behind): the exporter's own failure, said
    /// as it is. A history that did not answer is not one of these: it is `historyUnanswered`.
    case export(EvidenceExportError, sessionID: Int64)
    /// `tvctl ca` found no CA certificate where the daemon keeps it.
    case certificateAuthorityMissing(path: String)
    case certificateAuthorityUnreadable(path: String)
    /// The certificate the history points at could have been put there by someone other than the daemon.
    case certificateAuthorityNotTheDaemons(path: String)
    /// It is not the CA the running relay said it signs with (a regenerated CA before a restart).
    case certificateAuthorityNotTheRelays(path: String)
    case certificateFileNotWritten(path: String, exists: Bool)
    /// `--ca-trusted` while no relay runs with a CA: the declaration would name no CA.
    case caTrustedWithoutInspection
    /// A recording that inspects was asked for and the daemon does not inspect.
    case inspectionModeUnavailable(InspectionMode)
    /// Several phones are being recorded and the command did not say which.
    case severalRecordings([OpenRecordingName], purpose: OpenRecordingPurpose)
    /// The named phone has no open recording.
    case phoneNotRecording(String, purpose: OpenRecordingPurpose)
    /// `session start` on a gateway of several phones, without --phone: carries their names.
    case phoneNotNamed(phones: [String])
    /// No phone by that name: carries the names there are.
    case phoneNotFound(String, phones: [String])
    case phone(PhoneStoreError)
    case publicKeyUnreadable
    case phoneAdministrationNeedsRoot
    /// The gateway's signing key could not be used (unreadable, malformed, not written).
    case gatewayKey(GatewayKeyError)
    /// `tvctl key create` and `rotate` change what every later bundle is signed with.
    case keyAdministrationNeedsRoot
    /// `tvctl key show` on a gateway without a key.
    case noGatewayKey(path: String)
    /// The daemon's configuration file is there and cannot be read.
    case configurationUnreadable(path: String)
    /// `timestamp_url` is not an http:// or https:// URL.
    case timestampURLInvalid(String, path: String)
    /// `tvctl verify`: at least one check did not hold (the lines above say which).
    case bundleDoesNotVerify(path: String, failed: Int)
    case addressUnreadable(String)
    /// `tvctl phone next-number --network`: not a network whose N-th address the phones can have.
    case clientNetworkUnnumbered(String)
    /// Every host number is held by a phone in the history.
    case phoneNumbersExhausted(ClosedRange<Int>)
    /// `tvctl console` (the web console's password and certificate).
    case console(ConsoleRefusal)
}

public enum OpenRecordingPurpose: Sendable, Equatable {
    case mark, end, flows
}

/// An open recording as a refusal names it: its session and its phone.
public struct OpenRecordingName: Sendable, Equatable {
    public let sessionID: Int64
    public let phone: String?

    public init(_ session: Recording) {
        sessionID = session.id
        phone = session.phone?.name
    }
}

/// Why two sessions cannot be compared (the release diff's own refusals, named by session).
public enum DiffRefusal: Sendable, Equatable {
    case sameSession(Int64)
    case differentProjects
    case baseline(sessionID: Int64)
    case stillOpen(sessionID: Int64)
}

public enum CatalogueRefusal: Sendable, Equatable {
    case notInstalled(identifier: String)
    case unusable(identifier: String, reason: String)
    case directoryUnreadable(path: String)
    case fileUnreadable(path: String)
    case fileRefused(path: String, reason: String)
}

/// The command line does not say something tvctl can run.
public enum UsageError: Sendable, Equatable {
    case missingSubcommand(command: String)
    case unknownCommand(String, command: String)
    case unknownOption(String, command: String)
    case missingValue(String, valueName: String, command: String)
    case flagWithValue(String, command: String)
    case repeatedOption(String, command: String)
    case missingArgument(String, command: String)
    case unexpectedArgument(String, command: String)
    case invalidNumber(option: String, text: String, range: ClosedRange<Int>, command: String)
    case invalidSessionID(String, command: String)
    case invalidPattern(String, reason: DomainPattern.ParseError, command: String)
    case invalidInstant(String, command: String)
    /// An instant outside 1677-09-21 … 2262-04-11, which the history cannot hold.
    case instantOutOfRange(String, command: String)
    /// An argument holding a control character or a bidi override, shown visibly.
    case unsafeCharacter(String)
    case argumentTooLong(bytes: Int)
    /// The argument at this position (from 1) is not UTF-8.
    case notUTF8(position: Int)
    case sessionKindUnclear(command: String)
    case invalidInspectionMode(String, command: String)
    /// `--ca-trusted` names no store the tool knows.
    case invalidCAStore(String, command: String)
    case missingOption(String, command: String)
    case confirmationNeeded(command: String)
    /// `--public-key` is neither a minisign public key file nor its base64 line.
    case publicKeyNotMinisign(String, command: String)
}

/// The history did not answer: nothing about the audit was decided.
public enum HistoryProblem: Sendable, Equatable {
    case missing(path: String)
    case permissionDenied(path: String)
    /// Refused although this user is in the group: the file or its folder is not the group's.
    case notSharedWithGroup(path: String)
    case busy(path: String)
    case corrupt(path: String)
    case emptyFile(path: String)
    case symbolicLink(path: String)
    case foreignOwner(path: String, owner: UInt32)
    case notWritableByItsOwner(path: String)
    case readOnlyFileSystem(path: String)
    case newerSchema(path: String, found: Int, supported: Int)
    case diskFull(path: String)
    case unreadableRow(path: String, table: String, id: Int64, reason: String)
    case cannotOpen(path: String, detail: String)
    case failed(path: String, detail: String)
}
