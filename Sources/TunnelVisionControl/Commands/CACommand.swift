import Foundation
import TunnelVisionDigest
import TunnelVisionExport
import TunnelVisionModel

/// `tvctl ca show | export FILE [--der]`: the inspection CA's certificate, for installing on the
/// test phone. The certificate is group-readable; its key is the daemon's alone and never read here.
enum CACommand {
    static let group = CommandSpec(
        group: "ca", summary: "The inspection CA the test phone has to trust.",
        subcommands: [show, export])

    static let show = CommandSpec(
        "show", summary: "Print the inspection CA certificate (PEM) and its SHA-256 fingerprint.",
        discussion: "The fingerprint is what a session started with --ca-trusted records: compare it with the one the phone shows for the installed CA.",
        options: [SharedOptions.json],
        examples: [CommandExample("tvctl ca show", "The certificate and its fingerprint.")],
        action: CommandContext.runs(runShow))

    static let export = CommandSpec(
        "export", summary: "Write the inspection CA certificate to a file the phone installs.",
        discussion: "PEM by default; --der writes the binary form some Android versions ask for. An existing file is not replaced.",
        positionals: [.required("FILE", "Where the certificate goes.")],
        options: [.flag("der", "Write DER instead of PEM."), SharedOptions.json],
        examples: [
            CommandExample("tvctl ca export tunnelvision-ca.pem", "The PEM file to send to the phone."),
            CommandExample("tvctl ca export tunnelvision-ca.crt --der", "The DER file."),
        ],
        action: CommandContext.runs(runExport))

    static func runShow(_ context: CommandContext) throws(ControlError) {
        let (path, certificate) = try read(context)
        if context.wantsJSON {
            context.emit(Shape(path: path, sha256: certificate.fingerprint, pem: certificate.pem, file: nil))
        } else {
            context.invocation.console.writeOutput(certificate.pem)
            context.say(Wording.caFingerprint(certificate))
        }
    }

    static func runExport(_ context: CommandContext) throws(ControlError) {
        let (path, certificate) = try read(context)
        let target = context.word(0)
        let bytes = context.arguments.flag("der") ? certificate.der : Data(certificate.pem.utf8)
        guard !FileManager.default.fileExists(atPath: target) else { throw .refusal(.certificateFileNotWritten(path: target, exists: true)) }
        guard FileManager.default.createFile(atPath: target, contents: bytes, attributes: [.posixPermissions: 0o644]) else {
            throw .refusal(.certificateFileNotWritten(path: target, exists: false))
        }
        if context.wantsJSON {
            context.emit(Shape(path: path, sha256: certificate.fingerprint, pem: nil, file: target))
        } else {
            context.say(Wording.caExported(certificate, to: target))
        }
    }

    /// Where the daemon said its certificate is, else the default place; only a file the
    /// daemon's user alone could have written there counts (`DaemonCertificateFile`), and while
    /// the relay runs it must be the CA the daemon said it signs with.
    private static func read(_ context: CommandContext) throws(ControlError) -> (String, InspectionCACertificate) {
        // The history says where the daemon keeps it; one that cannot be opened is said as such.
        let settings = try context.library.visit { store in try? store.daemonSettings() }
        let path = settings?.caCertificatePath ?? DaemonSettings.defaultCACertificatePath
        let data: Data
        do { data = try DaemonCertificateFile.read(path) } catch {
            switch error {
            case .missing: throw .refusal(.certificateAuthorityMissing(path: path))
            case .unreadable: throw .refusal(.certificateAuthorityUnreadable(path: path))
            case .directory, .notTheDaemonsFile: throw .refusal(.certificateAuthorityNotTheDaemons(path: path))
            }
        }
        guard let certificate = InspectionCACertificate(pem: String(decoding: data, as: UTF8.self)) else {
            throw .refusal(.certificateAuthorityUnreadable(path: path))
        }
        if let running = settings?.inspectingCAFingerprint, running != certificate.fingerprint {
            throw .refusal(.certificateAuthorityNotTheRelays(path: path))
        }
        return (path, certificate)
    }

    struct Shape: Encodable {
        let path: String
        let sha256: String
        let pem: String?
        let file: String?
    }
}
