//! The flat `key = value` files: vsftpd.conf, sysctl dumps and sysctl.conf files (Linux and
//! FreeBSD spellings), nfs.conf (INI sections), and proftpd.conf (`Directive value` lines).
//! The last setting of a key wins, and a repeated key is noted.

use super::{logical_lines, Located, Note, Setting};

#[derive(Debug, Clone, Default)]
pub struct KeyValues {
    pub origin: String,
    pub settings: Vec<Setting>,
    pub notes: Vec<Note>,
    /// The system's values (a `sysctl -a` dump, or read from /proc/sys) rather than choices
    /// written in a file: keys that merely exist are no choice.
    pub dump: bool,
}

impl KeyValues {
    fn new(origin: &str) -> KeyValues {
        KeyValues {
            origin: origin.to_string(),
            ..KeyValues::default()
        }
    }

    /// The last setting of a key (keys as normalised by the reader).
    pub fn get(&self, key: &str) -> Option<&Setting> {
        self.settings.iter().rev().find(|s| s.key == key)
    }

    pub fn value(&self, key: &str) -> Option<&str> {
        self.get(key).map(|s| s.value.as_str())
    }

    /// The value as a number (the first of several, as `tcp_rmem` has three).
    pub fn number(&self, key: &str) -> Option<u64> {
        self.value(key)?
            .split_whitespace()
            .next()
            .and_then(super::number)
    }

    /// The n-th of the value's white-space separated numbers.
    pub fn nth(&self, key: &str, n: usize) -> Option<u64> {
        self.value(key)?
            .split_whitespace()
            .nth(n)
            .and_then(super::number)
    }

    fn push(&mut self, key: String, value: String, at: Located, repeat_note: bool) {
        if repeat_note {
            if let Some(earlier) = self.get(&key) {
                let message = format!(
                    "{key} is set again (first at line {}): the last one wins",
                    earlier.at.line
                );
                self.notes.push(Note {
                    at: at.clone(),
                    message,
                });
            }
        }
        self.settings.push(Setting { key, value, at });
    }

    fn note(&mut self, at: Located, message: &str) {
        self.notes.push(Note {
            at,
            message: message.to_string(),
        });
    }
}

/// A sysctl dump (`sysctl -a`: Linux `key = value`, FreeBSD `key: value`) or a sysctl.conf
/// (`key=value`, `net/ipv4/x = 1`, a leading `-` to ignore errors).
pub fn parse_sysctl(origin: &str, text: &str) -> KeyValues {
    let mut kv = KeyValues::new(origin);
    for (number, line) in logical_lines(text, &['#', ';'], false) {
        let at = Located::new(origin, number, &line);
        let split = match (line.find('='), line.find(": ")) {
            (Some(e), Some(c)) if c < e => line.split_at(c),
            (Some(e), _) => line.split_at(e),
            (None, Some(c)) => line.split_at(c),
            (None, None) => {
                kv.note(at, "not a \"key = value\" line");
                continue;
            }
        };
        let key = split.0.trim().trim_start_matches('-').replace('/', ".");
        let value = split.1[1..].trim().to_string();
        kv.push(key, value, at, true);
    }
    kv.dump = kv.settings.len() > 200;
    kv
}

/// vsftpd.conf: `option=value`, `#` comments. vsftpd itself refuses spaces around `=`.
pub fn parse_vsftpd(origin: &str, text: &str) -> KeyValues {
    let mut kv = KeyValues::new(origin);
    for (number, line) in logical_lines(text, &['#'], false) {
        let at = Located::new(origin, number, &line);
        let Some((key, value)) = line.split_once('=') else {
            kv.note(at, "not an \"option=value\" line; vsftpd refuses to start");
            continue;
        };
        if key.ends_with(char::is_whitespace) || value.starts_with(char::is_whitespace) {
            kv.note(
                at.clone(),
                "vsftpd does not allow spaces around '=': it refuses to start on this line",
            );
        }
        kv.push(
            key.trim().to_ascii_lowercase(),
            value.trim().to_string(),
            at,
            true,
        );
    }
    kv
}

/// An INI file (nfs.conf): keys become `section.key`, lower case.
pub fn parse_ini(origin: &str, text: &str) -> KeyValues {
    let mut kv = KeyValues::new(origin);
    let mut section = String::new();
    for (number, line) in logical_lines(text, &['#', ';'], false) {
        let at = Located::new(origin, number, &line);
        if let Some(name) = line.strip_prefix('[') {
            section = name.trim_end_matches(']').trim().to_ascii_lowercase();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            kv.note(at, "not a \"key = value\" line");
            continue;
        };
        let key = format!("{section}.{}", key.trim().to_ascii_lowercase());
        kv.push(key, value.trim().to_string(), at, true);
    }
    kv
}

/// proftpd.conf: `Directive value…` lines, directives in any case (kept lower case), sections
/// such as `<Anonymous ~ftp>` ignored as containers. A directive may rightly appear in several
/// contexts, so repeats are not noted.
pub fn parse_proftpd(origin: &str, text: &str) -> KeyValues {
    let mut kv = KeyValues::new(origin);
    for (number, line) in logical_lines(text, &['#'], true) {
        if line.starts_with('<') {
            continue;
        }
        let at = Located::new(origin, number, &line);
        let (directive, value) = line.split_once(char::is_whitespace).unwrap_or((&line, ""));
        kv.push(
            directive.to_ascii_lowercase(),
            value.trim().to_string(),
            at,
            false,
        );
    }
    kv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysctl_in_linux_freebsd_and_conf_spellings() {
        let text = "net.ipv4.tcp_rmem = 4096\t131072\t6291456\n\
                    net.inet.tcp.sendbuf_max: 2097152\n# tuned\n-net/core/rmem_max=8388608\n\
                    kern.hostname: a=b\nnet.core.rmem_max = 212992\nnonsense\n";
        let kv = parse_sysctl("sysctl", text);
        assert_eq!(kv.nth("net.ipv4.tcp_rmem", 2), Some(6291456));
        assert_eq!(kv.number("net.inet.tcp.sendbuf_max"), Some(2097152));
        assert_eq!(kv.value("kern.hostname"), Some("a=b"));
        assert_eq!(kv.number("net.core.rmem_max"), Some(212992));
        assert_eq!(kv.get("net.core.rmem_max").unwrap().at.line, 6);
        let messages: Vec<&str> = kv.notes.iter().map(|n| n.message.as_str()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("first at line 4"));
        assert!(messages[1].contains("not a \"key = value\" line"));
    }

    #[test]
    fn vsftpd_options_and_its_strictness() {
        let text = "# vsftpd\nuse_sendfile=NO\nLocal_Max_Rate = 100000\nanonymous_enable\n";
        let kv = parse_vsftpd("vsftpd.conf", text);
        assert_eq!(kv.value("use_sendfile"), Some("NO"));
        assert_eq!(kv.value("local_max_rate"), Some("100000"));
        assert_eq!(kv.notes.len(), 2);
        assert!(kv.notes[0].message.contains("spaces around '='"));
    }

    #[test]
    fn ini_sections_and_proftpd_directives() {
        let ini = parse_ini(
            "nfs.conf",
            "[general]\n[nfsd]\n threads = 8\n# udp=y\nUDP = y\n",
        );
        assert_eq!(ini.value("nfsd.threads"), Some("8"));
        assert_eq!(ini.value("nfsd.udp"), Some("y"));
        let pro = parse_proftpd(
            "proftpd.conf",
            "SocketOptions rcvbuf 16384 sndbuf 16384\n<Anonymous ~ftp>\n  UseSendfile off\n</Anonymous>\n",
        );
        assert_eq!(
            pro.value("socketoptions"),
            Some("rcvbuf 16384 sndbuf 16384")
        );
        assert_eq!(pro.value("usesendfile"), Some("off"));
    }
}
