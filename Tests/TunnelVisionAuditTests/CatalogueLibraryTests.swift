import Foundation
import Testing
@testable import TunnelVisionAudit
import TunnelVisionModel

/// The repository's own catalogue directory, found from this file.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let catalogues = root.appendingPathComponent("Catalogues", isDirectory: true)

    static func shipped() throws -> RequirementCatalogue {
        try RequirementCatalogueLibrary.catalogue(identifier: RequirementCatalogueLibrary.defaultIdentifier, in: catalogues)
    }
}

/// A directory of its own for one test, removed afterwards.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tv-catalogues-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ data: Data) throws {
        try data.write(to: url.appendingPathComponent(name))
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

@Suite("The shipped catalogue")
struct ShippedCatalogueTests {
    @Test("tr-03161-1_3.0 carries the facts of the published TR")
    func facts() throws {
        let catalogue = try Repository.shipped()
        #expect(catalogue.identifier == "tr-03161-1_3.0")
        #expect(catalogue.source.document == "BSI TR-03161-1")
        #expect(catalogue.source.version == "3.0" && catalogue.source.date == "2024-03-25")
        #expect(catalogue.source.sha256 == "f8837fbee1710ad3555bbe333f4a50e83c0c66b24724ab3be5cc634a80beb001")
        #expect(catalogue.tlsSource.document == "BSI TR-02102-2" && catalogue.tlsSource.version == "2026-01")
        #expect(catalogue.policy.minimumTLSVersion == .tls12)
        let expected: [(String, Int, TestDepth, RequirementRule)] = [
            ("O.Purp_3", 1, .check, .contraryFindings([.activityBeforeConsent])),
            ("O.Purp_8", 1, .check, .contraryFindings([.hostNotInAllowlist, .unnamedFlow])),
            ("O.Ntwk_1", 9, .examine, .contraryFindings([.cleartextTraffic])),
            ("O.Ntwk_2", 9, .examine, .contraryFindings([.weakTLSVersion])),
            ("O.Ntwk_3", 9, .examine, .outsideToolScope),
            ("O.Ntwk_4", 9, .examine, .contraryAndSupportingFindings(contrary: [.pinningAbsent], supporting: [.pinningObserved])),
            ("O.Ntwk_5", 9, .examine, .contraryFindings([.untrustedIssuerAccepted, .wrongNameAccepted, .expiredCertificateAccepted])),
            ("O.Ntwk_6", 9, .examine, .outsideToolScope),
            ("O.Ntwk_7", 9, .examine, .outsideToolScope),
            ("O.Ntwk_8", 9, .check, .outsideToolScope),
        ]
        #expect(catalogue.requirements.count == expected.count)
        for (requirement, (id, aspect, depth, rule)) in zip(catalogue.requirements, expected) {
            #expect(requirement.id == id && requirement.aspect.number == aspect)
            #expect(requirement.testDepth == depth && requirement.rule == rule, "\(id)")
        }
        #expect(catalogue.requirement(id: "O.Ntwk_4")?.title == "Unterstützung von Zertifikats-Pinning.")
        #expect(catalogue.requirements.allSatisfy { $0.toolCoverage != nil })
        #expect(Set(catalogue.requirements.map(\.aspect.name)) == ["Anwendungszweck", "Netzwerkkommunikation"])
    }
}

@Suite("Catalogue library")
struct CatalogueLibraryTests {
    @Test("A project that names no catalogue is assessed against the default")
    func defaultForProjectWithout() throws {
        let catalogue = try RequirementCatalogueLibrary.catalogue(for: Fixture.project(), in: Repository.catalogues)
        #expect(catalogue.identifier == RequirementCatalogueLibrary.defaultIdentifier)
    }

    @Test("A project that names a catalogue not installed is an error, never another catalogue")
    func namedButNotInstalled() {
        let project = Fixture.project(catalogue: "tr-03161-1_2.0")
        #expect(throws: RequirementCatalogueLibraryError.notInstalled(identifier: "tr-03161-1_2.0", directory: Repository.catalogues.path)) {
            try RequirementCatalogueLibrary.catalogue(for: project, in: Repository.catalogues)
        }
    }

    @Test("An identifier that is not a plain file name leads nowhere", arguments: ["../Catalogues/tr-03161-1_3.0", "", ".hidden", "a/b"])
    func onlyPlainNames(_ identifier: String) {
        #expect(throws: RequirementCatalogueLibraryError.notInstalled(identifier: identifier, directory: Repository.catalogues.path)) {
            try RequirementCatalogueLibrary.catalogue(identifier: identifier, in: Repository.catalogues)
        }
    }

    @Test("A file that is refused, or calls itself something else, is unusable; list() names every file")
    func unusableFiles() throws {
        let folder = try TemporaryDirectory()
        try folder.write("broken.json", Data("{".utf8))
        try folder.write("renamed.json", Data(CatalogueText.base.utf8))
        try folder.write("test-catalogue.json", Data(CatalogueText.base.utf8))
        try folder.write("notes.txt", Data("not a catalogue".utf8))
        #expect(throws: RequirementCatalogueLibraryError.unusable(identifier: "broken", reason: .refused(.malformed(detail: "not a JSON object")))) {
            try RequirementCatalogueLibrary.catalogue(identifier: "broken", in: folder.url)
        }
        #expect(throws: RequirementCatalogueLibraryError.unusable(identifier: "renamed", reason: .identifierMismatch(found: "test-catalogue"))) {
            try RequirementCatalogueLibrary.catalogue(identifier: "renamed", in: folder.url)
        }
        let listed = try RequirementCatalogueLibrary.list(in: folder.url)
        #expect(listed.map(\.identifier) == ["broken", "renamed", "test-catalogue"])
        #expect(listed[0].standing == .unusable(.refused(.malformed(detail: "not a JSON object"))))
        #expect(listed[2].standing == .usable(try RequirementCatalogue(data: Data(CatalogueText.base.utf8))))
    }

    @Test("list() of a directory that is not there says so")
    func missingDirectory() {
        let missing = URL(fileURLWithPath: "/nonexistent/tunnelvision-catalogues")
        #expect(throws: RequirementCatalogueLibraryError.directoryUnreadable(missing.path)) {
            try RequirementCatalogueLibrary.list(in: missing)
        }
    }

    @Test("The directory: the environment's override, else the installed one, else the repository's, else the installed one")
    func directoryResolution() throws {
        let installed = try TemporaryDirectory()
        let absent = installed.url.appendingPathComponent("absent", isDirectory: true)
        let nowhere = URL(fileURLWithPath: "/", isDirectory: true)
        let override = RequirementCatalogueLibrary.directory(
            environment: ["TUNNELVISION_CATALOGUES": "/opt/catalogues"], installed: installed.url, executable: nil, workingDirectory: nowhere)
        #expect(override.path == "/opt/catalogues")
        let preferred = RequirementCatalogueLibrary.directory(
            environment: [:], installed: installed.url, executable: nil, workingDirectory: Repository.root)
        #expect(preferred == installed.url)
        let fromExecutable = RequirementCatalogueLibrary.directory(
            environment: [:], installed: absent,
            executable: Repository.root.appendingPathComponent(".build/debug/tvctl"), workingDirectory: nowhere)
        #expect(fromExecutable.standardizedFileURL.path == Repository.catalogues.standardizedFileURL.path)
        let fromWorkingDirectory = RequirementCatalogueLibrary.directory(
            environment: [:], installed: absent, executable: nil, workingDirectory: Repository.root.appendingPathComponent("Sources"))
        #expect(fromWorkingDirectory.standardizedFileURL.path == Repository.catalogues.standardizedFileURL.path)
        let fallback = RequirementCatalogueLibrary.directory(environment: [:], installed: absent, executable: nil, workingDirectory: nowhere)
        #expect(fallback == absent)
    }
}
