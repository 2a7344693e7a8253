import TunnelVisionModel

/// Reads the Initial packets of one QUIC connection, both ways: the client's (decrypted with its
/// keys, CRYPTO reassembled by offset, the ClientHello read from it) and the server's (with the
/// server keys of the same connection ID: the ServerHello, past a HelloRetryRequest). An Initial
/// whose tag verifies is the proof that the flow is QUIC at all, whatever its port.
public struct QUICHandshakeReader: Sendable {
    /// Destination Connection IDs whose keys may protect the client's Initials: the one the
    /// client first chose, and any a Retry gave it.
    private var connectionIDs: [[UInt8]] = []
    /// The one whose keys opened the client's latest Initial: the server's Initials use it too.
    private var protectingID: [UInt8]?
    private var derived: [(connectionID: [UInt8], version: QUICVersion, sender: InitialSender, keys: InitialKeys)] = []
    private var clientCrypto = StreamReassembler(limit: ClientHandshakeReader.clientHelloLimit + 4)
    private var serverCrypto = StreamReassembler(limit: Self.serverHelloLimit)
    private var serverMessageOffset = 0
    private var serverProgress = ServerAnswerProgress()
    private var unopenedClientInitials = 0
    private var serverDatagramsAfterClient = 0
    private var unprovenZeroRTT = 0

    public private(set) var clientHello: ClientHelloReading?
    public private(set) var isClientSettled = false
    public private(set) var isServerSettled = false
    /// Versions of the latest Initial each end sent that opened: the version in use, and the
    /// one the client proposed.
    public private(set) var openedClientVersion: QUICVersion?
    public private(set) var openedServerVersion: QUICVersion?
    /// The client sent 0-RTT packets: its early data crossed the tap.
    public private(set) var clientSentZeroRTT = false

    private static let maximumConnectionIDs = 4
    /// A HelloRetryRequest and a ServerHello; a certificate never travels in Initials.
    static let serverHelloLimit = 4 * 1024
    /// Client Initials that fail to open before the flow is taken for something else.
    public static let unopenedClientInitialLimit = 4
    /// Server datagrams read, once the client's hello is, before its answer is given up.
    static let serverDatagramLimit = 16
    /// Client 0-RTT packets seen before an Initial opened, before the flow is taken for something else.
    static let unprovenZeroRTTLimit = 16

    public init() {}

    public var serverAnswer: ServerTLSAnswer? { serverProgress.answer }
    /// Only a resumption says anything of the certificate here: it was not sent.
    public var serverCertificates: ServerCertificateReading? { serverProgress.certificates }
    /// What the server's hellos prove of early data, were it offered.
    public var earlyDataAnswer: EarlyDataReading.ServerAnswer? { serverProgress.earlyDataAnswer }
    /// Whether one Initial has opened with its keys.
    public var isProven: Bool { openedClientVersion != nil || openedServerVersion != nil }
    /// Nothing more is to be learnt, or the datagrams are not QUIC.
    public var isSettled: Bool {
        (isClientSettled && isServerSettled)
            || (!isProven && (unopenedClientInitials >= Self.unopenedClientInitialLimit || unprovenZeroRTT >= Self.unprovenZeroRTTLimit))
    }

    /// Reads one datagram from `sender`: every coalesced long-header packet in it, Initials opened.
    public mutating func read(datagram: UnsafeRawBufferPointer, from sender: InitialSender) {
        var rest = datagram
        if sender == .server, isClientSettled {
            serverDatagramsAfterClient += 1
            if serverDatagramsAfterClient > Self.serverDatagramLimit { isServerSettled = true }
        }
        while !isSettled, let header = QUICLongHeader(rest), header.version.hasReadableInitials {
            if sender == .server, header.isRetry {
                remember(Array(header.sourceConnectionID))
                return
            }
            // A client Initial cut short by the capture still names the connection ID.
            if sender == .client, header.isInitial, connectionIDs.isEmpty { remember(Array(header.destinationConnectionID)) }
            guard let (length, _) = InitialPacket.lengthAndPacketNumberOffset(header) else { return }
            if sender == .client, header.isZeroRTT {
                clientSentZeroRTT = true
                // Before any Initial opened, such packets prove nothing: a few are waited past.
                if !isProven { unprovenZeroRTT += 1 }
            }
            if header.isInitial {
                switch sender {
                case .client: readClientInitial(header)
                case .server: readServerInitial(header)
                }
            }
            guard let next = rest.slice(from: length), !next.isEmpty else { return }
            rest = next
        }
    }

    private mutating func readClientInitial(_ header: QUICLongHeader) {
        let ownID = Array(header.destinationConnectionID)
        // A capture that starts late has not seen the first DCID: the packet's own is next best.
        var candidates = connectionIDs
        if !candidates.contains(ownID) { candidates.append(ownID) }
        for connectionID in candidates {
            guard let keys = keys(.client, for: connectionID, version: header.version),
                  let decrypted = InitialPacket.decrypt(header, keys: keys) else { continue }
            protectingID = connectionID
            openedClientVersion = header.version
            if !isClientSettled { absorbClient(decrypted.frames, of: header.version) }
            return
        }
        if !isProven { unopenedClientInitials += 1 }
    }

    private mutating func readServerInitial(_ header: QUICLongHeader) {
        guard !isServerSettled, let connectionID = protectingID ?? connectionIDs.first,
              let keys = keys(.server, for: connectionID, version: header.version),
              let decrypted = InitialPacket.decrypt(header, keys: keys) else { return }
        openedServerVersion = header.version
        // Q050's server answers with QUIC-crypto's REJ or SHLO: no TLS answer to read.
        if header.version.carriesQUICCrypto {
            isServerSettled = true
            return
        }
        var grew = false
        decrypted.frames.withUnsafeBytes { plaintext in
            Self.forEachCryptoFrame(in: plaintext, of: header.version) { offset, data in
                guard offset <= UInt64(serverCrypto.limit) else { return }
                if serverCrypto.insert(data, at: Int(offset)) { grew = true }
            }
        }
        guard grew else { return }
        var offset = serverMessageOffset
        var progress = serverProgress
        var settled = false
        var unused = CertificateSummaryCache()
        serverCrypto.contiguous.withUnsafeBytes { stream in
            settled = HandshakeMessages.forEach(in: stream, from: &offset) { type, body in
                progress.take(.handshake(type: type, body: body), cache: &unused)
            }
        }
        serverMessageOffset = offset
        serverProgress = progress
        if settled || serverCrypto.overflowed {
            isServerSettled = true
            serverCrypto = StreamReassembler(limit: 0)
        }
    }

    private mutating func absorbClient(_ frames: [UInt8], of version: QUICVersion) {
        var grew = false
        frames.withUnsafeBytes { plaintext in
            Self.forEachCryptoFrame(in: plaintext, of: version) { offset, data in
                guard offset <= UInt64(clientCrypto.limit) else { return }
                if clientCrypto.insert(data, at: Int(offset)) { grew = true }
            }
        }
        guard grew else { return }
        let (found, settled) = clientCrypto.contiguous.withUnsafeBytes { stream in
            version.carriesQUICCrypto ? Self.readGoogleHello(stream) : ClientHandshakeReader.readCryptoStream(stream)
        }
        if settled {
            clientHello = found
            isClientSettled = true
            clientCrypto = StreamReassembler(limit: 0)
        }
    }

    /// Q050's CHLO, read as far as TLS's ClientHello is: its name.
    private static func readGoogleHello(_ stream: UnsafeRawBufferPointer) -> (reading: ClientHelloReading?, isSettled: Bool) {
        switch GoogleClientHello.read(stream) {
        case .needsMore: (nil, false)
        case .notAHello: (nil, true)
        case .read(let hello): (hello.hello, true)
        }
    }

    /// Q050, T050 and T051 carry their handshake in Google QUIC's frames, whose CRYPTO type and layout differ.
    private static func forEachCryptoFrame(
        in frames: UnsafeRawBufferPointer, of version: QUICVersion, _ body: (UInt64, UnsafeRawBufferPointer) -> Void
    ) {
        if version.hasGoogleFrames {
            GoogleQUICFrames.forEach(in: frames, body)
        } else {
            CryptoFrames.forEach(in: frames, body)
        }
    }

    private mutating func remember(_ connectionID: [UInt8]) {
        guard !connectionIDs.contains(connectionID), connectionIDs.count < Self.maximumConnectionIDs else { return }
        connectionIDs.append(connectionID)
    }

    private mutating func keys(_ sender: InitialSender, for connectionID: [UInt8], version: QUICVersion) -> InitialKeys? {
        if let cached = derived.first(where: { $0.connectionID == connectionID && $0.version == version && $0.sender == sender }) {
            return cached.keys
        }
        guard let keys = connectionID.withUnsafeBytes({ InitialKeys(sender, of: version, destinationConnectionID: $0) })
        else { return nil }
        if derived.count >= 2 * Self.maximumConnectionIDs + 2 { derived.removeFirst() }
        derived.append((connectionID, version, sender, keys))
        return keys
    }
}

/// Handshake messages laid end to end without records, as QUIC's CRYPTO stream carries them.
enum HandshakeMessages {
    /// Visits each whole message from `offset` on (moved past those visited) until `visit`
    /// answers false; answers whether it did.
    static func forEach(
        in stream: UnsafeRawBufferPointer, from offset: inout Int, _ visit: (UInt8, UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        while let header = stream.slice(from: offset, count: 4) {
            let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            guard let body = stream.slice(from: offset + 4, count: length) else { return false }
            offset += 4 + length
            if !visit(header[0], body) { return true }
        }
        return false
    }
}
