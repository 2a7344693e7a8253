import TunnelVisionModel

/// The open recordings a batch's flows may join, read once at the start of the batch's
/// transaction (which holds the write lock, so they cannot change under it) instead of once per
/// row: the recording open for the phone at the flow's client end, or a recording of the whole
/// tap, the lowest id first — `AuditQueries.openRecordingCondition`, told in Swift.
struct RecordingTags {
    private struct Open {
        let id: Int64
        let wholeTap: Bool
        let ipv4: String?
        let ipv6: String?
    }

    private let open: [Open]

    init(_ tagging: RecordingTagging, db: SQLiteConnection) throws {
        guard tagging == .openRecordings else {
            open = []
            return
        }
        open = try db.statement("""
            SELECT id, phone_name IS NULL, phone_ipv4, phone_ipv6 FROM audit_sessions WHERE ended_at IS NULL ORDER BY id
            """).rows { Open(id: $0.int64(0), wholeTap: $0.bool(1), ipv4: $0.textOrNil(2), ipv6: $0.textOrNil(3)) }
    }

    /// The recording a flow whose phone's end is `client` joins; nil: none (or no tagging).
    /// Addresses compare as the text the history holds, byte for byte, as SQLite's `=` does.
    func recording(client: IPAddress?, texts: inout FlowTexts) -> Int64? {
        guard !open.isEmpty else { return nil }
        let spelt = client.map { texts.address($0) }
        return open.first { session in
            session.wholeTap || spelt.map { name in [session.ipv4, session.ipv6].contains { $0?.utf8.elementsEqual(name.utf8) ?? false } } ?? false
        }?.id
    }
}

/// The change markers of a batch's rows: each row written takes one above every other, as
/// `MAX(changed) + 1` read per row would give (the batch is the only writer in its transaction),
/// with the maximum read once.
struct FlowChangeMarkers {
    private var last: Int64

    init(db: SQLiteConnection) throws {
        last = try db.statement("SELECT IFNULL(MAX(changed), 0) FROM flows").firstRow { $0.int64(0) } ?? 0
    }

    mutating func next() -> Int64 {
        last += 1
        return last
    }
}

/// The text of addresses and ALPN lists a batch spells again and again (the phone's address, a
/// few servers, the same offers): the last few kept, so each is spelt once rather than per row.
struct FlowTexts {
    private var addresses: [(IPAddress, String)] = []
    private var nextAddress = 0
    private var lists: [([String], String)] = []
    private var nextList = 0
    private static let kept = 8

    mutating func address(_ address: IPAddress) -> String {
        if let known = addresses.first(where: { $0.0 == address }) { return known.1 }
        let text = address.description
        Self.keep((address, text), in: &addresses, next: &nextAddress)
        return text
    }

    mutating func json(_ strings: [String]) -> String {
        if let known = lists.first(where: { $0.0 == strings }) { return known.1 }
        let text = FlowCoding.json(strings)
        Self.keep((strings, text), in: &lists, next: &nextList)
        return text
    }

    private static func keep<T>(_ entry: T, in entries: inout [T], next: inout Int) {
        if entries.count < kept {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = (next + 1) % kept
        }
    }
}

/// A multi-row INSERT: rows are gathered and written `rowsPerStatement` at a time, so that SQLite
/// opens the table and its indexes once per statement instead of once per row. Rows go in in the
/// order they were added, each as its own row would have.
struct ChunkedInsert {
    static let rowsPerStatement = 16
    private let full: Statement
    private let single: Statement
    private let width: Int
    private var pending: [SQLValue] = []

    /// `prefix` is the statement up to VALUES (`INSERT INTO t (a, b)`); `width` its column count.
    init(_ prefix: String, width: Int, db: SQLiteConnection) throws {
        func values(rows: Int) -> String {
            let row = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
            return prefix + " VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
        }
        full = try db.statement(values(rows: Self.rowsPerStatement))
        single = try db.statement(values(rows: 1))
        self.width = width
        pending.reserveCapacity(width * Self.rowsPerStatement)
    }

    mutating func add(_ row: [SQLValue]) throws {
        pending.append(contentsOf: row)
        guard pending.count == width * Self.rowsPerStatement else { return }
        full.reset()
        try full.bind(pending).run()
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes the rows gathered since the last full statement, one statement each.
    mutating func finish() throws {
        for start in stride(from: 0, to: pending.count, by: width) {
            single.reset()
            try single.bind(Array(pending[start..<start + width])).run()
        }
        pending.removeAll(keepingCapacity: true)
    }
}
