import CMicroHTTPD
import Foundation

/// The console's HTTP(S) server: libmicrohttpd with a thread per connection, so a slow client
/// (or a live page's event stream) holds only its own thread. Requests are read up to
/// `HTTPLimits` and handed whole to `handle`; what it answers is sent as bytes, a stream or a file.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public struct Settings: Sendable {
        public let address: String
        public let port: UInt16
        /// Key and certificate in PEM; nil for plain HTTP.
        public let tls: (key: String, certificate: String)?

        public init(address: String, port: UInt16, tls: (key: String, certificate: String)?) {
            self.address = address
            self.port = port
            self.tls = tls
        }
    }

    public enum Failure: Error, Sendable, Equatable {
        case invalidAddress(String)
        case cannotListen(address: String, port: UInt16)
    }

    let handle: Handler
    private var daemon: OpaquePointer?
    private var key: UnsafeMutablePointer<CChar>?
    private var certificate: UnsafeMutablePointer<CChar>?

    public init(handle: @escaping Handler) {
        self.handle = handle
    }

    deinit { stop() }

    public func start(_ settings: Settings) throws(Failure) {
        guard let family = IPAddressText.family(of: settings.address) else { throw .invalidAddress(settings.address) }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { raw in
            if family == AF_INET {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = settings.port.bigEndian
                inet_pton(AF_INET, settings.address, &address.sin_addr)
                withUnsafeBytes(of: address) { raw.copyMemory(from: $0) }
            } else {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = settings.port.bigEndian
                inet_pton(AF_INET6, settings.address, &address.sin6_addr)
                withUnsafeBytes(of: address) { raw.copyMemory(from: $0) }
            }
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        // Kept for as long as the server runs: libmicrohttpd is handed the pointers, not copies.
        key = settings.tls.map { strdup($0.key) } ?? nil
        certificate = settings.tls.map { strdup($0.certificate) } ?? nil
        let started: OpaquePointer? = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                var values = tv_mhd_settings(
                    address: address, port: settings.port, ipv6: family == AF_INET6 ? 1 : 0,
                    key_pem: UnsafePointer(key), certificate_pem: UnsafePointer(certificate),
                    connection_limit: HTTPLimits.connections, per_address_limit: HTTPLimits.connectionsPerAddress,
                    idle_timeout_seconds: HTTPLimits.idleSeconds, connection_memory: HTTPLimits.connectionMemory)
                return tv_mhd_start(&values, accessHandler, context, completedHandler)
            }
        }
        guard let started else { throw .cannotListen(address: settings.address, port: settings.port) }
        daemon = started
    }

    public func stop() {
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
        free(key)
        free(certificate)
        key = nil
        certificate = nil
    }
}

/// What one request has gathered between libmicrohttpd's calls.
final class RequestState {
    var body: [UInt8] = []
    var answered = false
}

/// A stream's text not yet taken by libmicrohttpd.
final class StreamState {
    let next: @Sendable () -> String?
    let finished: @Sendable () -> Void
    var pending: [UInt8] = []

    init(next: @escaping @Sendable () -> String?, finished: @escaping @Sendable () -> Void) {
        self.next = next
        self.finished = finished
    }

    deinit { finished() }
}

private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, uploadData, uploadSize, requestContext in
    guard let context, let connection, let url, let method, let uploadSize, let requestContext else { return tv_mhd_no() }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    // The first call has only the headers: a declared body over the limit is refused unread.
    guard let existing = requestContext.pointee else {
        let state = RequestState()
        requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
        let length = header(connection, "Content-Length")
        if let length, (Int(length) ?? Int.max) > HTTPLimits.body {
            state.answered = true
            return queue(ConsoleErrors.tooLarge(), on: connection)
        }
        // A form always says its length; a body that does not could only be read to find out.
        if length == nil, header(connection, "Transfer-Encoding") != nil {
            state.answered = true
            return queue(ConsoleErrors.lengthRequired(), on: connection)
        }
        return tv_mhd_yes()
    }
    let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        let count = uploadSize.pointee
        uploadSize.pointee = 0
        guard !state.answered else { return tv_mhd_yes() }
        // The declared length was checked at the headers, and libmicrohttpd reads no more than it.
        guard state.body.count + count <= HTTPLimits.body, let uploadData else { return tv_mhd_no() }
        uploadData.withMemoryRebound(to: UInt8.self, capacity: count) { state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count)) }
        return tv_mhd_yes()
    }
    guard !state.answered else { return tv_mhd_yes() }
    state.answered = true
    let request = HTTPRequest(
        method: String(cString: method), path: String(cString: url), query: Form(fields: values(connection, tv_mhd_argument_kind())),
        headers: Dictionary(values(connection, tv_mhd_header_kind()).map { ($0.0.lowercased(), $0.1) }, uniquingKeysWith: { first, _ in first }),
        body: state.body, client: clientAddress(connection))
    return queue(server.handle(request), on: connection)
}

private let completedHandler: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
    guard let requestContext, let state = requestContext.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(state).release()
    requestContext.pointee = nil
}

private func header(_ connection: OpaquePointer, _ name: String) -> String? {
    MHD_lookup_connection_value(connection, tv_mhd_header_kind(), name).map { String(cString: $0) }
}

private final class Pairs {
    var items: [(String, String)] = []
}

private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(String, String)] {
    let pairs = Pairs()
    _ = MHD_get_connection_values(connection, kind, { context, _, key, value in
        guard let context, let key else { return tv_mhd_yes() }
        let pairs = Unmanaged<Pairs>.fromOpaque(context).takeUnretainedValue()
        // Not UTF-8 (a hostile query): dropped, as if it had not been sent.
        if let name = String(validatingCString: key), let text = value.map({ String(validatingCString: $0) }) ?? "" {
            pairs.items.append((name, text))
        }
        return tv_mhd_yes()
    }, Unmanaged.passUnretained(pairs).toOpaque())
    return pairs.items
}

private func clientAddress(_ connection: OpaquePointer) -> String {
    guard let address = tv_mhd_client_address(connection) else { return "unknown" }
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
            var raw = inet.pointee.sin_addr
            _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
        }
    case AF_INET6:
        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet in
            var raw = inet.pointee.sin6_addr
            _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
        }
    default: return "unknown"
    }
    return String(cString: text)
}

private func queue(_ answer: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let response: OpaquePointer?
    switch answer.body {
    case .bytes(let bytes):
        response = bytes.withUnsafeBytes { MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), tv_mhd_must_copy()) }
    case .stream(let next, let finished):
        let state = Unmanaged.passRetained(StreamState(next: next, finished: finished)).toOpaque()
        response = MHD_create_response_from_callback(tv_mhd_size_unknown(), 4096, { context, _, buffer, capacity in
            guard let context, let buffer else { return tv_mhd_end_with_error() }
            let stream = Unmanaged<StreamState>.fromOpaque(context).takeUnretainedValue()
            if stream.pending.isEmpty {
                guard let text = stream.next() else { return tv_mhd_end_of_stream() }
                stream.pending = Array(text.utf8)
                if stream.pending.isEmpty { return 0 }
            }
            let count = min(capacity, stream.pending.count)
            stream.pending.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: count) }
            stream.pending.removeFirst(count)
            return count
        }, state, { context in
            if let context { Unmanaged<StreamState>.fromOpaque(context).release() }
        })
    case .file(let path, let size, let folder):
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        // Opened, the file stays readable to the end of the download; its folder can go now.
        try? FileManager.default.removeItem(atPath: folder)
        response = descriptor >= 0 ? MHD_create_response_from_fd(Int(size), descriptor) : nil
    }
    guard let response else { return tv_mhd_no() }
    defer { MHD_destroy_response(response) }
    for (name, value) in HTTPResponse.securityHeaders + answer.headers {
        _ = MHD_add_response_header(response, name, value)
    }
    return MHD_queue_response(connection, UInt32(answer.status), response)
}
