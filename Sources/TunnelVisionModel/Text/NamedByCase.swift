/// A kind whose written name is its case's name in Swift, as every document, the report and
/// `tvctl` write it. The name is a format: never rename a case (the model's tests pin each name).
public protocol NamedByCase {}

extension NamedByCase {
    /// The case's name, for a case without a payload.
    public var name: String { String(describing: self) }
}

extension NamedByCase where Self: CaseIterable {
    /// The case written with this name; nil for a name this version does not know.
    public init?(name: String) {
        guard let named = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = named
    }
}
