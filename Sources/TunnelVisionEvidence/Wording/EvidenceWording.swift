/// Every sentence the bundle writes, in one place: each one is a limit that an earlier check
/// set, and none of them says passed, compliant or fulfilled.
public enum EvidenceWording {
    public enum Report {
        public static func pageNumber(_ page: Int, of count: Int) -> String {
            "Page \(page) of \(count)"
        }
    }
}
