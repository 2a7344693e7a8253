import Foundation
import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// One row of the consent table: what the traffic before consent shows.
struct ConsentRow: Sendable, CustomTestStringConvertible {
    let row: String
    let baseline: Bool
    let markers: [Double]
    let firstPacket: Double
    let expected: ConsentAssessment
    var testDescription: String { row }
}

@Suite("Whether a flow came before consent")
struct ConsentAssessmentTests {
    static let rows: [ConsentRow] = [
        ConsentRow(row: "a baseline session with markers → notApplicable", baseline: true, markers: [10], firstPacket: 5, expected: .notApplicable),
        ConsentRow(row: "a baseline session without markers → notApplicable", baseline: true, markers: [], firstPacket: 5, expected: .notApplicable),
        ConsentRow(row: "no consentGiven marker → noConsentMarker", baseline: false, markers: [], firstPacket: 5, expected: .notAssessed(.noConsentMarker)),
        ConsentRow(row: "first packet before the earliest marker → beforeConsent", baseline: false, markers: [10, 20], firstPacket: 9.999, expected: .beforeConsent),
        ConsentRow(row: "first packet before the session began, before the marker → beforeConsent", baseline: false, markers: [10], firstPacket: -30, expected: .beforeConsent),
        ConsentRow(row: "first packet at the latest marker → afterConsent", baseline: false, markers: [10, 20], firstPacket: 20, expected: .afterConsent),
        ConsentRow(row: "first packet after the latest marker → afterConsent", baseline: false, markers: [10, 20], firstPacket: 25, expected: .afterConsent),
        ConsentRow(row: "one marker, first packet at it → afterConsent", baseline: false, markers: [10], firstPacket: 10, expected: .afterConsent),
        ConsentRow(row: "first packet at the earliest of two markers → betweenConsentMarkers", baseline: false, markers: [20, 10], firstPacket: 10, expected: .notAssessed(.betweenConsentMarkers)),
        ConsentRow(row: "first packet between the markers → betweenConsentMarkers", baseline: false, markers: [10, 30, 20], firstPacket: 25, expected: .notAssessed(.betweenConsentMarkers)),
    ]

    @Test(arguments: rows)
    func row(_ row: ConsentRow) {
        let markers = row.markers.enumerated().map { Fixture.consent($1, id: Int64($0 + 1)) }
        let kind: RecordingKind = row.baseline ? .baseline : .audit(AppRelease(version: "2.4.1", build: "310"))
        let flow = Fixture.flow(1, at: row.firstPacket)
        #expect(ConsentAssessment(of: flow, sessionKind: kind, consent: ConsentInterval(markers: markers, sessionID: 7)) == row.expected)
    }

    @Test("Only this session's consentGiven markers make the interval")
    func intervalReadsOnlyThisSessionsConsent() throws {
        let markers = [
            Fixture.consent(50, session: 8),
            SessionMarker(id: 2, sessionID: 7, date: Fixture.at(1), kind: .loggedIn),
            SessionMarker(id: 3, sessionID: 7, date: Fixture.at(2), kind: .custom("consent")),
            Fixture.consent(30), Fixture.consent(20),
        ]
        let interval = try #require(ConsentInterval(markers: markers, sessionID: 7))
        #expect(interval.earliest == Fixture.at(20))
        #expect(interval.latest == Fixture.at(30))
        #expect(ConsentInterval(markers: [Fixture.consent(50, session: 8)], sessionID: 7) == nil)
    }
}
