import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

/// The connection's table of transitions, read without a socket: every stage can end, nothing
/// comes back from the end, and only a termination that failed before its answer starts over.
struct RelayStageTests {
    typealias Kind = RelayStage.Kind

    @Test func everyStageButTheEndCanEndAtOnce() {
        for kind in Kind.allCases where kind != .closed {
            #expect(kind.mayMove(to: .closed), "\(kind) cannot end")
        }
        #expect(Kind.successors[.closed] == [])
    }

    @Test func everyStageCanBeReachedFromTheDial() {
        var reached: Set<Kind> = [.dialling]
        var frontier: [Kind] = [.dialling]
        while let kind = frontier.popLast() {
            for next in Kind.successors[kind] ?? [] where reached.insert(next).inserted { frontier.append(next) }
        }
        #expect(reached == Set(Kind.allCases))
    }

    @Test func onlyATerminationThatFailedOrCouldNotStartRedials() {
        let redialFrom = Set(Kind.allCases.filter { $0.mayMove(to: .redialling) })
        #expect(redialFrom == [.holding, .upstreamHandshake, .presenting, .terminated])
        // A redial carries the held stream to a splice, never back into a termination.
        #expect(Kind.successors[.redialling] == [.splicing, .closed])
    }

    @Test func aSpliceNeverBecomesATermination() {
        #expect(Kind.successors[.splicing] == [.closed])
        #expect(!Kind.dialling.mayMove(to: .upstreamHandshake))
    }

    @Test func theStagesThatWaitForThePhoneOrTheServerTakeTheirLimit() {
        let limits = RelayLimits(holdSeconds: 1, connectSeconds: 2, handshakeSeconds: 3, idleSeconds: 4)
        let taken = Kind.allCases.map { ($0, $0.timeLimit(limits, closingSeconds: 5)) }
        for (kind, seconds) in taken {
            switch kind {
            case .dialling, .redialling, .closed: #expect(seconds == nil, "\(kind)")
            case .holding: #expect(seconds == 1)
            case .upstreamHandshake, .presenting, .terminated: #expect(seconds == 3, "\(kind)")
            case .splicing: #expect(seconds == 4)
            case .closing: #expect(seconds == 5)
            }
        }
    }
}
