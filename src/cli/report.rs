//! `sharebench report RESULTS.json [MORE.json …] -o report.html [--png DIR]`.

use super::Failure;
use crate::report::html::{results, Page};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Result documents (--json of run, matrix or bigdir), one section each
    #[arg(required = true, value_name = "RESULTS.json")]
    pub results: Vec<PathBuf>,

    /// The HTML file to write: self-contained, no script, nothing fetched
    #[arg(short, long, value_name = "FILE", default_value = "report.html")]
    pub output: PathBuf,

    /// Also write every chart as a PNG file into this directory
    #[arg(long, value_name = "DIR")]
    pub png: Option<PathBuf>,
}

pub fn run(args: ReportArgs) -> Result<(), Failure> {
    let mut documents = Vec::with_capacity(args.results.len());
    for path in &args.results {
        let (document, _) = super::read_results(path)?;
        documents.push((file_name(path), document));
    }
    let page = results::page(&documents);
    write_page(&page, &args.output, args.png.as_deref())
}

/// A file's name without its directories, to name a document on a page.
pub(super) fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Writes the page, and its charts as PNG files when asked; says where on stdout.
pub(super) fn write_page(page: &Page, output: &Path, png: Option<&Path>) -> Result<(), Failure> {
    std::fs::write(output, &page.html)
        .map_err(|e| Failure::failed(format!("cannot write {}: {e}.", output.display())))?;
    println!(
        "{}: {} chart(s), {} KiB",
        output.display(),
        page.charts.len(),
        page.html.len().div_ceil(1024)
    );
    if let Some(dir) = png {
        let written = crate::report::png::write(&page.charts, dir).map_err(Failure::failed)?;
        println!("{}: {} PNG file(s)", dir.display(), written.len());
    }
    Ok(())
}
