//! The sizing model: follow the data from the disks through the CPUs to the network cards, take
//! each component's ceiling (the per-unit figure times the count), and the smallest is the
//! server's capacity; add whatever chokes first and the bottleneck moves on. The classic model
//! of "Using Samba" (appendix B, after Brian Wong's capacity planning), brought up to date with
//! workload-aware ceilings and figures calibrated from measurements.

pub mod calibrate;
pub mod catalog;
pub mod spec;

use serde::Serialize;

/// The three components the model follows the data through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Cpu,
    Disk,
    #[serde(rename = "network")]
    Nic,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Cpu, Kind::Disk, Kind::Nic];

    /// The component's name in tables and `--what-if` steps.
    pub fn plural(self) -> &'static str {
        match self {
            Kind::Cpu => "cpus",
            Kind::Disk => "disks",
            Kind::Nic => "nics",
        }
    }

    pub fn singular(self) -> &'static str {
        match self {
            Kind::Cpu => "CPU",
            Kind::Disk => "disk",
            Kind::Nic => "network card",
        }
    }

    /// The stem of the component's figure flags (`--disk-rate`, `--nic-ops`).
    pub fn singular_flag(self) -> &'static str {
        match self {
            Kind::Cpu => "cpu",
            Kind::Disk => "disk",
            Kind::Nic => "nic",
        }
    }

    pub fn column(self) -> &'static str {
        match self {
            Kind::Cpu => "CPU",
            Kind::Disk => "disk",
            Kind::Nic => "network",
        }
    }
}

/// One unit of a component (a disk, a CPU, a network card) and what it can do.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unit {
    pub name: String,
    /// Operations per second whatever the access pattern (the classic figures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ops_per_s: Option<f64>,
    /// Operations per second of random access only (a modern disk's IOPS; sequential access is
    /// held by its byte rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub random_ops_per_s: Option<f64>,
    /// Bytes per second, reading (or both ways when no write figure is given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_per_s: Option<f64>,
    /// Bytes per second writing, when it differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_bytes_per_s: Option<f64>,
    /// A network whose reads and writes share one medium (classic Ethernet, Token Ring); a
    /// full-duplex link carries reads and writes at once.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub half_duplex: bool,
    /// Where the figure comes from.
    pub source: String,
}

/// What the server is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Workload {
    /// Bytes per operation.
    pub io_size: u64,
    /// Share of the bytes that are reads, 0 to 100.
    pub read_pct: f64,
    pub random: bool,
}

impl Unit {
    /// The bytes per second one unit carries under `workload`: the smaller of its byte ceiling
    /// and its operations times the I/O size; `None` when it has no figure at all.
    pub fn ceiling(&self, kind: Kind, workload: &Workload) -> Option<f64> {
        let reads = (workload.read_pct / 100.0).clamp(0.0, 1.0);
        let bytes = self.bytes_per_s.map(|read| {
            let write = self.write_bytes_per_s.unwrap_or(read);
            if kind == Kind::Nic && !self.half_duplex {
                // reads and writes travel opposite ways, each up to its direction's rate
                let by = |rate: f64, share: f64| {
                    if share > 0.0 {
                        rate / share
                    } else {
                        f64::INFINITY
                    }
                };
                by(read, reads).min(by(write, 1.0 - reads))
            } else if read == write {
                read
            } else {
                // a byte read and a byte written take their own time on the one resource
                1.0 / (reads / read + (1.0 - reads) / write)
            }
        });
        let ops = [
            self.ops_per_s,
            self.random_ops_per_s.filter(|_| workload.random),
        ]
        .into_iter()
        .flatten()
        .map(|ops| ops * workload.io_size as f64)
        .reduce(f64::min);
        [bytes, ops].into_iter().flatten().reduce(f64::min)
    }
}

/// Some units of one kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    pub count: u32,
    pub unit: Unit,
}

/// A server: at most one group of each kind; a kind left out is not part of the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Server {
    pub cpus: Option<Group>,
    pub disks: Option<Group>,
    pub nics: Option<Group>,
}

impl Server {
    pub fn group(&self, kind: Kind) -> Option<&Group> {
        match kind {
            Kind::Cpu => self.cpus.as_ref(),
            Kind::Disk => self.disks.as_ref(),
            Kind::Nic => self.nics.as_ref(),
        }
    }

    pub fn group_mut(&mut self, kind: Kind) -> &mut Option<Group> {
        match kind {
            Kind::Cpu => &mut self.cpus,
            Kind::Disk => &mut self.disks,
            Kind::Nic => &mut self.nics,
        }
    }

    /// Each component's throughput and the server's: the smallest, and who holds it there.
    pub fn capacity(&self, workload: &Workload) -> Capacity {
        let throughput = |kind| {
            let group = self.group(kind)?;
            Some(group.unit.ceiling(kind, workload)? * group.count as f64)
        };
        let (cpu, disk, network) = (
            throughput(Kind::Cpu),
            throughput(Kind::Disk),
            throughput(Kind::Nic),
        );
        // on a tie the component nearer the disk is named, as the data meets it first
        let limiting = [(Kind::Disk, disk), (Kind::Cpu, cpu), (Kind::Nic, network)]
            .into_iter()
            .filter_map(|(kind, rate)| Some((kind, rate?)))
            .reduce(|a, b| if b.1 < a.1 { b } else { a });
        Capacity {
            cpu,
            disk,
            network,
            throughput: limiting.map(|(_, rate)| rate),
            limiting: limiting.map(|(kind, _)| kind),
        }
    }

    /// The fewest units of each kind given that carry `required` bytes per second.
    pub fn to_carry(&self, required: f64, workload: &Workload) -> Vec<Need> {
        Kind::ALL
            .into_iter()
            .filter_map(|kind| {
                let group = self.group(kind)?;
                let per_unit = group.unit.ceiling(kind, workload)?;
                let count = (required / per_unit).ceil().max(1.0) as u32;
                let carries = per_unit * count as f64;
                Some(Need {
                    kind,
                    unit: group.unit.name.clone(),
                    count,
                    have: group.count,
                    carries,
                    headroom: carries / required - 1.0,
                })
            })
            .collect()
    }
}

/// A server's throughput by component, bytes per second (`None`: not in the model).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Capacity {
    pub cpu: Option<f64>,
    pub disk: Option<f64>,
    pub network: Option<f64>,
    pub throughput: Option<f64>,
    pub limiting: Option<Kind>,
}

/// How many units of a kind a demand takes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Need {
    pub kind: Kind,
    pub unit: String,
    pub count: u32,
    /// How many the server has now.
    pub have: u32,
    /// What `count` of them carry, bytes per second.
    pub carries: f64,
    /// How much more than the demand that is, as a share (0.49: 49 % to spare).
    pub headroom: f64,
}

/// One step of a `--what-if` progression: the change and the server it leaves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub step: String,
    #[serde(flatten)]
    pub capacity: Capacity,
}

/// Clients the server carries: the demand they make and the fewest units that meet it, or the
/// share of a capacity each gets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Clients {
    pub clients: u32,
    /// Bytes per second each client asks for, or gets.
    pub per_client: f64,
    /// Bytes per second in all.
    pub total: f64,
    /// The fewest units of each kind that carry `total` (when the demand was given).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<Need>,
}

/// Everything `sharebench size` answers, for the terminal, JSON and Markdown alike.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sizing {
    /// The catalog the units come from; none when calibrated from measurement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalog: Option<catalog::Catalog>,
    /// The test the figures were measured on, when calibrated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated_from: Option<String>,
    pub workload: Workload,
    pub server: Server,
    /// The server as given, then after each `--what-if` change.
    pub steps: Vec<Step>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clients: Option<Clients>,
    /// Components without evidence, one sentence each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

/// The server as given, then after each change in turn.
pub fn progression(
    server: &Server,
    changes: &[spec::Change],
    workload: &Workload,
) -> Result<Vec<Step>, String> {
    let mut server = server.clone();
    let mut steps = vec![Step {
        step: "as given".into(),
        capacity: server.capacity(workload),
    }];
    for change in changes {
        change.apply(&mut server)?;
        steps.push(Step {
            step: change.text.clone(),
            capacity: server.capacity(workload),
        });
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::catalog::Catalog;
    use super::spec::{group, Change, Figures};
    use super::*;

    const CLASSIC_8K: Workload = Workload {
        io_size: 8 << 10,
        read_pct: 100.0,
        random: false,
    };

    fn classic(cpus: &str, disks: &str, nics: &str) -> Server {
        let g =
            |kind, spec| group(kind, Some(spec), &Figures::default(), Catalog::Classic).unwrap();
        Server {
            cpus: g(Kind::Cpu, cpus),
            disks: g(Kind::Disk, disks),
            nics: g(Kind::Nic, nics),
        }
    }

    #[test]
    fn a_linux_pentium_133_with_one_disk_is_disk_bound_at_560_kb() {
        let c = classic("1xpentium133", "1x7200rpm", "1x10mbit").capacity(&CLASSIC_8K);
        assert_eq!(c.throughput, Some(560_000.0));
        assert_eq!(c.limiting, Some(Kind::Disk));
        assert_eq!((c.cpu, c.network), (Some(5_600_000.0), Some(1_113_000.0)));
    }

    #[test]
    fn the_dual_sparc_progression_moves_the_bottleneck_as_the_book_says() {
        let server = classic("2xsparc10", "1x7200rpm", "1x10mbit");
        let changes: Vec<Change> = ["disks=6", "nics=4", "disks=20", "nics=2x100mbit"]
            .iter()
            .map(|c| Change::parse(c, Catalog::Classic).unwrap())
            .collect();
        let steps = progression(&server, &changes, &CLASSIC_8K).unwrap();
        let rows: Vec<(f64, Kind)> = steps
            .iter()
            .map(|s| {
                (
                    s.capacity.throughput.unwrap() / 1000.0,
                    s.capacity.limiting.unwrap(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (560.0, Kind::Disk),
                (1_113.0, Kind::Nic),
                (3_360.0, Kind::Disk),
                (4_452.0, Kind::Nic),
                (11_200.0, Kind::Disk),
            ]
        );
        // CPU throughput is the per-CPU figure times the count throughout
        assert!(steps.iter().all(|s| s.capacity.cpu == Some(12_000_000.0)));
        assert_eq!(steps[4].capacity.network, Some(13_000_000.0));
        assert_eq!(steps[0].step, "as given");
        assert_eq!(steps[4].step, "nics=2x100mbit");
    }

    #[test]
    fn seventy_five_clients_at_15_kb_need_three_disks_and_two_ethernets() {
        let server = classic("1xpentium133", "1x7200rpm", "1x10mbit");
        let needs = server.to_carry(75.0 * 15_000.0, &CLASSIC_8K);
        let need = |kind| needs.iter().find(|n| n.kind == kind).unwrap();
        assert_eq!(need(Kind::Disk).count, 3);
        assert_eq!(need(Kind::Disk).carries, 1_680_000.0);
        assert!((need(Kind::Disk).headroom - (1680.0 / 1125.0 - 1.0)).abs() < 1e-12);
        assert_eq!(need(Kind::Disk).have, 1);
        assert_eq!(need(Kind::Nic).count, 2, "more than one 10 Mb/s Ethernet");
        assert_eq!(need(Kind::Cpu).count, 1);
    }

    #[test]
    fn ceilings_follow_the_workload() {
        let hdd = Catalog::Modern.unit(Kind::Disk, "7200rpm").unwrap();
        let random_4k = Workload {
            io_size: 4096,
            read_pct: 100.0,
            random: true,
        };
        assert_eq!(hdd.ceiling(Kind::Disk, &random_4k), Some(80.0 * 4096.0));
        let sequential = Workload {
            random: false,
            ..random_4k
        };
        assert_eq!(hdd.ceiling(Kind::Disk, &sequential), Some(200e6));
        // half reads, half writes: each byte takes its own time on the SSD
        let ssd = Catalog::Modern.unit(Kind::Disk, "ssd").unwrap();
        let mixed = Workload {
            io_size: 1 << 20,
            read_pct: 50.0,
            random: false,
        };
        let expected = 1.0 / (0.5 / 550e6 + 0.5 / 520e6);
        assert!((ssd.ceiling(Kind::Disk, &mixed).unwrap() - expected).abs() < 1.0);
        // a full-duplex link carries reads and writes at once, a shared medium does not
        let gbe = Catalog::Modern.unit(Kind::Nic, "1gbit").unwrap();
        assert_eq!(gbe.ceiling(Kind::Nic, &mixed), Some(2.0 * 119.5e6));
        // and each direction holds only its own traffic
        let asymmetric = Unit {
            write_bytes_per_s: Some(50e6),
            ..gbe.clone()
        };
        assert_eq!(asymmetric.ceiling(Kind::Nic, &sequential), Some(119.5e6));
        let quarter_writes = Workload {
            read_pct: 75.0,
            ..mixed
        };
        // reads need 119.5 / 0.75 = 159 MB/s in all, writes 50 / 0.25 = 200: reads hold it
        assert_eq!(
            asymmetric.ceiling(Kind::Nic, &quarter_writes),
            Some(119.5e6 / 0.75)
        );
        let thinnet = Catalog::Classic.unit(Kind::Nic, "10mbit").unwrap();
        assert_eq!(thinnet.ceiling(Kind::Nic, &mixed), Some(1_113_000.0));
        // a core serving 4 KiB requests is held by its operations
        let core = Catalog::Modern.unit(Kind::Cpu, "core").unwrap();
        assert_eq!(core.ceiling(Kind::Cpu, &random_4k), Some(15_600.0 * 4096.0));
    }
}
