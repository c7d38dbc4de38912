//! Charts as SVG text, small enough to inline by the thousand and strict enough to rasterise:
//! every chart is a standalone `<svg>` with its own title, axes with units and a legend. One
//! file per kind of chart; the canvas, axes and colours are shared.

pub mod axis;
pub mod bars;
pub mod colour;
pub mod dots;
pub mod heatmap;
pub mod line;

use std::fmt::Write;

/// Every chart's width; heights vary with the chart.
pub const WIDTH: f64 = 760.0;
/// The chart's default height.
pub const HEIGHT: f64 = 340.0;
/// Text size in pixels; `CHAR` is the width of an average character at that size, for layout.
const FONT: f64 = 11.0;
const CHAR: f64 = 6.2;
const INK: &str = "#333";
const GRID: &str = "#e4e4e4";

/// A finished chart: what the page shows and a PNG file is made of.
#[derive(Debug, Clone)]
pub struct Chart {
    /// Unique in a page; also the PNG file's name.
    pub id: String,
    /// What it shows, in a sentence or two, written under the chart.
    pub caption: String,
    pub svg: String,
}

/// Text made safe for XML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// Where a chart draws its data: the canvas size and the plot area inside the margins.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub width: f64,
    pub height: f64,
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
}

impl Frame {
    /// A frame with room for a title above, tick labels and an axis label below and to the
    /// left, and `legend` pixels on the right.
    pub fn new(width: f64, height: f64, legend: f64) -> Frame {
        Frame {
            width,
            height,
            left: 64.0,
            right: width - 16.0 - legend,
            top: 34.0,
            bottom: height - 44.0,
        }
    }
}

/// An SVG document under construction. Numbers are written with one decimal: a tenth of a
/// pixel is finer than any screen, and the page stays small.
pub struct Canvas {
    out: String,
}

impl Canvas {
    /// A white canvas with the chart's title on top.
    pub fn new(width: f64, height: f64, title: &str) -> Canvas {
        let mut out = String::with_capacity(4096);
        let title = escape(title);
        write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width:.0} {height:.0}\" \
             width=\"{width:.0}\" height=\"{height:.0}\" role=\"img\" \
             font-family=\"DejaVu Sans, Liberation Sans, Arial, sans-serif\" font-size=\"{FONT}\" \
             fill=\"{INK}\"><title>{title}</title>\
             <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\
             <text x=\"{:.1}\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{title}</text>",
            8.0
        )
        .unwrap();
        Canvas { out }
    }

    /// Raw markup (definitions, groups) the helpers below do not cover.
    pub fn raw(&mut self, markup: &str) {
        self.out.push_str(markup);
    }

    /// Text at (x, y); `anchor` is start, middle or end.
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, text: &str) {
        write!(
            self.out,
            "<text x=\"{x:.1}\" y=\"{y:.1}\"{}>{}</text>",
            anchor_attr(anchor),
            escape(text)
        )
        .unwrap();
    }

    /// Text turned by `degrees` around its anchor point.
    pub fn text_turned(&mut self, x: f64, y: f64, degrees: f64, anchor: &str, text: &str) {
        write!(
            self.out,
            "<text transform=\"translate({x:.1} {y:.1}) rotate({degrees})\"{}>{}</text>",
            anchor_attr(anchor),
            escape(text)
        )
        .unwrap();
    }

    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, width: f64) {
        write!(
            self.out,
            "<path d=\"M{x1:.1} {y1:.1}L{x2:.1} {y2:.1}\" stroke=\"{stroke}\" stroke-width=\"{width}\"/>"
        )
        .unwrap();
    }

    /// A rectangle; `title` becomes its hover text when given.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, title: Option<&str>) {
        write!(
            self.out,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\"",
            w.max(0.0),
            h.max(0.0)
        )
        .unwrap();
        match title {
            Some(title) => write!(self.out, "><title>{}</title></rect>", escape(title)).unwrap(),
            None => self.out.push_str("/>"),
        }
    }

    /// A line through `points`, with a dot on each when `marks`.
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, marks: bool) {
        if points.is_empty() {
            return;
        }
        self.out.push_str("<path d=\"");
        for (i, (x, y)) in points.iter().enumerate() {
            write!(self.out, "{}{x:.1} {y:.1}", if i == 0 { 'M' } else { 'L' }).unwrap();
        }
        write!(
            self.out,
            "\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"1.6\" stroke-linejoin=\"round\"/>"
        )
        .unwrap();
        if marks {
            write!(self.out, "<g fill=\"{stroke}\">").unwrap();
            for (x, y) in points {
                write!(self.out, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2.4\"/>").unwrap();
            }
            self.out.push_str("</g>");
        }
    }

    /// A legend: one swatch and name per entry, top to bottom from (x, y). Entries past what
    /// fits in `room` pixels are summed up in one last line.
    pub fn legend(&mut self, x: f64, y: f64, room: f64, entries: &[(String, String)]) {
        let fits = ((room / 15.0).floor() as usize).max(1);
        let shown = if entries.len() > fits {
            fits - 1
        } else {
            entries.len()
        };
        for (i, (name, colour)) in entries.iter().take(shown).enumerate() {
            let y = y + i as f64 * 15.0;
            self.rect(x, y - 8.0, 12.0, 9.0, colour, None);
            self.text(x + 17.0, y, "start", name);
        }
        if shown < entries.len() {
            let y = y + shown as f64 * 15.0;
            self.text(
                x,
                y,
                "start",
                &format!("… and {} more", entries.len() - shown),
            );
        }
    }

    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

fn anchor_attr(anchor: &str) -> &'static str {
    match anchor {
        "middle" => " text-anchor=\"middle\"",
        "end" => " text-anchor=\"end\"",
        _ => "",
    }
}

/// A label cut to `chars` characters, with an ellipsis when cut.
pub fn clip(label: &str, chars: usize) -> String {
    if label.chars().count() <= chars {
        return label.to_string();
    }
    let mut cut: String = label.chars().take(chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(
            escape("a<b & \"c\" > d"),
            "a&lt;b &amp; &quot;c&quot; &gt; d"
        );
        let mut canvas = Canvas::new(100.0, 50.0, "x < y");
        canvas.text(1.0, 2.0, "end", "5 & 6");
        let svg = canvas.finish();
        assert!(svg.contains("<title>x &lt; y</title>"), "{svg}");
        assert!(
            svg.contains("<text x=\"1.0\" y=\"2.0\" text-anchor=\"end\">5 &amp; 6</text>"),
            "{svg}"
        );
        assert!(svg.ends_with("</svg>"));
    }

    #[test]
    fn a_legend_that_does_not_fit_says_how_many_are_left_out() {
        let entries: Vec<(String, String)> = (0..10)
            .map(|i| (format!("series {i}"), "#000".to_string()))
            .collect();
        let mut canvas = Canvas::new(100.0, 100.0, "t");
        canvas.legend(0.0, 10.0, 60.0, &entries);
        let svg = canvas.finish();
        assert!(svg.contains(">series 2<"), "{svg}");
        assert!(!svg.contains(">series 3<"), "{svg}");
        assert!(svg.contains("… and 7 more"), "{svg}");
    }

    #[test]
    fn long_labels_are_clipped_with_an_ellipsis() {
        assert_eq!(clip("random-read", 20), "random-read");
        assert_eq!(clip("random-read", 6), "rando…");
    }
}
