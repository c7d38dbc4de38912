//! The advisor's findings for a person: grouped by severity, worst first; each with the line
//! that caused it, what was seen, why it matters, what to do, what current software does, the
//! source, and the sweep that measures it when its effect must be measured.

use crate::analysis::advisor::{Advice, Finding, Severity};
use std::fmt::Write;

/// Text width the explanations are wrapped to.
const WIDTH: usize = 100;

pub fn render(advice: &Advice) -> String {
    let mut out = String::new();
    if let Some(version) = &advice.samba_version {
        let _ = writeln!(out, "Samba: {version}");
    }
    if advice.findings.is_empty() {
        let _ = writeln!(
            out,
            "No findings: nothing read breaks a rule of the fact base."
        );
    }
    for severity in Severity::ALL {
        let group: Vec<&Finding> = advice
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .collect();
        if group.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{} ({})", severity.title(), group.len());
        // one block per rule: every place it applies, then its explanation once
        let mut ids: Vec<&str> = group.iter().map(|f| f.id.as_str()).collect();
        ids.dedup();
        for id in ids {
            let hits: Vec<&Finding> = group.iter().copied().filter(|f| f.id == id).collect();
            rule_block(&mut out, &hits);
        }
    }
    if !advice.notes.is_empty() {
        let _ = writeln!(out, "\nWhile reading ({})", advice.notes.len());
        for note in &advice.notes {
            let _ = writeln!(out, "  {}\n      {}", note.at, note.message);
        }
    }
    let _ = writeln!(out, "\nRead: {}", list(&advice.read));
    if !advice.skipped.is_empty() {
        let _ = writeln!(out, "Skipped: {}", list(&advice.skipped));
    }
    out
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "nothing".to_string()
    } else {
        items.join("; ")
    }
}

fn rule_block(out: &mut String, hits: &[&Finding]) {
    let first = hits[0];
    let _ = writeln!(
        out,
        "  {} {} ({})",
        first.id, first.setting, first.component
    );
    for hit in hits {
        if let Some(at) = &hit.at {
            let _ = writeln!(out, "      at      {at}");
        }
        labelled(out, "seen", &hit.detail);
    }
    for (label, text) in [
        ("why", first.effect.as_str()),
        ("do", first.recommendation.as_str()),
        ("today", first.status.as_str()),
        ("source", first.source.as_str()),
    ] {
        if !text.is_empty() {
            labelled(out, label, text);
        }
    }
    if let Some(sweep) = &first.sweep {
        let _ = writeln!(out, "      measure {sweep}");
    }
}

/// The findings a result document holds, one line each, for the end of a run's report.
pub fn summary(findings: &[serde_json::Value]) -> String {
    let mut out = format!(
        "advice ({} finding(s) on the server's smb.conf):\n",
        findings.len()
    );
    for f in findings {
        let text = |key: &str| f[key].as_str().unwrap_or("").to_string();
        let at = match f["at"]["line"].as_u64() {
            Some(line) => format!(" line {line}:"),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "  [{}] {}{at} {} — {}",
            text("severity"),
            text("id"),
            text("detail"),
            text("recommendation")
        );
    }
    out
}

/// "      label   text…" with the text wrapped under itself.
fn labelled(out: &mut String, label: &str, text: &str) {
    let indent = 14;
    let mut line = format!("      {label:<8}");
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > WIDTH {
            let _ = writeln!(out, "{line}");
            line = " ".repeat(indent);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    let _ = writeln!(out, "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::advisor::read::smb::SmbConf;
    use crate::analysis::advisor::{advise, Inputs};

    #[test]
    fn findings_come_grouped_worst_first_with_their_lines() {
        let inputs = Inputs {
            samba: Some(SmbConf::parse(
                "smb.conf",
                "[global]\nread raw = yes\nstrict sync = no\nlog level = 3\nbogus = 1\n",
            )),
            read: vec!["smb.conf: smb.conf".into()],
            ..Inputs::default()
        };
        let mut inputs = inputs;
        inputs.notes = inputs.samba.as_ref().unwrap().notes.clone();
        let text = render(&advise(&inputs));
        let safety = text.find("Data safety").unwrap();
        let minor = text.find("Performance, minor").unwrap();
        let obsolete = text.find("Obsolete").unwrap();
        assert!(safety < minor && minor < obsolete, "{text}");
        assert!(
            text.contains("      at      smb.conf:3: strict sync = no"),
            "{text}"
        );
        assert!(
            text.contains("measure sharebench sweep --lab --vary \"smb:log level="),
            "{text}"
        );
        assert!(
            text.contains("\"bogus\" is not a Samba parameter"),
            "{text}"
        );
        let two = advise(&Inputs {
            samba: Some(SmbConf::parse(
                "c",
                "[global]\nread raw = no\nwrite raw = no\n",
            )),
            ..Inputs::default()
        });
        let text2 = render(&two);
        assert_eq!(text2.matches("S04 read raw").count(), 1, "{text2}");
        assert_eq!(text2.matches("      at      c:").count(), 2, "{text2}");
        assert_eq!(text2.matches("      why").count(), 1, "{text2}");
        let values: Vec<serde_json::Value> = two
            .findings
            .iter()
            .map(|f| serde_json::to_value(f).unwrap())
            .collect();
        let short = summary(&values);
        assert!(short.starts_with("advice (2 finding(s)"), "{short}");
        assert!(
            short.contains("  [obsolete] S04 line 2: read raw = no in [global] — Delete"),
            "{short}"
        );
        assert!(
            text.lines()
                .all(|l| l.chars().count() <= WIDTH || l.contains("sweep")),
            "{text}"
        );
    }
}
