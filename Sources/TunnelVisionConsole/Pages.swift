import Foundation
import TunnelVisionControl

/// The console's pages, as HTML built from what the commands printed and what the history
/// listed. Every value is escaped by `HTMLBuilder.text`; the markup is the page's own.
public struct Pages: Sendable {
    public let csrfToken: String
    public let message: LoginSessions.Message?

    public init(csrfToken: String, message: LoginSessions.Message?) {
        self.csrfToken = csrfToken
        self.message = message
    }

    /// The frame every page shares: a bar with the console's sections, the message, the content.
    public func layout(title: String, loggedIn: Bool = true, _ content: (inout HTMLBuilder) -> Void) -> String {
        var page = HTMLBuilder()
        page.raw("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        page.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        page.element("title", text: title + " · TunnelVision")
        page.raw("<link rel=\"stylesheet\" href=\"/assets/console.css\"><script src=\"/assets/console.js\" defer></script></head><body>")
        page.raw("<header><a class=\"brand\" href=\"/\">TunnelVision</a>")
        if loggedIn {
            page.raw("<nav><a href=\"/\">Status</a><a href=\"/projects\">Projects</a>")
            form(&page, action: "/logout", classes: "inline") { $0.raw("<button type=\"submit\" class=\"link\">Log out</button>") }
            page.raw("</nav>")
        }
        page.raw("</header><main>")
        if let message {
            page.element("p", [("id", "message"), ("class", message.refused ? "message refused" : "message done"), ("role", "status")], text: message.text)
        }
        page.element("h1", text: title)
        content(&page)
        page.raw("</main></body></html>")
        return page.html
    }

    /// A POST form with this session's CSRF token in it.
    public func form(_ page: inout HTMLBuilder, action: String, classes: String = "", _ fields: (inout HTMLBuilder) -> Void) {
        page.open("form", [("method", "post"), ("action", action), ("class", classes)])
        page.open("input", [("type", "hidden"), ("name", CSRFCheck.fieldName), ("value", csrfToken)])
        fields(&page)
        page.close("form")
    }

    /// What a command printed, as it printed it.
    public static func output(_ page: inout HTMLBuilder, _ text: String, id: String) {
        page.element("pre", [("id", id)], text: HTML.trimmingLineBreaks(text))
    }

    /// A listing whose every line is a link to what it names.
    public static func listing(_ page: inout HTMLBuilder, _ listing: ConsoleListings.Listing, link: (Int64) -> String, id: String) {
        guard !listing.lines.isEmpty else {
            page.element("p", [("id", id)], text: listing.empty)
            return
        }
        page.open("pre", [("id", id), ("class", "listing")])
        page.element("span", [("class", "head")], text: listing.header)
        for line in listing.lines {
            page.raw("\n")
            page.element("a", [("href", link(line.id)), ("class", line.isOpen ? "open" : "")], text: line.text)
        }
        page.close("pre")
    }

    public static func field(_ page: inout HTMLBuilder, _ label: String, name: String, value: String = "", type: String = "text", required: Bool = false) {
        page.open("label")
        page.text(label)
        var attributes = [("type", type), ("name", name), ("value", value)]
        if required { attributes.append(("required", "required")) }
        page.open("input", attributes)
        page.close("label")
    }

    public static func choice(_ page: inout HTMLBuilder, _ label: String, name: String, options: [(value: String, label: String)], selected: String? = nil) {
        page.open("label")
        page.text(label)
        page.open("select", [("name", name)])
        for option in options {
            var attributes = [("value", option.value)]
            if option.value == selected { attributes.append(("selected", "selected")) }
            page.element("option", attributes, text: option.label)
        }
        page.close("select")
        page.close("label")
    }

    public func login(message: String?) -> String {
        layout(title: "Log in", loggedIn: false) { page in
            if let message { page.element("p", [("id", "login-message"), ("class", "message refused")], text: message) }
            form(&page, action: "/login", classes: "login") { page in
                Pages.field(&page, "Password", name: "password", type: "password", required: true)
                page.raw("<button type=\"submit\" class=\"big\">Log in</button>")
            }
        }
    }

    /// A refusal or a missing page, in the frame.
    public func problem(_ sentence: String, title: String = "Not done") -> String {
        layout(title: title) { page in page.element("p", [("class", "message refused")], text: sentence) }
    }

    public static let inspectionModes: [(value: String, label: String)] = [
        ("", "as the daemon runs (default)"), ("off", "off"), ("pinning", "pinning"),
        ("untrusted-issuer", "untrusted-issuer"), ("wrong-name", "wrong-name"), ("expired", "expired"),
    ]

    /// The form `tvctl session start` reads its flags from.
    public func startForm(_ page: inout HTMLBuilder, projects: [(id: Int64, name: String)], phones: [String], selected: Int64?) {
        form(&page, action: "/sessions", classes: "start") { page in
            Pages.choice(&page, "Project", name: "project", options: projects.map { (String($0.id), "\($0.id) · \($0.name)") }, selected: selected.map(String.init))
            Pages.choice(&page, "What is recorded", name: "kind", options: [("release", "a release of the app"), ("baseline", "a baseline (no app)")])
            Pages.field(&page, "Release", name: "release")
            Pages.field(&page, "Build", name: "build")
            Pages.field(&page, "Device", name: "device", required: true)
            Pages.field(&page, "OS", name: "os", required: true)
            Pages.choice(&page, "Phone", name: "phone", options: [("", "the gateway's only phone")] + phones.map { ($0, $0) })
            Pages.choice(&page, "Inspection", name: "inspection", options: Pages.inspectionModes)
            Pages.choice(&page, "Inspection CA", name: "ca-trusted", options: [
                ("", "not trusted by the phone"), ("user", "trusted, in the user store"),
                ("user-full-trust", "trusted, a user CA with full trust on (iOS)"), ("system", "trusted, in the system store"),
            ])
            Pages.field(&page, "Notes", name: "notes")
            page.raw("<button type=\"submit\" class=\"big\">Start recording</button>")
        }
    }
}

/// The answers that are the same for every request.
public enum ConsoleErrors {
    public static func tooLarge() -> HTTPResponse {
        HTTPResponse.text(Wording.consoleBodyTooLarge + "\n", status: 413)
    }

    public static func lengthRequired() -> HTTPResponse {
        HTTPResponse.text(Wording.consoleLengthRequired + "\n", status: 411)
    }
}
