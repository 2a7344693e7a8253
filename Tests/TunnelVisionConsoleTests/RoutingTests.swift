import Testing
import TunnelVisionConsole

/// Which route a method and path reach; anything else is not found, and a GET changes nothing.
struct RoutingTests {
    @Test(arguments: [
        ("GET", "/", Route.home), ("GET", "/login", .loginPage), ("POST", "/login", .login), ("POST", "/logout", .logout),
        ("GET", "/status", .statusText), ("GET", "/projects", .projects), ("POST", "/projects", .createProject),
        ("GET", "/project/3", .project(3)), ("POST", "/project/3/allow", .allow(project: 3)),
        ("POST", "/project/3/disallow", .disallow(project: 3)), ("POST", "/sessions", .startRecording),
        ("GET", "/session/12", .session(12)), ("POST", "/session/12/mark", .mark(session: 12)),
        ("POST", "/session/12/end", .end(session: 12)), ("GET", "/session/12/events", .events(session: 12)),
        ("POST", "/session/12/export", .export(session: 12)), ("GET", "/session/12/diff", .diff(session: 12)), ("GET", "/session/12/flows", .flows(session: 12)),
        ("GET", "/assets/console.js", .asset(.script)), ("HEAD", "/assets/console.css", .asset(.style)), ("GET", "/favicon.ico", .favicon),
    ])
    func knownPathsReachTheirRoute(_ method: String, _ path: String, _ route: Route) {
        #expect(Route(method: method, path: path) == route)
    }

    @Test(arguments: [
        "/session/07", "/session/-1", "/session/+1", "/session/1.0", "/session/", "/session/99999999999999999999",
        "/assets/../console.js", "/assets/other.js", "//", "/login/", "/project/3/allow/x", "", "/%2e%2e/etc/passwd",
    ])
    func anythingElseIsNotFound(_ path: String) {
        #expect(Route(method: "GET", path: path) == .notFound)
        #expect(Route(method: "POST", path: path) == .notFound)
    }

    @Test func aChangeAskedForWithGETIsRefusedAndSaysWhichMethodWould() {
        #expect(Route(method: "GET", path: "/session/4/mark") == .methodNotAllowed(allowed: "POST"))
        #expect(Route(method: "GET", path: "/logout") == .methodNotAllowed(allowed: "POST"))
        #expect(Route(method: "POST", path: "/session/4") == .methodNotAllowed(allowed: "GET, HEAD"))
        #expect(Route(method: "DELETE", path: "/projects") == .methodNotAllowed(allowed: "GET, HEAD"))
    }

    @Test func onlyRoutesReachedByPOSTChangeAnything() {
        for method in ["GET", "HEAD"] {
            for path in ["/", "/login", "/status", "/projects", "/project/1", "/session/1", "/session/1/events", "/session/1/diff"] {
                #expect(!Route(method: method, path: path).changesState, "\(method) \(path)")
            }
        }
        for path in ["/login", "/logout", "/projects", "/project/1/allow", "/project/1/disallow", "/sessions", "/session/1/mark", "/session/1/end", "/session/1/export"] {
            #expect(Route(method: "POST", path: path).changesState, "POST \(path)")
        }
    }

    @Test func onlyTheLoginAndTheAssetsAreReachedWithoutLoggingIn() {
        #expect(Route.loginPage.isPublic && Route.login.isPublic && Route.asset(.script).isPublic)
        #expect(!Route.home.isPublic && !Route.session(1).isPublic && !Route.export(session: 1).isPublic && !Route.events(session: 1).isPublic)
    }
}
