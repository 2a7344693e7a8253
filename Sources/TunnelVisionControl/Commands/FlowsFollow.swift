import Foundation
import TunnelVisionModel
import TunnelVisionStore

#if canImport(Glibc)
import Glibc
#endif

/// The live view of `tvctl flows --follow`. On a terminal it redraws one screen, the newest
/// flows that fit under the headline; elsewhere it appends each flow the first time it is
/// seen, so a log or a script reads every flow once. It ends when the session does. After the
/// first read it asks the history only for the flows changed since its last read (a change
/// marker), so that its cost per second does not grow with the session's length.
struct FlowsFollow {
    let context: CommandContext
    let limit: Int
    let sessionID: Int64
    static let interval: TimeInterval = 1

    /// What the view knows between two reads: the newest flows, how many there are, and where
    /// the last read stopped. Flow ids only grow, so a flow above `highestID` is a new one.
    struct View {
        var session: Recording
        let projectName: String
        var flowCount: Int
        var newest: [StoredFlow]
        var highestID: Int64
        var marker: FlowChangeMarker
        let keep: Int

        /// Folds in the flows changed since the last read; hands back those never seen before.
        mutating func fold(_ changed: [StoredFlow]) -> [StoredFlow] {
            let fresh = changed.filter { $0.id > highestID }.sorted { $0.id < $1.id }
            flowCount += fresh.count
            highestID = max(highestID, fresh.last?.id ?? highestID)
            // An update of a flow older than those shown changes nothing on the screen.
            var byID = Dictionary(newest.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
            for flow in changed where byID[flow.id] != nil { byID[flow.id] = flow }
            for flow in fresh { byID[flow.id] = flow }
            newest = Array(byID.values.sorted { ($0.state.firstSeen, $0.id) < ($1.state.firstSeen, $1.id) }.suffix(keep))
            return fresh
        }
    }

    /// The first read streams the session's flows: off a terminal each is appended as it is
    /// read, and only the newest `limit` are kept, so what the view holds does not grow with the
    /// session. The headline comes first: its count is read in the same transaction.
    static func start(session named: Int64?, phone: String?, limit: Int, context: CommandContext) throws(ControlError) {
        let appends = !(context.invocation.console.outputIsTerminal && !context.wantsJSON)
        let view = try context.library.read { store in
            let session = try named.map { id in try SessionReference.session(id, in: store) }
                ?? OpenRecordingReference.session(phone: phone, purpose: .flows, in: store)
            let follow = FlowsFollow(context: context, limit: limit, sessionID: session.id)
            var view = View(
                session: session, projectName: try store.auditProject(id: session.projectID)?.name ?? "",
                flowCount: try store.flowCount(inRecording: session.id), newest: [], highestID: 0,
                marker: try store.flowChangeMarker(), keep: limit)
            if appends, !context.wantsJSON { context.say(follow.headline(view)) }
            try store.forEachFlow(inRecording: session.id) { flow in
                if appends { follow.append([flow]) }
                view.highestID = max(view.highestID, flow.id)
                view.newest.append(flow)
                if view.newest.count >= 2 * limit { view.newest.removeFirst(view.newest.count - limit) }
            }
            view.newest = Array(view.newest.suffix(limit))
            return view
        }
        FlowsFollow(context: context, limit: limit, sessionID: view.session.id).run(from: view)
    }

    /// From the first read on: the flows it handed over are already shown.
    private func run(from first: View) {
        var view = first
        let redraws = context.invocation.console.outputIsTerminal && !context.wantsJSON
        var fresh: [StoredFlow] = []
        while true {
            if redraws {
                redraw(view)
            } else {
                append(fresh)
            }
            if view.session.endedAt != nil {
                context.say(Wording.followEnded(view.session, zone: context.zone))
                return
            }
            Thread.sleep(forTimeInterval: Self.interval)
            do throws(ControlError) {
                let (session, changed, next) = try context.library.read { store throws -> (Recording?, [StoredFlow], FlowChangeMarker) in
                    let (flows, next) = try store.flowsChanged(inRecording: sessionID, after: view.marker)
                    return (try store.recording(id: sessionID), flows, next)
                }
                guard let session else { throw ControlError.refusal(.audit(.sessionNotFound(sessionID))) }
                view.session = session
                view.marker = next
                fresh = view.fold(changed)
            } catch {
                fresh = []
                context.invocation.console.writeError("tvctl: " + error.sentence + "\n")
                if case .refusal(.audit(.sessionNotFound)) = error { return }
            }
        }
    }

    private func headline(_ view: View) -> String {
        Wording.flowsHeadline(view.session, project: view.projectName, flows: view.flowCount, zone: context.zone)
    }

    private func redraw(_ view: View) {
        let rows = max(1, terminalRows() - 4)
        let shown = Array(view.newest.suffix(min(rows, limit)))
        var screen = "\u{1B}[H\u{1B}[2J" + context.style.bold(headline(view)) + "\n"
        screen += shown.isEmpty ? Wording.noFlowsYet + "\n" : FlowListing.table(shown, zone: context.zone).rendered(style: context.style)
        if view.flowCount > shown.count {
            screen += context.style.dim(Wording.followTruncated(shown: shown.count, of: view.flowCount)) + "\n"
        }
        context.invocation.console.writeOutput(screen)
    }

    private func append(_ flows: [StoredFlow]) {
        for flow in flows {
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
