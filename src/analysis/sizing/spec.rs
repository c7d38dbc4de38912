//! What people type to describe a server and its changes: `6x7200rpm`, `--disk-rate 560KB/s`,
//! `--what-if disks+5 nics=2x100mbit`, `--per-client 2.3x12KB`, and a TOML file for whole
//! servers. Rates are decimal (KB = 1000 bytes), as the classic tables and link labels are.

use super::catalog::Catalog;
use super::{Group, Kind, Server, Unit};
use crate::units::{parse_rate_bits, parse_size};
use serde::Deserialize;

/// A byte rate: `560KB/s`, `1.2GB/s`, `100mbit`.
pub fn rate(text: &str) -> Result<f64, String> {
    let with_unit = if text.trim().ends_with("/s") || text.contains("bit") {
        text.to_string()
    } else {
        format!("{text}/s")
    };
    parse_rate_bits(&with_unit)
        .map(|bits| bits / 8.0)
        .map_err(|e| e.to_string())
}

/// Operations per second: `750/s` or `750`.
pub fn ops(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches("/s");
    match number.parse::<f64>() {
        Ok(ops) if ops.is_finite() && ops > 0.0 => Ok(ops),
        _ => Err(format!(
            "'{text}' is not a rate of operations (example: 750/s)"
        )),
    }
}

/// What one client asks for, bytes per second: `15KB/s`, or transfers per second times a file
/// size, `2.3x12KB`.
pub fn per_client(text: &str) -> Result<f64, String> {
    match text.split_once(['x', '*']) {
        Some((times, size)) if !size.contains("/s") => {
            let transfers = ops(times)?;
            Ok(transfers * rate(size)?)
        }
        _ => rate(text),
    }
}

/// Figures given instead of (or over) a catalog entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub bytes_per_s: Option<f64>,
    pub ops_per_s: Option<f64>,
}

/// A group from `COUNTxNAME`, `NAME` or a bare `COUNT`, with any figures laid over the unit. A
/// group of figures alone is one unit.
pub fn group(
    kind: Kind,
    spec: Option<&str>,
    figures: &Figures,
    catalog: Catalog,
) -> Result<Option<Group>, String> {
    let given = figures.bytes_per_s.is_some() || figures.ops_per_s.is_some();
    let (count, name) = match spec {
        None if !given => return Ok(None),
        None => (1, None),
        Some(spec) => split_count(spec)?,
    };
    let mut unit = match name {
        Some(name) => catalog.unit(kind, name)?,
        None if given => Unit {
            name: "as given".into(),
            ops_per_s: None,
            random_ops_per_s: None,
            bytes_per_s: None,
            write_bytes_per_s: None,
            half_duplex: false,
            source: "the command line".into(),
        },
        None => {
            return Err(format!(
                "--{} {} names no model: give COUNTxMODEL (e.g. 6x7200rpm) or the per-unit \
                 figures (--{}-rate, --{}-ops)",
                kind.plural(),
                spec.unwrap_or_default(),
                kind.singular_flag(),
                kind.singular_flag()
            ))
        }
    };
    if given && name.is_some() {
        unit.name = format!("{} (figures given)", unit.name);
    }
    if given {
        unit.source = "the command line".into();
    }
    if let Some(bytes) = figures.bytes_per_s {
        unit.bytes_per_s = Some(bytes);
        unit.write_bytes_per_s = None;
    }
    if let Some(ops) = figures.ops_per_s {
        unit.ops_per_s = Some(ops);
        unit.random_ops_per_s = None;
    }
    Ok(Some(Group { count, unit }))
}

/// `6x7200rpm` → (6, Some("7200rpm")); `7200rpm` → (1, Some(…)); `6` → (6, None).
fn split_count(spec: &str) -> Result<(u32, Option<&str>), String> {
    let spec = spec.trim();
    let bad_count = || format!("'{spec}' does not start with a count from 1 (example: 6x7200rpm)");
    if let Ok(count) = spec.parse::<u32>() {
        return if count > 0 {
            Ok((count, None))
        } else {
            Err(bad_count())
        };
    }
    match spec.split_once('x') {
        Some((count, name)) if count.chars().all(|c| c.is_ascii_digit()) && !count.is_empty() => {
            match count.parse::<u32>() {
                Ok(count) if count > 0 && !name.is_empty() => Ok((count, Some(name))),
                _ => Err(bad_count()),
            }
        }
        _ => Ok((1, Some(spec))),
    }
}

/// One `--what-if` step, read and checked up front.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub text: String,
    kind: Kind,
    what: Edit,
}

#[derive(Debug, Clone, PartialEq)]
enum Edit {
    /// `disks+5`, `nics-1`
    Add(i64),
    /// `disks=20`: that many of the same unit
    Count(u32),
    /// `nics=2x100mbit`: other units altogether
    Replace(Group),
}

impl Change {
    pub fn parse(text: &str, catalog: Catalog) -> Result<Change, String> {
        let bad = || {
            format!(
                "'{text}' is not a change (examples: disks+5, nics=4, disks=20, nics=2x100mbit)"
            )
        };
        let split = text.find(['+', '-', '=']).ok_or_else(bad)?;
        let (name, rest) = text.split_at(split);
        let kind = Kind::ALL
            .into_iter()
            .find(|k| {
                let name = name.trim().to_ascii_lowercase();
                name == k.plural() || name == k.plural().trim_end_matches('s')
            })
            .ok_or_else(bad)?;
        let (op, value) = rest.split_at(1);
        let what = match op {
            "+" | "-" => {
                let n: i64 = value.trim().parse().map_err(|_| bad())?;
                Edit::Add(if op == "-" { -n } else { n })
            }
            _ => match split_count(value)? {
                (count, None) => Edit::Count(count),
                (count, Some(model)) => Edit::Replace(Group {
                    count,
                    unit: catalog.unit(kind, model)?,
                }),
            },
        };
        Ok(Change {
            text: text.to_string(),
            kind,
            what,
        })
    }

    pub fn apply(&self, server: &mut Server) -> Result<(), String> {
        let slot = server.group_mut(self.kind);
        match (&self.what, slot.as_mut()) {
            (Edit::Replace(group), _) => *slot = Some(group.clone()),
            (Edit::Add(n), Some(group)) => {
                let count = group.count as i64 + n;
                if count < 1 {
                    return Err(format!(
                        "'{}' leaves no {} at all",
                        self.text,
                        self.kind.plural()
                    ));
                }
                group.count = count as u32;
            }
            (Edit::Count(count), Some(group)) => group.count = *count,
            (_, None) => {
                return Err(format!(
                    "'{}' changes the {}, which the server was not given; name the model \
                     ({}=COUNTxMODEL)",
                    self.text,
                    self.kind.plural(),
                    self.kind.plural()
                ))
            }
        }
        Ok(())
    }
}

/// A whole server in TOML:
///
/// ```toml
/// catalog = "classic"       # optional; the command line's otherwise
/// io_size = "8K"
/// read_pct = 100
/// random = false
/// [cpus]
/// count = 2
/// model = "sparc10"
/// [disks]
/// count = 6
/// rate = "560KB/s"          # figures instead of, or over, a model
/// ops = 70
/// [nics]
/// model = "10mbit"
/// ```
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerFile {
    pub catalog: Option<Catalog>,
    pub io_size: Option<String>,
    pub read_pct: Option<f64>,
    pub random: Option<bool>,
    pub cpus: Option<GroupFile>,
    pub disks: Option<GroupFile>,
    pub nics: Option<GroupFile>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupFile {
    pub count: Option<u32>,
    pub model: Option<String>,
    pub rate: Option<String>,
    pub ops: Option<f64>,
}

impl ServerFile {
    pub fn parse(text: &str) -> Result<ServerFile, String> {
        toml::from_str(text).map_err(|e| e.message().to_string())
    }

    pub fn io_size(&self) -> Result<Option<u64>, String> {
        self.io_size
            .as_deref()
            .map(|s| parse_size(s).map_err(|e| e.to_string()))
            .transpose()
    }

    /// The groups it describes, with the catalog's units.
    pub fn server(&self, catalog: Catalog) -> Result<Server, String> {
        let mut server = Server::default();
        for kind in Kind::ALL {
            let file = match kind {
                Kind::Cpu => &self.cpus,
                Kind::Disk => &self.disks,
                Kind::Nic => &self.nics,
            };
            let Some(file) = file else { continue };
            let figures = Figures {
                bytes_per_s: file.rate.as_deref().map(rate).transpose()?,
                ops_per_s: file.ops,
            };
            let count = file.count.unwrap_or(1);
            let spec = match &file.model {
                Some(model) => format!("{count}x{model}"),
                None => count.to_string(),
            };
            *server.group_mut(kind) = group(kind, Some(&spec), &figures, catalog)
                .map_err(|e| format!("[{}]: {e}", kind.plural()))?;
        }
        Ok(server)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_demands_read_as_the_tables_write_them() {
        assert_eq!(rate("560KB/s").unwrap(), 560_000.0);
        assert_eq!(rate("1113KB").unwrap(), 1_113_000.0);
        assert_eq!(rate("100mbit").unwrap(), 12_500_000.0);
        assert_eq!(ops("750/s").unwrap(), 750.0);
        assert!(ops("fast").is_err());
        assert_eq!(per_client("15KB/s").unwrap(), 15_000.0);
        // 2.3 transfers a second of 12 KB files
        assert!((per_client("2.3x12KB").unwrap() - 27_600.0).abs() < 1e-6);
        assert!(per_client("lots").is_err());
    }

    #[test]
    fn groups_come_from_models_counts_and_figures() {
        let none = Figures::default();
        let disks = group(Kind::Disk, Some("6x7200rpm"), &none, Catalog::Classic)
            .unwrap()
            .unwrap();
        assert_eq!((disks.count, disks.unit.name.as_str()), (6, "7200rpm"));
        let one = group(Kind::Cpu, Some("sparc10"), &none, Catalog::Classic)
            .unwrap()
            .unwrap();
        assert_eq!(one.count, 1);
        let figures = Figures {
            bytes_per_s: Some(560e3),
            ops_per_s: Some(70.0),
        };
        let given = group(Kind::Disk, Some("4"), &figures, Catalog::Classic)
            .unwrap()
            .unwrap();
        assert_eq!(given.count, 4);
        assert_eq!(given.unit.bytes_per_s, Some(560e3));
        assert_eq!(given.unit.source, "the command line");
        let alone = group(Kind::Nic, None, &figures, Catalog::Classic)
            .unwrap()
            .unwrap();
        assert_eq!(alone.count, 1);
        assert_eq!(
            group(Kind::Nic, None, &none, Catalog::Classic).unwrap(),
            None
        );
        let err = group(Kind::Disk, Some("6"), &none, Catalog::Classic).unwrap_err();
        assert!(err.contains("names no model"), "{err}");
        assert!(group(Kind::Disk, Some("0x7200rpm"), &none, Catalog::Classic).is_err());
    }

    #[test]
    fn changes_add_set_and_replace() {
        let mut server = Server {
            disks: group(
                Kind::Disk,
                Some("1x7200rpm"),
                &Figures::default(),
                Catalog::Classic,
            )
            .unwrap(),
            ..Server::default()
        };
        let change = |text| Change::parse(text, Catalog::Classic).unwrap();
        change("disks+5").apply(&mut server).unwrap();
        assert_eq!(server.disks.as_ref().unwrap().count, 6);
        change("disk=20").apply(&mut server).unwrap();
        assert_eq!(server.disks.as_ref().unwrap().count, 20);
        change("disks=2x3600rpm").apply(&mut server).unwrap();
        assert_eq!(server.disks.as_ref().unwrap().unit.name, "3600rpm");
        assert!(change("disks-2").apply(&mut server).is_err());
        let err = change("nics+1").apply(&mut server).unwrap_err();
        assert!(err.contains("was not given"), "{err}");
        assert!(Change::parse("memory+1", Catalog::Classic).is_err());
        assert!(Change::parse("nics=2xcarrierpigeon", Catalog::Classic).is_err());
    }

    #[test]
    fn a_server_file_describes_the_same_server_as_the_flags() {
        let file = ServerFile::parse(
            "# a dual SPARC\ncatalog = \"classic\"\nio_size = \"8K\"\n\
             [cpus]\ncount = 2\nmodel = \"sparc10\"\n\
             [disks]\ncount = 6\nrate = \"560KB/s\"\nops = 70\n\
             [nics]\nmodel = \"10mbit\"\n",
        )
        .unwrap();
        assert_eq!(file.catalog, Some(Catalog::Classic));
        assert_eq!(file.io_size().unwrap(), Some(8192));
        let server = file.server(Catalog::Classic).unwrap();
        assert_eq!(server.cpus.as_ref().unwrap().count, 2);
        assert_eq!(server.disks.as_ref().unwrap().unit.ops_per_s, Some(70.0));
        assert_eq!(server.nics.as_ref().unwrap().count, 1);
        assert!(ServerFile::parse("[disks]\ncolour = \"blue\"\n").is_err());
        assert!(ServerFile::parse("[disks\n").is_err());
    }
}
