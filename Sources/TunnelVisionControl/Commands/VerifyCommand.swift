import Foundation
import TunnelVisionExport

/// `tvctl verify BUNDLE.zip`: whether a bundle is the one a gateway signed, with one line per check.
enum VerifyCommand {
    static let spec = CommandSpec(
        "verify", summary: "Check an evidence bundle: its zip, its files against the manifest, the gateway's signature, its capture.",
        discussion: "Reads the .zip where it is and writes nothing. The signature is checked against this gateway's public keys (current and retired), or against --public-key for a bundle from another gateway. Exit status 0 only when every check holds: an unsigned bundle does not, nor one without a timestamp when --tsa-ca is given.",
        positionals: [.required("BUNDLE", "The bundle's .zip.")],
        options: [
            .value("public-key", "KEY", "The signing gateway's public key: a file 'tvctl key show' wrote, or its base64 line."),
            .value("tsa-ca", "FILE", "The time-stamping authority's chain (PEM): the timestamp's signature is checked against it, and a bundle without one does not verify."),
            SharedOptions.json,
        ],
        examples: [
            CommandExample("tvctl verify tunnelvision-evidence-session-7-20261130-070507.zip", "Check a bundle made on this gateway."),
            CommandExample("tvctl verify bundle.zip --public-key RWQ…", "Check a bundle from another gateway with its public key."),
        ],
        action: CommandContext.runs(run))

    static func run(_ context: CommandContext) throws(ControlError) {
        let path = context.word(0)
        let verification = BundleVerifier(publicKeys: try publicKeys(context), tsaCAFile: context.arguments.value("tsa-ca")).verify(bundle: path)
        if context.wantsJSON {
            context.emit(Shape(verification))
        } else {
            for line in verification.lines { context.say(Wording.verificationLine(line)) }
        }
        guard verification.holds else {
            throw .refusal(.bundleDoesNotVerify(path: path, failed: verification.failures.count))
        }
    }

    /// --public-key's file or line, else every key this gateway has signed with (none: the
    /// signature line then says that no key was there to check it against).
    private static func publicKeys(_ context: CommandContext) throws(ControlError) -> [MinisignPublicKey] {
        if let given = context.arguments.value("public-key") {
            let text = FileManager.default.contents(atPath: given).map { String(decoding: $0, as: UTF8.self) } ?? given
            guard let key = MinisignPublicKey(text: text) else { throw .usage(.publicKeyNotMinisign(given, command: context.command)) }
            return [key]
        }
        return (try? KeyCommands.keys(context).all()) ?? []
    }

    struct Shape: Encodable {
        struct Line: Encodable {
            let check: String
            let standing: String
            let sentence: String
        }
        let holds: Bool
        let checks: [Line]

        init(_ verification: BundleVerification) {
            holds = verification.holds
            checks = verification.lines.map {
                Line(check: $0.check.rawValue, standing: $0.standing.rawValue, sentence: Wording.verificationSentence($0.finding))
            }
        }
    }
}
