import Foundation
import TunnelVisionModel

/// The gateway's phones: who may be recorded, and by which addresses their traffic is known.
extension History {
    /// Records a phone the administrator has just added to WireGuard. Every address and key is
    /// one phone's only: a second phone on the same address would make tagging ambiguous.
    @discardableResult
    public func addPhone(_ phone: Phone, at date: Date) throws -> RegisteredPhone {
        let name = phone.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw PhoneStoreError.emptyName }
        guard phone.ipv4.family == .v4 else { throw PhoneStoreError.wrongFamily(phone.ipv4) }
        guard phone.ipv6.family == .v6 else { throw PhoneStoreError.wrongFamily(phone.ipv6) }
        let stored = Phone(name: name, ipv4: phone.ipv4, ipv6: phone.ipv6, publicKey: phone.publicKey,
                           keyFingerprint: phone.keyFingerprint)
        return try write { db in
            for other in try PhoneQueries.phones(db: db) {
                if other.phone.name == name { throw PhoneStoreError.nameTaken(name) }
                for address in stored.addresses where other.phone.addresses.contains(address) {
                    throw PhoneStoreError.addressTaken(address, by: other.phone.name)
                }
                if other.phone.publicKey == stored.publicKey { throw PhoneStoreError.keyTaken(by: other.phone.name) }
            }
            try db.statement("""
                INSERT INTO phones (name, ipv4, ipv6, public_key, key_fingerprint, added_at) VALUES (?, ?, ?, ?, ?, ?)
                """)
                .bind(.text(name), .text(stored.ipv4.description), .text(stored.ipv6.description),
                      .text(stored.publicKey), .text(stored.keyFingerprint), .date(date))
                .run()
            return RegisteredPhone(phone: stored, addedAt: date)
        }
    }

    /// Refused while the phone is being recorded. Its ended recordings keep their copy of it.
    public func removePhone(named name: String) throws {
        try write { db in
            guard try PhoneQueries.phone(named: name, db: db) != nil else { throw PhoneStoreError.notFound(name) }
            if let open = try AuditQueries.openSession(phone: name, db: db) {
                throw PhoneStoreError.recording(name, session: open.id)
            }
            try db.statement("DELETE FROM phones WHERE name = ?").bind(.text(name)).run()
        }
    }

    public func phones() throws -> [RegisteredPhone] {
        try reading { try $0.phones() }
    }

    public func phone(named name: String) throws -> RegisteredPhone? {
        try reading { try $0.phone(named: name) }
    }
}

enum PhoneQueries {
    private static let columns = "name, ipv4, ipv6, public_key, key_fingerprint, added_at"

    static func phones(db: SQLiteConnection) throws -> [RegisteredPhone] {
        try db.statement("SELECT \(columns) FROM phones ORDER BY added_at, name").rows(read).compactMap { $0 }
    }

    static func phone(named name: String, db: SQLiteConnection) throws -> RegisteredPhone? {
        try db.statement("SELECT \(columns) FROM phones WHERE name = ?").bind(.text(name)).firstRow(read) ?? nil
    }

    /// Nil for a row whose addresses no longer parse: left out rather than guessed at.
    private static func read(_ row: Row) -> RegisteredPhone? {
        guard let ipv4 = IPAddress(row.text(1)), let ipv6 = IPAddress(row.text(2)) else { return nil }
        let phone = Phone(name: row.text(0), ipv4: ipv4, ipv6: ipv6, publicKey: row.text(3), keyFingerprint: row.text(4))
        return RegisteredPhone(phone: phone, addedAt: row.date(5))
    }
}

extension HistorySnapshot {
    public func phones() throws -> [RegisteredPhone] { try PhoneQueries.phones(db: db) }
    public func phone(named name: String) throws -> RegisteredPhone? { try PhoneQueries.phone(named: name, db: db) }
}
