//! Lines over a numeric x axis: throughput against record size (one line per file size), and
//! metric timelines with the runs shaded behind them.

use super::axis::{self, Axis};
use super::{clip, Canvas, Frame, HEIGHT, WIDTH};

#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub colour: String,
    pub points: Vec<(f64, f64)>,
}

/// A stretch of the x axis to shade: a run, darker when counted than when a warm-up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    pub from: f64,
    pub to: f64,
    pub warmup: bool,
}

#[derive(Debug, Clone)]
pub struct LineChart {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub bands: Vec<Band>,
    /// Dots on every point: for measured cells, not for sampled timelines.
    pub marks: bool,
}

const COUNTED: &str = "#dce9f5";
const WARMUP: &str = "#f0f0f0";

impl LineChart {
    pub fn svg(&self) -> String {
        let band_names = if self.bands.is_empty() { 0 } else { 11 };
        let legend_width = self
            .series
            .iter()
            .map(|s| s.name.chars().count().min(22))
            .chain([band_names])
            .max()
            .unwrap_or(0) as f64
            * super::CHAR
            + 24.0;
        let frame = Frame::new(WIDTH, HEIGHT, legend_width);
        let mut canvas = Canvas::new(WIDTH, HEIGHT, &self.title);
        self.shade(&mut canvas, &frame);
        axis::draw(&mut canvas, &frame, &self.x, &self.y);
        for series in &self.series {
            let points: Vec<(f64, f64)> = series
                .points
                .iter()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .map(|&(x, y)| {
                    (
                        self.x.place(x, frame.left, frame.right),
                        self.y.place(y, frame.bottom, frame.top),
                    )
                })
                .collect();
            canvas.polyline(&points, &series.colour, self.marks);
        }
        let mut entries: Vec<(String, String)> = self
            .series
            .iter()
            .map(|s| (clip(&s.name, 22), s.colour.clone()))
            .collect();
        if !self.bands.is_empty() {
            entries.push(("counted run".into(), COUNTED.into()));
            if self.bands.iter().any(|b| b.warmup) {
                entries.push(("warm-up run".into(), WARMUP.into()));
            }
        }
        canvas.legend(
            frame.right + 12.0,
            frame.top + 8.0,
            frame.bottom - frame.top,
            &entries,
        );
        canvas.finish()
    }

    /// The bands at the resolution of the screen: each pixel column is shaded as a counted
    /// run, a warm-up or nothing (a counted run wins a shared column), and equal neighbours
    /// become one rectangle. Thousands of short runs would otherwise be thousands of slivers.
    fn shade(&self, canvas: &mut Canvas, frame: &Frame) {
        if self.bands.is_empty() {
            return;
        }
        let width = (frame.right - frame.left).ceil().max(1.0) as usize;
        let mut columns = vec![0u8; width];
        for band in &self.bands {
            let column = |x: f64| {
                ((self.x.place(x, frame.left, frame.right) - frame.left).max(0.0) as usize)
                    .min(width - 1)
            };
            let level = if band.warmup { 1 } else { 2 };
            for shade in &mut columns[column(band.from)..=column(band.to)] {
                *shade = (*shade).max(level);
            }
        }
        let mut start = 0;
        for i in 1..=width {
            if i < width && columns[i] == columns[start] {
                continue;
            }
            if columns[start] > 0 {
                let fill = if columns[start] == 1 { WARMUP } else { COUNTED };
                canvas.rect(
                    frame.left + start as f64,
                    frame.top,
                    (i - start) as f64,
                    frame.bottom - frame.top,
                    fill,
                    None,
                );
            }
            start = i;
        }
    }
}

/// At most `most` points, each the mean of a run of neighbours: a timeline of hours holds more
/// samples than a chart has pixels.
pub fn thin(points: &[(f64, f64)], most: usize) -> Vec<(f64, f64)> {
    if points.len() <= most || most == 0 {
        return points.to_vec();
    }
    let per = points.len().div_ceil(most);
    points
        .chunks(per)
        .map(|chunk| {
            let n = chunk.len() as f64;
            (
                chunk.iter().map(|p| p.0).sum::<f64>() / n,
                chunk.iter().map(|p| p.1).sum::<f64>() / n,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(bands: Vec<Band>) -> LineChart {
        LineChart {
            title: "read".into(),
            x: Axis::log("record size", 2.0, 4096.0, 65536.0, axis::size),
            y: Axis::from_zero("MB/s", 120.0, axis::number),
            series: vec![Series {
                name: "1M file".into(),
                colour: "#123456".into(),
                points: vec![(4096.0, 50.0), (65536.0, 100.0), (8192.0, f64::NAN)],
            }],
            bands,
            marks: true,
        }
    }

    #[test]
    fn a_series_becomes_a_path_through_its_finite_points_with_a_legend() {
        let svg = chart(Vec::new()).svg();
        // 64 + 0 px and the right edge; 100 of 150 MB/s up from the bottom
        let right = WIDTH - 16.0 - (7.0 * super::super::CHAR + 24.0);
        let y = |mb: f64| (HEIGHT - 44.0) - mb / 150.0 * (HEIGHT - 44.0 - 34.0);
        assert!(
            svg.contains(&format!(
                "M64.0 {:.1}L{right:.1} {:.1}\" fill=\"none\" stroke=\"#123456\"",
                y(50.0),
                y(100.0)
            )),
            "{svg}"
        );
        assert_eq!(svg.matches("<circle").count(), 2, "NaN is left out");
        assert!(svg.contains(">1M file</text>"));
        assert!(svg.contains(">record size</text>") && svg.contains(">MB/s</text>"));
        assert!(svg.contains(">64K</text>"), "log-2 ticks labelled as sizes");
    }

    #[test]
    fn runs_are_shaded_and_neighbours_closer_than_a_pixel_merge() {
        let mut timeline = chart(vec![
            Band {
                from: 0.0,
                to: 1.0,
                warmup: true,
            },
            Band {
                from: 2.0,
                to: 3.0,
                warmup: false,
            },
            Band {
                from: 3.001,
                to: 4.0,
                warmup: false,
            },
        ]);
        timeline.x = Axis::span("seconds", 0.0, 10.0, axis::number);
        let svg = timeline.svg();
        assert_eq!(
            svg.matches(&format!("fill=\"{COUNTED}\"")).count(),
            2,
            "one band and its legend swatch"
        );
        assert_eq!(svg.matches(&format!("fill=\"{WARMUP}\"")).count(), 2);
        assert!(svg.contains(">counted run<") && svg.contains(">warm-up run<"));

        // ten thousand alternating runs: no more rectangles than pixel columns
        timeline.bands = (0..10_000)
            .map(|i| Band {
                from: i as f64 * 0.001,
                to: i as f64 * 0.001 + 0.0008,
                warmup: i % 6 == 0,
            })
            .collect();
        let svg = timeline.svg();
        let shaded = svg.matches(&format!("fill=\"{COUNTED}\"")).count()
            + svg.matches(&format!("fill=\"{WARMUP}\"")).count();
        assert!(shaded < 700, "{shaded}");
    }

    #[test]
    fn long_timelines_are_thinned_to_means_of_neighbours() {
        let points: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, i as f64 * 2.0)).collect();
        assert_eq!(thin(&points, 20), points);
        assert_eq!(
            thin(&points, 5),
            [(0.5, 1.0), (2.5, 5.0), (4.5, 9.0), (6.5, 13.0), (8.5, 17.0)]
        );
        assert_eq!(thin(&points, 3).len(), 3, "four, four and two");
    }
}
