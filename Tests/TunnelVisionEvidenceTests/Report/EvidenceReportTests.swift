import Foundation
import Testing
import TunnelVisionAudit
@testable import TunnelVisionEvidence
import TunnelVisionModel

struct EvidenceReportTests {
    typealias Fixture = EvidenceFixture

    static func capture(sessionID: Int64 = 7, written: Int = 40, notCaptured: Int = 0, beforeStart: Int = 0) -> EvidenceCaptureDocument {
        EvidenceCaptureDocument(
            sessionID: sessionID, snaplen: 262_144,
            packets: EvidencePacketTally(written: written, withoutBytes: [.notCaptured: notCaptured]),
            writtenOutsideSession: .init(beforeStart: beforeStart, afterEnd: 0), sourceFiles: [], flows: [])
    }

    static func text(of report: EvidenceReport) -> [String] {
        [report.title, report.subtitle] + report.sections.flatMap { section in
            [section.title] + section.blocks.flatMap { block -> [String] in
                switch block {
                case .heading(let text), .paragraph(let text), .note(let text): [text]
                case .facts(let facts): facts.flatMap { [$0.label, $0.value] }
                case .table(let table): table.columns + table.rows.flatMap { $0 }
                }
            }
        }
    }

    @Test func alwaysEightSectionsInOrderEvenForAnEmptySession() throws {
        let empty = try EvidenceBundle(
            project: AuditProject(id: 3, name: "Empty", bundleIdentifier: nil, catalogueVersion: nil, allowlist: [], createdAt: Fixture.start),
            session: Fixture.session(), markers: [], flows: [], catalogue: Fixture.catalogue,
            exportedWith: "t", exportedAt: Fixture.exportedAt)
        for bundle in [empty, try Fixture.bundle()] {
            let report = try EvidenceReport(bundle: bundle, capture: Self.capture(), limits: .bundled)
            #expect(report.sections.map(\.kind) == EvidenceReportSectionKind.allCases)
            #expect(report.sections.allSatisfy { !$0.blocks.isEmpty })
        }
        let text = Self.text(of: try EvidenceReport(bundle: empty, capture: Self.capture(written: 0), limits: .bundled))
        #expect(text.contains(EvidenceWording.Report.noMarkers))
        #expect(text.contains(EvidenceWording.Report.emptyAllowlist))
        #expect(text.contains(EvidenceWording.Report.noFindings))
        #expect(text.contains(EvidenceWording.Report.standing(.nothingRecorded)))
    }

    @Test func refusesTheCaptureOfAnotherSession() throws {
        let bundle = try Fixture.bundle()
        #expect(throws: EvidenceReportError.captureOfAnotherSession(captureRunID: 8, sessionID: 7)) {
            try EvidenceReport(bundle: bundle, capture: Self.capture(sessionID: 8), limits: .bundled)
        }
    }

    @Test(arguments: [(12, 150, true), (1, 1, true), (0, 150, false), (12, 0, false), (-1, 5, false)])
    func limitsArePositive(flowIDs: Int, rows: Int, valid: Bool) {
        #expect((EvidenceReportLimits(flowIDsPerFinding: flowIDs, tlsReadingRows: rows) != nil) == valid)
    }

    @Test func citesEveryRequirementFindingAndTheCatalogueDigest() throws {
        let bundle = try Fixture.bundle()
        let text = Self.text(of: try EvidenceReport(bundle: bundle, capture: Self.capture(), limits: .bundled)).joined(separator: "\n")
        for requirement in Fixture.catalogue.requirements { #expect(text.contains(requirement.id)) }
        for finding in bundle.findings.findings { #expect(text.contains(finding.id)) }
        #expect(text.contains(Fixture.catalogue.source.sha256))
        #expect(text.contains(Fixture.catalogue.tlsSource.sha256))
        #expect(text.contains("Acme Health · 2.4.1 (310) · session 7"))
    }

    @Test func theMethodQuotesTheFiveNotesAttributionFirst() throws {
        let report = try EvidenceReport(bundle: Fixture.bundle(), capture: Self.capture(), limits: .bundled)
        let notes = report.sections[1].blocks.compactMap { block -> String? in
            if case .note(let text) = block { return text }
            return nil
        }
        #expect(notes == [
            EvidenceWording.Note.attribution, EvidenceWording.Note.notIncluded(keyLog: EvidenceKeyLog(included: false, flows: 0)), EvidenceWording.Note.labInfrastructure,
            EvidenceWording.Note.flowsContents, EvidenceWording.Note.verdicts,
        ])
    }

    @Test func findingsOfOneSentenceGoUnderItOnceAndLongListsSayWhatTheyOmit() throws {
        let flows = (0..<20).map { index in
            Fixture.flow(Int64(100 + index), second: 100 + Double(index)) {
                $0.sni = "host\(index % 2).unlisted.example"
                $0.streamOpening = .tlsHandshake
                $0.serverTLS = .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301)))
            }
        }
        let bundle = try Fixture.bundle(flows: flows)
        let limits = try #require(EvidenceReportLimits(flowIDsPerFinding: 4, tlsReadingRows: 1))
        let report = try EvidenceReport(bundle: bundle, capture: Self.capture(), limits: limits)
        let blocks = report.sections[4].blocks
        let hostStatement = EvidenceWording.statement(of: .hostNotInAllowlist(host: "x"), minimum: .tls12)
        #expect(blocks.filter { $0 == .note(hostStatement) }.count == 1)
        guard case .table(let table)? = blocks.first(where: { if case .table = $0 { true } else { false } }) else {
            Issue.record("no table of findings")
            return
        }
        #expect(table.rows.map(\.first) == ["F1", "F2"])
        #expect(table.rows[0] == ["F1", "host0.unlisted.example", "10", "100 102 104 106 … 6 more in findings.json"])
        let readings = Self.text(of: report)
        #expect(readings.contains(EvidenceWording.Report.rowsOmitted(1, file: "flows.json")))
        let unlisted = 30
        let many = try Fixture.bundle(flows: (0..<unlisted).map { index in
            Fixture.flow(Int64(200 + index), second: 100 + Double(index)) { $0.sni = "h\(index).unlisted.example" }
        })
        let againstPurp8 = try EvidenceReport(bundle: many, capture: Self.capture(), limits: limits).sections[3].blocks
            .compactMap { block -> [EvidenceReportFact]? in
                if case .facts(let facts) = block { return facts }
                return nil
            }.flatMap { $0 }.filter { $0.label == EvidenceWording.Report.Label.against }.map(\.value)
        #expect(againstPurp8.contains("F1, F2, F3, F4 … \(unlisted - 4) more in findings.json"))
    }

    @Test func checkCountsAddUpToTheSessionsFlows() throws {
        let bundle = try Fixture.bundle()
        let report = try EvidenceReport(bundle: bundle, capture: Self.capture(), limits: .bundled)
        let totals = report.sections[5].blocks.compactMap { block -> String? in
            guard case .facts(let facts) = block else { return nil }
            return facts.last?.value
        }
        #expect(totals == Array(repeating: String(Fixture.flows.count), count: FindingsCheck.allCases.count))
        #expect(totals.count == 6)
    }

    @Test func theCaptureSectionCountsOnlyWhatHasPackets() throws {
        let report = try EvidenceReport(
            bundle: Fixture.bundle(), capture: Self.capture(written: 30, notCaptured: 3, beforeStart: 1), limits: .bundled)
        let tables = report.sections[7].blocks.compactMap { block -> EvidenceReportTable? in
            if case .table(let table) = block { return table }
            return nil
        }
        #expect(tables.count == 1)
        #expect(tables.first?.rows == [
            ["packets.recorded", "33"], ["packets.written", "30"], ["packets.withoutBytes.notCaptured", "3"],
            ["writtenOutsideSession.beforeStart", "1"],
        ])
        #expect(report.sections[7].blocks.first == .paragraph(
            "The capture holds 30 of the 33 packets the history records for this session's connections; "
                + "the others have no bytes: 3 never written to a capture file."))
    }
}
