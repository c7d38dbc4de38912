//! Readers of what the advisor judges: server configuration files as people really write them,
//! dumps of kernel and NIC settings, and the running machine itself. Readers never judge; they
//! keep every value with the line it came from and note what a server would read differently.

pub mod ethtool;
pub mod exports;
pub mod ganesha;
pub mod keyvalue;
pub mod local;
pub mod mounts;
pub mod smb;

use serde::Serialize;
use std::fmt;

/// Where a value was read: file, line number (from 1; 0 for a value given on the command line)
/// and the line as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Located {
    pub file: String,
    pub line: usize,
    pub text: String,
}

impl Located {
    pub fn new(file: &str, line: usize, text: &str) -> Located {
        Located {
            file: file.to_string(),
            line,
            text: text.trim().to_string(),
        }
    }
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.text)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.text)
        }
    }
}

/// A remark of a reader: a key set twice, a parameter the server does not know, a line it
/// cannot read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    #[serde(flatten)]
    pub at: Located,
    pub message: String,
}

/// One setting as read: the key as written, its value, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub key: String,
    pub value: String,
    pub at: Located,
}

/// The file's logical lines: comments dropped, continuation lines (ending in a backslash)
/// joined; each with the number of its first physical line and the text as written.
pub fn logical_lines(text: &str, comment: &[char], continuation: bool) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let trimmed = raw.trim();
        let (start, mut joined) = match pending.take() {
            Some((start, so_far)) => (start, so_far),
            None => {
                if trimmed.is_empty() || trimmed.starts_with(comment) {
                    continue;
                }
                (number, String::new())
            }
        };
        if continuation && trimmed.ends_with('\\') {
            joined.push_str(trimmed.trim_end_matches('\\'));
            joined.push(' ');
            pending = Some((start, joined));
            continue;
        }
        joined.push_str(trimmed);
        lines.push((start, joined));
    }
    if let Some((start, joined)) = pending {
        lines.push((start, joined.trim_end().to_string()));
    }
    lines
}

/// A parsed number as configuration files write them: decimal, with an optional k/m/g suffix
/// (powers of 1024), as Samba, ganesha and sysctl dumps do.
pub fn number(text: &str) -> Option<u64> {
    let text = text.trim().trim_matches('"');
    let (digits, scale) = match text.char_indices().last()? {
        (i, 'k' | 'K') => (&text[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&text[..i], 1 << 20),
        (i, 'g' | 'G') => (&text[..i], 1 << 30),
        _ => (text, 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(scale)
}

/// A yes/no value in any of the spellings servers accept.
pub fn boolean(text: &str) -> Option<bool> {
    match text.trim().trim_matches('"').to_ascii_lowercase().as_str() {
        "yes" | "true" | "on" | "1" | "y" => Some(true),
        "no" | "false" | "off" | "0" | "n" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logical_lines_join_continuations_and_skip_comments() {
        let text = "# comment\n; also\n  a = 1 \\\n   2\n\nb = 3\nc = \\";
        let lines = logical_lines(text, &['#', ';'], true);
        assert_eq!(
            lines,
            vec![
                (3, "a = 1  2".to_string()),
                (6, "b = 3".into()),
                (7, "c =".into())
            ]
        );
        let plain = logical_lines("a = 1 \\\nb", &['#'], false);
        assert_eq!(plain.len(), 2);
    }

    #[test]
    fn numbers_and_booleans_in_their_spellings() {
        assert_eq!(number("65536"), Some(65536));
        assert_eq!(number("64k"), Some(65536));
        assert_eq!(number("1M"), Some(1 << 20));
        assert_eq!(number("\"2g\""), Some(2 << 30));
        assert_eq!(number("lots"), None);
        assert_eq!(boolean("Yes"), Some(true));
        assert_eq!(boolean("FALSE"), Some(false));
        assert_eq!(boolean("auto"), None);
    }
}
