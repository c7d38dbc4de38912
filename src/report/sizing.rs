//! The sizing model's answer as tables: the components with their ceilings, the what-if
//! progression, and the clients; classic figures in KB/s (10^3 bytes) as the tables printed them,
//! modern ones in MB/s.

use super::table::Table;
use crate::analysis::sizing::catalog::Catalog;
use crate::analysis::sizing::{Kind, Sizing};
use crate::units::format_size;

/// A rate in the unit the sizing reads in, with thousands separated.
fn rate(sizing: &Sizing, bytes_per_s: Option<f64>) -> String {
    let Some(bytes_per_s) = bytes_per_s else {
        return "—".into();
    };
    let (value, unit) = match sizing.catalog {
        Some(Catalog::Classic) => (bytes_per_s / 1e3, "KB/s"),
        _ => (bytes_per_s / 1e6, "MB/s"),
    };
    let rounded = if value >= 100.0 {
        grouped(value.round() as u64)
    } else {
        format!("{value:.1}")
    };
    format!("{rounded} {unit}")
}

/// 11200 → "11,200".
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn tables(sizing: &Sizing) -> Vec<Table> {
    let w = &sizing.workload;
    let mut about = vec![format!(
        "{} I/O, {:.0} % reads, {}",
        format_size(w.io_size),
        w.read_pct,
        if w.random { "random" } else { "sequential" }
    )];
    match (&sizing.catalog, &sizing.calibrated_from) {
        (_, Some(test)) => about.push(format!("calibrated from the {test} test")),
        (Some(catalog), None) => about.push(format!(
            "{} catalog",
            format!("{catalog:?}").to_ascii_lowercase()
        )),
        (None, None) => {}
    }
    let mut components = Table {
        caption: format!(
            "components: the per-unit figure times the count · {}",
            about.join(" · ")
        ),
        key: Vec::new(),
        headers: ["component", "units", "per unit", "throughput"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
        notes: sizing.missing.clone(),
    };
    // each source once, with the units that take their figures from it
    let mut sources: Vec<(String, Vec<String>)> = Vec::new();
    for kind in Kind::ALL {
        let Some(group) = sizing.server.group(kind) else {
            continue;
        };
        let per_unit = group.unit.ceiling(kind, &sizing.workload);
        components.rows.push(vec![
            kind.column().into(),
            format!("{} × {}", group.count, group.unit.name),
            rate(sizing, per_unit),
            rate(sizing, per_unit.map(|r| r * group.count as f64)),
        ]);
        match sources.iter_mut().find(|(s, _)| *s == group.unit.source) {
            Some((_, units)) => units.push(group.unit.name.clone()),
            None => sources.push((group.unit.source.clone(), vec![group.unit.name.clone()])),
        }
    }
    components.notes.extend(
        sources
            .into_iter()
            .map(|(source, units)| format!("{}: {source}", units.join(", "))),
    );

    let mut progression = Table {
        caption: "capacity: the smallest component's throughput, step by step".into(),
        key: Vec::new(),
        headers: ["step", "CPU", "disk", "network", "throughput", "limited by"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
        notes: Vec::new(),
    };
    for step in &sizing.steps {
        let c = &step.capacity;
        progression.rows.push(vec![
            step.step.clone(),
            rate(sizing, c.cpu),
            rate(sizing, c.disk),
            rate(sizing, c.network),
            rate(sizing, c.throughput),
            c.limiting.map_or("—", |k| k.column()).into(),
        ]);
    }
    let mut tables = vec![components, progression];

    match &sizing.clients {
        Some(clients) if clients.needs.is_empty() => tables.push(Table {
            caption: "clients sharing the capacity".into(),
            key: Vec::new(),
            headers: ["clients", "capacity", "per client"]
                .map(String::from)
                .to_vec(),
            rows: vec![vec![
                clients.clients.to_string(),
                rate(sizing, Some(clients.total)),
                rate(sizing, Some(clients.per_client)),
            ]],
            notes: Vec::new(),
        }),
        Some(clients) => {
            let caption = format!(
                "{} clients × {} = {}",
                clients.clients,
                rate(sizing, Some(clients.per_client)),
                rate(sizing, Some(clients.total))
            );
            let mut table = Table {
                caption,
                key: Vec::new(),
                headers: [
                    "component",
                    "needed",
                    "they carry",
                    "headroom",
                    "the server has",
                ]
                .map(String::from)
                .to_vec(),
                rows: Vec::new(),
                notes: Vec::new(),
            };
            for need in &clients.needs {
                table.rows.push(vec![
                    need.kind.column().into(),
                    format!("{} × {}", need.count, need.unit),
                    rate(sizing, Some(need.carries)),
                    format!("{:.0} %", need.headroom * 100.0),
                    need.have.to_string(),
                ]);
            }
            tables.push(table);
        }
        None => {}
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_as_the_tables_print_them() {
        assert_eq!(grouped(11_200), "11,200");
        assert_eq!(grouped(560), "560");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }
}
