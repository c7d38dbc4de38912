//! knfsd exports: /etc/exports (`/path host(opts) …`, `-opts` defaults for every host, `\`
//! continuations, quoted paths) and the output of `exportfs -v`, which moves the hosts of a
//! long path to an indented line of their own.

use super::{Located, Note};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    /// The host, network or netgroup; "*" when the spec names none.
    pub host: String,
    pub options: Vec<String>,
}

impl Client {
    pub fn has(&self, option: &str) -> bool {
        self.options.iter().any(|o| o == option)
    }

    /// The export is read-write for this client (read-only is the default).
    pub fn read_write(&self) -> bool {
        self.options
            .iter()
            .rev()
            .find(|o| *o == "rw" || *o == "ro")
            .is_some_and(|o| o == "rw")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    pub path: String,
    pub clients: Vec<Client>,
    pub at: Located,
}

pub fn parse(origin: &str, text: &str) -> (Vec<Export>, Vec<Note>) {
    let mut exports: Vec<Export> = Vec::new();
    let mut notes = Vec::new();
    for (number, line) in super::logical_lines(text, &['#'], true) {
        let at = Located::new(origin, number, &line);
        let mut words = words(&line);
        if !line.starts_with(['/', '"']) {
            // exportfs -v: the hosts of the path above, on a line of their own
            match exports.last_mut() {
                Some(last) if last.clients.is_empty() => {
                    last.clients = clients(&words, &[]);
                    last.at.text = format!("{} {}", last.at.text, at.text);
                }
                _ => notes.push(Note {
                    at,
                    message: "an export line must start with the exported path".into(),
                }),
            }
            continue;
        }
        let path = words.remove(0);
        let defaults: Vec<String> = match words.first() {
            Some(w) if w.starts_with('-') => options(&words.remove(0)[1..]),
            _ => Vec::new(),
        };
        exports.push(Export {
            path,
            clients: clients(&words, &defaults),
            at,
        });
    }
    (exports, notes)
}

/// Splits on white space outside double quotes.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn options(text: &str) -> Vec<String> {
    text.split(',')
        .map(|o| o.trim().to_ascii_lowercase())
        .filter(|o| !o.is_empty())
        .collect()
}

fn clients(words: &[String], defaults: &[String]) -> Vec<Client> {
    words
        .iter()
        .map(|spec| {
            let (host, own) = match spec.split_once('(') {
                Some((host, rest)) => (host, options(rest.trim_end_matches(')'))),
                None => (spec.as_str(), Vec::new()),
            };
            let host = match host {
                "" | "<world>" => "*",
                h => h,
            };
            Client {
                host: host.to_string(),
                options: defaults.iter().cloned().chain(own).collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etc_exports_with_defaults_continuations_and_quotes() {
        let text = "# exports\n/srv/a  10.0.0.0/24(rw,async) \\\n   *(ro)\n\
                    \"/srv/my share\" -rw,no_wdelay host1 host2(sync)\n";
        let (exports, notes) = parse("/etc/exports", text);
        assert!(notes.is_empty());
        assert_eq!(exports.len(), 2);
        let a = &exports[0];
        assert_eq!(a.at.line, 2);
        assert_eq!(a.clients.len(), 2);
        assert!(a.clients[0].read_write() && a.clients[0].has("async"));
        assert!(!a.clients[1].read_write());
        let b = &exports[1];
        assert_eq!(b.path, "/srv/my share");
        assert!(b
            .clients
            .iter()
            .all(|c| c.has("no_wdelay") && c.read_write()));
        assert!(b.clients[1].has("sync"));
    }

    #[test]
    fn exportfs_v_with_hosts_on_their_own_line() {
        let text =
            "/srv/a/very/long/path/that/wraps\n\t\t<world>(async,wdelay,hide,rw,root_squash)\n\
                    /srv/b        \t192.168.1.0/24(sync,wdelay,ro)\n";
        let (exports, notes) = parse("exportfs -v", text);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(exports.len(), 2);
        assert_eq!(exports[0].clients[0].host, "*");
        assert!(exports[0].clients[0].has("async") && exports[0].clients[0].read_write());
        assert_eq!(exports[1].clients[0].host, "192.168.1.0/24");
    }
}
