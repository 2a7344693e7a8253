import Foundation
import Testing
import TunnelVisionConsole

/// Every value reaches a page as text: markup in a project's name, a quote in an attribute.
struct EscapingTests {
    @Test func markupShowsAsText() {
        #expect(HTML.escaped("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;")
        #expect(HTML.escaped("a & b") == "a &amp; b")
        #expect(HTML.escaped("\"x\" 'y'") == "&quot;x&quot; &#39;y&#39;")
        #expect(HTML.escaped("Grüße ⇄ 😀") == "Grüße ⇄ 😀")
    }

    @Test func controlCharactersAreReplacedAndLineBreaksKept() {
        #expect(HTML.escaped("a\u{0}b\u{1B}[31m") == "a&#xFFFD;b&#xFFFD;[31m")
        #expect(HTML.escaped("one\ntwo\tthree") == "one\ntwo\tthree")
    }

    @Test func trimmingLineBreaksIsFoundationsTrimmingOfNewlines() {
        for text in ["", "\n", "\n\r\nabc\n", "a\nb", "\u{2028}x y\u{85}\u{B}", "Grüße ⇄\n\n", "  spaced  \n"] {
            #expect(HTML.trimmingLineBreaks(text) == text.trimmingCharacters(in: .newlines), "\(text.debugDescription)")
        }
    }

    @Test func theBuilderEscapesTextAndEveryAttributeValue() {
        var page = HTMLBuilder()
        page.element("a", [("href", "/x\" onclick=\"alert(1)"), ("title", "<b>")], text: "<img src=x onerror=alert(1)>")
        #expect(page.html == "<a href=\"/x&quot; onclick=&quot;alert(1)\" title=\"&lt;b&gt;\">&lt;img src=x onerror=alert(1)&gt;</a>")
    }
}

/// Forms as browsers send them.
struct FormTests {
    @Test func decodesPlusAndPercent() throws {
        let form = try #require(Form(encoded: "name=%3Cscript%3E+x&empty=&bare&note=caf%C3%A9"))
        #expect(form["name"] == "<script> x")
        #expect(form["empty"] == "")
        #expect(form["bare"] == "")
        #expect(form["note"] == "café")
        #expect(form["missing"] == nil)
        #expect(form.given("empty") == nil)
    }

    @Test(arguments: ["a=%", "a=%4", "a=%zz", "a=%FF%FE", "%C3=x"])
    func refusesWhatIsNotWellFormedOrNotUTF8(_ text: String) {
        #expect(Form(encoded: text) == nil)
    }

    @Test func theFirstOfARepeatedNameCounts() throws {
        #expect(try #require(Form(encoded: "csrf=a&csrf=b"))["csrf"] == "a")
    }
}
