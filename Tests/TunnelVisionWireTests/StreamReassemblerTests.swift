import Testing
@testable import TunnelVisionWire

@Suite struct StreamReassemblerTests {
    /// Pieces of "abcdefghij" by (offset, text), in arrival order, and the prefix that results.
    @Test(arguments: [
        ([(0, "abc"), (3, "def")], "abcdef"),
        ([(3, "def"), (0, "abc")], "abcdef"),
        ([(0, "abc"), (0, "abc"), (3, "d")], "abcd"),
        ([(0, "abcd"), (2, "cdef")], "abcdef"),
        ([(6, "gh"), (2, "cdefg"), (0, "ab")], "abcdefgh"),
        ([(4, "ef"), (3, "defg"), (0, "abc")], "abcdefg"),
        ([(1, "bc")], ""),
    ] as [([(Int, String)], String)])
    func putsPiecesBackInOrder(pieces: [(Int, String)], expected: String) {
        var reassembler = StreamReassembler(limit: 64)
        for (offset, text) in pieces {
            Array(text.utf8).withUnsafeBytes { _ = reassembler.insert($0, at: offset) }
        }
        #expect(String(decoding: reassembler.contiguous, as: UTF8.self) == expected)
    }

    @Test func stopsAtItsBoundAndSaysSo() {
        var reassembler = StreamReassembler(limit: 4)
        Array("abcdef".utf8).withUnsafeBytes { _ = reassembler.insert($0, at: 0) }
        #expect(reassembler.contiguous == Array("abcd".utf8))
        #expect(reassembler.overflowed)
    }

    @Test func anOffsetNearTheIntegerLimitIsIgnored() {
        var reassembler = StreamReassembler(limit: 16)
        Array("ab".utf8).withUnsafeBytes { _ = reassembler.insert($0, at: Int.max - 1) }
        #expect(reassembler.contiguous.isEmpty)
    }
}
