import Foundation
import TunnelVisionModel

/// Why an installed catalogue file cannot be used.
public enum CatalogueUnusableReason: Sendable, Hashable {
    /// The file could not be read.
    case unreadable(String)
    /// The file was read and refused.
    case refused(RequirementCatalogueError)
    /// The file calls itself something other than its name.
    case identifierMismatch(found: String)
}

/// Why no catalogue was given for an identifier. Never answered with another catalogue.
public enum RequirementCatalogueLibraryError: Error, Sendable, Hashable {
    /// No `<identifier>.json` in the directory searched.
    case notInstalled(identifier: String, directory: String)
    /// The file is there and cannot be used.
    case unusable(identifier: String, reason: CatalogueUnusableReason)
    /// The directory itself could not be listed.
    case directoryUnreadable(String)
}

/// One file of the catalogue directory.
public struct InstalledCatalogue: Sendable, Hashable {
    public enum Standing: Sendable, Hashable {
        case usable(RequirementCatalogue)
        case unusable(CatalogueUnusableReason)
    }

    /// The file name without `.json`.
    public let identifier: String
    public let standing: Standing
}

/// The catalogues installed with the tool. A project that names one that is not installed is
/// an error: an assessment against another document would be evidence of the wrong thing.
public enum RequirementCatalogueLibrary {
    /// What a project that names no catalogue is assessed against.
    public static let defaultIdentifier = "tr-03161-1_3.0"
    /// Where packages install catalogues.
    public static let installedDirectory = URL(fileURLWithPath: "/usr/share/tunnelvision/catalogues", isDirectory: true)
    /// Overrides the installed directory, for tests and development.
    public static let environmentKey = "TUNNELVISION_CATALOGUES"

    /// The catalogue the project names, or the default one when it names none.
    public static func catalogue(
        for project: AuditProject, in directory: URL? = nil
    ) throws(RequirementCatalogueLibraryError) -> RequirementCatalogue {
        try catalogue(identifier: project.catalogueVersion ?? defaultIdentifier, in: directory)
    }

    /// The catalogue in `<identifier>.json` of the directory (`directory()` unless given).
    public static func catalogue(
        identifier: String, in directory: URL? = nil
    ) throws(RequirementCatalogueLibraryError) -> RequirementCatalogue {
        let folder = directory ?? Self.directory()
        // Only a plain file name is looked up: an identifier never leads out of the directory.
        let isPlainName = RequirementCatalogue.isIdentifierName(identifier)
        let file = folder.appendingPathComponent(identifier + ".json", isDirectory: false)
        guard isPlainName, FileManager.default.fileExists(atPath: file.path) else {
            throw .notInstalled(identifier: identifier, directory: folder.path)
        }
        switch load(file, identifier: identifier) {
        case .usable(let catalogue): return catalogue
        case .unusable(let reason): throw .unusable(identifier: identifier, reason: reason)
        }
    }

    /// Every `.json` file of the directory, by identifier, usable or not.
    public static func list(in directory: URL? = nil) throws(RequirementCatalogueLibraryError) -> [InstalledCatalogue] {
        let folder = directory ?? Self.directory()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw .directoryUnreadable(folder.path)
        }
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().map { name in
            let identifier = String(name.dropLast(".json".count))
            return InstalledCatalogue(
                identifier: identifier,
                standing: load(folder.appendingPathComponent(name, isDirectory: false), identifier: identifier))
        }
    }

    /// The directory catalogues are looked up in: the environment's override, else the
    /// installed directory when it exists, else the repository's `Catalogues/` found above the
    /// executable or the working directory (a development build), else the installed directory.
    public static func directory(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: URL? = Bundle.main.executableURL,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    ) -> URL {
        directory(environment: environment, installed: installedDirectory, executable: executable, workingDirectory: workingDirectory)
    }

    static func directory(environment: [String: String], installed: URL, executable: URL?, workingDirectory: URL) -> URL {
        if let override = environment[environmentKey], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        if isDirectory(installed) { return installed }
        let starts = [executable?.deletingLastPathComponent(), workingDirectory].compactMap { $0 }
        for start in starts {
            if let found = repositoryCatalogues(above: start) { return found }
        }
        return installed
    }

    private static func repositoryCatalogues(above start: URL) -> URL? {
        var folder = start.standardizedFileURL
        while true {
            let candidate = folder.appendingPathComponent("Catalogues", isDirectory: true)
            let manifest = folder.appendingPathComponent("Package.swift", isDirectory: false)
            if isDirectory(candidate), FileManager.default.fileExists(atPath: manifest.path) { return candidate }
            let parent = folder.deletingLastPathComponent()
            guard parent.path != folder.path else { return nil }
            folder = parent
        }
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue
    }

    private static func load(_ file: URL, identifier: String) -> InstalledCatalogue.Standing {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            return .unusable(.unreadable(file.path))
        }
        do {
            let catalogue = try RequirementCatalogue(data: data)
            guard catalogue.identifier == identifier else { return .unusable(.identifierMismatch(found: catalogue.identifier)) }
            return .usable(catalogue)
        } catch {
            return .unusable(.refused(error))
        }
    }
}
