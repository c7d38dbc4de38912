//! `sharebench size`: a server from the command line, a TOML file or a result document, through
//! the sizing model, to tables, JSON and Markdown.

use super::args::SizeArgs;
use super::Failure;
use crate::analysis::sizing::calibrate;
use crate::analysis::sizing::catalog::Catalog;
use crate::analysis::sizing::spec::{self, Change, Figures, ServerFile};
use crate::analysis::sizing::{progression, Clients, Kind, Server, Sizing, Workload};
use crate::report::sizing::tables;
use std::path::Path;

pub fn run(args: SizeArgs) -> Result<(), Failure> {
    let bad = |e: String| Failure::bad_input(format!("{e}."));
    let (mut sizing, results) = match &args.from {
        Some(path) => {
            let (document, value) = super::read_results(path)?;
            let calibration = calibrate::from_document(&document)
                .map_err(|e| bad(format!("{}: {e}", path.display())))?;
            let sizing = Sizing {
                catalog: None,
                calibrated_from: Some(calibration.test),
                workload: workload(&args, calibration.workload),
                server: calibration.server,
                steps: Vec::new(),
                clients: None,
                missing: calibration.missing,
            };
            (sizing, Some(value))
        }
        None => (from_components(&args)?, None),
    };
    if [
        &sizing.server.cpus,
        &sizing.server.disks,
        &sizing.server.nics,
    ]
    .iter()
    .all(|g| g.is_none())
    {
        if !sizing.missing.is_empty() {
            return Err(bad(format!(
                "the results carry nothing to size from ({})",
                sizing.missing.join("; ")
            )));
        }
        return Err(bad(
            "there is nothing to size: give --cpus, --disks or --nics (or their figures), \
             --server FILE or --from RESULTS.json"
                .into(),
        ));
    }
    let catalog = sizing.catalog.or(args.catalog).unwrap_or(Catalog::Modern);
    let changes = args
        .what_if
        .iter()
        .map(|text| Change::parse(text, catalog))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad)?;
    sizing.steps = progression(&sizing.server, &changes, &sizing.workload).map_err(bad)?;
    sizing.clients = clients(&args, &sizing);

    let rendered = tables(&sizing);
    for table in &rendered {
        println!("{}", table.terminal());
    }
    if let Some(path) = &args.markdown {
        let text: Vec<String> = rendered.iter().map(|t| t.markdown()).collect();
        write(path, text.join("\n"))?;
    }
    if let Some(path) = &args.json {
        let sizing = serde_json::to_value(&sizing).expect("a sizing serialises");
        let out = match results {
            Some(mut document) => {
                document["sizing"] = sizing;
                document
            }
            None => sizing,
        };
        let text = serde_json::to_string_pretty(&out).expect("JSON serialises");
        write(path, text + "\n")?;
    }
    Ok(())
}

fn write(path: &Path, text: String) -> Result<(), Failure> {
    std::fs::write(path, text)
        .map_err(|e| Failure::failed(format!("cannot write {}: {e}.", path.display())))
}

/// The server from a TOML file and the flags (flags win), with its workload.
fn from_components(args: &SizeArgs) -> Result<Sizing, Failure> {
    let bad = |e: String| Failure::bad_input(format!("{e}."));
    let file = match &args.server {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| bad(format!("cannot read {}: {e}", path.display())))?;
            ServerFile::parse(&text).map_err(|e| bad(format!("{}: {e}", path.display())))?
        }
        None => ServerFile::default(),
    };
    let catalog = args.catalog.or(file.catalog).unwrap_or(Catalog::Modern);
    let mut server: Server = file.server(catalog).map_err(bad)?;
    for kind in Kind::ALL {
        let (spec, figures) = match kind {
            Kind::Cpu => (&args.cpus, (args.cpu_rate, args.cpu_ops)),
            Kind::Disk => (&args.disks, (args.disk_rate, args.disk_ops)),
            Kind::Nic => (&args.nics, (args.nic_rate, args.nic_ops)),
        };
        let figures = Figures {
            bytes_per_s: figures.0,
            ops_per_s: figures.1,
        };
        if let Some(group) = spec::group(kind, spec.as_deref(), &figures, catalog).map_err(bad)? {
            *server.group_mut(kind) = Some(group);
        }
    }
    let defaults = Workload {
        io_size: file.io_size().map_err(bad)?.unwrap_or(catalog.io_size()),
        read_pct: file.read_pct.unwrap_or(100.0),
        random: file.random.unwrap_or(false),
    };
    if !(0.0..=100.0).contains(&defaults.read_pct) {
        return Err(bad(format!(
            "read_pct {} is not a share from 0 to 100",
            defaults.read_pct
        )));
    }
    Ok(Sizing {
        catalog: Some(catalog),
        calibrated_from: None,
        workload: workload(args, defaults),
        server,
        steps: Vec::new(),
        clients: None,
        missing: Vec::new(),
    })
}

/// The workload: flags over the file's or the measured one.
fn workload(args: &SizeArgs, defaults: Workload) -> Workload {
    Workload {
        io_size: args.io_size.unwrap_or(defaults.io_size),
        read_pct: args.read_pct.map_or(defaults.read_pct, f64::from),
        random: if args.random {
            true
        } else if args.sequential {
            false
        } else {
            defaults.random
        },
    }
}

/// `--clients` with a demand per client (the units that carry it), or with a capacity to share
/// (the model's own when none is given).
fn clients(args: &SizeArgs, sizing: &Sizing) -> Option<Clients> {
    let clients = args.clients?;
    match args.per_client {
        Some(per_client) => {
            let total = per_client * clients as f64;
            Some(Clients {
                clients,
                per_client,
                total,
                needs: sizing.server.to_carry(total, &sizing.workload),
            })
        }
        None => {
            let total = args
                .capacity
                .or_else(|| sizing.steps.last()?.capacity.throughput)?;
            Some(Clients {
                clients,
                per_client: total / clients as f64,
                total,
                needs: Vec::new(),
            })
        }
    }
}
