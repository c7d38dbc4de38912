//! Per-unit figures by name, each with where it comes from. The classic catalog holds the figures
//! of the original tables exactly (8 KiB per I/O; KB = 1000 bytes); the modern one holds today's
//! disks, links and CPU cores. The same name means the classic figure in the classic catalog.

use super::{Kind, Unit};

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Catalog {
    Classic,
    Modern,
}

const CLASSIC: &str = "Using Samba (O'Reilly, 1999), appendix B, after Brian L. Wong, \
                       Configuration and Capacity Planning for Solaris Servers (1997)";
const MEASURED_LINK: &str = "measured with sharebench on tc tbf links: 100mbit gave 12.0 MB/s and \
                             1gbit 119.5 MB/s of TCP payload (95.6 % of line rate); faster links \
                             scaled from that share";

/// A catalog entry: its names (the first is shown), kind and figures.
struct Entry {
    names: &'static [&'static str],
    kind: Kind,
    ops: Option<f64>,
    random_ops: Option<f64>,
    read: Option<f64>,
    write: Option<f64>,
    half_duplex: bool,
    source: &'static str,
}

/// A classic row: operations per second and KB/s as printed.
const fn classic(names: &'static [&'static str], kind: Kind, ops: f64, kb: f64) -> Entry {
    Entry {
        names,
        kind,
        ops: if ops > 0.0 { Some(ops) } else { None },
        random_ops: None,
        read: Some(kb * 1000.0),
        write: None,
        half_duplex: true,
        source: CLASSIC,
    }
}

const fn link(names: &'static [&'static str], bytes_per_s: f64) -> Entry {
    Entry {
        names,
        kind: Kind::Nic,
        ops: None,
        random_ops: None,
        read: Some(bytes_per_s),
        write: None,
        half_duplex: false,
        source: MEASURED_LINK,
    }
}

const CLASSIC_ENTRIES: &[Entry] = &[
    classic(&["7200rpm"], Kind::Disk, 70.0, 560.0),
    classic(&["4800rpm"], Kind::Disk, 60.0, 480.0),
    classic(&["3600rpm"], Kind::Disk, 40.0, 320.0),
    classic(&["pentium133", "p133"], Kind::Cpu, 700.0, 5_600.0),
    classic(
        &["dualpentium133", "dual-p133"],
        Kind::Cpu,
        1_200.0,
        9_600.0,
    ),
    classic(&["sparc2", "sparcii"], Kind::Cpu, 660.0, 5_280.0),
    classic(&["sparc10"], Kind::Cpu, 750.0, 6_000.0),
    classic(&["ultra200"], Kind::Cpu, 2_650.0, 21_200.0),
    classic(&["isdn"], Kind::Nic, 0.0, 16.0),
    classic(&["t1"], Kind::Nic, 0.0, 197.0),
    classic(&["10mbit", "ethernet"], Kind::Nic, 0.0, 1_113.0),
    classic(&["tokenring"], Kind::Nic, 0.0, 1_500.0),
    classic(&["fddi"], Kind::Nic, 0.0, 6_250.0),
    // 6,500 as the classic table printed it, though 100 Mb/s carries more
    classic(&["100mbit", "fastethernet"], Kind::Nic, 0.0, 6_500.0),
    classic(&["atm155", "atm"], Kind::Nic, 0.0, 7_125.0),
];

const MODERN_ENTRIES: &[Entry] = &[
    Entry {
        names: &["7200rpm", "hdd"],
        kind: Kind::Disk,
        ops: None,
        random_ops: Some(80.0),
        read: Some(200e6),
        write: None,
        half_duplex: false,
        source: "7200 rpm HDD: random operations from an 8.5 ms average seek plus half a \
                 rotation (4.2 ms), about 80 per second; 200 MB/s sequential, the low end of \
                 current 3.5-inch data sheets (200-280 MB/s)",
    },
    Entry {
        names: &["ssd", "sata-ssd"],
        kind: Kind::Disk,
        ops: None,
        random_ops: Some(90_000.0),
        read: Some(550e6),
        write: Some(520e6),
        half_duplex: false,
        source: "SATA SSD: the 6 Gb/s interface carries about 560 MB/s of payload; typical data \
                 sheets give 550 MB/s read, 520 MB/s write, 90k random 4 KiB operations",
    },
    Entry {
        names: &["nvme"],
        kind: Kind::Disk,
        ops: None,
        random_ops: Some(1_000_000.0),
        read: Some(7e9),
        write: Some(5e9),
        half_duplex: false,
        source: "PCIe 4.0 x4 NVMe SSD: typical data sheets give about 7 GB/s read, 5 GB/s write \
                 and 1M random 4 KiB operations",
    },
    link(&["10mbit"], 1.195e6),
    link(&["100mbit", "fastethernet"], 12.0e6),
    link(&["1gbit", "1gbe", "1000mbit"], 119.5e6),
    link(&["10gbit", "10gbe"], 1.195e9),
    link(&["25gbit", "25gbe"], 2.988e9),
    link(&["100gbit", "100gbe"], 11.95e9),
    Entry {
        names: &["core", "x86core"],
        kind: Kind::Cpu,
        ops: Some(15_600.0),
        random_ops: None,
        read: Some(1.3e9),
        write: None,
        half_duplex: false,
        source: "one x86-64 core serving SMB (Samba 4.17), measured with sharebench: 4 KiB random \
                 reads at 12,100 per second took 78 % of a core in smbd; 8 MiB reads encrypted \
                 with AES-128-GCM reached 1.32 GB/s with smbd pinned to one core",
    },
];

impl Catalog {
    fn entries(self) -> &'static [Entry] {
        match self {
            Catalog::Classic => CLASSIC_ENTRIES,
            Catalog::Modern => MODERN_ENTRIES,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Catalog::Classic => "classic",
            Catalog::Modern => "modern",
        }
    }

    /// The unit called `name` (any spelling the catalog knows, case and dashes aside).
    pub fn unit(self, kind: Kind, name: &str) -> Result<Unit, String> {
        let wanted = name.to_ascii_lowercase().replace(['_', ' '], "");
        let found = self.entries().iter().find(|e| {
            e.kind == kind
                && e.names
                    .iter()
                    .any(|n| n.replace('-', "") == wanted.replace('-', ""))
        });
        let Some(entry) = found else {
            let known: Vec<&str> = self
                .entries()
                .iter()
                .filter(|e| e.kind == kind)
                .map(|e| e.names[0])
                .collect();
            return Err(format!(
                "the {} catalog has no {} called '{name}' (it knows {})",
                self.name(),
                kind.singular(),
                known.join(", ")
            ));
        };
        Ok(Unit {
            name: entry.names[0].into(),
            ops_per_s: entry.ops,
            random_ops_per_s: entry.random_ops,
            bytes_per_s: entry.read,
            write_bytes_per_s: entry.write,
            half_duplex: entry.half_duplex,
            source: entry.source.into(),
        })
    }

    /// The I/O size the catalog's figures assume when none is given.
    pub fn io_size(self) -> u64 {
        match self {
            Catalog::Classic => 8 << 10,
            Catalog::Modern => 64 << 10,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::sizing::Workload;

    #[test]
    fn the_classic_figures_are_the_printed_ones() {
        let classic_8k = Workload {
            io_size: 8 << 10,
            read_pct: 100.0,
            random: false,
        };
        let kb = |kind, name| {
            let unit = Catalog::Classic.unit(kind, name).unwrap();
            unit.ceiling(kind, &classic_8k).unwrap() / 1000.0
        };
        assert_eq!(kb(Kind::Disk, "7200rpm"), 560.0);
        assert_eq!(kb(Kind::Disk, "4800rpm"), 480.0);
        assert_eq!(kb(Kind::Disk, "3600rpm"), 320.0);
        assert_eq!(kb(Kind::Cpu, "pentium133"), 5_600.0);
        assert_eq!(kb(Kind::Cpu, "dualpentium133"), 9_600.0);
        assert_eq!(kb(Kind::Cpu, "sparc2"), 5_280.0);
        assert_eq!(kb(Kind::Cpu, "SPARC10"), 6_000.0);
        assert_eq!(kb(Kind::Cpu, "ultra200"), 21_200.0);
        assert_eq!(kb(Kind::Nic, "isdn"), 16.0);
        assert_eq!(kb(Kind::Nic, "t1"), 197.0);
        assert_eq!(kb(Kind::Nic, "10mbit"), 1_113.0);
        assert_eq!(kb(Kind::Nic, "tokenring"), 1_500.0);
        assert_eq!(kb(Kind::Nic, "fddi"), 6_250.0);
        assert_eq!(kb(Kind::Nic, "100mbit"), 6_500.0);
        assert_eq!(kb(Kind::Nic, "atm155"), 7_125.0);
        // 70 operations of 8 KiB are 573 KB: the printed 560 KB/s holds
        let disk = Catalog::Classic.unit(Kind::Disk, "7200rpm").unwrap();
        assert_eq!(disk.ops_per_s, Some(70.0));
    }

    #[test]
    fn the_same_name_means_each_catalogs_own_figure() {
        let modern = Catalog::Modern.unit(Kind::Nic, "100mbit").unwrap();
        assert_eq!(modern.bytes_per_s, Some(12.0e6));
        assert!(!modern.half_duplex);
        let classic = Catalog::Classic.unit(Kind::Nic, "100mbit").unwrap();
        assert_eq!(classic.bytes_per_s, Some(6.5e6));
        let err = Catalog::Modern.unit(Kind::Disk, "3600rpm").unwrap_err();
        assert!(
            err.contains("modern catalog has no disk called '3600rpm'"),
            "{err}"
        );
        assert!(err.contains("nvme"), "{err}");
        assert!(Catalog::Modern.unit(Kind::Nic, "10GbE").is_ok());
        assert!(Catalog::Modern.unit(Kind::Disk, "sata_ssd").is_ok());
    }
}
