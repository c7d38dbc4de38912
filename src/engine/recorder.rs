//! Per-worker record of one run: request count, bytes and a latency histogram.

use crate::result::Latency;
use crate::target::{Op, OpSink};
use hdrhistogram::Histogram;

/// Latencies up to ten minutes are kept at three significant digits; longer ones saturate.
const LONGEST_NS: u64 = 600_000_000_000;

pub struct Recorder {
    histogram: Histogram<u64>,
    pub ops: u64,
    pub bytes: u64,
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder {
            histogram: Histogram::new_with_bounds(1, LONGEST_NS, 3)
                .expect("static histogram bounds are valid"),
            ops: 0,
            bytes: 0,
        }
    }

    /// Adds another worker's record to this one.
    pub fn merge(&mut self, other: &Recorder) {
        self.histogram
            .add(&other.histogram)
            .expect("histograms share their bounds");
        self.ops += other.ops;
        self.bytes += other.bytes;
    }

    pub fn latency(&self) -> Latency {
        let h = &self.histogram;
        let us = |ns: u64| ns as f64 / 1e3;
        if h.is_empty() {
            return Latency::default();
        }
        Latency {
            mean: h.mean() / 1e3,
            p50: us(h.value_at_quantile(0.50)),
            p90: us(h.value_at_quantile(0.90)),
            p99: us(h.value_at_quantile(0.99)),
            p99_9: us(h.value_at_quantile(0.999)),
            max: us(h.max()),
        }
    }
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::new()
    }
}

impl OpSink for Recorder {
    #[inline]
    fn completed(&mut self, op: &Op, latency_ns: u64) {
        self.ops += 1;
        self.bytes += op.len as u64;
        self.histogram.saturating_record(latency_ns.max(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_follow_the_recorded_latencies() {
        let op = Op {
            offset: 0,
            len: 4096,
            write: false,
        };
        let mut a = Recorder::new();
        // 1..=1000 microseconds, one request each
        for us in 1..=500u64 {
            a.completed(&op, us * 1000);
        }
        let mut b = Recorder::new();
        for us in 501..=1000u64 {
            b.completed(&op, us * 1000);
        }
        a.merge(&b);
        assert_eq!(a.ops, 1000);
        assert_eq!(a.bytes, 1000 * 4096);
        let lat = a.latency();
        let near = |got: f64, want: f64| (got - want).abs() <= want * 0.002;
        assert!(near(lat.p50, 500.0), "{lat:?}");
        assert!(near(lat.p90, 900.0), "{lat:?}");
        assert!(near(lat.p99, 990.0), "{lat:?}");
        assert!(near(lat.p99_9, 999.0), "{lat:?}");
        assert!(near(lat.max, 1000.0), "{lat:?}");
        assert!(near(lat.mean, 500.5), "{lat:?}");
    }

    #[test]
    fn an_empty_record_reports_zeros() {
        assert_eq!(Recorder::new().latency().max, 0.0);
    }
}
