import Foundation
import TunnelVisionExport

/// `tvctl key show [--all] | create | rotate`: the gateway's Ed25519 key that signs every
/// bundle's manifest in minisign's format. The keys live beside the history's folder
/// (`GatewayKeys`: on a gateway, `/var/lib/tunnelvision-signing`).
enum KeyCommands {
    static let group = CommandSpec(
        group: "key", summary: "The gateway's key that signs every evidence bundle.",
        subcommands: [show, create, rotate])

    static let show = CommandSpec(
        "show", summary: "Print the gateway's public key in minisign's format, with its key id.",
        discussion: "Give the public key to whoever checks a bundle: 'minisign -Vm manifest.json -P KEY' verifies the bundle's manifest with it. --all lists the retired keys too, which bundles signed before a rotation name.",
        options: [.flag("all", "Every key this gateway has signed with, the current one last."), SharedOptions.json],
        examples: [
            CommandExample("tvctl key show", "The public key and the minisign command that uses it."),
            CommandExample("tvctl key show --all", "The retired keys as well."),
        ],
        action: CommandContext.runs(runShow))

    static let create = CommandSpec(
        "create", summary: "Make the gateway's signing key, once (root).",
        discussion: "The installer runs it. An existing key is kept: 'tvctl key rotate' replaces one.",
        options: [SharedOptions.json],
        examples: [CommandExample("sudo tvctl key create", "Make the key if the gateway has none.")],
        action: CommandContext.runs(runCreate))

    static let rotate = CommandSpec(
        "rotate", summary: "Replace the gateway's signing key with a new one (root).",
        discussion: "The old public key is kept among the retired keys, so bundles it signed still verify.",
        options: [SharedOptions.json],
        examples: [CommandExample("sudo tvctl key rotate", "Sign every later bundle with a new key.")],
        action: CommandContext.runs(runRotate))

    static func keys(_ context: CommandContext) -> GatewayKeys {
        GatewayKeys(besideHistory: context.library.location.path)
    }

    static func runShow(_ context: CommandContext) throws(ControlError) {
        let keys = keys(context)
        let current: MinisignPublicKey?
        let retired: [MinisignPublicKey]
        do throws(GatewayKeyError) {
            current = try keys.current()
            retired = context.arguments.flag("all") ? try keys.retired() : []
        } catch {
            throw .refusal(.gatewayKey(error))
        }
        guard let current else { throw .refusal(.noGatewayKey(path: keys.publicKeyPath)) }
        if context.wantsJSON {
            context.emit(ShowShape(current: KeyShape(current), retired: context.arguments.flag("all") ? retired.map(KeyShape.init) : nil))
            return
        }
        for key in retired {
            context.say(Wording.retiredKeyHeading(key))
            context.invocation.console.writeOutput(key.file)
            context.say()
        }
        if !retired.isEmpty { context.say(Wording.currentKeyHeading(current)) }
        context.invocation.console.writeOutput(current.file)
        context.say(Wording.keyUse(current))
    }

    static func runCreate(_ context: CommandContext) throws(ControlError) {
        guard geteuid() == 0 else { throw .refusal(.keyAdministrationNeedsRoot) }
        let made: (key: MinisignPublicKey, made: Bool)
        do throws(GatewayKeyError) { made = try keys(context).create() } catch { throw .refusal(.gatewayKey(error)) }
        if context.wantsJSON { context.emit(KeyShape(made.key)) } else { context.say(Wording.keyCreated(made.key, made: made.made)) }
    }

    static func runRotate(_ context: CommandContext) throws(ControlError) {
        guard geteuid() == 0 else { throw .refusal(.keyAdministrationNeedsRoot) }
        let rotated: (old: MinisignPublicKey?, new: MinisignPublicKey)
        do throws(GatewayKeyError) { rotated = try keys(context).rotate() } catch { throw .refusal(.gatewayKey(error)) }
        if context.wantsJSON {
            context.emit(ShowShape(current: KeyShape(rotated.new), retired: rotated.old.map { [KeyShape($0)] }))
        } else {
            context.say(Wording.keyRotated(old: rotated.old, new: rotated.new))
        }
    }

    struct KeyShape: Encodable {
        let keyID: String
        /// What `minisign -P` takes.
        let publicKey: String
        init(_ key: MinisignPublicKey) {
            keyID = key.keyIDText
            publicKey = key.line
        }
    }

    struct ShowShape: Encodable {
        let current: KeyShape
        let retired: [KeyShape]?
    }
}
