//! Axes: where a value lands on the page, which ticks to draw and how to label them. Sizes
//! that double step by step (file and record sizes) go on a log-2 axis, latencies that span
//! decades on a log-10 axis, rates and times on a linear axis from zero.

use super::{Canvas, Frame, GRID};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    Linear,
    /// Logarithmic with this base (2 or 10): the ticks are its powers.
    Log(f64),
}

#[derive(Debug, Clone)]
pub struct Axis {
    /// The quantity and its unit: "record size (bytes, log scale)".
    pub label: String,
    pub scale: Scale,
    pub min: f64,
    pub max: f64,
    pub format: fn(f64) -> String,
    /// A fixed distance between ticks, for axes of whole steps (categories on a line).
    pub step: Option<f64>,
}

impl Axis {
    /// The same axis with a tick every `step`.
    pub fn every(mut self, step: f64) -> Axis {
        self.step = Some(step);
        self
    }

    /// A linear axis from zero to a round number at or above the largest value.
    pub fn from_zero(label: &str, largest: f64, format: fn(f64) -> String) -> Axis {
        let largest = if largest.is_finite() && largest > 0.0 {
            largest
        } else {
            1.0
        };
        let step = nice_step(largest / 5.0);
        Axis {
            label: label.into(),
            scale: Scale::Linear,
            min: 0.0,
            max: (largest / step).ceil() * step,
            format,
            step: None,
        }
    }

    /// A linear axis over exactly [min, max] (a timeline's seconds).
    pub fn span(label: &str, min: f64, max: f64, format: fn(f64) -> String) -> Axis {
        Axis {
            label: label.into(),
            scale: Scale::Linear,
            min,
            max: if max > min { max } else { min + 1.0 },
            format,
            step: None,
        }
    }

    /// A logarithmic axis from the power of `base` at or below `smallest` to the one at or
    /// above `largest`; for base 2, exactly the values' range when they are powers of two.
    pub fn log(
        label: &str,
        base: f64,
        smallest: f64,
        largest: f64,
        format: fn(f64) -> String,
    ) -> Axis {
        let smallest = smallest.max(f64::MIN_POSITIVE);
        let largest = largest.max(smallest);
        let low = base.powf(smallest.log(base).floor());
        let mut high = base.powf(largest.log(base).ceil());
        if high <= low {
            high = low * base;
        }
        Axis {
            label: label.into(),
            scale: Scale::Log(base),
            min: low,
            max: high,
            format,
            step: None,
        }
    }

    /// Where `value` falls between `from` (the axis' minimum) and `to` (its maximum), in
    /// pixels; values beyond the axis are held at its ends.
    pub fn place(&self, value: f64, from: f64, to: f64) -> f64 {
        let share = match self.scale {
            Scale::Linear => (value - self.min) / (self.max - self.min),
            Scale::Log(_) => {
                let value = value.max(self.min);
                (value.ln() - self.min.ln()) / (self.max.ln() - self.min.ln())
            }
        };
        from + share.clamp(0.0, 1.0) * (to - from)
    }

    /// The values to mark, at most about `most` of them.
    pub fn ticks(&self, most: usize) -> Vec<f64> {
        match self.scale {
            Scale::Linear => {
                let step = self
                    .step
                    .unwrap_or_else(|| nice_step((self.max - self.min) / most.max(1) as f64));
                let first = (self.min / step).ceil() as i64;
                let last = (self.max / step + 1e-9).floor() as i64;
                (first..=last).map(|i| i as f64 * step).collect()
            }
            Scale::Log(base) => {
                let low = self.min.log(base).round() as i32;
                let high = self.max.log(base).round() as i32;
                let count = (high - low + 1) as usize;
                let every = count.div_ceil(most.max(1)).max(1) as i32;
                (low..=high)
                    .filter(|p| (p - low) % every == 0)
                    .map(|p| base.powi(p))
                    .collect()
            }
        }
    }
}

/// 1, 2 or 5 times a power of ten, the smallest such at or above `rough`.
fn nice_step(rough: f64) -> f64 {
    if !(rough.is_finite() && rough > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&step| step >= rough * (1.0 - 1e-9))
        .unwrap_or(10.0 * power)
}

/// Numbers as a person writes them on an axis: no needless decimals.
pub fn number(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 100.0 || value == value.round() {
        format!("{value:.0}")
    } else if magnitude >= 1.0 {
        format!("{value:.1}").trim_end_matches(".0").to_string()
    } else {
        let text = format!("{value:.3}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A size in bytes as a short binary label: 4K, 64M.
pub fn size(value: f64) -> String {
    crate::units::format_size_short(value.round() as u64)
}

/// A percentage of a share between 0 and 1.
pub fn percent(value: f64) -> String {
    format!("{:.0} %", value * 100.0)
}

/// Draws the grid, the ticks with their labels and both axis labels around `frame`.
pub fn draw(canvas: &mut Canvas, frame: &Frame, x: &Axis, y: &Axis) {
    let mut grid = String::new();
    let mut labels = Vec::new();
    for value in y.ticks(6) {
        let py = y.place(value, frame.bottom, frame.top);
        grid.push_str(&format!("M{:.1} {py:.1}H{:.1}", frame.left, frame.right));
        labels.push((frame.left - 5.0, py + 4.0, "end", (y.format)(value)));
    }
    let x_ticks = x.ticks(((frame.right - frame.left) / 70.0).max(2.0) as usize);
    for value in x_ticks {
        let px = x.place(value, frame.left, frame.right);
        grid.push_str(&format!("M{px:.1} {:.1}V{:.1}", frame.top, frame.bottom));
        labels.push((px, frame.bottom + 14.0, "middle", (x.format)(value)));
    }
    canvas.raw(&format!(
        "<path d=\"{grid}\" stroke=\"{GRID}\" stroke-width=\"1\" fill=\"none\"/>"
    ));
    frame_lines(canvas, frame);
    for (px, py, anchor, text) in labels {
        canvas.text(px, py, anchor, &text);
    }
    x_label(canvas, frame, &x.label);
    y_label(canvas, frame, &y.label);
}

/// The left and bottom lines of the plot area.
pub fn frame_lines(canvas: &mut Canvas, frame: &Frame) {
    canvas.raw(&format!(
        "<path d=\"M{:.1} {:.1}V{:.1}H{:.1}\" stroke=\"#888\" fill=\"none\"/>",
        frame.left, frame.top, frame.bottom, frame.right
    ));
}

pub fn x_label(canvas: &mut Canvas, frame: &Frame, label: &str) {
    canvas.text(
        (frame.left + frame.right) / 2.0,
        frame.height - 8.0,
        "middle",
        label,
    );
}

pub fn y_label(canvas: &mut Canvas, frame: &Frame, label: &str) {
    canvas.text_turned(
        14.0,
        (frame.top + frame.bottom) / 2.0,
        -90.0,
        "middle",
        label,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_axes_end_on_round_numbers_and_tick_at_1_2_or_5() {
        let axis = Axis::from_zero("MB/s", 873.0, number);
        assert_eq!(axis.max, 1000.0);
        assert_eq!(axis.ticks(6), [0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]);
        let small = Axis::from_zero("MB/s", 0.043, number);
        assert_eq!(small.max, 0.05);
        assert_eq!(small.ticks(5).len(), 6);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(0.2), 0.2);
        assert_eq!(nice_step(0.0), 1.0);
        let steps = Axis::span("percentile", 0.0, 4.0, number).every(1.0);
        assert_eq!(
            steps.ticks(8),
            [0.0, 1.0, 2.0, 3.0, 4.0],
            "whole steps only"
        );
    }

    #[test]
    fn log_axes_span_whole_powers_and_place_each_doubling_one_step_on() {
        let axis = Axis::log("record", 2.0, 4096.0, 16.0 * 1024.0 * 1024.0, size);
        assert_eq!((axis.min, axis.max), (4096.0, 16777216.0));
        let at = |v: f64| axis.place(v, 0.0, 120.0);
        assert_eq!(at(4096.0), 0.0);
        assert_eq!(at(16777216.0), 120.0);
        assert!((at(8192.0) - 10.0).abs() < 1e-9, "12 doublings over 120 px");
        assert_eq!(at(1.0), 0.0, "held at the end");
        let ticks = axis.ticks(7);
        assert_eq!(ticks.len(), 7, "13 powers, every second one: {ticks:?}");
        assert_eq!(ticks[1], 16384.0);
        let latency = Axis::log("µs", 10.0, 35.0, 2500.0, number);
        assert_eq!((latency.min, latency.max), (10.0, 10000.0));
        assert_eq!(latency.ticks(8), [10.0, 100.0, 1000.0, 10000.0]);
    }

    #[test]
    fn labels_drop_needless_decimals() {
        assert_eq!(number(400.0), "400");
        assert_eq!(number(2.5), "2.5");
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.05), "0.05");
        assert_eq!(size(65536.0), "64K");
        assert_eq!(percent(0.25), "25 %");
    }
}
