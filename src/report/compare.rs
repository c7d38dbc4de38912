//! A comparison for a person: one row per matched cell (A, B, B/A with its interval, the test
//! and its p, the verdict), then the grid's summary, the sweet spot and what did not match.

use crate::analysis::compare::{Cell, Comparison};
use crate::report::table::Table;
use crate::units::{format_size, mb_per_s};

/// A rate in the cell's unit: MB/s for data, ops/s for metadata.
fn rate(cell: &Cell, value: f64) -> String {
    if cell.unit == "ops/s" {
        format!("{value:.0} ops/s")
    } else {
        format!("{:.1} MB/s", mb_per_s(value))
    }
}

pub fn table(comparison: &Comparison) -> Table {
    let rows = comparison
        .cells
        .iter()
        .map(|c| {
            vec![
                c.key.test.to_string(),
                c.key
                    .entries
                    .map_or_else(|| format_size(c.key.file_size), |e| format!("{e} entries")),
                format_size(c.key.record_size),
                c.key.workers.to_string(),
                format!("{} ({})", rate(c, c.a.mean), c.a.n),
                format!("{} ({})", rate(c, c.b.mean), c.b.n),
                format!("{:.3}", c.ratio),
                c.ratio_ci95
                    .map_or("–".into(), |[lo, hi]| format!("{lo:.3} – {hi:.3}")),
                c.significance
                    .as_ref()
                    .map_or("–".into(), |s| format!("{:.4} {}", s.p, s.test)),
                c.verdict.words().to_string(),
            ]
        })
        .collect();
    Table {
        caption: format!(
            "B against A, cell by cell (mean of counted runs, outliers left out; runs in brackets; α = {})",
            comparison.alpha
        ),
        key: Vec::new(),
        headers: [
            "test", "file", "record", "workers", "A", "B", "B/A", "95 % CI", "p (test)", "verdict",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        notes: notes(comparison),
    }
}

/// The summary under the table.
pub fn notes(comparison: &Comparison) -> Vec<String> {
    let s = &comparison.summary;
    let mut notes = Vec::new();
    if let Some(g) = s.geometric_mean {
        notes.push(format!(
            "geometric mean of B/A over {} cells: {g:.3}; B significantly faster in {}, slower in {}, \
             no significant difference in {}{}",
            comparison.cells.len(),
            s.faster,
            s.slower,
            s.no_difference,
            if s.too_few_runs > 0 {
                format!(", too few runs to tell in {}", s.too_few_runs)
            } else {
                String::new()
            }
        ));
    }
    notes.extend(s.sweet_spot.iter().map(|w| format!("sweet spot: {w}")));
    let tests: Vec<&str> = comparison
        .cells
        .iter()
        .filter_map(|c| c.significance.as_ref())
        .map(|s| s.test)
        .collect();
    if tests.contains(&"mann-whitney") {
        notes.push(
            "mann-whitney where a side has fewer than 5 runs or skewed runs; welch-t otherwise"
                .into(),
        );
    }
    notes.extend(
        comparison
            .unmatched
            .iter()
            .map(|u| format!("not compared: {u}")),
    );
    notes
}
