import Foundation
import Testing
import TunnelVisionExport
import TunnelVisionStore
@testable import TunnelVisionControl

/// What the store throws, classified as ControlLibrary classifies it: a rule the
/// person can act on (exit 1) or a history that did not answer (exit 3), each with its sentence.
/// The cases a test cannot provoke from outside (a full disk, a writer holding the history for
/// the whole busy timeout) are held here.
struct ErrorClassificationTests {
    static let library = ControlLibrary(location: DatabaseLocation(path: "/tmp/tvctl-classification/h.sqlite"))
    static let path = library.location.path

    @Test(arguments: [
        (AuditStoreError.emptyProjectName, "A project needs a name: give one that is not empty."),
        (.duplicateAllowlistPattern("*.a.example"), "The allowlist already has *.a.example: give each pattern once."),
        (.projectNotFound(4), "There is no project '4': 'tvctl project list' shows the projects there are."),
        (.sessionNotFound(9), "There is no session 9: 'tvctl session list' shows the sessions there are."),
        (.sessionAlreadyOpen(7), "Session 7 is still recording: end it first with 'tvctl session end 7'."),
        (.sessionAlreadyEnded(7), "Session 7 has already ended: start a new recording with 'tvctl session start'."),
        (.dateBeforeSessionStart, "This computer's clock reads a time before the session began: correct the clock and try again."),
        (.emptyMarkerLabel, "A marker needs words: give consent, login, logout or a text that is not empty."),
    ])
    func aRuleOfTheModelIsARefusal(_ error: AuditStoreError, _ sentence: String) {
        let classified = Self.library.classify(error)
        #expect(classified.exitCode == 1)
        #expect(classified.sentence == sentence)
    }

    @Test(arguments: [
        (HistoryError.busy(path: path), "The history at \(path) stayed busy with another writer: try again in a moment."),
        (.corrupt(path: path), "The history at \(path) is damaged: restore it from a backup, or move it away so that tunnelvisiond starts a new one."),
        (.diskFull(path: path), "The disk that holds \(path) is full: free some space, then try again."),
        (.newerSchema(path: path, found: 9, supported: 6), "The history at \(path) was written by a newer TunnelVision (schema 9, this tvctl reads 6): update tvctl."),
        (.cannotOpen(path: path, reason: "no such directory"), "The history at \(path) could not be opened (no such directory): check that it is a TunnelVision database."),
        (.failed(path: path, code: 10, message: "disk I/O error"), "The history at \(path) did not answer (disk I/O error): try again, and check the disk if it happens again."),
    ])
    func aHistoryThatDidNotAnswerIsExitThree(_ error: HistoryError, _ sentence: String) {
        let classified = Self.library.classify(error)
        #expect(classified.exitCode == 3)
        #expect(classified.sentence == sentence)
    }

    @Test func aRefusalRaisedInsideAVisitPassesThroughUnchanged() {
        let refusal = ControlError.refusal(.noOpenRecording(purpose: .mark))
        #expect(Self.library.classify(refusal) == refusal)
    }

    @Test func anythingElseIsAHistoryThatDidNotAnswer() {
        struct Strange: Error {}
        #expect(Self.library.classify(Strange()).exitCode == 3)
    }

    @Test func everySentenceIsOneLineEndingInAFullStop() {
        let problems: [HistoryProblem] = [
            .missing(path: "p"), .permissionDenied(path: "p"), .notSharedWithGroup(path: "p"), .busy(path: "p"),
            .corrupt(path: "p"), .newerSchema(path: "p", found: 2, supported: 1), .diskFull(path: "p"),
            .cannotOpen(path: "p", detail: "d"), .failed(path: "p", detail: "d"),
        ]
        let refusals: [Refusal] = [
            .audit(.emptyProjectName), .audit(.duplicateAllowlistPattern("x")), .audit(.projectNotFound(1)), .projectNotFound("x"),
            .projectNameAmbiguous("x", ids: [1, 2]), .projectNameTaken("x"), .patternNotInAllowlist("x", project: "y"),
            .audit(.sessionNotFound(1)), .audit(.sessionAlreadyOpen(1)), .audit(.sessionAlreadyEnded(1)),
            .audit(.dateBeforeSessionStart), .audit(.emptyMarkerLabel), .noOpenRecording(purpose: .mark),
            .noOpenRecording(purpose: .end), .noOpenRecording(purpose: .flows), .deletionDeclined,
            .diff(.sameSession(1)), .diff(.differentProjects), .diff(.baseline(sessionID: 1)), .diff(.stillOpen(sessionID: 1)),
            .catalogue(.notInstalled(identifier: "x")), .catalogue(.unusable(identifier: "x", reason: "r")),
            .catalogue(.directoryUnreadable(path: "p")), .catalogue(.fileUnreadable(path: "p")),
            .catalogue(.fileRefused(path: "p", reason: "r")), .certificateAuthorityMissing(path: "p"),
            .certificateAuthorityUnreadable(path: "p"), .certificateFileNotWritten(path: "p", exists: true),
            .certificateFileNotWritten(path: "p", exists: false), .caTrustedWithoutInspection,
        ]
        let exports: [EvidenceExportError] = [
            .sessionNotFound, .sessionStillOpen, .catalogueNotBundled(identifier: "x"), .catalogueUnusable(identifier: "x"),
            .historyUnreadable(.busy(path: "p")), .historyChangedWhileExporting, .captureDirectoryUnavailable("p"),
            .captureFileUnreadable(path: "p", errno: EACCES), .captureFileNotRegular(path: "p"), .outputUnavailable("p"), .writeFailed("d"),
            .captureNotAsSealed(path: "p", .contentChanged(sealedBytes: 1, foundBytes: 2)), .captureNotAsSealed(path: "p", .linkForged),
            .captureNotAsSealed(path: "p", .linkBroken), .captureNotAsSealed(path: "p", .notSealed),
            .captureNotAsSealed(path: "p", .publicKeyMissing),
        ]
        let sentences = problems.map { ControlError.historyUnanswered($0).sentence } + refusals.map { ControlError.refusal($0).sentence }
            + exports.map { ControlError.refusal(.export($0, sessionID: 1)).sentence }
            + problems.map { ControlError.markerNotPlaced($0).sentence }
        for sentence in sentences {
            #expect(!sentence.contains("\n"))
            #expect(sentence.hasSuffix("."), "\(sentence)")
            #expect(sentence.contains(":"), "says what happened, then what to do: \(sentence)")
            #expect(!sentence.lowercased().contains("sqlite"))
        }
    }
}
