//! `sharebench report` and `compare -o` as a person sees them: the pages rendered by headless
//! Chromium (Debian's `chromium`, in a network namespace of its own so nothing can be fetched),
//! their charts counted in the rendered DOM, console errors looked for, screenshots kept in
//! `target/tmp/report-artifacts/`. A full iozone matrix (9 tests × 14 file sizes × 13 record
//! sizes × 5 runs) must stay under 2 MB; the lab's signing off against required must give
//! verdicts that match the runs.

mod common;

use common::*;
use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const TESTS: [&str; 9] = [
    "write",
    "rewrite",
    "read",
    "reread",
    "random-read",
    "random-write",
    "backward-read",
    "record-rewrite",
    "stride-read",
];
const KIB: u64 = 1024;

/// Where screenshots and the generated full matrix are kept after the tests.
fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-artifacts");
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A deterministic stream of numbers in [0, 1) for run-to-run noise.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn run(n: usize, warmup: bool, bytes: u64, rate: f64, record: u64) -> Value {
    let seconds = bytes as f64 / rate;
    let ops = bytes.div_ceil(record);
    let per_request = seconds / ops as f64 * 1e6;
    json!({
        "n": n, "warmup": warmup, "bytes": bytes, "seconds": seconds, "ops": ops,
        "bytes_per_s": rate, "ops_per_s": ops as f64 / seconds,
        "latency_us": {"mean": per_request, "p50": per_request * 0.9, "p90": per_request * 1.4,
                       "p99": per_request * 3.0, "p99_9": per_request * 8.0, "max": per_request * 20.0},
        "outlier": false, "start_skew_s": 0.0, "client_cpu_s": seconds * 0.3, "workers": []
    })
}

/// A full matrix result as `sharebench matrix` writes it: every cell with a warm-up and five
/// counted runs, its summary, a client timeline sampled every second over the whole
/// measurement and the window of every run. The summaries are what the tool computes; the
/// rates follow the iozone picture (slow small records, a cache cliff at large files).
fn full_matrix() -> Value {
    let files: Vec<u64> = (0..14).map(|i| (64 * KIB) << i).collect();
    let records: Vec<u64> = (0..13).map(|i| (4 * KIB) << i).collect();
    let mut noise = Noise(7);
    let (mut tests, mut windows) = (Vec::new(), Vec::new());
    let mut clock = 0.0;
    for (t, test) in TESTS.iter().enumerate() {
        for &file in &files {
            for &record in &records {
                let base = 4e9 * (record as f64 / 1e6).powf(0.3).min(1.0)
                    / if file > 256 << 20 { 3.0 } else { 1.0 }
                    * (1.0 + t as f64 / 10.0);
                let mut runs = Vec::new();
                let mut rates = Vec::new();
                for n in 0..6 {
                    let rate = base * (0.9 + 0.2 * noise.next());
                    let record_run = run(n.max(1), n == 0, file, rate, record);
                    let seconds = record_run["seconds"].as_f64().unwrap();
                    windows.push(json!({
                        "test": test, "file_size": file, "record_size": record, "workers": 1,
                        "direct": false, "n": n.max(1), "warmup": n == 0,
                        "from_s": clock, "to_s": clock + seconds
                    }));
                    clock += seconds + 0.05;
                    // warm-ups have a window on the timeline but no place among the runs
                    if n > 0 {
                        rates.push(rate);
                        runs.push(record_run);
                    }
                }
                let mean = rates.iter().sum::<f64>() / 5.0;
                let sd = (rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / 4.0).sqrt();
                let half = 2.776 * sd / 5f64.sqrt();
                let mut sorted = rates.clone();
                sorted.sort_by(f64::total_cmp);
                tests.push(json!({
                    "test": test, "file_size": file, "record_size": record, "workers": 1,
                    "direct": false, "cache_test": false, "runs": runs,
                    "summary": {"unit": "bytes/s", "n": 5, "mean": mean, "median": sorted[2],
                                "stddev": sd, "cv": sd / mean, "ci95": [mean - half, mean + half],
                                "min": sorted[0], "max": sorted[4], "valid_mean": mean,
                                "outliers": []}
                }));
            }
        }
    }
    let samples: Vec<Value> = (1..=clock.ceil() as usize)
        .map(|t| {
            let busy = 0.3 + 0.6 * noise.next();
            json!({
                "t": t as f64,
                "cpu": [{"user": busy * 0.4, "system": busy * 0.6, "iowait": 0.0, "softirq": 0.0, "idle": 1.0 - busy},
                        {"user": 0.1, "system": 0.1, "iowait": 0.1, "softirq": 0.0, "idle": 0.7}],
                "nic": {"eth0": {"rx_bytes_per_s": 1e5, "tx_bytes_per_s": 2e5, "rx_packets_per_s": 10.0, "tx_packets_per_s": 20.0}},
                "disk": {"vda": {"busy": busy, "read_bytes_per_s": busy * 4e8, "write_bytes_per_s": busy * 2e8}},
                "page_cache_bytes": 1u64 << 30, "dirty_bytes": 0, "processes": {}
            })
        })
        .collect();
    json!({
        "schema": "sharebench/1", "run_id": "f011a7e1", "status": "complete",
        "started": "2026-11-21T10:00:00Z", "finished": "2026-11-21T12:00:00Z",
        "tool": {"name": "sharebench", "version": "0.1.0", "git_rev": "test"},
        "host": {"hostname": "bench", "cpus": 2, "ram": 25_000_000_000u64, "kernel": "6.1", "nics": []},
        "target": {"url": "/srv/share", "protocol": "local", "parameters": {"filesystem": "ext4"}},
        "config": {"command": "matrix", "warmup": 1, "runs": 5, "link_speed_bits": null},
        "tests": tests, "baselines": [],
        "metrics": {"client": {"interval_s": 1.0, "samples": samples}, "runs": windows},
        "warnings": [{"kind": "cache", "test": "reread", "message": "reread: the page cache answered"}],
        "verdict": {"test": "write", "layer": "client-cpu", "evidence": "write at 3000 MB/s: sharebench used 95 % of a core",
                    "table": [{"layer": "server-disk", "note": "no server metrics (no serve agent)"},
                              {"layer": "client-cpu", "utilisation": 0.95, "note": "client cores 95 % busy"}]}
    })
}

/// What Chromium made of a page: its DOM after parsing, and the console messages the page
/// itself caused.
struct Rendered {
    dom: String,
    console: Vec<String>,
}

/// Renders `page` in headless Chromium without any network (a network namespace of its own,
/// hence root), keeping a screenshot at `shot`; checks the page logged no error and returns its
/// DOM. Without root, the page's own text stands in and a note says the rendering was skipped.
fn rendered(page: &Path, shot: &Path) -> String {
    if !ready() {
        eprintln!("skipped: rendering in Chromium");
        return fs::read_to_string(page).unwrap();
    }
    let rendered = chromium(page, shot);
    assert_eq!(rendered.console, Vec::<String>::new(), "no page errors");
    rendered.dom
}

fn chromium(page: &Path, shot: &Path) -> Rendered {
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}", page.display());
    // headless Chromium now and then never exits after its work (seen once in many runs on
    // this VM): such a run is killed after a minute and tried again, up to three times
    let browse = |extra: &[&str]| {
        for _ in 0..3 {
            let output = Command::new("timeout")
                .args([
                    "-k",
                    "5",
                    "60",
                    "unshare",
                    "--net",
                    "chromium",
                    "--headless",
                ])
                .args([
                    "--no-sandbox",
                    "--disable-gpu",
                    "--hide-scrollbars",
                    "--no-first-run",
                ])
                .args([
                    "--disable-background-networking",
                    "--disable-component-update",
                ])
                .arg(format!("--user-data-dir={}", profile.path().display()))
                .args([
                    "--enable-logging=stderr",
                    "--v=0",
                    "--window-size=1100,2400",
                ])
                .args(extra)
                .arg(&url)
                .output()
                .expect("chromium runs (Debian's chromium package; scripts/test installs it)");
            if matches!(output.status.code(), Some(124) | Some(137)) {
                continue;
            }
            assert!(
                output.status.success(),
                "chromium: {}",
                text(&output.stderr)
            );
            return output;
        }
        panic!("chromium did not finish within a minute, three times over");
    };
    browse(&[&format!("--screenshot={}", shot.display())]);
    let png = fs::read(shot).expect("chromium wrote the screenshot");
    assert_eq!(&png[1..4], b"PNG");
    let dumped = browse(&["--dump-dom"]);
    // the console lines of our page (Chromium's own pages log too, from chrome:// sources)
    let console = text(&dumped.stderr)
        .lines()
        .filter(|l| l.contains("CONSOLE") && l.contains("file://"))
        .map(String::from)
        .collect();
    Rendered {
        dom: text(&dumped.stdout),
        console,
    }
}

/// The charts of a rendered page: every figure's id, each checked to hold an SVG with axes
/// text and a caption.
fn charts(dom: &str) -> Vec<String> {
    dom.split("<figure class=\"chart\" id=\"")
        .skip(1)
        .map(|figure| {
            let id = figure.split('"').next().unwrap().to_string();
            let body = figure.split("</figure>").next().unwrap();
            assert!(
                body.contains("<svg") && body.contains("</svg>"),
                "{id}: an SVG"
            );
            assert!(body.matches("<text").count() >= 3, "{id}: labelled");
            let caption = body
                .split("<figcaption>")
                .nth(1)
                .and_then(|c| c.split("</figcaption>").next())
                .unwrap_or_else(|| panic!("{id}: a caption"));
            assert!(caption.len() > 40, "{id}: the caption says what it shows");
            id
        })
        .collect()
}

/// Nothing the page refers to lies outside it: no src, no stylesheet link, no script.
fn self_contained(html: &str) {
    for outside in ["<script", "<link", "src=", "url(", "@import", "href=\"http"] {
        assert!(!html.contains(outside), "{outside} in the page");
    }
}

#[test]
fn a_full_matrix_report_stays_small_and_draws_every_chart() {
    let dir = tempfile::tempdir().unwrap();
    let artifacts = artifacts();
    let matrix = full_matrix();
    assert_eq!(
        matrix["tests"].as_array().unwrap().len(),
        9 * 14 * 13,
        "every cell of the grid, the issue's worst case"
    );
    let json = artifacts.join("full-matrix.json");
    fs::write(&json, matrix.to_string()).unwrap();
    let html = dir.path().join("report.html");
    let png = dir.path().join("png");
    let out = sharebench(&[
        "report",
        json.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = fs::read_to_string(&html).unwrap();
    assert!(page.len() < 2_000_000, "{} bytes", page.len());
    self_contained(&page);

    let dom = rendered(&html, &artifacts.join("report-full-matrix.png"));
    let ids = charts(&dom);
    for kind in ["throughput", "heatmap", "runs", "latency"] {
        for test in TESTS {
            let id = format!("r1-{kind}-{test}");
            assert!(ids.contains(&id), "{id} in {ids:?}");
        }
    }
    for id in [
        "r1-layers",
        "r1-client-cpu",
        "r1-client-nic",
        "r1-client-disk",
    ] {
        assert!(ids.contains(&id.to_string()), "{id} in {ids:?}");
    }
    assert_eq!(ids.len(), 9 * 4 + 4);
    // the verdict and the warnings come before the first chart and the forms
    let at = |needle: &str| dom.find(needle).unwrap_or_else(|| panic!("{needle}"));
    assert!(at("Bottleneck: client-cpu") < at("<figure"));
    assert!(at("the page cache answered") < at("Measurement forms"));
    // every chart as a PNG too, named by its id
    let mut pngs: Vec<String> = fs::read_dir(&png)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    pngs.sort();
    let mut expected: Vec<String> = ids.iter().map(|id| format!("{id}.png")).collect();
    expected.sort();
    assert_eq!(pngs, expected);
}

/// The document with each run of every test scaled by `factor(record size)`.
fn scaled(document: &Value, factor: impl Fn(u64) -> f64) -> Value {
    let mut b = document.clone();
    for test in b["tests"].as_array_mut().unwrap() {
        let f = factor(test["record_size"].as_u64().unwrap());
        for run in test["runs"].as_array_mut().unwrap() {
            let rate = run["bytes_per_s"].as_f64().unwrap();
            run["bytes_per_s"] = Value::from(rate * f);
        }
    }
    b
}

/// `sharebench compare A B -o compare.html --json …` in `dir`: the page, checked to be
/// self-contained, and the comparison document.
fn compared(dir: &Path, a: &Path, b: &Path) -> (PathBuf, Value) {
    let (html, json) = (dir.join("compare.html"), dir.join("compare.json"));
    let out = sharebench(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    self_contained(&fs::read_to_string(&html).unwrap());
    let comparison = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    (html, comparison)
}

#[test]
fn the_compare_page_colours_each_cell_by_its_ratio_and_strikes_the_insignificant() {
    let dir = tempfile::tempdir().unwrap();
    let a = full_matrix();
    // B twice as fast at small records, half as fast at large ones, the same in between
    let b = scaled(&a, |record| match record {
        r if r <= 16 * KIB => 2.0,
        r if r >= 1024 * KIB => 0.5,
        _ => 1.0,
    });
    let (pa, pb) = (
        dir.path().join("before.json"),
        dir.path().join("after.json"),
    );
    fs::write(&pa, a.to_string()).unwrap();
    fs::write(&pb, b.to_string()).unwrap();
    let (html, comparison) = compared(dir.path(), &pa, &pb);
    let cells = comparison["cells"].as_array().unwrap();
    let dom = rendered(&html, &artifacts().join("compare-full-matrix.png"));
    let page = fs::read_to_string(&html).unwrap();
    let ids = charts(&dom);
    let expected: Vec<String> = TESTS.iter().map(|t| format!("compare-{t}")).collect();
    assert_eq!(ids, expected);
    // each cell's hover text carries its verdict; blue cells are faster, red slower, and
    // exactly the cells without a significant difference are struck through
    let read = dom
        .split("id=\"compare-read\"")
        .nth(1)
        .unwrap()
        .split("</figure>")
        .next()
        .unwrap();
    let faster = read.matches("; B faster (runs").count();
    let slower = read.matches("; B slower (runs").count();
    let even = read.matches("; no significant difference (runs").count();
    let of = |verdict: &str, record: fn(u64) -> bool| {
        cells
            .iter()
            .filter(|c| c["test"] == "read" && record(c["record_size"].as_u64().unwrap()))
            .filter(|c| c["verdict"] == verdict)
            .count()
    };
    assert_eq!(faster, of("faster", |r| r <= 16 * KIB));
    assert_eq!(slower, of("slower", |r| r >= 1024 * KIB));
    assert!(faster > 20 && slower > 20, "{faster} {slower}");
    let diagonals = read
        .split("class=\"struck\" d=\"")
        .nth(1)
        .map_or(0, |d| d.split('"').next().unwrap().matches('M').count());
    assert_eq!(diagonals, even, "struck cells are the insignificant ones");
    assert!(
        page.contains("sweet spot"),
        "the summary names the sweet spot"
    );
}

/// The lab's Samba with signing off, then required: the report of both and their comparison,
/// with a ratio table whose verdicts follow from the runs.
#[test]
fn signing_off_against_required_on_the_lab_reports_and_compares() {
    let dir = tempfile::tempdir().unwrap();
    let mut documents = Vec::new();
    for signing in ["disabled", "required"] {
        let Some((_one, lab, env)) = lab_up(&["--smb-signing", signing]) else {
            return;
        };
        let json = dir.path().join(format!("signing-{signing}.json"));
        let out = sharebench_in_lab(
            &lab,
            &[
                "run",
                &env["SHAREBENCH_SMB_URL"],
                "--tests",
                "write,read",
                "--file-size",
                "32M",
                "--runs",
                "6",
                "--json",
                json.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        documents.push(json);
    }
    let (a, b) = (
        documents[0].to_str().unwrap(),
        documents[1].to_str().unwrap(),
    );
    let report = dir.path().join("report.html");
    let out = sharebench(&["report", a, b, "-o", report.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = fs::read_to_string(&report).unwrap();
    self_contained(&page);
    assert!(page.contains("signing off") && page.contains("signing AES"));
    let ids = charts(&rendered(&report, &artifacts().join("report-signing.png")));
    for id in [
        "r1-layers",
        "r1-runs-data",
        "r1-latency-data",
        "r1-client-cpu",
        "r2-runs-data",
    ] {
        assert!(ids.contains(&id.to_string()), "{id} in {ids:?}");
    }

    let (compare, comparison) = compared(dir.path(), &documents[0], &documents[1]);
    let alpha = comparison["alpha"].as_f64().unwrap();
    let dom = rendered(&compare, &artifacts().join("compare-signing.png"));
    assert_eq!(charts(&dom), ["compare-all"]);
    for cell in comparison["cells"].as_array().unwrap() {
        // the verdict follows from the runs: significant and which way, or not
        let p = cell["significance"]["p"].as_f64().unwrap();
        let ratio = cell["ratio"].as_f64().unwrap();
        let expected = match (p < alpha, ratio > 1.0) {
            (false, _) => "no-significant-difference",
            (true, true) => "faster",
            (true, false) => "slower",
        };
        assert_eq!(cell["verdict"], expected, "{cell}");
        // and the page's ratio table says the same in its row
        let words = match expected {
            "faster" => "B faster",
            "slower" => "B slower",
            _ => "no significant difference",
        };
        let row = format!(
            "<tr><td>{}</td><td>32 MiB</td><td>1 MiB</td><td>1</td>",
            cell["test"].as_str().unwrap()
        );
        let in_table = dom.split(&row).nth(1).unwrap_or_else(|| panic!("{row}"));
        let row_end = in_table.split("</tr>").next().unwrap();
        assert!(row_end.contains(&format!("<td>{words}</td>")), "{row_end}");
        assert!(
            row_end.contains(&format!("<td>{ratio:.3}</td>")),
            "{row_end}"
        );
    }
}

#[test]
fn bad_input_is_refused_in_one_sentence_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    let truncated = dir.path().join("truncated.json");
    let whole = full_matrix().to_string();
    fs::write(&truncated, &whole[..whole.len() / 2]).unwrap();
    let missing = dir.path().join("missing.json");
    for (input, words) in [
        (&truncated, "is not a sharebench result document"),
        (&missing, "cannot read"),
    ] {
        let out = sharebench(&[
            "report",
            input.to_str().unwrap(),
            "-o",
            html.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(words), "{stderr}");
        assert!(!html.exists(), "no page from bad input");
    }
    let out = sharebench(&["report"]);
    assert_eq!(out.status.code(), Some(2), "a result document is required");
    // a page that cannot be written is a failure, said in one sentence
    let good = dir.path().join("good.json");
    fs::write(&good, &whole).unwrap();
    let nowhere = dir.path().join("no/such/dir/report.html");
    let out = sharebench(&[
        "report",
        good.to_str().unwrap(),
        "-o",
        nowhere.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with("sharebench: cannot write"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_bigdir_report_shows_rates_by_directory_size() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    fs::create_dir_all(&work).unwrap();
    let json = dir.path().join("bigdir.json");
    let out = sharebench(&[
        "bigdir",
        work.to_str().unwrap(),
        "--count",
        "200",
        "--step",
        "100",
        "--runs",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = dir.path().join("bigdir.html");
    let out = sharebench(&[
        "report",
        json.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = fs::read_to_string(&html).unwrap();
    assert_eq!(
        page.matches("bigdir · metadata rates by directory size")
            .count(),
        1
    );
    let ids = charts(&page);
    for test in ["create", "stat", "list", "remove"] {
        assert!(ids.contains(&format!("r1-runs-{test}")), "{ids:?}");
    }
    assert!(!ids
        .iter()
        .any(|id| id.contains("throughput") || id.contains("heatmap")));
    assert!(page.contains(">entries in the directory<") && page.contains(">200 entries<"));
}
