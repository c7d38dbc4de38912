//! A grid of coloured cells: file size down, record size across, the iozone surface seen from
//! above. The caller picks each cell's colour; cells can be struck through (a ratio that is not
//! significant) and every cell names its figures on hover.

use super::colour::ink_on;
use super::{axis, clip, Canvas, CHAR, WIDTH};
use std::fmt::Write;

#[derive(Debug, Clone)]
pub struct HeatCell {
    pub row: usize,
    pub column: usize,
    pub colour: String,
    /// Written in the cell when it fits.
    pub text: String,
    /// The hover text: the cell's figures in full.
    pub title: String,
    /// Struck through with a diagonal line.
    pub struck: bool,
}

/// The colour key: labelled stops from the top (high) to the bottom (low).
#[derive(Debug, Clone)]
pub struct Ramp {
    pub label: String,
    pub stops: Vec<(String, String)>,
    /// What a struck-through cell means, when cells can be.
    pub struck: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Heatmap {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub columns: Vec<String>,
    /// Top to bottom.
    pub rows: Vec<String>,
    pub cells: Vec<HeatCell>,
    pub ramp: Ramp,
}

const LEFT: f64 = 92.0;
const TOP: f64 = 34.0;
const LEGEND: f64 = 150.0;

impl Heatmap {
    pub fn svg(&self) -> String {
        let columns = self.columns.len().max(1) as f64;
        let cell_w = (WIDTH - LEFT - LEGEND) / columns;
        let cell_h = (360.0 / self.rows.len().max(1) as f64).clamp(12.0, 26.0);
        let bottom = TOP + cell_h * self.rows.len() as f64;
        let height = (bottom + 46.0).max(TOP + 20.0 * self.ramp.stops.len() as f64 + 60.0);
        let mut canvas = Canvas::new(WIDTH, height, &self.title);
        let mut struck = String::new();
        let mut texts = String::new();
        for cell in &self.cells {
            let x = LEFT + cell.column as f64 * cell_w;
            let y = TOP + cell.row as f64 * cell_h;
            canvas.rect(
                x,
                y,
                cell_w - 1.0,
                cell_h - 1.0,
                &cell.colour,
                Some(&cell.title),
            );
            if cell.struck {
                write!(
                    struck,
                    "M{x:.1} {:.1}L{:.1} {y:.1}",
                    y + cell_h - 1.0,
                    x + cell_w - 1.0
                )
                .unwrap();
            }
            let fits = cell.text.chars().count() as f64 * CHAR + 4.0 <= cell_w && cell_h >= 13.0;
            if fits && !cell.text.is_empty() {
                write!(
                    texts,
                    "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{}\">{}</text>",
                    x + cell_w / 2.0,
                    y + cell_h / 2.0 + 4.0,
                    ink_on(&cell.colour),
                    super::escape(&cell.text)
                )
                .unwrap();
            }
        }
        if !struck.is_empty() {
            canvas.raw(&format!(
                "<path class=\"struck\" d=\"{struck}\" stroke=\"#555\" stroke-width=\"1\"/>"
            ));
        }
        if !texts.is_empty() {
            canvas.raw(&format!(
                "<g text-anchor=\"middle\" font-size=\"10\" pointer-events=\"none\">{texts}</g>"
            ));
        }
        // labels: every column's when they fit, else every k-th
        let label_every = ((6.0 * CHAR) / cell_w).ceil().max(1.0) as usize;
        for (i, label) in self.columns.iter().enumerate() {
            if i % label_every == 0 {
                let x = LEFT + (i as f64 + 0.5) * cell_w;
                canvas.text(x, bottom + 14.0, "middle", label);
            }
        }
        let row_every = (12.0 / cell_h).ceil().max(1.0) as usize;
        for (i, label) in self.rows.iter().enumerate() {
            if i % row_every == 0 {
                let y = TOP + (i as f64 + 0.5) * cell_h + 4.0;
                canvas.text(LEFT - 5.0, y, "end", &clip(label, 13));
            }
        }
        let frame = super::Frame {
            width: WIDTH,
            height: bottom + 46.0,
            left: LEFT,
            right: WIDTH - LEGEND,
            top: TOP,
            bottom,
        };
        axis::x_label(&mut canvas, &frame, &self.x_label);
        axis::y_label(&mut canvas, &frame, &self.y_label);
        self.key(&mut canvas);
        canvas.finish()
    }

    fn key(&self, canvas: &mut Canvas) {
        let x = WIDTH - LEGEND + 16.0;
        canvas.text(x, TOP + 4.0, "start", &clip(&self.ramp.label, 22));
        let mut y = TOP + 14.0;
        for (label, colour) in &self.ramp.stops {
            canvas.rect(x, y, 18.0, 18.0, colour, None);
            canvas.text(x + 24.0, y + 13.0, "start", label);
            y += 20.0;
        }
        if let Some(meaning) = &self.ramp.struck {
            y += 6.0;
            canvas.rect(x, y, 18.0, 18.0, "#f7f7f7", None);
            canvas.line((x, y + 18.0), (x + 18.0, y), "#555", 1.0);
            canvas.text(x + 24.0, y + 13.0, "start", meaning);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(columns: usize) -> Heatmap {
        Heatmap {
            title: "read".into(),
            x_label: "record size".into(),
            y_label: "file size".into(),
            columns: (0..columns).map(|c| format!("{}K", 4 * (c + 1))).collect(),
            rows: vec!["1M".into(), "2M".into()],
            cells: vec![
                HeatCell {
                    row: 0,
                    column: 0,
                    colour: "#440154".into(),
                    text: "120".into(),
                    title: "1M file, 4K records: 120 MB/s".into(),
                    struck: false,
                },
                HeatCell {
                    row: 1,
                    column: 1,
                    colour: "#fde725".into(),
                    text: "1.05".into(),
                    title: "2M file, 8K records".into(),
                    struck: true,
                },
            ],
            ramp: Ramp {
                label: "MB/s".into(),
                stops: vec![
                    ("200".into(), "#fde725".into()),
                    ("0".into(), "#440154".into()),
                ],
                struck: Some("not significant".into()),
            },
        }
    }

    #[test]
    fn cells_carry_colour_hover_text_and_readable_ink() {
        let svg = map(2).svg();
        assert!(svg.contains("fill=\"#440154\"><title>1M file, 4K records: 120 MB/s</title>"));
        assert!(
            svg.contains("fill=\"#fff\">120</text>"),
            "light ink on dark: {svg}"
        );
        assert!(
            svg.contains("fill=\"#222\">1.05</text>"),
            "dark ink on light"
        );
        assert_eq!(
            svg.matches("stroke=\"#555\"").count(),
            2,
            "one struck cell, one key"
        );
        assert!(svg.contains(">not significant<") && svg.contains(">MB/s<"));
    }

    #[test]
    fn crowded_columns_label_every_few_and_hide_text_that_does_not_fit() {
        let svg = map(60).svg();
        assert!(svg.contains(">4K<"), "the first column is labelled");
        assert!(!svg.contains(">8K<"), "its neighbour is not: {svg}");
        assert!(!svg.contains(">120</text>"), "8-pixel cells hold no text");
    }
}
