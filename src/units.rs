//! Sizes and rates as people type and read them.
//!
//! Input: sizes take binary suffixes (`4K` = 4096, `1G` = 2^30; `KiB` spelled out works too) because
//! file and record sizes are powers of two; rates take network units (`100mbit`, `1gbit`, `125MB/s`)
//! where `M` and `G` are decimal, as on a link's label. Output names its unit explicitly:
//! MB/s = 10^6 B/s, Mb/s = 10^6 bit/s, MiB = 2^20 B.

use std::fmt;

/// Why a size or rate could not be read; displayed as part of a one-sentence error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitError(String);

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnitError {}

fn split_number(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    (&text[..end], text[end..].trim())
}

/// Parses a byte count such as `4096`, `4K`, `64KiB`, `1M`, `2G`, `1T` (binary multiples).
pub fn parse_size(text: &str) -> Result<u64, UnitError> {
    let text = text.trim();
    let (number, suffix) = split_number(text);
    let bad = || {
        UnitError(format!(
            "'{text}' is not a size (examples: 4096, 4K, 1M, 2G)"
        ))
    };
    if number.is_empty() {
        return Err(bad());
    }
    let shift = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(bad()),
    };
    let value: f64 = number.parse().map_err(|_| bad())?;
    let bytes = value * (1u64 << shift) as f64;
    if bytes.fract() != 0.0 || bytes > u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// Parses `FROM..TO` into the powers of two between them, both ends included (iozone `-a` style).
pub fn parse_size_range(text: &str) -> Result<Vec<u64>, UnitError> {
    let Some((from, to)) = text.split_once("..") else {
        return parse_size(text).map(|size| vec![size]);
    };
    let (from, to) = (parse_size(from)?, parse_size(to)?);
    if from == 0 || from > to {
        return Err(UnitError(format!(
            "'{text}' is not a range from a smaller to a larger size (example: 64K..512M)"
        )));
    }
    let mut sizes = Vec::new();
    let mut size = from;
    while size <= to {
        sizes.push(size);
        size = size.saturating_mul(2);
        if size == u64::MAX {
            break;
        }
    }
    Ok(sizes)
}

/// Parses a link rate into bits per second: `100mbit`, `1gbit`, `10Gbit/s`, `9600bit`, `125MB/s`.
pub fn parse_rate_bits(text: &str) -> Result<f64, UnitError> {
    let text = text.trim();
    let (number, suffix) = split_number(text);
    let bad = || {
        UnitError(format!(
            "'{text}' is not a rate (examples: 100mbit, 1gbit, 125MB/s)"
        ))
    };
    let value: f64 = number.parse().map_err(|_| bad())?;
    let unit = suffix.trim_end_matches("/s").trim_end_matches("ps");
    let (scale, per_byte) = match unit {
        "bit" | "b" => (1.0, false),
        "kbit" | "Kbit" | "kb" | "Kb" => (1e3, false),
        "mbit" | "Mbit" | "mb" | "Mb" => (1e6, false),
        "gbit" | "Gbit" | "gb" | "Gb" => (1e9, false),
        "B" => (1.0, true),
        "KB" | "kB" => (1e3, true),
        "MB" => (1e6, true),
        "GB" => (1e9, true),
        _ => return Err(bad()),
    };
    let bits = value * scale * if per_byte { 8.0 } else { 1.0 };
    if !(bits.is_finite() && bits > 0.0) {
        return Err(bad());
    }
    Ok(bits)
}

/// A byte count in binary units, exact where possible: `4 KiB`, `1 GiB`, `1536 B`, `1.50 MiB`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut unit = 0;
    let mut value = bytes;
    while unit + 1 < UNITS.len() && value >= 1024 && value.is_multiple_of(1024) {
        value /= 1024;
        unit += 1;
    }
    if value < 1024 || unit + 1 == UNITS.len() {
        return format!("{value} {}", UNITS[unit]);
    }
    let mut scaled = bytes as f64;
    let mut unit = 0;
    while scaled >= 1024.0 && unit + 1 < UNITS.len() {
        scaled /= 1024.0;
        unit += 1;
    }
    format!("{scaled:.2} {}", UNITS[unit])
}

/// A compact size label for grid headers: `4K`, `64M`, `1G`.
pub fn format_size_short(bytes: u64) -> String {
    format_size(bytes)
        .replace(" KiB", "K")
        .replace(" MiB", "M")
        .replace(" GiB", "G")
        .replace(" TiB", "T")
        .replace(" B", "")
}

/// Bytes per second as decimal megabytes per second (the unit storage vendors and iperf use).
pub fn mb_per_s(bytes_per_s: f64) -> f64 {
    bytes_per_s / 1e6
}

/// Bytes per second as decimal megabits per second (the unit of a link's label).
pub fn mbit_per_s(bytes_per_s: f64) -> f64 {
    bytes_per_s * 8.0 / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_use_binary_multiples() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("64KiB").unwrap(), 65536);
        assert_eq!(parse_size("1m").unwrap(), 1 << 20);
        assert_eq!(parse_size("1.5M").unwrap(), 3 << 19);
        assert_eq!(parse_size("2G").unwrap(), 2 << 30);
        assert!(parse_size("").is_err());
        assert!(parse_size("K").is_err());
        assert!(parse_size("12 parsecs").is_err());
        assert!(
            parse_size("0.3").is_err(),
            "fractions of a byte are refused"
        );
    }

    #[test]
    fn ranges_are_powers_of_two_inclusive() {
        assert_eq!(
            parse_size_range("64K..512K").unwrap(),
            vec![64 << 10, 128 << 10, 256 << 10, 512 << 10]
        );
        assert_eq!(parse_size_range("4K").unwrap(), vec![4096]);
        assert!(parse_size_range("1M..4K").is_err());
        assert!(parse_size_range("0..4K").is_err());
    }

    #[test]
    fn rates_are_decimal_bits() {
        assert_eq!(parse_rate_bits("100mbit").unwrap(), 100e6);
        assert_eq!(parse_rate_bits("1gbit").unwrap(), 1e9);
        assert_eq!(parse_rate_bits("10Gbit/s").unwrap(), 10e9);
        assert_eq!(parse_rate_bits("125MB/s").unwrap(), 1e9);
        assert!(parse_rate_bits("fast").is_err());
        assert!(parse_rate_bits("0mbit").is_err());
    }

    #[test]
    fn sizes_print_exactly_when_they_can() {
        assert_eq!(format_size(4096), "4 KiB");
        assert_eq!(format_size(1 << 30), "1 GiB");
        assert_eq!(format_size(1000), "1000 B");
        assert_eq!(format_size(3 << 19), "1.50 MiB");
        assert_eq!(format_size_short(64 << 20), "64M");
        assert_eq!(format_size_short(512), "512");
    }

    #[test]
    fn rate_conversions() {
        assert_eq!(mb_per_s(125e6), 125.0);
        assert_eq!(mbit_per_s(125e6), 1000.0);
    }
}
