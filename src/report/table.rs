//! A table once, rendered three ways: aligned text for the terminal, Markdown, CSV.

use std::fmt::Write;

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// One line above the table saying what it holds.
    pub caption: String,
    /// Columns that identify the table in a CSV file where many tables share one sheet.
    pub key: Vec<(String, String)>,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Lines printed under the table.
    pub notes: Vec<String>,
}

impl Table {
    fn widths(&self) -> Vec<usize> {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                if i < widths.len() {
                    widths[i] = widths[i].max(cell.chars().count());
                }
            }
        }
        widths
    }

    /// Aligned columns: the first left-aligned (labels), the others right-aligned (numbers);
    /// a cell past the last header runs free (a remark).
    pub fn terminal(&self) -> String {
        let widths = self.widths();
        let mut out = String::new();
        let line = |cells: &[String], out: &mut String| {
            let mut text = String::new();
            for (i, cell) in cells.iter().enumerate() {
                match widths.get(i) {
                    Some(&w) if i == 0 => write!(text, "{cell:<w$}").unwrap(),
                    Some(&w) => write!(text, "  {cell:>w$}").unwrap(),
                    None => write!(text, "  {cell}").unwrap(),
                }
            }
            out.push_str("  ");
            out.push_str(text.trim_end());
            out.push('\n');
        };
        out.push_str(&self.caption);
        out.push('\n');
        line(&self.headers, &mut out);
        for row in &self.rows {
            line(row, &mut out);
        }
        for note in &self.notes {
            writeln!(out, "  {note}").unwrap();
        }
        out
    }

    pub fn markdown(&self) -> String {
        let escape = |cell: &str| cell.replace('|', "\\|");
        let mut headers = self.headers.clone();
        let extra = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        headers.resize(headers.len().max(extra), String::new());
        let mut out = format!("### {}\n\n", self.caption);
        let row = |cells: &[String]| {
            let mut cells: Vec<String> = cells.iter().map(|c| escape(c)).collect();
            cells.resize(headers.len(), String::new());
            format!("| {} |\n", cells.join(" | "))
        };
        out.push_str(&row(&headers));
        let rule: Vec<&str> = (0..headers.len())
            .map(|i| if i == 0 { ":---" } else { "---:" })
            .collect();
        writeln!(out, "| {} |", rule.join(" | ")).unwrap();
        for cells in &self.rows {
            out.push_str(&row(cells));
        }
        for note in &self.notes {
            write!(out, "\n{}\n", escape(note)).unwrap();
        }
        out
    }
}

impl Table {
    /// An HTML table: the caption above, notes below; the page's style aligns the numbers.
    pub fn html(&self) -> String {
        use super::svg::escape;
        let mut out = format!(
            "<table><caption>{}</caption><thead><tr>",
            escape(&self.caption)
        );
        // a remark past the last header gets an empty header of its own
        let widest = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..self.headers.len().max(widest) {
            let header = self.headers.get(i).map_or("", String::as_str);
            write!(out, "<th>{}</th>", escape(header)).unwrap();
        }
        out.push_str("</tr></thead><tbody>");
        for row in &self.rows {
            out.push_str("<tr>");
            for cell in row {
                write!(out, "<td>{}</td>", escape(cell)).unwrap();
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table>");
        if !self.notes.is_empty() {
            out.push_str("<ul class=\"notes\">");
            for note in &self.notes {
                write!(out, "<li>{}</li>", escape(note)).unwrap();
            }
            out.push_str("</ul>");
        }
        out
    }
}

/// Many tables with the same columns as one CSV sheet, each row led by its table's key columns.
pub fn csv(tables: &[Table]) -> String {
    let Some(first) = tables.first() else {
        return String::new();
    };
    let mut out = String::new();
    let header: Vec<&str> = first
        .key
        .iter()
        .map(|(name, _)| name.as_str())
        .chain(first.headers.iter().map(String::as_str))
        .chain(["remark"])
        .collect();
    csv_line(&mut out, &header);
    for table in tables {
        for row in &table.rows {
            let mut cells: Vec<&str> = table.key.iter().map(|(_, value)| value.as_str()).collect();
            cells.extend(row.iter().map(String::as_str));
            cells.resize(header.len(), "");
            csv_line(&mut out, &cells);
        }
    }
    out
}

fn csv_line(out: &mut String, cells: &[&str]) {
    let quoted: Vec<String> = cells
        .iter()
        .map(|cell| {
            if cell.contains([',', '"', '\n']) {
                format!("\"{}\"", cell.replace('"', "\"\""))
            } else {
                cell.to_string()
            }
        })
        .collect();
    out.push_str(&quoted.join(","));
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        Table {
            caption: "read".into(),
            key: vec![("test".into(), "read".into())],
            headers: vec!["run".into(), "MB/s".into()],
            rows: vec![
                vec!["1".into(), "100.0".into()],
                vec!["average".into(), "95.5".into(), "CI 90, 101".into()],
            ],
            notes: vec!["a note".into()],
        }
    }

    #[test]
    fn terminal_aligns_labels_left_and_numbers_right() {
        assert_eq!(
            sample().terminal(),
            "read\n  run       MB/s\n  1        100.0\n  average   95.5  CI 90, 101\n  a note\n"
        );
    }

    #[test]
    fn markdown_pads_rows_and_escapes_pipes() {
        let mut table = sample();
        table.rows[0][0] = "a|b".into();
        let md = table.markdown();
        assert!(md.starts_with("### read\n\n| run | MB/s |  |\n| :--- | ---: | ---: |\n"));
        assert!(md.contains("| a\\|b | 100.0 |  |\n"), "{md}");
        assert!(md.contains("| average | 95.5 | CI 90, 101 |\n"), "{md}");
    }

    #[test]
    fn csv_leads_with_keys_and_quotes_commas() {
        assert_eq!(
            csv(&[sample()]),
            "test,run,MB/s,remark\nread,1,100.0,\nread,average,95.5,\"CI 90, 101\"\n"
        );
        assert_eq!(csv(&[]), "");
    }
}
