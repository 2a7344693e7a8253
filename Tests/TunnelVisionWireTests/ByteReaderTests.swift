import Testing
@testable import TunnelVisionWire

@Suite struct ByteReaderTests {
    @Test func readsBigEndianFieldsAndStopsAtTheEnd() {
        withBytes([0x01, 0x02, 0x03, 0x04, 0x05, 0x06]) { buffer in
            var reader = ByteReader(buffer)
            #expect(reader.u16() == 0x0102)
            #expect(reader.u24() == 0x030405)
            #expect(reader.u16() == nil)
            #expect(reader.u8() == 0x06)
            #expect(reader.u8() == nil)
        }
    }

    @Test(arguments: [
        ([0x25], UInt64(37)),
        ([0x7B, 0xBD], UInt64(15293)),
        ([0x9D, 0x7F, 0x3E, 0x7D], UInt64(494_878_333)),
        ([0xC2, 0x19, 0x7C, 0x5E, 0xFF, 0x14, 0xE8, 0x8C], UInt64(151_288_809_941_952_652)),
    ] as [([UInt8], UInt64)])
    func readsQUICVariableLengthIntegers(encoded: [UInt8], value: UInt64) {
        withBytes(encoded) { buffer in
            var reader = ByteReader(buffer)
            #expect(reader.varint() == value)
            #expect(reader.isAtEnd)
        }
    }

    @Test func aLengthPrefixLongerThanTheInputTakesNothing() {
        withBytes([0x00, 0x05, 0xAA, 0xBB]) { buffer in
            var reader = ByteReader(buffer)
            #expect(reader.takeLengthPrefixed(lengthBytes: 2) == nil)
            #expect(reader.position == 0)
        }
    }

    @Test func truncatedVarintIsRefused() {
        withBytes([0x80, 0x01]) { buffer in
            var reader = ByteReader(buffer)
            #expect(reader.varint() == nil)
        }
    }
}
