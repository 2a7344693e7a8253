import Foundation
import TunnelVisionModel

#if canImport(Glibc)
import Glibc
#endif

/// The live view of `tvctl flows --follow`. On a terminal it redraws one screen, the newest
/// flows that fit under the headline; elsewhere it appends each flow the first time it is
/// seen, so a log or a script reads every flow once. It ends when the session does.
struct FlowsFollow {
    let context: CommandContext
    let limit: Int
    let sessionID: Int64
    static let interval: TimeInterval = 1

    func run(from first: FlowSnapshot) {
        var snapshot = first
        var printed = Set<Int64>()
        let redraws = context.invocation.console.outputIsTerminal && !context.wantsJSON
        while true {
            if redraws {
                redraw(snapshot)
            } else {
                append(snapshot, printed: &printed)
            }
            if snapshot.session.endedAt != nil {
                context.say(Wording.followEnded(snapshot.session, zone: context.zone))
                return
            }
            Thread.sleep(forTimeInterval: Self.interval)
            do {
                // Every flow, so that the newest are among them: the store hands them oldest first.
                snapshot = try FlowSnapshot.read(session: sessionID, limit: Int.max, library: context.library)
            } catch {
                context.invocation.console.writeError("tvctl: " + error.sentence + "\n")
                if case .refusal(.sessionNotFound) = error { return }
            }
        }
    }

    private func redraw(_ snapshot: FlowSnapshot) {
        let rows = max(1, terminalRows() - 4)
        let shown = Array(snapshot.flows.suffix(min(rows, limit)))
        var screen = "\u{1B}[H\u{1B}[2J" + context.style.bold(snapshot.headline(zone: context.zone)) + "\n"
        screen += shown.isEmpty ? Wording.noFlowsYet + "\n" : FlowListing.table(shown, zone: context.zone).rendered(style: context.style)
        if snapshot.flowCount > shown.count {
            screen += context.style.dim(Wording.followTruncated(shown: shown.count, of: snapshot.flowCount)) + "\n"
        }
        context.invocation.console.writeOutput(screen)
    }

    private func append(_ snapshot: FlowSnapshot, printed: inout Set<Int64>) {
        if printed.isEmpty, !context.wantsJSON {
            context.say(snapshot.headline(zone: context.zone))
        }
        for flow in snapshot.flows where !printed.contains(flow.id) {
            printed.insert(flow.id)
            if context.wantsJSON {
                context.invocation.console.writeOutput(JSONShape.line(JSONShape.Flow(flow, findingIDs: nil)))
            } else {
                context.say(FlowListing.line(of: flow, zone: context.zone))
            }
        }
    }

    private func terminalRows() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return 24 }
        return Int(size.ws_row)
    }
}
