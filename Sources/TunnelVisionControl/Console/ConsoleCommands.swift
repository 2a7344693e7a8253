import Foundation
import TunnelVisionDigest
import TunnelVisionExport

#if canImport(Glibc)
import Glibc
#endif

/// `tvctl console password | fingerprint`: what the administrator sets for the web console and
/// what a browser is checked against. The console itself is its own executable (tvconsole).
enum ConsoleCommands {
    static let group = CommandSpec(
        group: "console", summary: "The web console's password and its certificate's fingerprint.",
        discussion: "The web console (tvconsole) is off until the administrator sets a password and enables its unit.",
        subcommands: [password, fingerprint])

    static let fileOption = OptionSpec.value("file", "PATH", "Where the password's hash goes (default: \(ConsoleFiles.defaultPasswordPath)).")
    static let generateOption = OptionSpec.flag("generate", "Make a random password, store it and print it once.")
    static let certificateOption = OptionSpec.value(
        "certificate", "PATH", "The console's certificate (default: \(ConsoleFiles.certificatePath(in: ConsoleFiles.defaultStateDirectory))).")

    static let password = CommandSpec(
        "password", summary: "Set the web console's password (root): read from standard input, or --generate.",
        discussion: "Only a salted scrypt hash is stored, readable by its owner alone; the unit hands it to the console. A running console reads it again at its next start.",
        options: [fileOption, generateOption],
        examples: [
            CommandExample("tvctl console password", "Type the password (it is not shown)."),
            CommandExample("tvctl console password --generate", "Make one and print it once."),
        ],
        action: CommandContext.runs(runPassword))

    static let fingerprint = CommandSpec(
        "fingerprint", summary: "The SHA-256 fingerprint of the web console's certificate, to check in the browser.",
        options: [certificateOption, SharedOptions.json],
        examples: [CommandExample("tvctl console fingerprint", "Compare it with what the tablet's browser shows.")],
        action: CommandContext.runs(runFingerprint))

    static func runPassword(_ context: CommandContext) throws(ControlError) {
        let path = context.arguments.value(fileOption) ?? ConsoleFiles.defaultPasswordPath
        let generate = context.arguments.flag(generateOption)
        let text: String
        if generate {
            guard let made = ConsolePassword.generated() else { throw .refusal(.console(.randomnessUnavailable)) }
            text = made
        } else {
            text = readSecret(context)
        }
        guard !text.isEmpty else { throw .refusal(.console(.passwordNotGiven)) }
        guard text.count >= ConsolePassword.minimumLength else {
            throw .refusal(.console(.passwordTooShort(minimum: ConsolePassword.minimumLength)))
        }
        guard let hash = ConsolePassword.hashing(text) else { throw .refusal(.console(.randomnessUnavailable)) }
        try write(hash.stored, to: path)
        if generate { context.say(Wording.consolePasswordGenerated(text)) }
        context.say(Wording.consolePasswordStored(path: path))
    }

    static func runFingerprint(_ context: CommandContext) throws(ControlError) {
        let path = context.arguments.value(certificateOption) ?? ConsoleFiles.certificatePath(in: ConsoleFiles.defaultStateDirectory)
        guard FileManager.default.fileExists(atPath: path) else { throw .refusal(.console(.certificateMissing(path: path))) }
        guard let data = FileManager.default.contents(atPath: path),
              let certificate = InspectionCACertificate(pem: String(decoding: data, as: UTF8.self))
        else { throw .refusal(.console(.certificateUnreadable(path: path))) }
        if context.wantsJSON {
            context.emit(CACommand.Shape(path: path, sha256: certificate.fingerprint, pem: nil, file: nil))
        } else {
            context.say(Wording.caFingerprint(certificate))
        }
    }

    /// One line from standard input; on a terminal, asked for and not echoed.
    private static func readSecret(_ context: CommandContext) -> String {
        let console = context.invocation.console
        guard console.inputIsTerminal else { return console.readLine() ?? "" }
        console.writeError(Wording.consolePasswordPrompt)
        let keys = KeyReader()
        defer {
            keys.restore()
            console.writeError("\n")
        }
        var bytes: [UInt8] = []
        while let key = keys.next(), key != UInt8(ascii: "\n"), key != UInt8(ascii: "\r"), key != 3, key != 4 {
            if key == 127 { _ = bytes.popLast() } else { bytes.append(key) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Written beside the target and renamed over it, owner-only from the first byte.
    private static func write(_ text: String, to path: String) throws(ControlError) {
        let temporary = path + ".new"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .refusal(.console(.passwordNotWritten(path: path, reason: String(cString: strerror(errno))))) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .refusal(.console(.passwordNotWritten(path: path, reason: reason)))
        }
    }
}
