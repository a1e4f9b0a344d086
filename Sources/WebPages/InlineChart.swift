/// A chart of SleepReports (`DurationChart`, `DebtChart`: the admin tool's own SVG) placed
/// inside a page: its XML declaration dropped, marked as an image for assistive technology
/// (its `<title>` names it), scaled to the page's width by the stylesheet (`viewBox` kept),
/// and recoloured for dark mode by classes, never by `style` attributes.
enum InlineChart {
    /// The figure holding `svg` with `caption` below it.
    static func figure(_ svg: String, caption: HTML, kind: String) -> HTML {
        "<figure class=\"chart chart-\(kind)\">\n\(HTML.trusted(inline(svg)))<figcaption>\(caption)</figcaption>\n</figure>\n"
    }

    /// `svg` from its `<svg` tag on, with `role="img"` and the chart class added to it.
    static func inline(_ svg: String) -> String {
        guard let open = svg.range(of: "<svg") else { return "" }
        return "<svg class=\"chart-svg\" role=\"img\"" + svg[open.upperBound...]
    }
}
