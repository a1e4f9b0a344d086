import Testing

@testable import WebPages

/// The one escaping rule: values become text, in element content and in quoted attributes.
@Suite("HTML escaping")
struct HTMLTests {
    @Test(
        "a value is escaped: markup characters become references, controls visible stand-ins",
        arguments: [
            ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
            ("\"><img src=x onerror=alert(1)>", "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"),
            ("' onmouseover='alert(1)", "&#39; onmouseover=&#39;alert(1)"),
            ("a&b", "a&amp;b"), ("&lt;already&gt;", "&amp;lt;already&amp;gt;"),
            (
                "</li></ul><style>body{display:none}</style>",
                "&lt;/li&gt;&lt;/ul&gt;&lt;style&gt;body{display:none}&lt;/style&gt;"
            ),
            ("\u{202E}evil\u{1B}[2J", "\u{FFFD}evil\u{241B}[2J"), ("bell\u{07}\u{00}", "bell\u{2407}\u{2400}"),
            ("two\nlines\tand a tab", "two\nlines\tand a tab"),
            ("plain — ünïcode 🛌 Anna's Apple Watch", "plain — ünïcode 🛌 Anna&#39;s Apple Watch"), ("", ""),
        ])
    func escape(value: String, expected: String) {
        #expect(HTML.escape(value) == expected)
        #expect(HTML(value).rendered == expected)
    }

    @Test("literals are kept, interpolated strings and descriptions escaped, interpolated markup kept")
    func interpolation() {
        let value = "<b>&"
        let markup: HTML = "<em>kept</em>"
        let number = 42
        let html: HTML = "<p title=\"\(value)\">\(value) \(markup) \(number) \([markup, markup])</p>"
        #expect(
            html.rendered
                == "<p title=\"&lt;b&gt;&amp;\">&lt;b&gt;&amp; <em>kept</em> 42 <em>kept</em><em>kept</em></p>")
    }

    @Test("trusted markup is kept as it is; joined pieces get their separator")
    func trustedAndJoined() {
        #expect(HTML.trusted("<svg><title>a &amp; b</title></svg>").rendered == "<svg><title>a &amp; b</title></svg>")
        let parts: [HTML] = ["<li>a</li>", "<li>\("<b>")</li>"]
        #expect(parts.joined(separator: "\n").rendered == "<li>a</li>\n<li>&lt;b&gt;</li>")
        #expect(([] as [HTML]).joined(separator: ",") == .empty)
        var growing: HTML = "<p>"
        growing += "\("x<y")</p>"
        #expect((growing + "\n").rendered == "<p>x&lt;y</p>\n")
    }
}
