//! Charts as PNG files (`--png DIR`), rasterised from the very SVG the page shows, at twice
//! its size so text stays sharp on slides and in tickets. Text needs the system's fonts; a
//! machine without any gets charts without words, and is told so.

use super::svg::Chart;
use resvg::{tiny_skia, usvg};
use std::path::{Path, PathBuf};

/// Pixels per SVG unit.
const SCALE: f32 = 2.0;

/// Writes `<dir>/<chart id>.png` for every chart; the files written, or the first failure as
/// one sentence. `dir` is made when missing.
pub fn write(charts: &[Chart], dir: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot make the directory {}: {e}.", dir.display()))?;
    let mut options = usvg::Options::default();
    options.fontdb_mut().load_system_fonts();
    if options.fontdb.is_empty() {
        eprintln!("sharebench: no system fonts found; the PNG charts carry no text");
    }
    let mut written = Vec::with_capacity(charts.len());
    for chart in charts {
        let path = dir.join(format!("{}.png", chart.id));
        let pixmap = raster(&chart.svg, &options)
            .map_err(|e| format!("cannot draw the chart {}: {e}.", chart.id))?;
        pixmap
            .save_png(&path)
            .map_err(|e| format!("cannot write {}: {e}.", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

fn raster(svg: &str, options: &usvg::Options) -> Result<tiny_skia::Pixmap, String> {
    let tree = usvg::Tree::from_str(svg, options).map_err(|e| e.to_string())?;
    let size = tree.size();
    let width = (size.width() * SCALE).ceil() as u32;
    let height = (size.height() * SCALE).ceil() as u32;
    let mut pixmap =
        tiny_skia::Pixmap::new(width, height).ok_or_else(|| "the chart has no area".to_string())?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(SCALE, SCALE),
        &mut pixmap.as_mut(),
    );
    Ok(pixmap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::svg::Canvas;

    /// A canvas whose lower half is red.
    fn canvas_svg() -> String {
        let mut canvas = Canvas::new(100.0, 60.0, "");
        canvas.rect(0.0, 30.0, 100.0, 30.0, "#ff0000", None);
        canvas.finish()
    }

    #[test]
    fn a_chart_becomes_a_png_of_twice_its_size_with_its_colours() {
        let chart = Chart {
            id: "red".into(),
            caption: String::new(),
            svg: canvas_svg(),
        };
        let dir = tempfile::tempdir().unwrap();
        let written = write(&[chart], &dir.path().join("charts")).unwrap();
        assert_eq!(written, [dir.path().join("charts/red.png")]);
        let bytes = std::fs::read(&written[0]).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        // width and height from the IHDR chunk
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!((width, height), (200, 120));
        // the lower half red, the upper half white, at twice the scale
        let pixmap = raster(&canvas_svg(), &usvg::Options::default()).unwrap();
        let at = |x, y| pixmap.pixel(x, y).unwrap();
        assert_eq!((at(100, 100).red(), at(100, 100).green()), (255, 0));
        assert_eq!((at(100, 50).red(), at(100, 50).green()), (255, 255));
    }

    #[test]
    fn broken_svg_is_refused_with_the_charts_name() {
        let chart = Chart {
            id: "broken".into(),
            caption: String::new(),
            svg: "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect".into(),
        };
        let dir = tempfile::tempdir().unwrap();
        let error = write(&[chart], dir.path()).unwrap_err();
        assert!(
            error.starts_with("cannot draw the chart broken:"),
            "{error}"
        );
    }
}
