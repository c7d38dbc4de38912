//! Horizontal bars with a marker line: each layer's ceiling against the rate the test reached,
//! so the shortest bar at or under the marker is the bottleneck at a glance.

use super::axis::{self, Axis};
use super::{clip, Canvas, Frame, WIDTH};

#[derive(Debug, Clone)]
pub struct Bar {
    pub label: String,
    /// None: nothing to draw, only the note (a layer without a measured ceiling).
    pub value: Option<f64>,
    pub colour: String,
    /// Written after the bar.
    pub note: String,
}

#[derive(Debug, Clone)]
pub struct BarChart {
    pub title: String,
    pub x: Axis,
    pub bars: Vec<Bar>,
    /// A vertical line across every bar, with its name in the legend.
    pub marker: Option<(f64, String)>,
}

const LABELS: f64 = 100.0;
const ROW: f64 = 34.0;
const MARKER: &str = "#d62728";

impl BarChart {
    pub fn svg(&self) -> String {
        let height = 34.0 + ROW * self.bars.len().max(1) as f64 + 60.0;
        let mut frame = Frame::new(WIDTH, height, 0.0);
        frame.left = LABELS;
        frame.right = WIDTH - 230.0;
        let mut canvas = Canvas::new(WIDTH, height, &self.title);
        // the x grid and ticks only: rows are categories
        let mut grid = String::new();
        for value in self.x.ticks(6) {
            let px = self.x.place(value, frame.left, frame.right);
            grid.push_str(&format!("M{px:.1} {:.1}V{:.1}", frame.top, frame.bottom));
            canvas.text(px, frame.bottom + 14.0, "middle", &(self.x.format)(value));
        }
        canvas.raw(&format!(
            "<path d=\"{grid}\" stroke=\"{}\" fill=\"none\"/>",
            super::GRID
        ));
        axis::frame_lines(&mut canvas, &frame);
        for (i, bar) in self.bars.iter().enumerate() {
            let top = frame.top + 6.0 + i as f64 * ROW;
            canvas.text(frame.left - 6.0, top + 15.0, "end", &bar.label);
            let end = match bar.value {
                Some(value) => {
                    let end = self.x.place(value, frame.left, frame.right);
                    canvas.rect(frame.left, top, end - frame.left, 22.0, &bar.colour, None);
                    end
                }
                None => frame.left,
            };
            canvas.text(end + 6.0, top + 15.0, "start", &clip(&bar.note, 50));
        }
        if let Some((value, name)) = &self.marker {
            let px = self.x.place(*value, frame.left, frame.right);
            canvas.raw(&format!(
                "<path d=\"M{px:.1} {:.1}V{:.1}\" stroke=\"{MARKER}\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>",
                frame.top - 4.0,
                frame.bottom
            ));
            let x = frame.left;
            let y = frame.height - 8.0;
            canvas.line((x, y - 4.0), (x + 18.0, y - 4.0), MARKER, 2.0);
            canvas.text(x + 24.0, y, "start", name);
        }
        canvas.text(frame.right, frame.height - 8.0, "end", &self.x.label);
        canvas.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_reach_their_value_and_the_marker_crosses_them_all() {
        let chart = BarChart {
            title: "layers".into(),
            x: Axis::from_zero("MB/s", 100.0, axis::number),
            bars: vec![
                Bar {
                    label: "network".into(),
                    value: Some(50.0),
                    colour: "#1f77b4".into(),
                    note: "ceiling 50 MB/s".into(),
                },
                Bar {
                    label: "server-cpu".into(),
                    value: None,
                    colour: "#1f77b4".into(),
                    note: "smbd 90 % of a core".into(),
                },
            ],
            marker: Some((40.0, "reached 40 MB/s".into())),
        };
        let svg = chart.svg();
        let half = (WIDTH - 230.0 - LABELS) / 2.0;
        assert!(
            svg.contains(&format!(
                "width=\"{half:.1}\" height=\"22.0\" fill=\"#1f77b4\""
            )),
            "{svg}"
        );
        assert_eq!(
            svg.matches("height=\"22.0\"").count(),
            1,
            "no bar without a value"
        );
        assert!(svg.contains(">smbd 90 % of a core<"));
        assert!(svg.contains("stroke-dasharray") && svg.contains(">reached 40 MB/s<"));
    }
}
