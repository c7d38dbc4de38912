//! `sharebench compare A.json B.json`: two result documents, cell by cell, with significance.

use super::Failure;
use crate::analysis::compare::compare;
use crate::report;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The result document of A (the baseline, "before")
    pub a: PathBuf,

    /// The result document of B ("after"): ratios are B/A
    pub b: PathBuf,

    /// Significance level: a difference with p below it is called significant
    #[arg(long, default_value_t = 0.05, value_parser = alpha)]
    pub alpha: f64,

    /// Write the comparison as Markdown
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Write the comparison as CSV
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Write the comparison as JSON (every cell with its runs, test and verdict)
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write the comparison as a self-contained HTML page with the ratio heatmap
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Also write every chart of the HTML page as a PNG file into this directory
    #[arg(long, value_name = "DIR", requires = "output")]
    pub png: Option<PathBuf>,
}

fn alpha(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!(
            "\"{text}\" is not a significance level between 0 and 1"
        )),
    }
}

pub fn run(args: CompareArgs) -> Result<(), Failure> {
    let (a, _) = super::read_results(&args.a)?;
    let (b, _) = super::read_results(&args.b)?;
    let comparison = compare(&a, &b, args.alpha);
    if comparison.cells.is_empty() {
        return Err(Failure::bad_input(format!(
            "{} and {} have no test in common ({}).",
            args.a.display(),
            args.b.display(),
            comparison.unmatched.join("; ")
        )));
    }
    let table = report::compare::table(&comparison);
    println!("A: {} ({}, {})", args.a.display(), a.target.url, a.started);
    println!(
        "B: {} ({}, {})\n",
        args.b.display(),
        b.target.url,
        b.started
    );
    print!("{}", table.terminal());
    let write = |path: &PathBuf, text: String| {
        std::fs::write(path, text)
            .map_err(|e| Failure::failed(format!("cannot write {}: {e}.", path.display())))
    };
    if let Some(path) = &args.markdown {
        write(path, table.markdown())?;
    }
    if let Some(path) = &args.csv {
        write(path, report::table::csv(std::slice::from_ref(&table)))?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&comparison).expect("a comparison serialises");
        write(path, text + "\n")?;
    }
    if let Some(path) = &args.output {
        let names = (
            super::report::file_name(&args.a),
            super::report::file_name(&args.b),
        );
        let page = report::html::compare::page((&names.0, &a), (&names.1, &b), &comparison);
        super::report::write_page(&page, path, args.png.as_deref())?;
    }
    Ok(())
}
