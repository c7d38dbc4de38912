//! Every counted run as a dot, per test cell, with the mean as a bar, the 95 % confidence
//! interval as a whisker and outliers as hollow red rings: the spread a single number hides.

use super::axis::{self, Axis};
use super::{clip, Canvas, Frame, CHAR, HEIGHT, WIDTH};
use std::fmt::Write;

#[derive(Debug, Clone)]
pub struct Group {
    pub label: String,
    /// Each run's value and whether it was flagged an outlier.
    pub runs: Vec<(f64, bool)>,
    pub mean: f64,
    pub ci95: Option<[f64; 2]>,
}

#[derive(Debug, Clone)]
pub struct DotChart {
    pub title: String,
    pub x_label: String,
    pub y: Axis,
    pub groups: Vec<Group>,
}

const DOT: &str = "#1f77b4";
const OUTLIER: &str = "#d62728";
const MEAN: &str = "#222";

impl DotChart {
    pub fn svg(&self) -> String {
        let longest = self
            .groups
            .iter()
            .map(|g| g.label.chars().count().min(16))
            .max()
            .unwrap_or(1) as f64;
        let width = self.groups.len().max(1) as f64;
        let frame_width = WIDTH - 64.0 - 16.0 - 130.0;
        let slot = frame_width / width;
        // labels stand upright when they fit their slot, else they lean
        let lean = longest * CHAR > slot;
        let under = if lean {
            longest * CHAR * 0.7 + 8.0
        } else {
            8.0
        };
        let mut frame = Frame::new(WIDTH, HEIGHT + under, 130.0);
        frame.bottom -= under;
        let mut canvas = Canvas::new(frame.width, frame.height, &self.title);
        let mut grid = String::new();
        for value in self.y.ticks(6) {
            let py = self.y.place(value, frame.bottom, frame.top);
            write!(grid, "M{:.1} {py:.1}H{:.1}", frame.left, frame.right).unwrap();
            canvas.text(frame.left - 5.0, py + 4.0, "end", &(self.y.format)(value));
        }
        canvas.raw(&format!(
            "<path d=\"{grid}\" stroke=\"{}\" fill=\"none\"/>",
            super::GRID
        ));
        axis::frame_lines(&mut canvas, &frame);
        let every = ((12.0 / slot).ceil() as usize).max(1);
        let (mut dots, mut rings, mut means, mut whiskers) =
            (String::new(), String::new(), String::new(), String::new());
        let y = |v: f64| self.y.place(v, frame.bottom, frame.top);
        for (i, group) in self.groups.iter().enumerate() {
            let centre = frame.left + (i as f64 + 0.5) * slot;
            let spread = (slot * 0.3).min(10.0);
            let n = group.runs.len().max(1) as f64;
            for (k, &(value, outlier)) in group.runs.iter().enumerate() {
                // runs side by side within the slot, so equal values stay visible
                let x = centre - spread + 2.0 * spread * (k as f64 + 0.5) / n;
                let target = if outlier { &mut rings } else { &mut dots };
                write!(
                    target,
                    "<circle cx=\"{x:.1}\" cy=\"{:.1}\" r=\"2.6\"/>",
                    y(value)
                )
                .unwrap();
            }
            let half = (slot * 0.4).min(14.0);
            let my = y(group.mean);
            write!(means, "M{:.1} {my:.1}h{:.1}", centre - half, 2.0 * half).unwrap();
            if let Some([lo, hi]) = group.ci95 {
                let cap = half * 0.5;
                write!(
                    whiskers,
                    "M{centre:.1} {:.1}V{:.1}M{:.1} {:.1}h{:.1}M{:.1} {:.1}h{:.1}",
                    y(lo),
                    y(hi),
                    centre - cap,
                    y(lo),
                    2.0 * cap,
                    centre - cap,
                    y(hi),
                    2.0 * cap
                )
                .unwrap();
            }
            if i % every == 0 {
                let label = clip(&group.label, 16);
                if lean {
                    canvas.text_turned(centre + 3.0, frame.bottom + 10.0, -45.0, "end", &label);
                } else {
                    canvas.text(centre, frame.bottom + 14.0, "middle", &label);
                }
            }
        }
        canvas.raw(&format!(
            "<path d=\"{whiskers}\" stroke=\"#777\" stroke-width=\"1.2\"/>\
             <path d=\"{means}\" stroke=\"{MEAN}\" stroke-width=\"2\"/>\
             <g fill=\"{DOT}\" fill-opacity=\"0.8\">{dots}</g>\
             <g fill=\"none\" stroke=\"{OUTLIER}\" stroke-width=\"1.5\">{rings}</g>"
        ));
        canvas.text(
            (frame.left + frame.right) / 2.0,
            frame.height - 6.0,
            "middle",
            &self.x_label,
        );
        axis::y_label(&mut canvas, &frame, &self.y.label);
        let x = frame.right + 14.0;
        let top = frame.top + 8.0;
        canvas.raw(&format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.6\" fill=\"{DOT}\"/>\
             <circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.6\" fill=\"none\" stroke=\"{OUTLIER}\" stroke-width=\"1.5\"/>",
            x + 6.0,
            top - 4.0,
            x + 6.0,
            top + 11.0
        ));
        canvas.text(x + 17.0, top, "start", "counted run");
        canvas.text(x + 17.0, top + 15.0, "start", "outlier");
        canvas.line((x, top + 26.0), (x + 12.0, top + 26.0), MEAN, 2.0);
        canvas.text(x + 17.0, top + 30.0, "start", "mean");
        canvas.line((x + 6.0, top + 38.0), (x + 6.0, top + 48.0), "#777", 1.2);
        canvas.text(x + 17.0, top + 46.0, "start", "95 % CI");
        canvas.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(groups: usize) -> DotChart {
        DotChart {
            title: "runs".into(),
            x_label: "test".into(),
            y: Axis::from_zero("MB/s", 100.0, axis::number),
            groups: (0..groups)
                .map(|i| Group {
                    label: format!("cell {i}"),
                    runs: vec![(90.0, false), (95.0, false), (20.0, true)],
                    mean: 92.5,
                    ci95: Some([80.0, 100.0]),
                })
                .collect(),
        }
    }

    #[test]
    fn runs_means_intervals_and_outliers_are_all_drawn() {
        let svg = chart(2).svg();
        assert_eq!(
            svg.matches("<circle").count(),
            6 + 2,
            "six runs, two in the key"
        );
        let rings = svg
            .split("stroke=\"#d62728\" stroke-width=\"1.5\">")
            .nth(1)
            .unwrap();
        assert_eq!(
            rings
                .split("</g>")
                .next()
                .unwrap()
                .matches("<circle")
                .count(),
            2
        );
        assert!(svg.contains(">cell 0<") && svg.contains(">cell 1<"));
        assert!(svg.contains(">95 % CI<") && svg.contains(">outlier<"));
        assert!(!svg.contains("rotate(-45)"), "two labels stand upright");
    }

    #[test]
    fn many_cells_lean_their_labels_and_skip_some() {
        let svg = chart(182).svg();
        assert!(svg.contains("rotate(-45)"));
        assert!(svg.contains(">cell 0<") && !svg.contains(">cell 1<"));
        assert_eq!(svg.matches("<circle").count(), 182 * 3 + 2);
    }
}
