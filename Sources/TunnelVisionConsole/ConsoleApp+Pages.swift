import Foundation
import TunnelVisionControl

/// The pages a GET shows: reads only.
extension ConsoleApp {
    func show(_ route: Route, pages: Pages, request: HTTPRequest) -> HTTPResponse {
        do throws(ControlError) {
            switch route {
            case .home: return .html(try home(pages))
            case .statusText: return .text(runner.run(["status"]).said + "\n")
            case .projects: return .html(try projects(pages))
            case .project(let id): return .html(try project(id, pages: pages))
            case .session(let id): return .html(try session(id, pages: pages))
            case .events(let id): return try events(id)
            case .diff(let id): return .html(try diff(id, against: request.query["against"].flatMap(Route.number), pages: pages))
            case .flows(let id): return .html(try flows(id, pages: pages))
            default: return .redirect(to: "/")
            }
        } catch {
            return .html(pages.problem(error.sentence), status: error.exitCode == 3 ? 503 : 404)
        }
    }

    private func home(_ pages: Pages) throws(ControlError) -> String {
        let sessions = try ConsoleListings.sessions(library: library)
        let open = sessions.lines.filter(\.isOpen)
        let phones = runner.run(["phone", "list"])
        let projects = try ConsoleListings.projectNames(library: library)
        let phoneNames = try ConsoleListings.phoneNames(library: library)
        return pages.layout(title: "Status") { page in
            page.open("section", [("class", "status")])
            page.element("pre", [("id", "status"), ("data-refresh", "/status")], text: Wording.consoleStatusLoading)
            page.close("section")
            page.element("h2", text: "Recording now")
            if open.isEmpty {
                page.element("p", [("id", "open-recordings")], text: Wording.consoleNoOpenRecording)
            } else {
                page.open("ul", [("id", "open-recordings"), ("class", "open-recordings")])
                for line in open {
                    page.raw("<li>")
                    page.element("a", [("href", "/session/\(line.id)"), ("class", "big")], text: line.text)
                    page.raw("</li>")
                }
                page.close("ul")
            }
            page.element("h2", text: "Phones")
            Pages.output(&page, phones.said, id: "phones")
            page.element("h2", text: "Start a recording")
            if !projects.isEmpty { pages.startForm(&page, projects: projects, phones: phoneNames, selected: nil) }
            page.element("h2", text: "Sessions")
            Pages.listing(&page, sessions, link: { "/session/\($0)" }, id: "sessions")
        }
    }

    private func projects(_ pages: Pages) throws(ControlError) -> String {
        let listing = try ConsoleListings.projects(library: library)
        return pages.layout(title: "Projects") { page in
            Pages.listing(&page, listing, link: { "/project/\($0)" }, id: "projects")
            page.element("h2", text: "New project")
            pages.form(&page, action: "/projects", classes: "project") { page in
                Pages.field(&page, "Name", name: "name", required: true)
                Pages.field(&page, "Bundle id (optional)", name: "bundle-id")
                page.raw("<button type=\"submit\" class=\"big\">Create project</button>")
            }
        }
    }

    private func project(_ id: Int64, pages: Pages) throws(ControlError) -> String {
        let shown = runner.run(["project", "show", "--", String(id)])
        guard shown.succeeded else { throw .refusal(.projectNotFound(String(id))) }
        let phoneNames = try ConsoleListings.phoneNames(library: library)
        let projects = try ConsoleListings.projectNames(library: library)
        return pages.layout(title: "Project \(id)") { page in
            Pages.output(&page, shown.output, id: "project")
            page.element("h2", text: "Allowlist")
            pages.form(&page, action: "/project/\(id)/allow", classes: "allow") { page in
                Pages.field(&page, "Domain (exact or *.suffix)", name: "pattern", required: true)
                Pages.field(&page, "Why it is allowed", name: "note")
                page.raw("<button type=\"submit\">Allow</button>")
            }
            pages.form(&page, action: "/project/\(id)/disallow", classes: "disallow") { page in
                Pages.field(&page, "Domain to remove", name: "pattern", required: true)
                page.raw("<button type=\"submit\">Remove</button>")
            }
            page.element("h2", text: "Start a recording")
            pages.startForm(&page, projects: projects, phones: phoneNames, selected: id)
        }
    }

    private func session(_ id: Int64, pages: Pages) throws(ControlError) -> String {
        let facts = try ConsoleListings.session(id, library: library)
        let shown = runner.run(["session", "show", "--", String(id)])
        if facts.isOpen {
            let opening = try LiveFlows.open(sessionID: id, limit: FlowFeed.initialRows, library: library)
            // A recording is one phone's: its name heads the page rather than every row.
            let title = "Session \(id) · recording" + (facts.phoneName.map { " · phone \($0)" } ?? "")
            return pages.layout(title: title) { page in
                page.open("section", [("class", "markers")])
                for (what, label) in [("consent", "Consent given"), ("login", "Logged in"), ("logout", "Logged out")] {
                    pages.form(&page, action: "/session/\(id)/mark", classes: "marker") { page in
                        page.open("input", [("type", "hidden"), ("name", "what"), ("value", what)])
                        page.element("button", [("type", "submit"), ("class", "marker-button"), ("id", "mark-\(what)")], text: label)
                    }
                }
                pages.form(&page, action: "/session/\(id)/mark", classes: "marker label") { page in
                    page.open("input", [("type", "hidden"), ("name", "what"), ("value", "label")])
                    page.open("input", [("type", "text"), ("name", "label"), ("placeholder", "Your own words"), ("required", "required")])
                    page.element("button", [("type", "submit"), ("class", "marker-button")], text: "Mark")
                }
                page.close("section")
                pages.form(&page, action: "/session/\(id)/end", classes: "end") { page in
                    page.element("button", [("type", "submit"), ("class", "end-button"), ("id", "end"), ("data-confirm", "End session \(id)?")], text: "End recording")
                }
                flowTable(&page, opening: opening, events: "/session/\(id)/events")
                page.element("h2", text: "Session")
                Pages.output(&page, shown.said, id: "session")
            }
        }
        let findings = try keptFindings.value(forSession: id, keeps: \.succeeded) { runner.run(["findings", "--", String(id)]) }
        return pages.layout(title: "Session \(id)") { page in
            Pages.output(&page, shown.said, id: "session")
            page.element("h2", text: "Findings")
            Pages.output(&page, findings.said, id: "findings")
            page.element("a", [("href", "/session/\(id)/flows"), ("id", "flows-link")], text: "The flows, each with the findings it is behind")
            page.element("h2", text: "Evidence")
            pages.form(&page, action: "/session/\(id)/export", classes: "export") { page in
                page.element("button", [("type", "submit"), ("class", "big"), ("id", "export")], text: "Export the bundle (.zip)")
            }
            if facts.keysKept {
                pages.form(&page, action: "/session/\(id)/export", classes: "export") { page in
                    page.open("input", [("type", "hidden"), ("name", "with-keys"), ("value", "yes")])
                    page.element("button", [("type", "submit"), ("id", "export-keys")], text: "Export with the inspected connections' TLS keys")
                }
            }
            if !facts.others.isEmpty {
                page.element("h2", text: "Release diff")
                page.open("form", [("method", "get"), ("action", "/session/\(id)/diff"), ("class", "diff")])
                Pages.choice(&page, "Against", name: "against", options: facts.others.map { (String($0.id), $0.text) })
                page.raw("<button type=\"submit\">Compare</button>")
                page.close("form")
            }
        }
    }

    private func flows(_ id: Int64, pages: Pages) throws(ControlError) -> String {
        let listed = try keptFlows.value(forSession: id) { () throws(ControlError) in
            try LiveFlows.withFindings(sessionID: id, limit: FlowFeed.initialRows * 5, library: library)
        }
        return pages.layout(title: "Session \(id) · flows") { page in
            flowTable(&page, opening: listed, events: nil)
            page.element("a", [("href", "/session/\(id)")], text: "Back to session \(id)")
        }
    }

    private func flowTable(_ page: inout HTMLBuilder, opening: LiveFlows.Opening, events: String?) {
        page.element("h2", [("id", "flows-headline")], text: opening.headline)
        page.element("p", [("id", "flows-truncation"), ("class", "note")], text: opening.truncation ?? "")
        page.open("div", [("class", "table")])
        page.open("table", [("id", "flows")] + (events.map { [("data-events", $0)] } ?? []))
        page.raw("<thead><tr>")
        for (index, title) in LiveFlows.columnTitles.enumerated() {
            page.element("th", Self.columnClass(index).map { [("class", $0)] } ?? [], text: title)
        }
        page.raw("</tr></thead><tbody>")
        for row in opening.rows {
            page.open("tr", [("data-id", String(row.id))])
            for (index, cell) in row.cells.enumerated() {
                page.element("td", Self.columnClass(index).map { [("class", $0)] } ?? [], text: cell)
            }
            page.close("tr")
        }
        page.raw("</tbody></table></div>")
    }

    /// Numbers align right; the peers, the name and the findings may break across lines, so that
    /// a tablet held upright shows every column, the findings above all, without scrolling sideways.
    /// The live rows take their cells' classes from these header cells.
    private static func columnClass(_ index: Int) -> String? {
        if LiveFlows.numericColumns.contains(index) { return "number" }
        let title = LiveFlows.columnTitles[index]
        return ["PEERS", "NAME", LiveFlows.findingsColumnTitle].contains(title) ? "wrap" : nil
    }

    private func diff(_ id: Int64, against: Int64?, pages: Pages) throws(ControlError) -> String {
        guard let against else { throw .refusal(.audit(.sessionNotFound(0))) }
        let compared = runner.run(["diff", "--", String(against), String(id)])
        return pages.layout(title: "Session \(against) → \(id)") { page in
            Pages.output(&page, compared.said, id: "diff")
            page.element("a", [("href", "/session/\(id)")], text: "Back to session \(id)")
        }
    }

    /// The live list's stream: Server-Sent Events until the recording ends or the page leaves.
    private func events(_ id: Int64) throws(ControlError) -> HTTPResponse {
        let follower = try feed.follow(sessionID: id)
        let feed = self.feed
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("X-Accel-Buffering", "no")],
            body: .stream(next: { follower.next() }, finished: { feed.leave(follower) }))
    }
}
