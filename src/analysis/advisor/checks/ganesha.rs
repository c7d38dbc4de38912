//! NFS-Ganesha's rules (G01–G04), judged on ganesha.conf blocks.

use super::super::read::ganesha::Block;
use super::super::read::{boolean, number};
use super::super::{Hit, Inputs};
use super::Check;

pub const CHECKS: &[(&str, Check)] = &[("G01", g01), ("G02", g02), ("G03", g03), ("G04", g04)];

/// The blocks of these names anywhere in the configuration.
fn blocks<'a>(inputs: &'a Inputs, names: &'a [&'a str]) -> Vec<&'a Block> {
    let Some(conf) = &inputs.ganesha else {
        return Vec::new();
    };
    names.iter().flat_map(|n| conf.root.all(n)).collect()
}

fn g01(inputs: &Inputs) -> Vec<Hit> {
    blocks(inputs, &["NFS_CORE_PARAM"])
        .into_iter()
        .flat_map(|b| &b.settings)
        .filter(|s| {
            s.key.eq_ignore_ascii_case("Nb_Worker")
                || s.key.to_ascii_lowercase().starts_with("dispatch_max_reqs")
        })
        .map(|s| Hit::at(&s.at, format!("{} = {} in NFS_CORE_PARAM", s.key, s.value)))
        .collect()
}

const EXPORTS: [&str; 2] = ["EXPORT", "EXPORT_DEFAULTS"];

fn g02(inputs: &Inputs) -> Vec<Hit> {
    blocks(inputs, &EXPORTS)
        .into_iter()
        .filter_map(|b| b.get("NFS_Commit"))
        .filter(|s| boolean(&s.value) == Some(true))
        .map(|s| Hit::at(&s.at, format!("NFS_Commit = {}", s.value)))
        .collect()
}

fn g03(inputs: &Inputs) -> Vec<Hit> {
    blocks(inputs, &["EXPORT", "EXPORT_DEFAULTS", "NFS_CORE_PARAM"])
        .into_iter()
        .flat_map(|b| {
            ["MaxRead", "MaxWrite", "PrefRead", "PrefWrite"]
                .into_iter()
                .filter_map(|k| b.get(k))
        })
        .filter(|s| number(&s.value).is_some_and(|n| n < 1 << 20))
        .map(|s| Hit::at(&s.at, format!("{} = {} is below 1 MiB", s.key, s.value)))
        .collect()
}

fn g04(inputs: &Inputs) -> Vec<Hit> {
    if inputs.ganesha.is_none() {
        return Vec::new();
    }
    let mut hits: Vec<Hit> = blocks(inputs, &EXPORTS)
        .into_iter()
        .filter_map(|b| b.get("Transports"))
        .filter(|s| s.value.to_ascii_uppercase().contains("UDP"))
        .map(|s| Hit::at(&s.at, format!("Transports = {}", s.value)))
        .collect();
    let enable_udp = blocks(inputs, &["NFS_CORE_PARAM"])
        .into_iter()
        .find_map(|b| b.get("Enable_UDP"));
    match enable_udp {
        Some(s) if boolean(&s.value) == Some(false) || s.value.eq_ignore_ascii_case("mount") => {}
        Some(s) => hits.push(Hit::at(&s.at, format!("Enable_UDP = {}", s.value))),
        None => hits.push(Hit::unwritten(
            "NFS_CORE_PARAM sets no Enable_UDP, so ganesha serves NFS over UDP too (the default)",
        )),
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::super::super::read::ganesha;
    use super::super::super::Inputs;
    use super::super::fixtures::assert_rule;

    fn conf(text: &str) -> Inputs {
        Inputs {
            ganesha: Some(ganesha::parse("ganesha.conf", text)),
            ..Inputs::default()
        }
    }

    #[test]
    fn every_ganesha_rule_applies_to_one_configuration_and_not_to_another() {
        let core = |body: &str| conf(&format!("NFS_CORE_PARAM {{ Enable_UDP = false; {body} }}"));
        assert_rule("G01", &core("Nb_Worker = 256;"), &core("Protocols = 4;"));
        assert_rule("G01", &core("Dispatch_Max_Reqs_Xprt = 512;"), &core(""));
        let export = |body: &str| {
            conf(&format!(
                "NFS_CORE_PARAM {{ Enable_UDP = false; }}\nEXPORT {{ Export_Id = 1; {body} }}"
            ))
        };
        assert_rule(
            "G02",
            &export("NFS_Commit = true;"),
            &export("NFS_Commit = false;"),
        );
        assert_rule("G03", &export("MaxRead = 65536;"), &export("MaxRead = 1M;"));
        assert_rule(
            "G04",
            &export("Transports = UDP, TCP;"),
            &export("Transports = TCP;"),
        );
        assert_rule(
            "G04",
            &conf("EXPORT { Transports = TCP; }"),
            &conf("NFS_CORE_PARAM { Enable_UDP = Mount; }\nEXPORT { Transports = TCP; }"),
        );
    }
}
