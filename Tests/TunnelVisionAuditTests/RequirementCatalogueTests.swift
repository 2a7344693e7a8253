import Foundation
import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// A catalogue written wrongly in one place: the base text with one unique passage replaced.
struct CatalogueRefusalRow: Sendable, CustomTestStringConvertible {
    let refusal: String
    let replacing: String
    let with: String
    let expected: RequirementCatalogueError
    var testDescription: String { refusal }
}

enum CatalogueText {
    /// A small catalogue of three requirements, one of each rule.
    static let base = """
    {
      "formatVersion": 1,
      "identifier": "test-catalogue",
      "source": { "document": "BSI TR-03161-1", "title": "Mobile Anwendungen", "version": "3.0",
                  "date": "2024-03-25", "sha256": "f8837fbee1710ad3555bbe333f4a50e83c0c66b24724ab3be5cc634a80beb001" },
      "tls": { "minimumVersion": "1.2",
               "source": { "document": "BSI TR-02102-2", "title": "TLS", "version": "2026-01",
                           "date": "2026-01-27", "sha256": "eed80d1a38ec0d7d8908765c3a09ea6f17a7ca729bef95b0d358d5d129af3f1f" } },
      "requirements": [
        { "id": "O.Ntwk_1", "aspect": { "number": 9, "name": "Netzwerkkommunikation" },
          "title": "Verschlüsselt.", "testDepth": "EXAMINE", "rule": "contraryFindings",
          "contraryKinds": ["cleartextTraffic"], "toolCoverage": "Reads openings." },
        { "id": "O.Ntwk_3", "aspect": { "number": 9, "name": "Netzwerkkommunikation" },
          "title": "Kanäle.", "testDepth": "EXAMINE", "rule": "outsideToolScope" },
        { "id": "O.Ntwk_4", "aspect": { "number": 9, "name": "Netzwerkkommunikation" },
          "title": "Pinning.", "testDepth": "CHECK", "rule": "contraryAndSupportingFindings",
          "contraryKinds": ["pinningAbsent"], "supportingKinds": ["pinningObserved"], "toolCoverage": "Reads outcomes.",
          "futureKey": true }
      ]
    }
    """

    static func replacing(_ passage: String, with replacement: String) -> Data {
        precondition(base.components(separatedBy: passage).count == 2, "not unique in the base: \(passage)")
        return Data(base.replacingOccurrences(of: passage, with: replacement).utf8)
    }
}

@Suite("Requirement catalogue")
struct RequirementCatalogueTests {
    static let first = RequirementReference(position: 1, id: "O.Ntwk_1")
    static let second = RequirementReference(position: 2, id: "O.Ntwk_3")
    static let third = RequirementReference(position: 3, id: "O.Ntwk_4")
    static let source = #""source": { "document": "BSI TR-03161-1""#
    static let firstKinds = #""contraryKinds": ["cleartextTraffic"], "toolCoverage": "Reads openings.""#
    static let thirdKinds = #""contraryKinds": ["pinningAbsent"], "supportingKinds": ["pinningObserved"]"#

    static let refusals: [CatalogueRefusalRow] = [
        CatalogueRefusalRow(refusal: "not JSON", replacing: #""formatVersion": 1,"#, with: "formatVersion: 1,",
                            expected: .malformed(detail: "")),
        CatalogueRefusalRow(refusal: "a JSON array, not an object", replacing: CatalogueText.base, with: "[1]",
                            expected: .malformed(detail: "")),
        CatalogueRefusalRow(refusal: "a value of the wrong type", replacing: #""formatVersion": 1"#, with: #""formatVersion": "1""#,
                            expected: .malformed(detail: "formatVersion")),
        CatalogueRefusalRow(refusal: "another formatVersion", replacing: #""formatVersion": 1"#, with: #""formatVersion": 2"#,
                            expected: .unsupportedFormatVersion(found: 2)),
        CatalogueRefusalRow(refusal: "no formatVersion", replacing: #""formatVersion": 1,"#, with: "",
                            expected: .unsupportedFormatVersion(found: nil)),
        CatalogueRefusalRow(refusal: "an empty identifier", replacing: #""identifier": "test-catalogue""#, with: #""identifier": " ""#,
                            expected: .emptyField(key: "identifier", in: .catalogue)),
        // An identifier names a file of the catalogue directory, never a path.
        CatalogueRefusalRow(refusal: "an identifier that is a path", replacing: #""identifier": "test-catalogue""#, with: #""identifier": "../../etc/passwd""#,
                            expected: .identifierNotAName("../../etc/passwd")),
        CatalogueRefusalRow(refusal: "a hidden identifier", replacing: #""identifier": "test-catalogue""#, with: #""identifier": ".hidden""#,
                            expected: .identifierNotAName(".hidden")),
        CatalogueRefusalRow(refusal: "an empty source field", replacing: #""title": "Mobile Anwendungen""#, with: #""title": """#,
                            expected: .emptyField(key: "title", in: .source)),
        CatalogueRefusalRow(refusal: "a missing TLS source field", replacing: #""document": "BSI TR-02102-2","#, with: "",
                            expected: .emptyField(key: "document", in: .tlsSource)),
        CatalogueRefusalRow(refusal: "no source", replacing: source, with: #""sourceDocument": { "document": "BSI TR-03161-1""#,
                            expected: .emptyField(key: "document", in: .source)),
        CatalogueRefusalRow(refusal: "a date not written yyyy-MM-dd", replacing: #""date": "2024-03-25""#, with: #""date": "25.03.2024""#,
                            expected: .invalidDate("25.03.2024", in: .source)),
        CatalogueRefusalRow(refusal: "a date that does not exist", replacing: #""date": "2026-01-27""#, with: #""date": "2026-02-29""#,
                            expected: .invalidDate("2026-02-29", in: .tlsSource)),
        CatalogueRefusalRow(refusal: "a digest in upper case", replacing: "f8837fbee1710ad3555bbe333f4a50e83c0c66b24724ab3be5cc634a80beb001",
                            with: "F8837FBEE1710AD3555BBE333F4A50E83C0C66B24724AB3BE5CC634A80BEB001",
                            expected: .invalidDigest("F8837FBEE1710AD3555BBE333F4A50E83C0C66B24724AB3BE5CC634A80BEB001", in: .source)),
        CatalogueRefusalRow(refusal: "a digest that is too short", replacing: "eed80d1a38ec0d7d8908765c3a09ea6f17a7ca729bef95b0d358d5d129af3f1f",
                            with: "eed80d1a", expected: .invalidDigest("eed80d1a", in: .tlsSource)),
        CatalogueRefusalRow(refusal: "a TLS minimum above 1.3", replacing: #""minimumVersion": "1.2""#, with: #""minimumVersion": "1.4""#,
                            expected: .invalidTLSMinimum("1.4")),
        CatalogueRefusalRow(refusal: "a TLS minimum written as a name", replacing: #""minimumVersion": "1.2""#, with: #""minimumVersion": "TLS 1.2""#,
                            expected: .invalidTLSMinimum("TLS 1.2")),
        CatalogueRefusalRow(refusal: "no TLS minimum", replacing: #""minimumVersion": "1.2","#, with: "",
                            expected: .invalidTLSMinimum(nil)),
        CatalogueRefusalRow(refusal: "no requirements", replacing: #""requirements": ["#, with: #""requirements": [], "old": ["#,
                            expected: .noRequirements),
        CatalogueRefusalRow(refusal: "a requirement repeated", replacing: #""id": "O.Ntwk_4""#, with: #""id": "O.Ntwk_1""#,
                            expected: .repeatedRequirement(RequirementReference(position: 3, id: "O.Ntwk_1"))),
        CatalogueRefusalRow(refusal: "a requirement without an id", replacing: #""id": "O.Ntwk_3", "#, with: "",
                            expected: .emptyField(key: "id", in: .requirement(RequirementReference(position: 2, id: nil)))),
        CatalogueRefusalRow(refusal: "a requirement with an empty title", replacing: #""title": "Kanäle.""#, with: #""title": """#,
                            expected: .emptyField(key: "title", in: .requirement(second))),
        CatalogueRefusalRow(refusal: "an aspect without a name", replacing: #""aspect": { "number": 9, "name": "Netzwerkkommunikation" },\#n      "title": "Pinning.""#,
                            with: #""aspect": { "number": 9 }, "title": "Pinning.""#,
                            expected: .emptyField(key: "aspect.name", in: .requirement(third))),
        CatalogueRefusalRow(refusal: "an aspect number that is not positive",
                            replacing: #""aspect": { "number": 9, "name": "Netzwerkkommunikation" },\#n      "title": "Kanäle.""#,
                            with: #""aspect": { "number": 0, "name": "Netzwerkkommunikation" }, "title": "Kanäle.""#,
                            expected: .invalidAspectNumber(in: second)),
        CatalogueRefusalRow(refusal: "an unknown test depth", replacing: #""testDepth": "CHECK""#, with: #""testDepth": "check""#,
                            expected: .unknownTestDepth("check", in: third)),
        CatalogueRefusalRow(refusal: "an unknown rule", replacing: #""rule": "outsideToolScope""#, with: #""rule": "manual""#,
                            expected: .unknownRule("manual", in: second)),
        CatalogueRefusalRow(refusal: "no rule", replacing: #""rule": "outsideToolScope""#, with: #""rules": "outsideToolScope""#,
                            expected: .emptyField(key: "rule", in: .requirement(second))),
        CatalogueRefusalRow(refusal: "a requirement field of the wrong type", replacing: #""title": "Pinning.""#, with: #""title": 3"#,
                            expected: .malformed(detail: "requirements[2].title")),
        CatalogueRefusalRow(refusal: "an unknown finding kind", replacing: #"["cleartextTraffic"]"#, with: #"["plainText"]"#,
                            expected: .unknownFindingKind("plainText", in: first)),
        CatalogueRefusalRow(refusal: "a validation kind spelt as the mode is", replacing: #"["cleartextTraffic"]"#,
                            with: #"["untrusted-issuer-accepted"]"#,
                            expected: .unknownFindingKind("untrusted-issuer-accepted", in: first)),
        CatalogueRefusalRow(refusal: "a validation kind that does not exist", replacing: #"["cleartextTraffic"]"#,
                            with: #"["revokedCertificateAccepted"]"#,
                            expected: .unknownFindingKind("revokedCertificateAccepted", in: first)),
        CatalogueRefusalRow(refusal: "validation kinds beside pinning kinds: several checks", replacing: thirdKinds,
                            with: #""contraryKinds": ["pinningAbsent", "wrongNameAccepted"], "supportingKinds": ["pinningObserved"]"#,
                            expected: .kindsOfSeveralChecks([.pinning, .certificateValidation], in: third)),
        CatalogueRefusalRow(refusal: "a validation kind repeated", replacing: #"["cleartextTraffic"]"#,
                            with: #"["cleartextTraffic", "expiredCertificateAccepted", "expiredCertificateAccepted"]"#,
                            expected: .repeatedKind(.expiredCertificateAccepted, in: first)),
        CatalogueRefusalRow(refusal: "validation kinds on a rule that reads none", replacing: #""rule": "outsideToolScope""#,
                            with: #""rule": "outsideToolScope", "contraryKinds": ["untrustedIssuerAccepted"]"#,
                            expected: .unexpectedKinds(.contraryKinds, in: second)),
        CatalogueRefusalRow(refusal: "contrary kinds missing", replacing: firstKinds, with: #""toolCoverage": "Reads openings.""#,
                            expected: .missingKinds(.contraryKinds, in: first)),
        CatalogueRefusalRow(refusal: "contrary kinds empty", replacing: #"["cleartextTraffic"]"#, with: "[]",
                            expected: .missingKinds(.contraryKinds, in: first)),
        CatalogueRefusalRow(refusal: "supporting kinds missing", replacing: thirdKinds, with: #""contraryKinds": ["pinningAbsent"]"#,
                            expected: .missingKinds(.supportingKinds, in: third)),
        CatalogueRefusalRow(refusal: "kinds on a rule that reads none", replacing: #""rule": "outsideToolScope""#,
                            with: #""rule": "outsideToolScope", "contraryKinds": ["weakTLSVersion"]"#,
                            expected: .unexpectedKinds(.contraryKinds, in: second)),
        CatalogueRefusalRow(refusal: "supporting kinds on a rule without them", replacing: #"["cleartextTraffic"],"#,
                            with: #"["cleartextTraffic"], "supportingKinds": ["cleartextTraffic"],"#,
                            expected: .unexpectedKinds(.supportingKinds, in: first)),
        CatalogueRefusalRow(refusal: "a kind repeated in one list", replacing: #"["cleartextTraffic"]"#, with: #"["cleartextTraffic", "cleartextTraffic"]"#,
                            expected: .repeatedKind(.cleartextTraffic, in: first)),
        CatalogueRefusalRow(refusal: "a kind in both lists", replacing: #""supportingKinds": ["pinningObserved"]"#, with: #""supportingKinds": ["pinningAbsent"]"#,
                            expected: .repeatedKind(.pinningAbsent, in: third)),
        CatalogueRefusalRow(refusal: "kinds of several checks", replacing: #"["cleartextTraffic"]"#, with: #"["cleartextTraffic", "weakTLSVersion"]"#,
                            expected: .kindsOfSeveralChecks([.encryption, .tlsVersion], in: first)),
        CatalogueRefusalRow(refusal: "a rule that reads findings without a toolCoverage", replacing: #", "toolCoverage": "Reads outcomes.""#, with: "",
                            expected: .missingToolCoverage(in: third)),
        CatalogueRefusalRow(refusal: "a blank toolCoverage", replacing: #""toolCoverage": "Reads openings.""#, with: #""toolCoverage": "  ""#,
                            expected: .missingToolCoverage(in: first)),
    ]

    @Test(arguments: refusals)
    func refusal(_ row: CatalogueRefusalRow) {
        #expect(throws: row.expected) {
            try RequirementCatalogue(data: CatalogueText.replacing(row.replacing, with: row.with))
        }
    }

    @Test("The base text loads: unknown keys are ignored, outsideToolScope needs no toolCoverage")
    func baseLoads() throws {
        let catalogue = try RequirementCatalogue(data: Data(CatalogueText.base.utf8))
        #expect(catalogue.identifier == "test-catalogue")
        #expect(catalogue.requirements.map(\.id) == ["O.Ntwk_1", "O.Ntwk_3", "O.Ntwk_4"])
        #expect(catalogue.requirements[1].toolCoverage == nil)
        #expect(catalogue.requirements[2].rule == .contraryAndSupportingFindings(contrary: [.pinningAbsent], supporting: [.pinningObserved]))
        #expect(catalogue.requirements[2].rule.check == .pinning)
        #expect(catalogue.requirements[1].rule.check == nil)
        #expect(catalogue.policy.minimumTLSVersion == .tls12)
    }

    @Test("The three validation kinds load as a rule of the certificate validation check")
    func validationKindsLoad() throws {
        let catalogue = try RequirementCatalogue(data: CatalogueText.replacing(
            #"["cleartextTraffic"]"#, with: #"["untrustedIssuerAccepted", "wrongNameAccepted", "expiredCertificateAccepted"]"#))
        let rule = catalogue.requirements[0].rule
        #expect(rule == .contraryFindings([.untrustedIssuerAccepted, .wrongNameAccepted, .expiredCertificateAccepted]))
        #expect(rule.check == .certificateValidation)
    }
}
