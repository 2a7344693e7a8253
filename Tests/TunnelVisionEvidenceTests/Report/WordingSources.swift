import Foundation

/// The wording files of the sources, read as text: every module keeps its sentences in files
/// named `Wording*.swift` or `*Wording+*.swift`, and the test walks them instead of a list.
enum WordingSources {
    static var sourcesDirectory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
    }

    static func files() throws -> [URL] {
        guard let walker = FileManager.default.enumerator(at: sourcesDirectory, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" && $0.lastPathComponent.contains("Wording") }
            .sorted { $0.path < $1.path }
    }

    /// The text of every string literal, one- or multi-line, with interpolations left as written.
    static func literals(in file: URL) throws -> [String] {
        let text = try String(contentsOf: file, encoding: .utf8)
        var literals: [String] = []
        var current: String?
        var index = text.startIndex
        var multiline = false
        while index < text.endIndex {
            let rest = text[index...]
            if current == nil {
                if rest.hasPrefix("//") {
                    index = rest.firstIndex(of: "\n") ?? text.endIndex
                    continue
                }
                if rest.hasPrefix("\"\"\"") {
                    current = ""
                    multiline = true
                    index = text.index(index, offsetBy: 3)
                    continue
                }
                if rest.first == "\"" {
                    current = ""
                    multiline = false
                }
            } else if rest.hasPrefix("\\(") {
                // An interpolation is code, quotes included, up to its closing parenthesis.
                var depth = 0
                var end = text.index(after: index)
                while end < text.endIndex {
                    if text[end] == "(" { depth += 1 }
                    if text[end] == ")" { depth -= 1 }
                    end = text.index(after: end)
                    if depth == 0 { break }
                }
                current?.append("…")
                index = end
                continue
            } else if rest.first == "\\" {
                current?.append(contentsOf: rest.prefix(2))
                index = text.index(index, offsetBy: min(2, rest.count))
                continue
            } else if multiline ? rest.hasPrefix("\"\"\"") : rest.first == "\"" {
                literals.append(current ?? "")
                current = nil
                index = text.index(index, offsetBy: multiline ? 3 : 1)
                continue
            } else {
                current?.append(rest.first!)
            }
            index = text.index(after: index)
        }
        return literals
    }
}
