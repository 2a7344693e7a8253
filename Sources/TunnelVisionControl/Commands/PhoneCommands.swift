import Foundation
import TunnelVisionExport
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl phone …`: the gateway's phones. Reading them is anyone's; `add` and `remove` only
/// record what the administrator's `tunnelvision-phone` did to WireGuard, and need root.
enum PhoneCommands {
    static let group = CommandSpec(
        group: "phone", summary: "List and show the gateway's phones.",
        discussion: "A phone is a WireGuard peer of the gateway: its traffic is known by its tunnel addresses, and a recording tags only its own phone's flows. The administrator adds and removes phones with 'tunnelvision-phone add NAME' (root), which also writes WireGuard's side.",
        examples: [
            CommandExample("tvctl phone list", "The phones, with their latest WireGuard handshake."),
            CommandExample("tvctl phone show pixel --json", "One phone, for a script."),
        ],
        subcommands: [list, show, add, remove, nextNumber])

    static let nameArgument = PositionalSpec.required("NAME", "The phone's name.")

    enum AddOption {
        static let ipv4 = OptionSpec.value("ipv4", "ADDRESS", "The phone's tunnel IPv4 address.")
        static let ipv6 = OptionSpec.value("ipv6", "ADDRESS", "The phone's tunnel IPv6 address.")
        static let publicKey = OptionSpec.value("public-key", "KEY", "The phone's WireGuard public key.")
    }

    static let network = OptionSpec.value(
        "network", "CIDR", repeatable: true, "A client network the phones are numbered in (10.77.0.0/24, fd77::/64).")

    static let list = CommandSpec(
        "list", summary: "List the phones, oldest first.", options: [SharedOptions.json],
        examples: [CommandExample("tvctl phone list", "Every phone of this gateway.")],
        action: CommandContext.runs(list))

    static let show = CommandSpec(
        "show", summary: "Show one phone: its addresses, key and latest handshake.",
        positionals: [nameArgument], options: [SharedOptions.json],
        examples: [CommandExample("tvctl phone show pixel", "The phone called pixel.")],
        action: CommandContext.runs(show))

    static let add = CommandSpec(
        "add", summary: "Record a phone tunnelvision-phone has added to WireGuard (root).",
        discussion: "Records only: WireGuard is not touched. Use 'tunnelvision-phone add NAME', which makes the keys, picks the addresses, adds the peer and then runs this.",
        positionals: [nameArgument], options: [AddOption.ipv4, AddOption.ipv6, AddOption.publicKey, SharedOptions.json],
        examples: [CommandExample("tvctl phone add pixel --ipv4 10.77.0.3 --ipv6 fd77::3 --public-key KEY", "Record phone pixel.")],
        action: CommandContext.runs(add))

    static let remove = CommandSpec(
        "remove", summary: "Forget a phone tunnelvision-phone has removed from WireGuard (root).",
        discussion: "Refused while the phone is recorded. Its ended recordings keep the phone as it was.",
        positionals: [nameArgument],
        examples: [CommandExample("tvctl phone remove pixel", "Forget phone pixel.")],
        action: CommandContext.runs(remove))

    static let nextNumber = CommandSpec(
        "next-number", summary: "Print the host number the next phone gets (for tunnelvision-phone).",
        discussion: "A phone's addresses are the N-th of each client network (the gateway is 1). N is the lowest from 2 whose address no phone in the history holds in any of the networks given.",
        options: [network],
        examples: [CommandExample("tvctl phone next-number --network 10.77.0.0/24 --network fd77::/64", "2 on a gateway without phones.")],
        action: CommandContext.runs(nextNumber))

    // MARK: Actions

    static func list(_ context: CommandContext) throws(ControlError) {
        let phones = try context.library.read { store in try store.phones() }
        let handshakes = WireGuardHandshakes.read()
        let now = context.invocation.clock()
        if context.wantsJSON {
            context.emit(phones.map { JSONShape.PhoneShape($0, handshakes: handshakes, now: now) })
        } else if phones.isEmpty {
            context.say(Wording.noPhones)
        } else {
            context.show(AuditTables.phones(phones, handshakes: handshakes, now: now, zone: context.zone))
            if case .unreadable(let reason) = handshakes { context.say(Wording.handshakesUnread(reason)) }
        }
    }

    static func show(_ context: CommandContext) throws(ControlError) {
        let name = context.word(0)
        let phone = try context.library.read { store in try store.phone(named: name) }
        guard let phone else { throw .refusal(.phone(.notFound(name))) }
        let shape = JSONShape.PhoneShape(phone, handshakes: WireGuardHandshakes.read(), now: context.invocation.clock())
        if context.wantsJSON {
            context.emit(shape)
            return
        }
        var page = context.page
        page.heading("Phone \(Wording.shown(phone.phone.name))")
        page.facts([
            ("Addresses", shape.addresses.joined(separator: ", ")),
            ("Public key", phone.phone.publicKey),
            ("Key SHA-256", phone.phone.keyFingerprint),
            ("Added", Formatting.dateTime(phone.addedAt, in: context.zone)),
            ("Handshake", Wording.handshake(shape.handshake)),
        ])
        context.show(page)
    }

    /// Root, or the daemon's user as which tunnelvision-phone runs tvctl (so that root never
    /// opens the group-writable history); no member of the group can act as either.
    static var isAdministrator: Bool {
        geteuid() == 0 || getpwnam(DaemonSettings.daemonAccount).map { $0.pointee.pw_uid == geteuid() } == true
    }

    static func add(_ context: CommandContext) throws(ControlError) {
        guard isAdministrator else { throw .refusal(.phoneAdministrationNeedsRoot) }
        let arguments = context.arguments
        let ipv4 = try address(arguments.value(AddOption.ipv4), option: "--ipv4 ADDRESS", context)
        let ipv6 = try address(arguments.value(AddOption.ipv6), option: "--ipv6 ADDRESS", context)
        guard let key = arguments.value(AddOption.publicKey) else {
            throw .usage(.missingOption("--public-key KEY", command: context.command))
        }
        guard let fingerprint = WireGuardKeyFingerprint.of(publicKey: key) else { throw .refusal(.publicKeyUnreadable) }
        let phone = Phone(name: context.word(0), ipv4: ipv4, ipv6: ipv6, publicKey: key, keyFingerprint: fingerprint)
        let now = context.invocation.clock()
        // The installer adds the first phone before the daemon may have run: adding seeds the history.
        let added = try context.library.visit(creatingHistory: true) { store in try store.addPhone(phone, at: now) }
        if context.wantsJSON {
            context.emit(JSONShape.PhoneShape(added, handshakes: .read([:]), now: now))
        } else {
            context.say(Wording.phoneAdded(added.phone))
        }
    }

    static func remove(_ context: CommandContext) throws(ControlError) {
        guard isAdministrator else { throw .refusal(.phoneAdministrationNeedsRoot) }
        let name = context.word(0)
        try context.library.visit { store in try store.removePhone(named: name) }
        context.say(Wording.phoneRemoved(name))
    }

    static func nextNumber(_ context: CommandContext) throws(ControlError) {
        let texts = context.arguments.values(network)
        guard !texts.isEmpty else { throw .usage(.missingOption("--network CIDR", command: context.command)) }
        var networks: [IPNetwork] = []
        for text in texts {
            guard let network = IPNetwork(text), PhoneNumbering.address(PhoneNumbering.numbers.lowerBound, in: network) != nil else {
                throw .refusal(.clientNetworkUnnumbered(text))
            }
            networks.append(network)
        }
        // The installer numbers the first phone before the daemon may have run: no history, no phones.
        let phones = HistoryAccess.standing(of: context.library.location) == .missing
            ? [] : try context.library.read { store in try store.phones() }.map(\.phone)
        guard let number = PhoneNumbering.lowestFree(in: networks, phones: phones) else {
            throw .refusal(.phoneNumbersExhausted(PhoneNumbering.numbers))
        }
        context.say(String(number))
    }

    private static func address(_ text: String?, option: String, _ context: CommandContext) throws(ControlError) -> IPAddress {
        guard let text else { throw .usage(.missingOption(option, command: context.command)) }
        guard let address = IPAddress(text) else { throw .refusal(.addressUnreadable(text)) }
        return address
    }
}

extension JSONShape {
    /// A phone in `tvctl phone list|show --json`.
    public struct PhoneShape: Encodable, Sendable, Hashable {
        public struct Handshake: Encodable, Sendable, Hashable {
            /// live / stale / never / notAPeer / unknown.
            public let state: String
            /// Seconds since the latest handshake; absent when there was none or it could not be read.
            public let ageSeconds: Int64?
            /// Why it could not be read, when it could not.
            public let unreadable: String?
        }

        public let name: String
        public let addresses: [String]
        public let publicKey: String
        public let keyFingerprint: String
        public let addedAt: Date
        public let handshake: Handshake

        init(_ registered: RegisteredPhone, handshakes: WireGuardHandshakes.Reading, now: Date) {
            let phone = registered.phone
            name = phone.name
            addresses = phone.addresses.map(\.description)
            publicKey = phone.publicKey
            keyFingerprint = phone.keyFingerprint
            addedAt = registered.addedAt
            switch handshakes {
            case .unreadable(let reason):
                handshake = Handshake(state: "unknown", ageSeconds: nil, unreadable: reason)
            case .read(let latest):
                let at = latest[phone.publicKey]
                if at == nil {
                    handshake = Handshake(state: "notAPeer", ageSeconds: nil, unreadable: nil)
                } else if at == 0 {
                    handshake = Handshake(state: "never", ageSeconds: nil, unreadable: nil)
                } else {
                    let age = max(0, Int64(now.timeIntervalSince1970) - (at ?? 0))
                    handshake = Handshake(
                        state: age < WireGuardHandshakes.liveForSeconds ? "live" : "stale", ageSeconds: age, unreadable: nil)
                }
            }
        }
    }
}
