import Foundation
import TunnelVisionModel

/// `tvctl mark`: a marker in the open recording, dated when the command was typed.
enum MarkCommand {
    static let interactiveOption = OptionSpec.flag("interactive", short: "i", "Mark with single keys until q.")

    static let spec = CommandSpec(
        "mark", summary: "Mark an instant in the open recording: consent, login, logout or your own words.",
        discussion: "The instant is taken when tvctl starts, before it opens the history. The answer says what was marked, when and in which recording, or that nothing was marked and why. While several phones are recorded, --phone says whose recording is marked. With -i, one key marks at the moment it is pressed: c consent, l login, o logout, q quits.",
        positionals: [.optional("WHAT", "consent, login, logout, or a text of your own (quoted).")],
        options: [interactiveOption, SessionCommands.StartOption.phone, SharedOptions.json],
        examples: [
            CommandExample("tvctl mark consent", "The user has just given consent."),
            CommandExample("tvctl mark 'opened the diary'", "A marker with your own words."),
            CommandExample("tvctl mark -i", "Keep a prompt open beside the phone and press c, l or o."),
        ],
        action: CommandContext.runs(run))

    static func run(_ context: CommandContext) throws(ControlError) {
        let marking = OpenSessionMarking(library: context.library, phone: context.arguments.value(SessionCommands.StartOption.phone))
        if context.arguments.flag(interactiveOption) {
            if let word = context.arguments.positional(0) {
                throw .usage(.unexpectedArgument(word, command: context.command))
            }
            InteractiveMarking(context: context, marking: marking).run()
            return
        }
        guard let word = context.arguments.positional(0) else {
            throw .usage(.missingArgument("WHAT (consent, login, logout or a text)", command: context.command))
        }
        let instant = context.invocation.startedAt
        do {
            let (marker, recording) = try marking.mark(OpenSessionMarking.kind(of: word), at: instant)
            if context.wantsJSON {
                context.emit(JSONShape.MarkOutcome(
                    placed: true, marker: JSONShape.Marker(marker),
                    session: JSONShape.Session(recording.session, projectName: recording.projectName)))
            } else {
                context.say(Wording.markerPlaced(marker, in: recording, zone: context.zone))
            }
        } catch {
            if context.wantsJSON { context.emit(JSONShape.MarkOutcome(placed: false, marker: nil, session: nil)) }
            throw error
        }
    }
}

/// `tvctl mark -i`: a prompt that names the recording, and a key per marker. Each key is
/// dated as it is read and placed through the same marking as the one-shot command.
struct InteractiveMarking {
    let context: CommandContext
    let marking: OpenSessionMarking

    func run() {
        let keys = KeyReader()
        defer { keys.restore() }
        announce()
        while let key = keys.next() {
            let instant = context.invocation.clock()
            if key == UInt8(ascii: "q") || key == UInt8(ascii: "Q") || key == 3 || key == 4 { break }
            if key == UInt8(ascii: "\n") || key == UInt8(ascii: "\r") || key == UInt8(ascii: " ") { continue }
            guard let kind = OpenSessionMarking.kind(ofKey: key) else {
                context.say(Wording.interactiveKeys)
                continue
            }
            do {
                let (marker, recording) = try marking.mark(kind, at: instant)
                context.say(Wording.markerPlaced(marker, in: recording, zone: context.zone))
            } catch {
                context.say(error.sentence)
                announce()
            }
        }
    }

    /// Which recording a key would mark: one, none, or a history that did not say.
    private func announce() {
        do {
            if let recording = try marking.recording() {
                context.say(context.style.bold(Wording.interactivePrompt(recording)))
            } else {
                context.say(Wording.interactiveNoRecording)
            }
        } catch {
            if case .historyUnanswered(let problem) = error {
                context.say(Wording.interactiveHistoryUnanswered(problem))
            } else {
                context.say(error.sentence)
            }
        }
    }
}
