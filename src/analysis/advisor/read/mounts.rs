//! NFS mounts: lines of /proc/mounts (the options the kernel negotiated) or of /etc/fstab (the
//! options asked for), or one option string given on the command line. Other filesystems are
//! skipped. A mount option given twice takes its last value, as mount(8) does.

use super::{logical_lines, Located, Note};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub source: String,
    pub point: String,
    /// (option, value) in order; the last of a repeated option is the one that counts.
    pub options: Vec<(String, Option<String>)>,
    pub at: Located,
    /// From /proc/mounts (what was negotiated) rather than from fstab (what was asked).
    pub effective: bool,
}

impl Mount {
    /// The option's value (`Some(None)` for a flag such as `soft`), the last one written.
    pub fn option(&self, name: &str) -> Option<Option<&str>> {
        self.options
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_deref())
    }

    pub fn has(&self, name: &str) -> bool {
        self.option(name).is_some()
    }

    pub fn value(&self, name: &str) -> Option<&str> {
        self.option(name).flatten()
    }

    /// Mounted read-write: `ro` not given (read-write is the default).
    pub fn read_write(&self) -> bool {
        self.options
            .iter()
            .rev()
            .find(|(k, _)| k == "ro" || k == "rw")
            .is_none_or(|(k, _)| k == "rw")
    }

    /// The name to show: the mount point, or the source when there is none.
    pub fn name(&self) -> &str {
        if self.point.is_empty() {
            &self.source
        } else {
            &self.point
        }
    }
}

fn split_options(text: &str) -> Vec<(String, Option<String>)> {
    text.split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(|o| match o.split_once('=') {
            Some((k, v)) => (k.to_ascii_lowercase(), Some(v.to_string())),
            None => (o.to_ascii_lowercase(), None),
        })
        .collect()
}

fn repeated_options(mount: &Mount) -> Vec<Note> {
    let mut notes = Vec::new();
    for (i, (key, _)) in mount.options.iter().enumerate() {
        if mount.options[i + 1..].iter().any(|(k, _)| k == key) {
            notes.push(Note {
                at: mount.at.clone(),
                message: format!("option \"{key}\" is given more than once: the last one counts"),
            });
        }
    }
    notes
}

/// Reads the NFS lines of a mount table (/proc/mounts or fstab).
pub fn parse_table(origin: &str, text: &str) -> (Vec<Mount>, Vec<Note>) {
    let mut mounts = Vec::new();
    let mut notes = Vec::new();
    for (number, line) in logical_lines(text, &['#'], false) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let at = Located::new(origin, number, &line);
        if fields.len() < 3 {
            notes.push(Note {
                at,
                message: "a mount line needs at least source, mount point and type".into(),
            });
            continue;
        }
        if !matches!(fields[2], "nfs" | "nfs4") {
            continue;
        }
        let options = split_options(fields.get(3).copied().unwrap_or("defaults"));
        // the kernel adds addr= to every NFS mount it shows; nobody writes it in fstab
        let effective = options.iter().any(|(k, _)| k == "addr");
        let mount = Mount {
            source: unescape(fields[0]),
            point: unescape(fields[1]),
            options,
            at,
            effective,
        };
        notes.extend(repeated_options(&mount));
        mounts.push(mount);
    }
    (mounts, notes)
}

/// /proc/mounts writes a space in a path as \040.
fn unescape(field: &str) -> String {
    field.replace("\\040", " ").replace("\\011", "\t")
}

/// One mount's options as given on the command line (`--nfs-mount "rw,hard,rsize=…"`).
pub fn from_options(options: &str) -> (Mount, Vec<Note>) {
    let mount = Mount {
        source: String::new(),
        point: String::new(),
        options: split_options(options),
        at: Located::new("--nfs-mount", 0, options),
        effective: false,
    };
    let notes = repeated_options(&mount);
    (mount, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_mounts_keep_nfs_lines_with_negotiated_options() {
        let text = "proc /proc proc rw 0 0\n\
                    filer:/export /mnt/my\\040data nfs4 rw,relatime,vers=4.2,rsize=1048576,\
                    wsize=1048576,hard,proto=tcp,addr=10.0.0.2 0 0\n";
        let (mounts, notes) = parse_table("/proc/mounts", text);
        assert!(notes.is_empty());
        assert_eq!(mounts.len(), 1);
        let m = &mounts[0];
        assert!(m.effective);
        assert_eq!(m.point, "/mnt/my data");
        assert_eq!(m.value("rsize"), Some("1048576"));
        assert!(m.has("hard") && !m.has("soft"));
        assert!(m.read_write());
        assert_eq!(m.at.line, 2);
    }

    #[test]
    fn fstab_with_comments_repeats_and_read_only() {
        let text = "# /etc/fstab\nUUID=abc / ext4 defaults 0 1\n\n\
                    old:/home /home nfs ro,rsize=8192,soft,rsize=32768,intr 0 0\n";
        let (mounts, notes) = parse_table("/etc/fstab", text);
        assert_eq!(mounts.len(), 1);
        let m = &mounts[0];
        assert!(!m.effective);
        assert_eq!(m.value("rsize"), Some("32768"), "the last one counts");
        assert!(!m.read_write());
        assert_eq!(notes.len(), 1);
        assert!(notes[0]
            .message
            .contains("\"rsize\" is given more than once"));
    }

    #[test]
    fn options_from_the_command_line() {
        let (m, notes) = from_options("rw, hard,NOAC , timeo=14");
        assert!(notes.is_empty());
        assert!(m.has("noac"));
        assert_eq!(m.value("timeo"), Some("14"));
        assert_eq!(m.at.line, 0);
    }
}
