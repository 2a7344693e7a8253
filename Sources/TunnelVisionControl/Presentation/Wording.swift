import Glibc
import TunnelVisionArchive
import TunnelVisionExport
import TunnelVisionModel
import TunnelVisionStore

/// Every sentence tvctl says to a person, in one place. An error says what happened and what
/// to do in one sentence; a confirmation says what was done and where.
public enum Wording {
    // MARK: Refusals (exit 1)

    static func sentence(for refusal: Refusal) -> String {
        switch refusal {
        case .audit(let rule):
            switch rule {
            case .emptyProjectName:
                "A project needs a name: give one that is not empty."
            case .duplicateAllowlistPattern(let pattern):
                "The allowlist already has \(shown(pattern)): give each pattern once."
            case .projectNotFound(let id):
                sentence(for: .projectNotFound(String(id)))
            case .sessionNotFound(let id):
                "There is no session \(id): 'tvctl session list' shows the sessions there are."
            case .sessionAlreadyOpen(let id):
                "Session \(id) is still recording: end it first with 'tvctl session end \(id)'."
            case .sessionAlreadyEnded(let id):
                "Session \(id) has already ended: start a new recording with 'tvctl session start'."
            case .dateBeforeSessionStart:
                "This computer's clock reads a time before the session began: correct the clock and try again."
            case .emptyMarkerLabel:
                "A marker needs words: give consent, login, logout or a text that is not empty."
            }
        case .projectNotFound(let reference):
            "There is no project \(quoted(reference)): 'tvctl project list' shows the projects there are."
        case .projectNameAmbiguous(let name, let ids):
            "More than one project is called \(quoted(name)) (ids \(ids.map(String.init).joined(separator: ", "))): name it by its id."
        case .projectNameTaken(let name):
            "A project called \(quoted(name)) already exists: choose another name, or name that one by its id."
        case .patternNotInAllowlist(let pattern, let project):
            "\(shown(pattern)) is not in the allowlist of \(shown(project)): 'tvctl project show \(shellWord(project))' lists it."
        case .noOpenRecording(.mark):
            "Nothing was marked: no recording is open; start one with 'tvctl session start'."
        case .noOpenRecording(.end):
            "No recording is open, so there is nothing to end: 'tvctl session list' shows the ended ones."
        case .noOpenRecording(.flows):
            "No recording is open: name a session, as in 'tvctl flows 7' ('tvctl session list' shows them)."
        case .deletionDeclined:
            "Nothing was deleted: answer y to delete, or pass --yes."
        case .diff(let refusal):
            sentence(for: refusal)
        case .catalogue(let refusal):
            sentence(for: refusal)
        case .console(let refusal):
            sentence(for: refusal)
        case .export(let failure, let sessionID):
            sentence(for: failure, sessionID: sessionID)
        case .certificateAuthorityMissing(let path):
            "There is no inspection CA at \(path) yet: start tunnelvisiond with inspection = on, or run 'tunnelvisiond --regenerate-ca' as root."
        case .certificateAuthorityUnreadable(let path):
            "The inspection CA certificate \(path) cannot be read as a PEM certificate: run 'tunnelvisiond --regenerate-ca' as root, or check that you are in the tunnelvision group."
        case .certificateAuthorityNotTheDaemons(let path):
            "The certificate at \(path) is not shown: it is not a file of the daemon's user in a folder only that user may write, and any member of the group can change where the history says the CA is, so ask an administrator to check the daemon's ca_certificate setting and restart tunnelvisiond."
        case .certificateAuthorityNotTheRelays(let path):
            "The certificate at \(path) is not the CA the running relay signs with: restart tunnelvisiond if the CA was regenerated, then show it again."
        case .certificateFileNotWritten(let path, true):
            "\(path) already exists and was left as it is: name a new file."
        case .certificateFileNotWritten(let path, false):
            "\(path) could not be written: name a file in a folder you may write to."
        case .caTrustedWithoutInspection:
            "Nothing was started: --ca-trusted names the CA the relay inspects with, and no running daemon has TLS inspection on with a CA loaded, so start it with inspection = on or leave --ca-trusted out."
        case .inspectionModeUnavailable(let mode):
            "Nothing was started: a \(AuditSerialization.name(of: mode)) recording needs the daemon's relay running with a CA loaded, and none is; "
                + "start it with inspection = on, or start with --inspection off."
        case .severalRecordings(let open, let purpose):
            severalRecordings(open, purpose: purpose)
        case .phoneNotRecording(let phone, .mark):
            "Nothing was marked: phone \(quoted(phone)) is not being recorded; 'tvctl session list' shows what is."
        case .phoneNotRecording(let phone, _):
            "Phone \(quoted(phone)) is not being recorded: 'tvctl session list' shows the recordings there are."
        case .phoneNotNamed(let phones):
            "This gateway has several phones (\(phones.map(quoted).joined(separator: ", "))): say which one is recorded with --phone NAME."
        case .phoneNotFound(let name, let phones) where phones.isEmpty:
            "There is no phone \(quoted(name)): this gateway has none yet; its administrator adds one with 'tunnelvision-phone add NAME'."
        case .phoneNotFound(let name, let phones):
            "There is no phone \(quoted(name)): the phones are \(phones.map(quoted).joined(separator: ", "))."
        case .phone(let error):
            sentence(for: error)
        case .phoneAdministrationNeedsRoot:
            "Phones are the gateway administrator's: run 'sudo tunnelvision-phone add NAME' (or remove NAME), which also sets up WireGuard."
        case .publicKeyUnreadable:
            "That is not a WireGuard public key: give the 44 characters 'wg pubkey' prints."
        case .gatewayKey(let error):
            sentence(for: error)
        case .archive(let error):
            sentence(for: error)
        case .keyAdministrationNeedsRoot:
            "The gateway's signing key is the administrator's: run 'sudo tvctl key create' (or rotate)."
        case .noGatewayKey(let path):
            "This gateway has no signing key yet (\(path)): its administrator makes one with 'sudo tvctl key create'."
        case .configurationUnreadable(let path):
            "The configuration \(path) cannot be read, so whether a time-stamping authority is configured is not known: make it readable, or name another with TUNNELVISION_CONFIG."
        case .timestampURLInvalid(let url, let path):
            "timestamp_url = \(quoted(url)) in \(path) is not an http:// or https:// URL: correct it, or export with --no-timestamp."
        case .bundleDoesNotVerify(let path, let failed):
            bundleDoesNotVerify(path: path, failed: failed)
        case .addressUnreadable(let text):
            "\(quoted(text)) is not an IP address: give the phone's tunnel IPv4 and IPv6 addresses."
        case .clientNetworkUnnumbered(let text):
            "\(quoted(text)) is not a client network phones can be numbered in: write it with its host part empty, as A.B.C.0/LENGTH or PREFIX::/LENGTH."
        case .phoneNumbersExhausted(let numbers):
            "Every host number from \(numbers.lowerBound) to \(numbers.upperBound) is held by a phone: remove one with 'tunnelvision-phone remove NAME' first."
        }
    }

    /// "Several phones are being recorded": names each recording and asks for the one meant.
    static func severalRecordings(_ open: [OpenRecordingName], purpose: OpenRecordingPurpose) -> String {
        let list = open.map { recording in
            recording.phone.map { "session \(recording.sessionID) of phone \(quoted($0))" } ?? "session \(recording.sessionID)"
        }.joined(separator: ", ")
        return switch purpose {
        case .mark: "Nothing was marked: several phones are being recorded (\(list)); say which with --phone NAME."
        case .end: "Several phones are being recorded (\(list)): say which to end with --phone NAME or the session's number."
        case .flows: "Several phones are being recorded (\(list)): say which with --phone NAME or the session's number."
        }
    }

    static let noPhones =
        "This gateway has no phones: its administrator adds one with 'sudo tunnelvision-phone add NAME'; until then a recording holds the whole tap."

    static func handshakesUnread(_ reason: String) -> String {
        "The latest WireGuard handshakes could not be read (\(reason)); 'sudo tvctl phone list' reads them."
    }

    static func handshake(_ handshake: JSONShape.PhoneShape.Handshake) -> String {
        switch (handshake.state, handshake.ageSeconds) {
        case ("live", let age?): "live, \(age) s ago"
        case ("stale", let age?): "none for \(age) s: the tunnel is down"
        case ("never", _): "never: the phone has not connected since the gateway started"
        case ("notAPeer", _): "none: no running WireGuard interface has this phone as a peer"
        default: "unknown: \(handshake.unreadable ?? "not read")"
        }
    }

    static func phoneAdded(_ phone: Phone) -> String {
        "Phone \(quoted(phone.name)) recorded: \(phone.ipv4), \(phone.ipv6), WireGuard key SHA-256 \(phone.keyFingerprint)."
    }

    static func recordedPhone(_ phone: Phone) -> String {
        "\(shown(phone.name)): \(phone.ipv4), \(phone.ipv6); WireGuard key SHA-256 \(phone.keyFingerprint.prefix(16))…"
    }

    static func phoneRemoved(_ name: String) -> String {
        "Phone \(quoted(name)) forgotten; its recordings keep it as it was."
    }

    static func sentence(for error: PhoneStoreError) -> String {
        switch error {
        case .emptyName: "A phone needs a name: give one that is not empty."
        case .nameTaken(let name): "There is already a phone called \(quoted(name)): choose another name."
        case .addressTaken(let address, let other): "Phone \(quoted(other)) already has the address \(address): give each phone its own."
        case .keyTaken(let other): "Phone \(quoted(other)) already has this WireGuard key: give each phone its own key."
        case .notFound(let name): "There is no phone \(quoted(name)): 'tvctl phone list' shows the phones there are."
        case .wrongFamily(let address): "\(address) is not of the family its option asks for: give an IPv4 address to --ipv4 and an IPv6 address to --ipv6."
        case .recording(let name, let session):
            "Phone \(quoted(name)) is being recorded in session \(session): end it with 'tvctl session end \(session)' first."
        }
    }

    static func sentence(for refusal: DiffRefusal) -> String {
        switch refusal {
        case .sameSession(let id):
            "Session \(id) cannot be compared with itself: name two sessions of the same project."
        case .differentProjects:
            "The two sessions belong to different projects: compare two releases of one project."
        case .baseline(let id):
            "Session \(id) is a baseline, which has no release to compare: name two audit sessions."
        case .stillOpen(let id):
            "Session \(id) is still recording: end it with 'tvctl session end \(id)' before comparing."
        }
    }

    /// The one table from an export's failure to what tvctl says (every case is a refusal, exit 1).
    static func sentence(for failure: EvidenceExportError, sessionID id: Int64) -> String {
        switch failure {
        case .sessionNotFound:
            sentence(for: .audit(.sessionNotFound(id)))
        case .sessionStillOpen:
            "Session \(id) is still recording: end it with 'tvctl session end \(id)' before exporting."
        case .keysNotKept:
            "Session \(id) was not started with --keep-keys, so no TLS secrets were kept for it: export it without --with-keys."
        case .catalogueNotBundled(let identifier):
            sentence(for: .notInstalled(identifier: identifier))
        case .catalogueUnusable(let identifier):
            sentence(for: .unusable(identifier: identifier, reason: "it was refused when it was loaded"))
        case .historyUnreadable(let error):
            "The history could not be read while the bundle was written (\(error)), so nothing was kept: export again."
        case .historyChangedWhileExporting:
            "The history changed while the bundle was being written, so nothing was kept: export again."
        case .captureDirectoryUnavailable(let path):
            "The capture directory \(path) cannot be read: name the daemon's capture directory with --captures."
        case .captureFileUnreadable(let path, let errno):
            "The capture file \(path) is there but cannot be read (\(String(cString: strerror(errno)))), so nothing was kept: give tvctl read access to it and export again."
        case .captureFileNotRegular(let path):
            "The capture file \(path) is not a regular file (a FIFO, a device or a folder took its place), so it was not opened and nothing was kept: put the capture file back and export again."
        case .captureNotAsSealed(let path, let mismatch):
            captureNotAsSealed(path: path, mismatch)
        case .outputUnavailable(let path):
            "\(path) is not a folder you may write to: name another with --output."
        case .bundleExists(let path):
            "\(path) already exists, from an export of this session in the same second: export again in a second, or name another folder with --output."
        case .writeFailed(let detail):
            "The bundle could not be written (\(detail)), so nothing was kept: check the space and permissions of --output."
        case .notTimestamped(let failure):
            timestampFailure(failure)
        case .notSigned:
            "The gateway key was read but libcrypto did not sign the manifest with it, so nothing was kept: export again, or make a new key with 'sudo tvctl key rotate'."
        }
    }

    static func sentence(for refusal: CatalogueRefusal) -> String {
        switch refusal {
        case .notInstalled(let identifier):
            "No catalogue \(identifier) is installed: 'tvctl catalogue list' shows the ones there are."
        case .unusable(let identifier, let reason):
            "The installed catalogue \(identifier) cannot be used (\(reason)): reinstall TunnelVision's catalogues."
        case .directoryUnreadable(let path):
            "The catalogue directory \(path) cannot be read: reinstall TunnelVision's catalogues, or point $TUNNELVISION_CATALOGUES at them."
        case .fileUnreadable(let path):
            "\(path) cannot be read: check the path and its permissions."
        case .fileRefused(let path, let reason):
            "\(path) is not a usable catalogue: \(reason)."
        }
    }

    // MARK: Usage (exit 2)

    static func sentence(for usage: UsageError) -> String {
        switch usage {
        case .missingSubcommand(let command):
            "\(command) needs a command: see '\(command) --help'."
        case .unknownCommand(let word, let command):
            "\(command) has no command \(quoted(word)): see '\(command) --help'."
        case .unknownOption(let option, let command):
            "\(command) has no option \(option): see '\(command) --help'."
        case .missingValue(let option, let valueName, let command):
            "\(option) needs a value (\(valueName)): see '\(command) --help'."
        case .flagWithValue(let option, let command):
            "\(option) takes no value: see '\(command) --help'."
        case .repeatedOption(let option, _):
            "\(option) was given more than once: give it once."
        case .missingArgument(let name, let command):
            "\(command) needs \(name): see '\(command) --help'."
        case .unexpectedArgument(let word, let command):
            "\(command) does not take \(quoted(word)) (quote a text of several words): see '\(command) --help'."
        case .invalidNumber(let option, let text, let range, _):
            "--\(option) takes a whole number from \(range.lowerBound) to \(range.upperBound), not \(quoted(text))."
        case .invalidSessionID(let text, _):
            "\(quoted(text)) is not a session id: sessions are named by their number, as 'tvctl session list' shows."
        case .invalidPattern(let text, let reason, _):
            "\(quoted(text)) is not an allowlist pattern (\(phrase(for: reason))): write a name or *.suffix, in ASCII."
        case .invalidInstant(let text, _):
            "\(quoted(text)) is not an instant: write it as 2026-10-01T09:00:00Z."
        case .invalidCAStore(let text, _):
            "\(quoted(text)) is not a CA store: write user, user-full-trust (an iOS profile with full trust on) or system."
        case .invalidInspectionMode(let text, _):
            "\(quoted(text)) is not an inspection mode: write off, pinning, untrusted-issuer, wrong-name or expired."
        case .unsafeCharacter(let shown):
            "\(quoted(shown)) holds a control character or a direction override: give names, notes and labels as printable text on one line."
        case .argumentTooLong(let bytes):
            "An argument of \(Formatting.count(bytes)) bytes is longer than the \(Formatting.count(ArgumentText.limitBytes)) a name, a note or a label may have: shorten it."
        case .notUTF8(let position):
            "Argument \(position) is not UTF-8 text: set the terminal to UTF-8, or retype it."
        case .instantOutOfRange(let text, _):
            "\(quoted(text)) is outside what the history can hold (1677-09-22 to 2262-04-11): give an instant between them, and check the system clock if it was not typed."
        case .sessionKindUnclear(let command):
            "Say what is recorded: --baseline, or --release VERSION with --build BUILD; see '\(command) --help'."
        case .missingOption(let option, let command):
            "\(command) needs \(option): see '\(command) --help'."
        case .confirmationNeeded(let command):
            "Deleting asks for confirmation and this is not a terminal: run '\(command)' with --yes."
        case .publicKeyNotMinisign(let given, let command):
            "\(quoted(given)) is neither a minisign public key file nor its base64 line: give what 'tvctl key show' prints to '\(command) --public-key'."
        }
    }

    static func phrase(for reason: DomainPattern.ParseError) -> String {
        switch reason {
        case .empty: "it is empty"
        case .misplacedWildcard: "* may only stand first, as in *.example.com"
        case .nonASCII: "it is not ASCII; write an international name in its xn-- form"
        case .emptyLabel: "it has an empty label"
        case .labelTooLong(let label): "the label \(label) is longer than 63 characters"
        case .nameTooLong: "it is longer than 253 characters"
        case .invalidCharacter(let character): "it contains \(quoted(String(character)))"
        }
    }

    // MARK: History (exit 3)

    static func sentence(for problem: HistoryProblem) -> String {
        switch problem {
        case .missing(let path):
            "There is no history at \(path): start tunnelvisiond, or name the database with --db or TUNNELVISION_DB."
        case .permissionDenied(let path):
            "You may not open the history at \(path): ask an administrator to add you to the group \(groupName), then log in again."
        case .notSharedWithGroup(let path):
            "The history at \(path) is not shared with the group \(groupName), though you are in it: ask an administrator to give the group read and write on it and its folder (setgid, umask 007)."
        case .busy(let path):
            "The history at \(path) stayed busy with another writer: try again in a moment."
        case .corrupt(let path):
            "The history at \(path) is damaged: restore it from a backup, or move it away so that tunnelvisiond starts a new one."
        case .notWritableByItsOwner(let path):
            "The history at \(path) is yours but its mode forbids writing to it: give it back with 'chmod 660 \(shellWord(path))'."
        case .readOnlyFileSystem(let path):
            "The history at \(path) is on a read-only file system: remount it read-write, or copy the history to a writable disk and name it with --db."
        case .symbolicLink(let path):
            "\(path) is a symbolic link, which tvctl does not follow (anyone in the group could have put it there): remove it so that the history is a file of its own."
        case .foreignOwner(let path, let owner):
            "The history at \(path) belongs to user \(owner), neither root nor the daemon's user, so root does not open it: run tvctl as the user tunnelvision or as a member of its group."
        case .emptyFile(let path):
            "The history at \(path) is an empty file, not a history: restore it from a backup, or delete it so that tunnelvisiond starts a new one."
        case .newerSchema(let path, let found, let supported):
            "The history at \(path) was written by a newer TunnelVision (schema \(found), this tvctl reads \(supported)): update tvctl."
        case .diskFull(let path):
            "The disk that holds \(path) is full: free some space, then try again."
        case .unreadableRow(let path, let table, let id, let reason):
            "The history at \(path) holds a row this tvctl cannot read (\(table) row \(id): \(reason)): update tvctl, or correct that row."
        case .cannotOpen(let path, let detail):
            "The history at \(path) could not be opened (\(detail)): check that it is a TunnelVision database."
        case .failed(let path, let detail):
            "The history at \(path) did not answer (\(detail)): try again, and check the disk if it happens again."
        }
    }

    /// "Nothing was marked: the history at … is busy: try again in a moment."
    static func markerNotPlaced(_ problem: HistoryProblem) -> String {
        "Nothing was marked: " + continuing(sentence(for: problem))
    }

    /// A sentence carried on after a colon of another.
    static func continuing(_ sentence: String) -> String {
        sentence.prefix(1).lowercased() + sentence.dropFirst()
    }

    /// The group whose members may read and write the daemon's database.
    public static let groupName = "tunnelvision"

    // MARK: Helpers

    static func quoted(_ text: String) -> String { "'" + shown(text) + "'" }

    /// A word as it would be typed into a shell: quoted when it holds anything a shell reads.
    static func shellWord(_ stored: String) -> String {
        let text = shown(stored)
        let plain = text.allSatisfy { $0.isLetter || $0.isNumber || "-_.,/:@".contains($0) }
        return plain && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension Wording {
    /// A capture file that does not agree with the chain the daemon sealed: no bundle, exit 3.
    static func captureNotAsSealed(path: String, _ mismatch: CaptureSealMismatch) -> String {
        let what = switch mismatch {
        case .contentChanged(let sealed, let found):
            "The capture file \(path) is not what the daemon sealed when it finished it (sealed \(sealed) bytes, now \(found) "
                + "bytes, and another SHA-256)"
        case .linkForged:
            "The chain's link for the capture file \(path) is not signed by the daemon's key: it was edited or forged"
        case .linkBroken:
            "The chain over the capture files breaks at \(path): a link was removed or put in"
        case .notSealed:
            "The capture file \(path) was finished after the daemon began sealing files and has no link in the chain"
        case .publicKeyMissing:
            "The chain over the capture files cannot be checked, since the daemon's public key (capture-seal.pub in the "
                + "folder beside the history's, <its folder>-seal) is missing, unreadable or not the daemon's (owned by another user, or writable by others); "
                + "its first file is \(path)"
        }
        return what + ": no bundle was written, since its packets could not be shown to come from the files as written; "
            + "keep the history and capture files as they are for whoever examines them."
    }
}
