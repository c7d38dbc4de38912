//! The FTP servers' rules (F01–F07), judged on vsftpd.conf and proftpd.conf.

use super::super::read::keyvalue::KeyValues;
use super::super::read::{boolean, number};
use super::super::{Hit, Inputs};
use super::Check;

pub const CHECKS: &[(&str, Check)] = &[
    ("F01", f01),
    ("F02", f02),
    ("F03", f03),
    ("F04", f04),
    ("F05", f05),
    ("F06", f06),
    ("F07", f07),
];

/// Hits for the keys of a file whose value makes `bad` true.
fn keys_where(file: Option<&KeyValues>, keys: &[&str], bad: impl Fn(&str) -> bool) -> Vec<Hit> {
    let Some(file) = file else {
        return Vec::new();
    };
    keys.iter()
        .filter_map(|k| file.get(k))
        .filter(|s| bad(&s.value))
        .map(|s| Hit::at(&s.at, format!("{} {}", s.key, s.value)))
        .collect()
}

fn yes(value: &str) -> bool {
    boolean(value) == Some(true)
}

fn no(value: &str) -> bool {
    boolean(value) == Some(false)
}

fn f01(inputs: &Inputs) -> Vec<Hit> {
    keys_where(inputs.vsftpd.as_ref(), &["use_sendfile"], no)
}

fn f02(inputs: &Inputs) -> Vec<Hit> {
    keys_where(
        inputs.vsftpd.as_ref(),
        &["anon_max_rate", "local_max_rate"],
        |v| number(v).is_some_and(|n| n > 0),
    )
}

fn f03(inputs: &Inputs) -> Vec<Hit> {
    let Some(vsftpd) = &inputs.vsftpd else {
        return Vec::new();
    };
    match vsftpd.get("isolate_network") {
        Some(s) if no(&s.value) => Vec::new(),
        Some(s) => vec![Hit::at(&s.at, format!("isolate_network={}", s.value))],
        None => vec![Hit::unwritten(
            "isolate_network is not set: every session gets a new network namespace (the default)",
        )],
    }
}

fn f04(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = keys_where(inputs.vsftpd.as_ref(), &["reverse_lookup_enable"], yes);
    if let Some(proftpd) = &inputs.proftpd {
        for directive in ["usereversedns", "identlookups"] {
            match proftpd.get(directive) {
                Some(s) if no(&s.value) => {}
                Some(s) => hits.push(Hit::at(&s.at, format!("{} {}", s.key, s.value))),
                None => hits.push(Hit::unwritten(format!(
                    "{directive} is not turned off (it is on by default)"
                ))),
            }
        }
    }
    hits
}

fn f05(inputs: &Inputs) -> Vec<Hit> {
    keys_where(inputs.proftpd.as_ref(), &["socketoptions"], |v| {
        let v = v.to_ascii_lowercase();
        v.contains("sndbuf") || v.contains("rcvbuf")
    })
}

fn f06(inputs: &Inputs) -> Vec<Hit> {
    keys_where(inputs.proftpd.as_ref(), &["usesendfile"], no)
}

fn f07(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = keys_where(
        inputs.vsftpd.as_ref(),
        &["log_ftp_protocol", "text_userdb_names", "ls_recurse_enable"],
        yes,
    );
    hits.extend(keys_where(
        inputs.proftpd.as_ref(),
        &["allowoverride", "wtmplog"],
        yes,
    ));
    hits
}

#[cfg(test)]
mod tests {
    use super::super::super::read::keyvalue;
    use super::super::super::Inputs;
    use super::super::fixtures::assert_rule;

    fn vsftpd(text: &str) -> Inputs {
        Inputs {
            vsftpd: Some(keyvalue::parse_vsftpd("vsftpd.conf", text)),
            ..Inputs::default()
        }
    }

    fn proftpd(text: &str) -> Inputs {
        Inputs {
            proftpd: Some(keyvalue::parse_proftpd("proftpd.conf", text)),
            ..Inputs::default()
        }
    }

    #[test]
    fn every_ftp_rule_applies_to_one_configuration_and_not_to_another() {
        assert_rule(
            "F01",
            &vsftpd("use_sendfile=NO"),
            &vsftpd("use_sendfile=YES"),
        );
        assert_rule(
            "F02",
            &vsftpd("local_max_rate=100000"),
            &vsftpd("local_max_rate=0"),
        );
        assert_rule("F03", &vsftpd("listen=YES"), &vsftpd("isolate_network=NO"));
        assert_rule(
            "F04",
            &vsftpd("reverse_lookup_enable=YES"),
            &vsftpd("reverse_lookup_enable=NO"),
        );
        assert_rule(
            "F04",
            &proftpd("UseReverseDNS off"),
            &proftpd("UseReverseDNS off\nIdentLookups off"),
        );
        assert_rule(
            "F05",
            &proftpd("SocketOptions rcvbuf 16384 sndbuf 16384"),
            &proftpd("SocketOptions keepalive on"),
        );
        assert_rule(
            "F06",
            &proftpd("UseSendfile off"),
            &proftpd("UseSendfile on"),
        );
        assert_rule(
            "F07",
            &vsftpd("ls_recurse_enable=YES"),
            &vsftpd("ls_recurse_enable=NO"),
        );
        assert_rule(
            "F07",
            &proftpd("AllowOverride on"),
            &proftpd("AllowOverride off"),
        );
    }
}
