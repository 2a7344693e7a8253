/// Where the technician installed the inspection CA on the phone. A platform's default trust
/// leaves some stores out (Android apps targeting API 24 and later ignore user-installed CAs
/// unless they opt in; iOS trusts a profile's CA for TLS only once its full trust is switched
/// on), so a refusal of the CA alone cannot say whether the app pins or ignores this store.
public enum CATrustStore: String, Sendable, Hashable, CaseIterable {
    /// The user's store (Android "user credentials", an iOS profile without full trust).
    case user
    /// An iOS profile's CA with "full trust for root certificates" switched on.
    case userFullTrust = "user-full-trust"
    /// The system store (a rooted Android's system CAs, an emulator image, a managed device).
    case system
}
