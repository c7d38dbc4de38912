//! `sharebench compare … -o compare.html`: the ratio B/A of every matched cell as a heatmap
//! (blue where B is faster, red where slower, white at 1, struck through where the difference
//! is not significant), then the grid's summary and the full table.

use super::{Builder, Page};
use crate::analysis::compare::{Cell, Comparison, Verdict};
use crate::report::svg::colour;
use crate::report::svg::heatmap::{HeatCell, Heatmap, Ramp};
use crate::report::svg::Chart;
use crate::result::Document;
use crate::units::format_size_short;

/// The page comparing `a` with `b`, each named by the file it came from.
pub fn page(a: (&str, &Document), b: (&str, &Document), comparison: &Comparison) -> Page {
    let mut page = Builder::new();
    page.facts(&[
        (
            "A",
            format!("{} — {} ({})", a.0, a.1.target.url, a.1.started),
        ),
        (
            "B",
            format!("{} — {} ({})", b.0, b.1.target.url, b.1.started),
        ),
        (
            "significance",
            format!(
                "α = {}: Welch's t-test, or Mann–Whitney U where a side has fewer than 5 runs \
                 or skewed runs",
                comparison.alpha
            ),
        ),
    ]);
    page.list("warnings", &crate::report::compare::notes(comparison));
    let reach = reach(comparison);
    for chart in heatmaps(comparison, reach) {
        page.chart(chart);
    }
    // the summary stands above the heatmaps already
    let mut table = crate::report::compare::table(comparison);
    table.notes.clear();
    page.table(&table);
    page.finish(
        "sharebench comparison",
        &format!("B against A, cell by cell: {} / {}.", b.0, a.0),
    )
}

/// How far from 1 the colour scale reaches: the largest ratio either way, between 1.1 (so
/// noise stays pale) and 4.
fn reach(comparison: &Comparison) -> f64 {
    comparison
        .cells
        .iter()
        .filter(|c| c.ratio.is_finite() && c.ratio > 0.0)
        .map(|c| c.ratio.max(1.0 / c.ratio))
        .fold(1.1, f64::max)
        .min(4.0)
}

/// One heatmap per test (file size down, record size across); when every test has a single
/// cell, one heatmap with a row per test.
fn heatmaps(comparison: &Comparison, reach: f64) -> Vec<Chart> {
    let tests = crate::report::by_test(&comparison.cells, |c| c.key.test);
    if tests.iter().all(|(_, cells)| cells.len() == 1) {
        let cells: Vec<&Cell> = tests.iter().map(|(_, cells)| cells[0]).collect();
        let chart = heatmap(
            "B/A for every test",
            "test",
            &cells,
            |c| c.key.test.to_string(),
            reach,
        );
        return vec![Chart {
            id: "compare-all".into(),
            caption: caption("every test"),
            svg: chart.svg(),
        }];
    }
    tests
        .iter()
        .map(|(test, cells)| {
            // smallest files (or directories) on top, as in the iozone grid
            let mut cells = cells.clone();
            cells.sort_by_key(|c| (c.key.entries.unwrap_or(c.key.file_size), c.key.workers));
            let chart = heatmap(
                &format!("{test}: B/A by file size and record size"),
                "file size",
                &cells,
                row_label,
                reach,
            );
            Chart {
                id: format!("compare-{}", test.name()),
                caption: caption(&test.to_string()),
                svg: chart.svg(),
            }
        })
        .collect()
}

fn caption(what: &str) -> String {
    format!(
        "The ratio B/A of the mean rates of {what}, cell by cell: blue where B is faster, red \
         where it is slower, white where they are even, on a log scale. A struck-through cell's \
         difference is not significant (or has too few runs to tell); hover a cell for its \
         interval and test."
    )
}

/// A row's name within one test: its file size (or entries), with the workers when several.
fn row_label(cell: &Cell) -> String {
    let mut label = match cell.key.entries {
        Some(entries) => format!("{entries} entries"),
        None => format_size_short(cell.key.file_size),
    };
    if cell.key.workers > 1 {
        label.push_str(&format!(" ×{}", cell.key.workers));
    }
    label
}

fn heatmap(
    title: &str,
    y_label: &str,
    cells: &[&Cell],
    row: fn(&Cell) -> String,
    reach: f64,
) -> Heatmap {
    // rows in the order their first cell comes; columns by record size
    let mut rows: Vec<String> = Vec::new();
    for cell in cells {
        let label = row(cell);
        if !rows.contains(&label) {
            rows.push(label);
        }
    }
    let mut records: Vec<u64> = cells.iter().map(|c| c.key.record_size).collect();
    records.sort_unstable();
    records.dedup();
    let heat = cells
        .iter()
        .map(|cell| {
            let fill = colour::diverging(cell.ratio, reach);
            HeatCell {
                row: rows.iter().position(|r| *r == row(cell)).unwrap_or(0),
                column: records.binary_search(&cell.key.record_size).unwrap_or(0),
                text: format!("{:.2}", cell.ratio),
                title: hover(cell),
                colour: fill,
                struck: !matches!(cell.verdict, Verdict::Faster | Verdict::Slower),
            }
        })
        .collect();
    let stops = [reach, reach.sqrt(), 1.0, 1.0 / reach.sqrt(), 1.0 / reach]
        .into_iter()
        .map(|r| {
            let words = if r > 1.0 {
                " B faster"
            } else if r < 1.0 {
                " B slower"
            } else {
                " even"
            };
            (format!("{r:.2}{words}"), colour::diverging(r, reach))
        })
        .collect();
    Heatmap {
        title: title.into(),
        x_label: "record size".into(),
        y_label: y_label.into(),
        columns: records.iter().map(|&r| format_size_short(r)).collect(),
        rows,
        cells: heat,
        ramp: Ramp {
            label: "B/A".into(),
            stops,
            struck: Some("not significant".into()),
        },
    }
}

fn hover(cell: &Cell) -> String {
    let interval = cell.ratio_ci95.map_or(String::new(), |[lo, hi]| {
        format!(" (95 % CI {lo:.3}–{hi:.3})")
    });
    let test = cell
        .significance
        .as_ref()
        .map_or(String::new(), |s| format!(", p = {:.4} by {}", s.p, s.test));
    format!(
        "{}: B/A {:.3}{interval}{test}; {} (runs: A {}, B {})",
        cell.name(),
        cell.ratio,
        cell.verdict.words(),
        cell.a.n,
        cell.b.n
    )
}
