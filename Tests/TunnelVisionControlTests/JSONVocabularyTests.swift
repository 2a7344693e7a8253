import Foundation
import Testing

/// One JSON vocabulary: what `tvctl --json` writes of a flow is what the bundle's flows.json
/// writes of it, key for key, on the fixture's history and its exported bundle.
@Suite struct JSONVocabularyTests {
    @Test func aFlowHasTheSameKeysInTvctlAndInFlowsJSON() throws {
        let history = try ScratchHistory.seeded()
        let output = history.folder.appendingPathComponent("bundle")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let export = try TVCtlBinary.run(["export", "2", "--output", output.path, "--json"], database: history.path)
        #expect(export.status == 0, "\(export)")
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(export.output.utf8)) as? [String: Any])
        let bundled = try Self.flows(in: try unzipped("flows.json", from: try #require(exported["file"] as? String)))

        let run = try TVCtlBinary.run(["flows", "2", "--json"], database: history.path)
        #expect(run.status == 0, "\(run)")
        let shown = try Self.flows(in: Data(run.output.utf8))

        #expect(shown.count == 10 && bundled.count == shown.count)
        for (tvctl, bundle) in zip(shown, bundled) {
            #expect(tvctl["id"] as? Int == bundle["id"] as? Int)
            #expect(Set(tvctl.keys) == Set(bundle.keys), "flow \(tvctl["id"] ?? "?")")
            #expect(Self.keyPaths(tvctl) == Self.keyPaths(bundle), "flow \(tvctl["id"] ?? "?"), nested")
            #expect(tvctl["findingIDs"] as? [String] == bundle["findingIDs"] as? [String], "the same findings, numbered alike")
        }
    }

    @Test func aSessionHasTheKeysOfSessionJSONAndSaysWhatTvctlReadBesideThem() throws {
        let history = try ScratchHistory.seeded()
        let output = history.folder.appendingPathComponent("bundle")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let export = try TVCtlBinary.run(["export", "2", "--output", output.path, "--json"], database: history.path)
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(export.output.utf8)) as? [String: Any])
        let archive = try #require(exported["file"] as? String)
        let sessionJSON = try unzipped("session.json", from: archive)
        let document = try #require(try JSONSerialization.jsonObject(with: sessionJSON) as? [String: Any])
        let bundled = try #require(document["session"] as? [String: Any])

        let run = try TVCtlBinary.run(["session", "show", "2", "--json"], database: history.path)
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let beside: Set = ["projectID", "projectName", "isOpen", "flowCount"]
        #expect(Self.keyPaths(shown).subtracting(beside) == Self.keyPaths(bundled))
        #expect((shown["markers"] as? [[String: Any]])?.map { $0["date"] as? String } == (bundled["markers"] as? [[String: Any]])?.map { $0["date"] as? String })
    }

    private static func flows(in json: Data) throws -> [[String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        return try #require(document["flows"] as? [[String: Any]])
    }

    /// Every key of the object and of the objects inside it, as "serverTLS.version.name".
    private static func keyPaths(_ value: Any, prefix: String = "") -> Set<String> {
        switch value {
        case let object as [String: Any]:
            object.reduce(into: Set<String>()) { paths, member in
                let path = prefix.isEmpty ? member.key : "\(prefix).\(member.key)"
                paths.insert(path)
                paths.formUnion(keyPaths(member.value, prefix: path))
            }
        case let array as [Any]:
            array.reduce(into: Set<String>()) { $0.formUnion(keyPaths($1, prefix: prefix + "[]")) }
        default:
            []
        }
    }

    private func unzipped(_ name: String, from archive: String) throws -> Data {
        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        // The bundle unpacks into one folder named after it.
        unzip.arguments = ["-p", archive, "*/" + name]
        let pipe = Pipe()
        unzip.standardOutput = pipe
        try unzip.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        unzip.waitUntilExit()
        #expect(unzip.terminationStatus == 0, "unzip -p \(name)")
        return data
    }
}
