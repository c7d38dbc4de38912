//! `sharebench report`: one section per result document, in the order an admin reads it — the
//! verdict and warnings, the bottleneck layers, the measurement forms, then the pictures:
//! throughput against record size, the file × record heatmap, every run, latency percentiles
//! and the client's and server's metrics with the runs shaded.

use super::{Builder, Page};
use crate::analysis::verdict;
use crate::monitor::sampler::{RunWindow, Sample, Timeline};
use crate::report::svg::axis::{self, Axis};
use crate::report::svg::bars::{Bar, BarChart};
use crate::report::svg::dots::{DotChart, Group};
use crate::report::svg::heatmap::{HeatCell, Heatmap, Ramp};
use crate::report::svg::line::{thin, Band, LineChart, Series};
use crate::report::svg::{colour, Chart};
use crate::report::{advice, bigdir, form, table::Table};
use crate::result::{Document, RunRecord, TestResult};
use crate::units::{format_size, format_size_short, mb_per_s};
use crate::workload::TestKind;
use std::collections::BTreeSet;

/// A page for `documents`, each named by the file it came from.
pub fn page(documents: &[(String, Document)]) -> Page {
    let mut page = Builder::new();
    for (i, (name, document)) in documents.iter().enumerate() {
        section(&mut page, &format!("r{}", i + 1), name, document);
    }
    let lead = match documents {
        [(name, _)] => format!("The results in {name}."),
        _ => format!("{} result documents, one section each.", documents.len()),
    };
    page.finish("sharebench report", &lead)
}

/// More lines than this in one chart become unreadable: the latency chart then keeps the
/// largest file's cells.
const MOST_LINES: usize = 12;
/// Points per timeline line: about one per pixel of the plot.
const TIMELINE_POINTS: usize = 700;
/// More forms than this are folded away, per test.
const OPEN_FORMS: usize = 12;

fn section(page: &mut Builder, id: &str, name: &str, doc: &Document) {
    page.section(
        id,
        &format!("{name}: {} {}", doc.target.protocol, doc.target.url),
    );
    page.facts(&facts(doc));
    verdict_and_warnings(page, doc);
    if let Some(chart) = layers(id, doc) {
        page.chart(chart);
    }
    if !doc.advice.is_empty() {
        page.heading("Advice on the server's configuration");
        page.raw(&format!(
            "<pre>{}</pre>",
            crate::report::svg::escape(&advice::summary(&doc.advice))
        ));
    }
    let tests = crate::report::by_test(&doc.tests, |r| r.key.test);
    forms(page, doc, &tests);
    let groups = chart_groups(&tests);
    let charts = [
        throughput(id, &tests),
        heatmaps(id, &tests),
        runs(id, &groups),
        latency(id, &groups),
        timelines(id, doc),
    ];
    let titles = [
        "Throughput against record size",
        "File size × record size",
        "Every run",
        "Latency percentiles",
        "Client and server metrics",
    ];
    for (title, charts) in titles.into_iter().zip(charts) {
        if !charts.is_empty() {
            page.heading(title);
            for chart in charts {
                page.chart(chart);
            }
        }
    }
}

fn facts(doc: &Document) -> Vec<(&'static str, String)> {
    let parameters: Vec<String> = doc
        .target
        .parameters
        .iter()
        .filter(|(key, _)| key.as_str() != "banner")
        .map(|(key, value)| format!("{key} {value}"))
        .collect();
    let config = &doc.config;
    let mut facts = vec![
        (
            "target",
            format!("{} ({})", doc.target.url, doc.target.protocol),
        ),
        ("negotiated", parameters.join(", ")),
        (
            "host",
            format!(
                "{}, {} CPUs, {} RAM, kernel {}",
                doc.host.hostname,
                doc.host.cpus,
                format_size(doc.host.ram),
                doc.host.kernel
            ),
        ),
        (
            "run",
            format!("{} · {} to {}", doc.run_id, doc.started, doc.finished),
        ),
        (
            "method",
            format!(
                "{} warm-up + {} counted run(s) per test",
                config["warmup"].as_u64().unwrap_or(0),
                config["runs"].as_u64().unwrap_or(0)
            ),
        ),
        ("status", doc.status.clone()),
    ];
    if let Some(error) = &doc.error {
        facts.push(("ended by", error.clone()));
    }
    facts
}

fn verdict_and_warnings(page: &mut Builder, doc: &Document) {
    use crate::report::svg::escape;
    match &doc.verdict {
        Some(verdict) => page.raw(&format!(
            "<div class=\"verdict\"><div class=\"layer\">Bottleneck: {}</div><p>{}</p></div>",
            escape(verdict["layer"].as_str().unwrap_or("unknown")),
            escape(verdict["evidence"].as_str().unwrap_or(""))
        )),
        None => page.raw(
            "<div class=\"verdict\"><div class=\"layer\">No verdict</div>\
             <p>No data test finished, so there was nothing to judge.</p></div>",
        ),
    }
    if !doc.warnings.is_empty() {
        let messages: Vec<String> = doc.warnings.iter().map(|w| w.message.clone()).collect();
        page.list("warnings", &messages);
    }
}

/// Each layer's ceiling against the judged test's median: the verdict as a picture.
fn layers(id: &str, doc: &Document) -> Option<Chart> {
    let verdict = doc.verdict.as_ref()?;
    let table = verdict["table"].as_array()?;
    let judged = verdict::judged_test(&doc.tests)?;
    let rate = mb_per_s(judged.summary.as_ref()?.median);
    let limiting = verdict["layer"].as_str().unwrap_or("");
    let bars: Vec<Bar> = table
        .iter()
        .map(|layer| {
            let name = layer["layer"].as_str().unwrap_or("").to_string();
            let ceiling = layer["ceiling"].as_f64().map(mb_per_s);
            let used = layer["utilisation"].as_f64().map(axis::percent);
            let note = match (ceiling, used) {
                (Some(c), Some(u)) => format!("ceiling {c:.1} MB/s · {u} used"),
                (Some(c), None) => format!("ceiling {c:.1} MB/s"),
                (None, Some(u)) => format!("no ceiling measured · {u} used"),
                (None, None) => "not measured".into(),
            };
            Bar {
                colour: if name == limiting {
                    "#ff7f0e"
                } else {
                    "#9ecae1"
                }
                .into(),
                label: name,
                value: ceiling,
                note,
            }
        })
        .collect();
    let largest = bars.iter().filter_map(|b| b.value).fold(rate, f64::max);
    let test = judged.key.test;
    let chart = BarChart {
        title: format!("Bottleneck layers for {test}"),
        x: Axis::from_zero("MB/s (10^6 bytes/s)", largest * 1.05, axis::number),
        bars,
        marker: Some((rate, format!("{test} reached {rate:.1} MB/s (median)"))),
    };
    Some(Chart {
        id: format!("{id}-layers"),
        caption: format!(
            "What each layer can carry, as measured by the baselines (raw TCP, the server's \
             disk, FTP), against the median rate {test} reached (dashed line). The verdict's \
             layer, {limiting}, is orange; a layer without a measured ceiling shows only how \
             busy it was."
        ),
        svg: chart.svg(),
    })
}

fn forms(page: &mut Builder, doc: &Document, tests: &[(TestKind, Vec<&TestResult>)]) {
    let link = doc.config["link_speed_bits"].as_f64();
    page.heading("Measurement forms");
    let crowded = doc.tests.len() > OPEN_FORMS;
    // the metadata tests share one table of rates by directory size
    if doc.tests.iter().any(|t| t.key.test.is_metadata()) {
        page.table(&bigdir::table(&doc.tests));
    }
    for (test, cells) in tests.iter().filter(|(test, _)| !test.is_metadata()) {
        if crowded {
            // a form per cell would weigh megabytes for a full matrix: one row per cell
            let summary = format!("{test}: every run of its {} cells", cells.len());
            page.folded(&summary, false, &[form::condensed(cells)]);
        } else {
            for result in cells {
                page.table(&form::form(result, link, form::notes(result, doc)));
            }
        }
    }
    let baselines: Vec<Table> = doc
        .baselines
        .iter()
        .map(|b| {
            let caption = format!("baseline: {}", form::baseline_caption(b));
            form::baseline_form(b, caption, link)
        })
        .collect();
    if !baselines.is_empty() {
        page.folded("Baselines", true, &baselines);
    }
}

/// A rate in the unit charts use: MB/s for data, operations per second for metadata.
fn scale(result: &TestResult) -> f64 {
    if result.key.test.is_metadata() {
        1.0
    } else {
        1e-6
    }
}

fn run_rate(result: &TestResult, run: &RunRecord) -> f64 {
    if result.key.test.is_metadata() {
        run.ops_per_s
    } else {
        mb_per_s(run.bytes_per_s)
    }
}

fn unit_label(metadata: bool) -> &'static str {
    if metadata {
        "operations per second"
    } else {
        "throughput (MB/s = 10^6 bytes/s)"
    }
}

/// A cell's short name: "64M/4K", or "2000 entries".
fn cell_label(result: &TestResult) -> String {
    let key = &result.key;
    let mut label = match key.entries {
        Some(entries) => format!("{entries} entries"),
        None => format!(
            "{}/{}",
            format_size_short(key.file_size),
            format_size_short(key.record_size)
        ),
    };
    if key.workers > 1 {
        label.push_str(&format!(" ×{}", key.workers));
    }
    label
}

fn median(result: &TestResult) -> Option<f64> {
    result.summary.as_ref().map(|s| s.median * scale(result))
}

fn distinct(cells: &[&TestResult], of: fn(&TestResult) -> u64) -> Vec<u64> {
    cells
        .iter()
        .map(|c| of(c))
        .collect::<BTreeSet<u64>>()
        .into_iter()
        .collect()
}

/// One line per file size (and worker count), through the median of each record size.
fn throughput(id: &str, tests: &[(TestKind, Vec<&TestResult>)]) -> Vec<Chart> {
    let mut charts = Vec::new();
    for (test, cells) in tests {
        let records = distinct(cells, |c| c.key.record_size);
        if test.is_metadata() || records.len() < 2 {
            continue;
        }
        // a line per file size and worker count, with its (record size, MB/s) points
        type Line = ((u64, usize), Vec<(f64, f64)>);
        let mut lines: Vec<Line> = Vec::new();
        for cell in cells {
            let Some(rate) = median(cell) else { continue };
            let line = (cell.key.file_size, cell.key.workers);
            let point = (cell.key.record_size as f64, rate);
            match lines.iter_mut().find(|(l, _)| *l == line) {
                Some((_, points)) => points.push(point),
                None => lines.push((line, vec![point])),
            }
        }
        lines.sort_by_key(|(line, _)| *line);
        let n = lines.len();
        let series: Vec<Series> = lines
            .into_iter()
            .enumerate()
            .map(|(i, ((file, workers), mut points))| {
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                let mut name = format!("{} file", format_size_short(file));
                if workers > 1 {
                    name.push_str(&format!(" ×{workers}"));
                }
                Series {
                    name,
                    colour: colour::ordered(i, n),
                    points,
                }
            })
            .collect();
        let largest = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .fold(0.0, f64::max);
        let chart = LineChart {
            title: format!("{test}: throughput against record size"),
            x: Axis::log(
                "record size (log scale: each step doubles)",
                2.0,
                records[0] as f64,
                records[records.len() - 1] as f64,
                axis::size,
            ),
            y: Axis::from_zero(unit_label(false), largest, axis::number),
            series,
            bands: Vec::new(),
            marks: true,
        };
        charts.push(Chart {
            id: format!("{id}-throughput-{}", test.name()),
            caption: format!(
                "Median throughput of the counted runs of {test} at each record size, one line \
                 per file size (darker: smaller files). Where a line drops at small records, \
                 per-request cost rules; where it drops at large files, the cache ran out."
            ),
            svg: chart.svg(),
        });
    }
    charts
}

/// The file × record grid of medians, coloured from slow (dark) to fast (yellow).
fn heatmaps(id: &str, tests: &[(TestKind, Vec<&TestResult>)]) -> Vec<Chart> {
    let mut charts = Vec::new();
    for (test, cells) in tests {
        let files = distinct(cells, |c| c.key.file_size);
        let records = distinct(cells, |c| c.key.record_size);
        if test.is_metadata() || files.len() < 2 || records.len() < 2 {
            continue;
        }
        let workers = cells[0].key.workers;
        let shown: Vec<&&TestResult> = cells.iter().filter(|c| c.key.workers == workers).collect();
        let largest = shown.iter().filter_map(|c| median(c)).fold(0.0, f64::max);
        let largest = if largest > 0.0 { largest } else { 1.0 };
        let heat: Vec<HeatCell> = shown
            .iter()
            .filter_map(|cell| {
                let summary = cell.summary.as_ref()?;
                let rate = mb_per_s(summary.median);
                let colour = colour::sequential(rate / largest);
                Some(HeatCell {
                    row: files.binary_search(&cell.key.file_size).ok()?,
                    column: records.binary_search(&cell.key.record_size).ok()?,
                    text: format!("{rate:.0}"),
                    title: format!(
                        "{} file, {} records: {rate:.1} MB/s median of {} runs, CV {:.1} %",
                        format_size(cell.key.file_size),
                        format_size(cell.key.record_size),
                        summary.n,
                        summary.cv * 100.0
                    ),
                    colour,
                    struck: false,
                })
            })
            .collect();
        let stops = (0..5)
            .rev()
            .map(|k| {
                let share = k as f64 / 4.0;
                (axis::number(largest * share), colour::sequential(share))
            })
            .collect();
        let chart = Heatmap {
            title: format!("{test}: median MB/s by file size and record size"),
            x_label: "record size".into(),
            y_label: "file size".into(),
            columns: records.iter().map(|&r| format_size_short(r)).collect(),
            rows: files.iter().map(|&f| format_size_short(f)).collect(),
            cells: heat,
            ramp: Ramp {
                label: "MB/s".into(),
                stops,
                struck: None,
            },
        };
        let others = if shown.len() < cells.len() {
            format!(" Only the cells with {workers} worker(s) are shown.")
        } else {
            String::new()
        };
        charts.push(Chart {
            id: format!("{id}-heatmap-{}", test.name()),
            caption: format!(
                "The iozone surface of {test} seen from above: each cell is the median of the \
                 counted runs at that file size (rows) and record size (columns), yellow \
                 fastest; hover a cell for its figures.{others}"
            ),
            svg: chart.svg(),
        });
    }
    charts
}

/// The cells one runs chart and one latency chart show.
struct ChartGroup<'a> {
    /// For the chart's id: a test's name, or "data" / "metadata".
    name: String,
    /// For its title and caption: a test, or "every test".
    what: String,
    cells: Vec<&'a TestResult>,
    /// The cells are one test's (labelled by size), not one per test (labelled by test).
    by_cell: bool,
}

impl ChartGroup<'_> {
    fn label(&self, cell: &TestResult) -> String {
        if self.by_cell {
            cell_label(cell)
        } else {
            cell.key.test.to_string()
        }
    }
}

/// A group per test; when every test has a single cell, one group for all tests (one per
/// unit).
fn chart_groups<'a>(tests: &[(TestKind, Vec<&'a TestResult>)]) -> Vec<ChartGroup<'a>> {
    if tests.iter().all(|(_, cells)| cells.len() == 1) {
        [false, true]
            .into_iter()
            .filter_map(|metadata| {
                let cells: Vec<&TestResult> = tests
                    .iter()
                    .filter(|(t, _)| t.is_metadata() == metadata)
                    .map(|(_, cells)| cells[0])
                    .collect();
                (!cells.is_empty()).then(|| ChartGroup {
                    name: if metadata { "metadata" } else { "data" }.into(),
                    what: "every test".into(),
                    cells,
                    by_cell: false,
                })
            })
            .collect()
    } else {
        tests
            .iter()
            .map(|(test, cells)| ChartGroup {
                name: test.name().into(),
                what: test.to_string(),
                cells: cells.clone(),
                by_cell: true,
            })
            .collect()
    }
}

fn runs(id: &str, chart_groups: &[ChartGroup]) -> Vec<Chart> {
    chart_groups
        .iter()
        .map(|group| {
            let (name, what) = (&group.name, &group.what);
            let metadata = group.cells[0].key.test.is_metadata();
            let groups: Vec<Group> = group
                .cells
                .iter()
                .map(|cell| {
                    let runs: Vec<(f64, bool)> = cell
                        .runs
                        .iter()
                        .filter(|r| !r.warmup)
                        .map(|r| (run_rate(cell, r), r.outlier))
                        .collect();
                    let s = cell.summary.as_ref();
                    Group {
                        label: group.label(cell),
                        mean: s.map_or(0.0, |s| s.mean * scale(cell)),
                        ci95: s
                            .and_then(|s| s.ci95)
                            .map(|[lo, hi]| [lo * scale(cell), hi * scale(cell)]),
                        runs,
                    }
                })
                .collect();
            let largest = groups
                .iter()
                .flat_map(|g| g.runs.iter().map(|r| r.0).chain(g.ci95.map(|c| c[1])))
                .fold(0.0, f64::max);
            let chart = DotChart {
                title: format!("Every counted run: {what}"),
                x_label: if !group.by_cell {
                    "test".into()
                } else if metadata {
                    "entries in the directory".into()
                } else {
                    "file size / record size".into()
                },
                y: Axis::from_zero(unit_label(metadata), largest, axis::number),
                groups,
            };
            Chart {
                id: format!("{id}-runs-{name}"),
                caption: format!(
                    "Each counted run of {what} as a dot, the mean as a black bar and its 95 % \
                     confidence interval as a whisker; red rings are runs flagged as outliers \
                     (left out of the valid mean). Warm-up runs are not shown."
                ),
                svg: chart.svg(),
            }
        })
        .collect()
}

const PERCENTILES: [&str; 5] = ["p50", "p90", "p99", "p99.9", "max"];

fn percentile_label(x: f64) -> String {
    PERCENTILES
        .get(x.round() as usize)
        .map_or(String::new(), |p| p.to_string())
}

/// Per test, the median over counted runs of each request-latency percentile, one line per
/// cell.
fn latency(id: &str, chart_groups: &[ChartGroup]) -> Vec<Chart> {
    let mut charts = Vec::new();
    for group in chart_groups {
        let (name, what) = (&group.name, &group.what);
        let mut cells: Vec<&TestResult> = group
            .cells
            .iter()
            .copied()
            .filter(|c| c.runs.iter().any(|r| !r.warmup && r.latency_us.max > 0.0))
            .collect();
        if cells.is_empty() {
            continue;
        }
        let mut kept = String::new();
        if cells.len() > MOST_LINES {
            let largest = cells.iter().map(|c| c.key.file_size).max().unwrap_or(0);
            cells.retain(|c| c.key.file_size == largest);
            cells.truncate(MOST_LINES);
            kept = format!(
                " Only the {} file's cells are drawn{}.",
                format_size(largest),
                if cells.len() == MOST_LINES {
                    format!(", the first {MOST_LINES}")
                } else {
                    String::new()
                }
            );
        }
        let n = cells.len();
        let series: Vec<Series> = cells
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let counted: Vec<&RunRecord> = cell.runs.iter().filter(|r| !r.warmup).collect();
                let pick = |f: fn(&RunRecord) -> f64| {
                    let values: Vec<f64> = counted.iter().map(|r| f(r)).collect();
                    crate::stats::outliers::median(&values)
                };
                let values = [
                    pick(|r| r.latency_us.p50),
                    pick(|r| r.latency_us.p90),
                    pick(|r| r.latency_us.p99),
                    pick(|r| r.latency_us.p99_9),
                    pick(|r| r.latency_us.max),
                ];
                Series {
                    name: group.label(cell),
                    // cells of one test are ordered by size; tests are not ordered
                    colour: if group.by_cell {
                        colour::ordered(i, n)
                    } else {
                        colour::categorical(i).to_string()
                    },
                    points: values
                        .into_iter()
                        .enumerate()
                        .filter(|(_, v)| *v > 0.0)
                        .map(|(x, v)| (x as f64, v))
                        .collect(),
                }
            })
            .collect();
        let values = || series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
        let low = values().fold(f64::INFINITY, f64::min);
        let high = values().fold(0.0, f64::max);
        let chart = LineChart {
            title: format!("Request latency percentiles: {what}"),
            x: Axis::span(
                "percentile (each step one more nine)",
                0.0,
                4.0,
                percentile_label,
            )
            .every(1.0),
            y: Axis::log("latency (µs, log scale)", 10.0, low, high, axis::number),
            series,
            bands: Vec::new(),
            marks: true,
        };
        charts.push(Chart {
            id: format!("{id}-latency-{name}"),
            caption: format!(
                "How long single requests of {what} took: the median over the counted runs of \
                 each run's 50th, 90th, 99th and 99.9th percentile and its slowest request, \
                 microseconds on a log scale.{kept}"
            ),
            svg: chart.svg(),
        });
    }
    charts
}

/// CPU per core, NICs and disks over the whole measurement, for the client and (with a serve
/// agent) the server, runs shaded.
fn timelines(id: &str, doc: &Document) -> Vec<Chart> {
    let windows: Vec<RunWindow> = doc
        .metrics
        .get("runs")
        .and_then(|w| serde_json::from_value(w.clone()).ok())
        .unwrap_or_default();
    let bands: Vec<Band> = windows
        .iter()
        .map(|w| Band {
            from: w.from_s,
            to: w.to_s,
            warmup: w.warmup,
        })
        .collect();
    let mut charts = Vec::new();
    for host in ["client", "server"] {
        let Some(timeline) = doc
            .metrics
            .get(host)
            .and_then(|t| serde_json::from_value::<Timeline>(t.clone()).ok())
        else {
            continue;
        };
        if timeline.samples.is_empty() {
            continue;
        }
        let end = timeline
            .samples
            .iter()
            .map(|s| s.t)
            .chain(windows.iter().map(|w| w.to_s))
            .fold(0.0, f64::max);

        let x = Axis::span("seconds since measuring began", 0.0, end, axis::number);
        let every = format!(
            "sampled every {} s{}",
            axis::number(timeline.interval_s),
            if timeline.samples.len() > TIMELINE_POINTS {
                ", neighbours averaged to fit the width"
            } else {
                ""
            }
        );
        let shading = "counted runs shaded blue, warm-ups grey";
        let line = |title: String, y: Axis, series: Vec<Series>| LineChart {
            title,
            x: x.clone(),
            y,
            series,
            bands: bands.clone(),
            marks: false,
        };
        // CPU per core
        let cores = timeline
            .samples
            .iter()
            .map(|s| s.cpu.len())
            .max()
            .unwrap_or(0);
        let series: Vec<Series> = (0..cores)
            .map(|core| Series {
                name: format!("cpu{core}"),
                colour: colour::categorical(core).into(),
                points: steps(&timeline, |s| Some(s.cpu.get(core)?.busy() * 100.0)),
            })
            .collect();
        charts.push(Chart {
            id: format!("{id}-{host}-cpu"),
            caption: format!(
                "The {host}'s CPU: the share of each core that was busy (user, system, \
                 interrupts; not idle or waiting on a disk), {every}; {shading}."
            ),
            svg: line(
                format!("{host}: CPU per core"),
                Axis::span("busy (% of one core)", 0.0, 100.0, axis::number),
                series,
            )
            .svg(),
        });
        // NICs and disks: the busiest few, in MB/s each way
        let devices: [Device; 2] = [
            (
                "nic",
                "network interfaces",
                "network interfaces with the most traffic: bytes received (rx) and sent (tx)",
                |s, name| {
                    let r = s.nic.get(name)?;
                    Some([("rx", r.rx_bytes_per_s), ("tx", r.tx_bytes_per_s)])
                },
                |s| s.nic.keys().cloned().collect(),
            ),
            (
                "disk",
                "disks",
                "busiest disks: bytes read and written (a read test whose disk stays flat was \
                 served from memory)",
                |s, name| {
                    let r = s.disk.get(name)?;
                    Some([("read", r.read_bytes_per_s), ("write", r.write_bytes_per_s)])
                },
                |s| s.disk.keys().cloned().collect(),
            ),
        ];
        for (kind, title, what, pair, names) in devices {
            let series = two_way(&timeline, pair, names);
            if series.is_empty() {
                continue;
            }
            let largest = peak(&series);
            charts.push(Chart {
                id: format!("{id}-{host}-{kind}"),
                caption: format!("The {host}'s {what}, MB/s, {every}; {shading}."),
                svg: line(
                    format!("{host}: {title}"),
                    Axis::from_zero("MB/s (10^6 bytes/s)", largest, axis::number),
                    series,
                )
                .svg(),
            });
        }
    }
    charts
}

/// A kind of device on a timeline: its chart id and title, what its caption says, its two
/// rates (in and out, read and write) by name, and the names in a sample.
type Device = (
    &'static str,
    &'static str,
    &'static str,
    Rates,
    fn(&Sample) -> Vec<String>,
);

/// A device's two rates in a sample, each with its name, bytes per second.
type Rates = fn(&Sample, &str) -> Option<[(&'static str, f64); 2]>;

/// Two lines, MB/s, for each of the three devices with the most bytes over the timeline;
/// loopback is left out when others carried traffic.
fn two_way(timeline: &Timeline, pair: Rates, names: fn(&Sample) -> Vec<String>) -> Vec<Series> {
    let mut totals: Vec<(String, f64)> = Vec::new();
    for sample in &timeline.samples {
        for name in names(sample) {
            let bytes = pair(sample, &name).map_or(0.0, |[a, b]| a.1 + b.1);
            match totals.iter_mut().find(|(n, _)| *n == name) {
                Some((_, total)) => *total += bytes,
                None => totals.push((name, bytes)),
            }
        }
    }
    totals.sort_by(|a, b| b.1.total_cmp(&a.1));
    if totals.iter().any(|(n, v)| n != "lo" && *v > 0.0) {
        totals.retain(|(n, _)| n != "lo");
    }
    let mut series = Vec::new();
    for (i, (name, _)) in totals.iter().take(3).enumerate() {
        for way in 0..2 {
            let Some(label) = timeline
                .samples
                .iter()
                .find_map(|s| pair(s, name))
                .map(|pairs| pairs[way].0)
            else {
                continue;
            };
            series.push(Series {
                name: format!("{name} {label}"),
                colour: colour::categorical(i * 2 + way).into(),
                points: steps(timeline, |s| Some(mb_per_s(pair(s, name)?[way].1))),
            });
        }
    }
    series
}

/// A sample is the mean over the interval that ends at its time: drawn as a level step over
/// that interval, so a run of one sample still shows, and thinned to the chart's width.
fn steps(timeline: &Timeline, value: impl Fn(&Sample) -> Option<f64>) -> Vec<(f64, f64)> {
    let mut points = Vec::with_capacity(timeline.samples.len() * 2);
    let mut previous = 0.0;
    for sample in &timeline.samples {
        if let Some(v) = value(sample) {
            points.push(((sample.t - timeline.interval_s).max(previous), v));
            points.push((sample.t, v));
        }
        previous = sample.t;
    }
    thin(&points, TIMELINE_POINTS)
}

fn peak(series: &[Series]) -> f64 {
    series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max)
}
