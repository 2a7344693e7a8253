import Foundation
import TunnelVisionAudit
import TunnelVisionModel

/// The blocks of each section, read from the bundle's documents so that the report says
/// nothing the documents do not.
struct EvidenceReportContent {
    typealias Words = EvidenceWording.Report
    typealias Label = EvidenceWording.Report.Label
    typealias Column = EvidenceWording.Report.Column

    let bundle: EvidenceBundle
    let capture: EvidenceCaptureDocument
    let limits: EvidenceReportLimits

    func blocks(of kind: EvidenceReportSectionKind) -> [EvidenceReportBlock] {
        switch kind {
        case .session: session()
        case .method: method()
        case .catalogue: catalogue()
        case .requirements: requirements()
        case .findings: findings()
        case .checks: checks()
        case .tlsReadings: tlsReadings()
        case .capture: captureBlocks()
        }
    }

    private func session() -> [EvidenceReportBlock] {
        let document = bundle.session
        let project = document.project, session = document.session
        let conditions = session.inspection.conditions
        var facts = [EvidenceReportFact(Label.project, project.name)]
        if let bundleIdentifier = project.bundleIdentifier { facts.append(EvidenceReportFact(Label.bundleIdentifier, bundleIdentifier)) }
        facts += [
            EvidenceReportFact(Label.release, session.release.map { "\($0.version) (\($0.build))" } ?? Words.baselineRelease),
            EvidenceReportFact(Label.session, String(session.id)),
            EvidenceReportFact(Label.started, Words.instant(session.startedAt), staysWithNext: true),
            EvidenceReportFact(Label.ended, Words.instant(bundle.sessionEnd)),
            EvidenceReportFact(Label.device, "\(session.device.model), \(session.device.osVersion)"),
        ]
        if let phone = session.phone { facts.append(EvidenceReportFact(Label.phone, Words.recordedPhone(phone))) }
        facts += [
            EvidenceReportFact(Label.recordedWith, session.toolVersion, staysWithNext: true),
            EvidenceReportFact(Label.exportedWith, document.exportedWith, staysWithNext: true),
            EvidenceReportFact(Label.exportedAt, Words.instant(document.exportedAt), staysWithNext: true),
            EvidenceReportFact(Label.signedWith, Words.signedWith(document.signature), staysWithNext: true),
            EvidenceReportFact(Label.timestamp, Words.timestamp(document.timestamp)),
            EvidenceReportFact(Label.inspection, Words.inspectionMode(conditions.mode), staysWithNext: true),
        ]
        if let fingerprint = session.inspection.caSHA256 {
            facts.append(EvidenceReportFact(Label.caFingerprint, fingerprint, staysWithNext: true))
        }
        if let fingerprint = session.inspection.validationIssuerSHA256 {
            facts.append(EvidenceReportFact(Label.validationIssuer, fingerprint, staysWithNext: true))
        }
        facts += [
            EvidenceReportFact(
                Label.caTrusted, Words.caTrusted(session.inspection.caTrusted, store: conditions.caStore), staysWithNext: true),
        ]
        if let mirror = session.inspection.upstreamMirror {
            facts.append(EvidenceReportFact(Label.upstreamMirror, Words.upstreamMirror(mirror), staysWithNext: true))
        }
        facts += [
            EvidenceReportFact(Label.quicDropped, Words.yesNo(session.inspection.quicDropped)),
            EvidenceReportFact(Label.gatewayResolvers,
                               session.gatewayResolvers.isEmpty ? Words.noGatewayResolvers : session.gatewayResolvers.joined(separator: ", ")),
            EvidenceReportFact(Label.notes, session.notes.isEmpty ? Words.noNotes : session.notes),
        ]
        var blocks: [EvidenceReportBlock] = [
            .facts(facts),
            .paragraph(Words.pinningReadability(conditions)),
            .paragraph(Words.validationReadability(conditions)),
            .heading(Words.markersHeading),
        ]
        let markers = session.markers ?? []
        blocks.append(markers.isEmpty ? .paragraph(Words.noMarkers) : .table(EvidenceReportTable(
            columns: [Column.time, Column.marker],
            rows: markers.map { [Words.instant($0.date), Words.markerName(kind: $0.kind, label: $0.label)] })))
        blocks.append(.heading(Words.allowlistHeading))
        blocks.append(project.allowlist.isEmpty ? .paragraph(Words.emptyAllowlist) : .table(EvidenceReportTable(
            columns: [Column.pattern, Column.note],
            rows: project.allowlist.map { [$0.pattern, $0.note ?? ""] })))
        return blocks
    }

    private func method() -> [EvidenceReportBlock] {
        [
            .heading(Words.attributionHeading), .note(bundle.session.attribution),
            .heading(Words.notIncludedHeading), .note(bundle.session.notIncluded),
            .heading(Words.labInfrastructureHeading), .note(bundle.session.labInfrastructure),
            .heading(Words.readingsHeading), .note(bundle.flows.contents),
            .heading(Words.verdictsHeading), .note(bundle.findings.verdicts),
        ]
    }

    private func catalogue() -> [EvidenceReportBlock] {
        let catalogue = bundle.findings.catalogue
        func source(_ heading: String, _ source: EvidenceFindingsDocument.Source) -> [EvidenceReportFact] {
            [
                EvidenceReportFact(heading, source.document, staysWithNext: true),
                EvidenceReportFact(Label.documentTitle, source.title, staysWithNext: true),
                EvidenceReportFact(Label.version, source.version, staysWithNext: true),
                EvidenceReportFact(Label.date, source.date, staysWithNext: true),
                EvidenceReportFact(Label.sha256, source.sha256),
            ]
        }
        let minimum = TLSProtocolVersion(catalogue.tls.minimumVersion.wireValue)
        return [
            .facts([EvidenceReportFact(Label.catalogue, catalogue.identifier)]),
            .facts(source(Words.requirementsDocument, catalogue.source)),
            .facts(source(Words.tlsDocument, catalogue.tls.source)
                + [EvidenceReportFact(Label.tlsMinimum, Words.minimum(minimum))]),
        ]
    }

    private func requirements() -> [EvidenceReportBlock] {
        let entries = bundle.findings.requirements
        var blocks: [EvidenceReportBlock] = [.table(EvidenceReportTable(
            columns: [Column.requirement, Column.verdict],
            rows: entries.map { [$0.id, $0.verdictStatement] }))]
        for (entry, assessment) in zip(entries, bundle.assessment.requirements) {
            var facts = [
                EvidenceReportFact(Label.aspect, Words.aspect(number: entry.aspect.number, name: entry.aspect.name)),
                EvidenceReportFact(Label.testDepth, entry.testDepth),
                EvidenceReportFact(Label.verdict, entry.verdictStatement, staysWithNext: entry.toolCoverage != nil),
            ]
            if let coverage = entry.toolCoverage { facts.append(EvidenceReportFact(Label.toolCoverage, coverage)) }
            if assessment.requirement.rule.readsFindings {
                facts.append(EvidenceReportFact(Label.against, Words.findingList(entry.contraryFindingIDs, limit: limits.flowIDsPerFinding)))
                if !entry.supportingKinds.isEmpty {
                    facts.append(EvidenceReportFact(Label.inSupport, Words.findingList(entry.supportingFindingIDs, limit: limits.flowIDsPerFinding)))
                }
            }
            facts.append(EvidenceReportFact(Label.connections, assessment.coverage.map(Words.coverage) ?? Words.noCheck))
            blocks += [.heading(Words.requirementHeading(id: entry.id, title: entry.title)), .facts(facts)]
        }
        return blocks
    }

    private func findings() -> [EvidenceReportBlock] {
        let entries = bundle.findings.findings
        guard !entries.isEmpty else { return [.paragraph(Words.noFindings)] }
        var statements: [String] = []
        var rows: [String: [[String]]] = [:]
        for (entry, finding) in zip(entries, bundle.assessment.findings.findings) {
            if rows[entry.statement] == nil { statements.append(entry.statement) }
            rows[entry.statement, default: []].append([
                entry.id, about(finding.evidence), String(entry.flows.count),
                Words.flowIDs(entry.flows, limit: limits.flowIDsPerFinding),
            ])
        }
        let summaries = Dictionary(grouping: entries.compactMap { entry in
            entry.requestsBeforeConsent.map { (entry.statement, $0.summary) }
        }) { $0.0 }
        return statements.flatMap { statement -> [EvidenceReportBlock] in
            [
                .note(statement),
                .table(EvidenceReportTable(
                    columns: [Column.finding, Column.about, Column.connections, Column.flowIDs],
                    rows: rows[statement] ?? [])),
            ] + (summaries[statement] ?? []).map { .paragraph($0.1) }
        } + requestsBeforeConsentBlocks()
    }

    private func about(_ evidence: FindingEvidence) -> String {
        switch evidence {
        case .hostNotInAllowlist(let host), .pinningAbsent(let host), .pinningObserved(let host),
             .untrustedIssuerAccepted(let host), .wrongNameAccepted(let host), .expiredCertificateAccepted(let host),
             .refusalNotToldApart(let host, _): host
        case .weakTLSVersion(let observation): Words.tlsReading(observation.version, basis: observation.basis)
        case .cleartextTraffic(let protocolSeen): protocolSeen.rawValue.uppercased()
        case .requestsBeforeConsent(let host): host ?? Words.noRequestHost
        case .unnamedFlow, .activityBeforeConsent: Words.notAboutAnything
        }
    }

    private func checks() -> [EvidenceReportBlock] {
        let document = bundle.findings.checks
        let all: [(FindingsCheck, EvidenceFindingsDocument.Check)] = [
            (.encryption, document.encryption), (.tlsVersion, document.tlsVersion), (.host, document.host),
            (.pinning, document.pinning), (.consent, document.consent),
            (.certificateValidation, document.certificateValidation),
        ]
        return all.flatMap { check, entry -> [EvidenceReportBlock] in
            let summary = bundle.assessment.findings.summary(of: check)
            var blocks: [EvidenceReportBlock] = [
                .heading(Words.checkName(check)),
                .facts([
                    EvidenceReportFact(Label.behindFinding, String(summary.findingFlows), staysWithNext: true),
                    EvidenceReportFact(Label.satisfied, String(summary.satisfiedFlows), staysWithNext: true),
                    EvidenceReportFact(Label.notAssessed, String(summary.unassessedFlows), staysWithNext: true),
                    EvidenceReportFact(Label.notApplicable, String(summary.notApplicableFlows), staysWithNext: true),
                    EvidenceReportFact(Label.inAll, String(summary.totalFlows)),
                ]),
            ]
            if let basis = entry.basis { blocks.append(.facts(Self.consentBasisFacts(basis))) }
            blocks.append(entry.unassessed.isEmpty ? .paragraph(Words.everythingLookedAt) : .table(EvidenceReportTable(
                columns: [Column.reason, Column.connections],
                rows: entry.unassessed.map { [$0.statement, String($0.flows.count)] })))
            return blocks
        }
    }

    private func tlsReadings() -> [EvidenceReportBlock] {
        let readings = bundle.tlsReadings
        guard !readings.isEmpty else { return [.paragraph(Words.noTLSReadings)] }
        let shown = readings.prefix(limits.tlsReadingRows)
        var blocks: [EvidenceReportBlock] = [.table(EvidenceReportTable(
            columns: [Column.host, Column.nameFrom, Column.version, Column.readFrom, Column.clientOffered, Column.connections],
            rows: shown.map { reading in
                [
                    reading.host ?? Words.noName, Words.nameOrigin(reading.origin),
                    Words.answerVersion(reading.answer), Words.answerReadFrom(reading.answer),
                    Words.clientOffered(reading.offer), String(reading.connections),
                ]
            }))]
        if readings.count > shown.count {
            blocks.append(.paragraph(Words.rowsOmitted(readings.count - shown.count, file: EvidenceFileName.flows)))
        }
        return blocks + relayBlocks()
    }

    /// What the inspection relay did with each host's connections, outcome or not.
    private func relayBlocks() -> [EvidenceReportBlock] {
        let events = bundle.relayEvents
        guard !events.isEmpty else { return [] }
        let shown = events.prefix(limits.tlsReadingRows)
        var blocks: [EvidenceReportBlock] = [
            .heading(Words.relayHeading),
            .table(EvidenceReportTable(
                columns: [Column.host, Column.relay, Column.upstreamCertificate, Column.connections],
                rows: shown.map { event in
                    [event.host ?? Words.noName, Words.relayEvent(decision: event.decision, event: event.event, alert: event.alert, presented: event.presented),
                     Words.upstreamVerification(event.upstreamVerified, presented: event.presented), String(event.connections)]
                })),
        ]
        if events.count > shown.count {
            blocks.append(.paragraph(Words.rowsOmitted(events.count - shown.count, file: EvidenceFileName.flows)))
        }
        return blocks
    }

    private func captureBlocks() -> [EvidenceReportBlock] {
        let packets = capture.packets
        let outside = capture.writtenOutsideSession
        let counts: [(String, Int)] = [
            ("packets.recorded", packets.recorded), ("packets.written", packets.written),
        ] + EvidenceMissingReason.allCases.map { ("packets.withoutBytes.\($0.rawValue)", packets.count($0)) } + [
            ("writtenOutsideSession.beforeStart", outside.beforeStart),
            ("writtenOutsideSession.afterEnd", outside.afterEnd), ("packetsAfterEnd", capture.packetsAfterEnd),
        ]
        let rows = counts.filter { $0.1 > 0 }.map { [$0.0, String($0.1)] }
        var blocks: [EvidenceReportBlock] = [.paragraph(Words.standing(capture.standing))]
        blocks += (capture.passiveTapDrops ?? []).map { .paragraph(Words.passiveTapDrops($0)) }
        if !rows.isEmpty { blocks.append(.table(EvidenceReportTable(columns: [Column.captureKey, Column.packets], rows: rows))) }
        blocks += [.note(capture.contents), .note(capture.packetComments)]
        if capture.packetsAfterEnd > 0 { blocks.append(.note(capture.afterEndContents)) }
        return blocks
    }
}
