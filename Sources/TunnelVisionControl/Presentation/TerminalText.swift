import Foundation

/// Text from the history on its way to a terminal. A name or a note holding an escape sequence,
/// a newline or a bidi override could clear or retitle the technician's terminal, or make a
/// table say something it does not; such characters are refused at input (`ArgumentText`) and,
/// when one is stored anyway (an older tvctl, a hand-edited history), printed visibly.
public enum TerminalText {
    /// Whether the scalar must not reach a terminal as it is: C0 and C1 controls, DEL, and the
    /// bidi controls that reorder what follows them.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// The text with every unsafe scalar written out as \u{…}, so that it shows and does nothing.
    public static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                shown.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                shown.append(scalar)
            }
        }
        return String(shown)
    }

    /// Output as it goes to the terminal: line breaks and the codes tvctl writes itself pass
    /// (colours, and the live view's and the progress line's cursor home, clear screen, carriage
    /// return and clear line: ESC [ digits and semicolons, then m, H, J or K); every other unsafe
    /// scalar is shown. Text from the history is made `visible` before it gets here; this is
    /// the second line, for what a sentence quotes.
    public static func forTerminal(_ output: String) -> String {
        let scalars = Array(output.unicodeScalars)
        guard scalars.contains(where: { isUnsafe($0) && $0 != "\n" && $0 != "\r" }) else { return output }
        var shown = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\u{1B}", let end = endOfOwnCode(scalars, from: index) {
                shown.append(contentsOf: scalars[index...end])
                index = end + 1
                continue
            }
            if scalar == "\n" || scalar == "\r" || !isUnsafe(scalar) {
                shown.append(scalar)
            } else {
                shown.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            }
            index += 1
        }
        return String(shown)
    }

    private static func endOfOwnCode(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        guard start + 2 < scalars.count, scalars[start + 1] == "[" else { return nil }
        var index = start + 2
        while index < scalars.count, ("0"..."9").contains(scalars[index]) || scalars[index] == ";" { index += 1 }
        return index < scalars.count && "mHJK".unicodeScalars.contains(scalars[index]) ? index : nil
    }
}

/// What tvctl takes as text on its command line: UTF-8, no character `TerminalText` calls
/// unsafe, and at most `limitBytes` (a note of 128 KB once took 19 s to lay out in a report).
public enum ArgumentText {
    public static let limitBytes = 4096

    /// The refusal for the first argument that breaks a rule, or nil.
    static func refusal(of arguments: [String]) -> UsageError? {
        for argument in arguments {
            if argument.unicodeScalars.contains(where: TerminalText.isUnsafe) {
                return .unsafeCharacter(TerminalText.visible(argument))
            }
            if argument.utf8.count > limitBytes { return .argumentTooLong(bytes: argument.utf8.count) }
        }
        return nil
    }

    /// The arguments decoded from the bytes the process was given, or the position (from 1) of
    /// the first that is not UTF-8: Swift's own decoding would put U+FFFD in its place unseen.
    public static func decode(_ raw: [[UInt8]]) -> Result<[String], ArgumentEncodingError> {
        var decoded: [String] = []
        for (index, bytes) in raw.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(ArgumentEncodingError(position: index + 1)) }
            decoded.append(text)
        }
        return .success(decoded)
    }

    /// This process's arguments (without the program name), decoded from the bytes as given:
    /// CommandLine.arguments would have replaced what is not UTF-8 unseen.
    public static func processArguments() -> Result<[String], ArgumentEncodingError> {
        decode((1..<Int(CommandLine.argc)).map { index in
            CommandLine.unsafeArgv[index].map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? []
        })
    }
}

public struct ArgumentEncodingError: Error, Sendable, Equatable {
    /// From 1: the first argument after the program's name.
    public let position: Int
}
