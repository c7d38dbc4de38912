//! Reports as one self-contained HTML file: inline CSS and SVG, no script, nothing fetched.
//! A page is built top to bottom; every chart goes in a figure with its caption, and is kept
//! aside so it can also be written as a PNG.

pub mod compare;
pub mod results;

use super::svg::{escape, Chart};
use super::table::Table;
use std::fmt::Write;

/// A finished page and the charts in it, in page order.
pub struct Page {
    pub html: String,
    pub charts: Vec<Chart>,
}

/// A page under construction.
pub struct Builder {
    body: String,
    charts: Vec<Chart>,
    /// Sections named so far, for the contents list at the top: (anchor, title).
    contents: Vec<(String, String)>,
}

const STYLE: &str = "\
body{font:14px/1.45 'DejaVu Sans','Liberation Sans',Arial,sans-serif;color:#222;margin:0 auto;\
max-width:1040px;padding:16px 24px 48px;background:#fafafa}\
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ccc}\
h3{font-size:15px;margin:20px 0 6px}\
nav ul{columns:2;margin:4px 0 12px}\
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}\
.facts dt{color:#666}.facts dd{margin:0}\
.verdict{background:#fff;border-left:6px solid #ff7f0e;padding:8px 14px;margin:12px 0}\
.verdict .layer{font-size:17px;font-weight:bold}\
.warnings li{margin:3px 0}.warnings{background:#fff8e6;border-left:6px solid #e0a800;\
padding:6px 14px 6px 30px;margin:12px 0}\
figure{margin:18px 0;background:#fff;border:1px solid #ddd;padding:8px;overflow-x:auto}\
figure svg{display:block;max-width:100%;height:auto}\
figcaption{font-size:13px;color:#555;margin:6px 4px 0}\
table{border-collapse:collapse;margin:10px 0;background:#fff;font-size:13px}\
caption{text-align:left;font-weight:bold;padding:4px 0}\
th,td{border:1px solid #ddd;padding:2px 8px;text-align:right;white-space:nowrap}\
th:first-child,td:first-child{text-align:left}\
ul.notes{font-size:12px;color:#555;margin:0 0 12px}\
details{margin:8px 0}summary{cursor:pointer;font-weight:bold}\
.faster{color:#2166ac;font-weight:bold}.slower{color:#b2182b;font-weight:bold}\
footer{margin-top:32px;font-size:12px;color:#777}";

impl Builder {
    pub fn new() -> Builder {
        Builder {
            body: String::with_capacity(1 << 20),
            charts: Vec::new(),
            contents: Vec::new(),
        }
    }

    /// A section heading listed in the contents.
    pub fn section(&mut self, anchor: &str, title: &str) {
        write!(
            self.body,
            "<h2 id=\"{}\">{}</h2>",
            escape(anchor),
            escape(title)
        )
        .unwrap();
        self.contents.push((anchor.into(), title.into()));
    }

    pub fn heading(&mut self, text: &str) {
        write!(self.body, "<h3>{}</h3>", escape(text)).unwrap();
    }

    pub fn paragraph(&mut self, text: &str) {
        write!(self.body, "<p>{}</p>", escape(text)).unwrap();
    }

    /// Name–value pairs as a two-column list.
    pub fn facts(&mut self, facts: &[(&str, String)]) {
        self.body.push_str("<dl class=\"facts\">");
        for (name, value) in facts {
            write!(
                self.body,
                "<dt>{}</dt><dd>{}</dd>",
                escape(name),
                escape(value)
            )
            .unwrap();
        }
        self.body.push_str("</dl>");
    }

    /// A bulleted list in a box of the given class (warnings, notes).
    pub fn list(&mut self, class: &str, items: &[String]) {
        write!(self.body, "<ul class=\"{class}\">").unwrap();
        for item in items {
            write!(self.body, "<li>{}</li>", escape(item)).unwrap();
        }
        self.body.push_str("</ul>");
    }

    pub fn table(&mut self, table: &Table) {
        self.body.push_str(&table.html());
    }

    /// Tables folded away under a summary line, for what only some readers want.
    pub fn folded(&mut self, summary: &str, open: bool, tables: &[Table]) {
        write!(
            self.body,
            "<details{}><summary>{}</summary>",
            if open { " open" } else { "" },
            escape(summary)
        )
        .unwrap();
        for table in tables {
            self.body.push_str(&table.html());
        }
        self.body.push_str("</details>");
    }

    /// Markup the page's own code made (already escaped where it must be).
    pub fn raw(&mut self, markup: &str) {
        self.body.push_str(markup);
    }

    pub fn chart(&mut self, chart: Chart) {
        write!(
            self.body,
            "<figure class=\"chart\" id=\"{}\">{}<figcaption>{}</figcaption></figure>",
            escape(&chart.id),
            chart.svg,
            escape(&chart.caption)
        )
        .unwrap();
        self.charts.push(chart);
    }

    /// The whole page: title, contents, body, and a footer naming the tool.
    pub fn finish(self, title: &str, lead: &str) -> Page {
        let mut html = String::with_capacity(self.body.len() + 8192);
        write!(
            html,
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{}</title><style>{STYLE}</style></head><body><h1>{}</h1><p>{}</p>",
            escape(title),
            escape(title),
            escape(lead)
        )
        .unwrap();
        if self.contents.len() > 1 {
            html.push_str("<nav><ul>");
            for (anchor, name) in &self.contents {
                write!(
                    html,
                    "<li><a href=\"#{}\">{}</a></li>",
                    escape(anchor),
                    escape(name)
                )
                .unwrap();
            }
            html.push_str("</ul></nav>");
        }
        html.push_str(&self.body);
        writeln!(
            html,
            "<footer>Made by sharebench {} ({}). {}</footer></body></html>",
            env!("CARGO_PKG_VERSION"),
            env!("SHAREBENCH_GIT_REV"),
            escape(super::form::UNITS_LINE)
        )
        .unwrap();
        Page {
            html,
            charts: self.charts,
        }
    }
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}
