//! smb.conf, read the way Samba reads it: `#` and `;` start comment lines, a trailing backslash
//! continues a line, parameter names ignore case and spaces, synonyms name the same parameter
//! (some inverted: `writeable = yes` is `read only = no`), the last setting of a parameter in a
//! section wins, a share inherits what [global] sets. The output of `testparm -sv` is a valid
//! smb.conf that lists every default too; such a dump is recognised so that a default value is
//! not mistaken for a choice.

use super::{logical_lines, Located, Note};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

/// Samba 4.17's parameters and defaults, from its own `testparm -sv`.
const PARAMETERS: &str = include_str!("samba-4.17-parameters.txt");

/// Parameters added after 4.17 that real configurations may hold (name, first version).
const LATER: [(&str, &str); 4] = [
    ("smb3 directory leases", "4.22"),
    ("vfs mkdir use tmp name", "4.22"),
    ("server smb transports", "4.23"),
    ("client smb transports", "4.23"),
];

/// Other names Samba accepts for a parameter: (synonym, parameter, inverted boolean).
/// Found by feeding candidates to Samba 4.17's testparm and reading what it printed.
const SYNONYMS: [(&str, &str, bool); 38] = [
    ("allow hosts", "hosts allow", false),
    ("deny hosts", "hosts deny", false),
    ("bind dns directory", "binddns dir", false),
    ("browsable", "browseable", false),
    ("casesignames", "case sensitive", false),
    ("debug timestamp", "timestamp logs", false),
    ("debuglevel", "log level", false),
    ("debug level", "log level", false),
    ("enable spoolss", "disable spoolss", true),
    ("ldap password sync", "ldap passwd sync", false),
    ("lock dir", "lock directory", false),
    ("only guest", "guest only", false),
    ("prefered master", "preferred master", false),
    ("preload", "auto services", false),
    ("print ok", "printable", false),
    ("printcap", "printcap name", false),
    ("printer", "printer name", false),
    ("printername", "printer name", false),
    ("private directory", "private dir", false),
    ("public", "guest ok", false),
    ("root", "root directory", false),
    ("root dir", "root directory", false),
    ("vfs object", "vfs objects", false),
    ("winbind gid", "idmap gid", false),
    ("winbind uid", "idmap uid", false),
    ("writable", "read only", true),
    ("writeable", "read only", true),
    ("write ok", "read only", true),
    ("readonly", "read only", false),
    ("create mode", "create mask", false),
    ("directory mode", "directory mask", false),
    ("directory", "path", false),
    ("group", "force group", false),
    ("max protocol", "server max protocol", false),
    ("min protocol", "server min protocol", false),
    ("protocol", "server max protocol", false),
    ("smb encrypt", "server smb encrypt", false),
    ("socket address", "nbt client socket address", false),
];

/// Parameters Samba no longer has (name, the release that removed it). Samba ignores them;
/// the advisor's rules say what they once did.
pub const REMOVED: [(&str, &str); 4] = [
    ("read size", "3.0.2"),
    ("read prediction", "2.2"),
    ("read bmpx", "3.2.0"),
    ("write cache size", "4.12.0"),
];

/// A parameter's key as Samba compares them: case and white space do not count.
pub fn key(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

struct Knowledge {
    /// key → (canonical name, 4.17 default)
    known: HashMap<String, (&'static str, &'static str)>,
    /// key → (canonical name, inverted)
    synonyms: HashMap<String, (&'static str, bool)>,
}

fn knowledge() -> &'static Knowledge {
    static KNOWLEDGE: OnceLock<Knowledge> = OnceLock::new();
    KNOWLEDGE.get_or_init(|| {
        let mut known = HashMap::new();
        for line in PARAMETERS.lines().filter(|l| !l.starts_with('#')) {
            let (name, default) = line.split_once(" =").unwrap_or((line, ""));
            known.insert(key(name), (name, default.trim()));
        }
        for (name, _) in LATER {
            known.insert(key(name), (name, ""));
        }
        let synonyms = SYNONYMS
            .iter()
            .map(|&(alias, name, inverted)| (key(alias), (name, inverted)))
            .collect();
        Knowledge { known, synonyms }
    })
}

/// Samba 4.17's default for a parameter (as testparm prints it), if it is one Samba knows.
pub fn default_of(name: &str) -> Option<&'static str> {
    knowledge().known.get(&key(name)).map(|&(_, d)| d)
}

/// The release that removed a parameter Samba no longer knows.
pub fn removed_in(name: &str) -> Option<&'static str> {
    REMOVED
        .iter()
        .find(|(removed, _)| key(removed) == key(name))
        .map(|&(_, version)| version)
}

/// A Samba release, as `smbd -V` or `testparm -V` print it ("Version 4.17.12-Debian").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SambaVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl SambaVersion {
    pub const fn new(major: u32, minor: u32) -> SambaVersion {
        SambaVersion {
            major,
            minor,
            patch: 0,
        }
    }

    pub fn parse(text: &str) -> Result<SambaVersion, String> {
        let word = text
            .split_whitespace()
            .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
            .ok_or_else(|| format!("no Samba version in \"{}\"", text.trim()))?;
        let mut parts = word
            .split(|c: char| !c.is_ascii_digit())
            .map(|p| p.parse::<u32>());
        let bad = || format!("\"{}\" is not a Samba version such as 4.17.12", text.trim());
        let major = parts.next().and_then(Result::ok).ok_or_else(bad)?;
        let minor = parts.next().and_then(Result::ok).ok_or_else(bad)?;
        let patch = parts.next().and_then(Result::ok).unwrap_or(0);
        Ok(SambaVersion {
            major,
            minor,
            patch,
        })
    }
}

impl fmt::Display for SambaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// One parameter as set: its canonical name, the value it gives (inverted synonyms already
/// turned around), and the line that set it last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub value: String,
    pub at: Located,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// As written, without brackets; "global" for [global] (also when absent).
    pub name: String,
    pub params: Vec<Param>,
}

impl Section {
    pub fn is_global(&self) -> bool {
        self.name.eq_ignore_ascii_case("global")
    }

    /// The parameter as set in this section (by any of its names).
    pub fn get(&self, name: &str) -> Option<&Param> {
        let wanted = key(name);
        self.params.iter().find(|p| key(&p.name) == wanted)
    }
}

/// A whole configuration: [global] first, then the shares in file order.
#[derive(Debug, Clone)]
pub struct SmbConf {
    pub origin: String,
    pub sections: Vec<Section>,
    pub notes: Vec<Note>,
    /// The file is a full dump (`testparm -sv`): values equal to the default are not choices.
    pub dump: bool,
}

/// Includes deeper than this are not followed (Samba stops too, at a loop).
const MAX_INCLUDE_DEPTH: usize = 8;

impl SmbConf {
    /// Reads a configuration from text; `origin` names it in findings. Included files are read
    /// when they exist.
    pub fn parse(origin: &str, text: &str) -> SmbConf {
        let mut conf = SmbConf {
            origin: origin.to_string(),
            sections: vec![Section {
                name: "global".into(),
                params: Vec::new(),
            }],
            notes: Vec::new(),
            dump: false,
        };
        let mut current = 0;
        conf.read(origin, text, &mut current, 0);
        conf.dump = conf.sections[0].params.len() >= 200;
        conf
    }

    fn read(&mut self, origin: &str, text: &str, current: &mut usize, depth: usize) {
        for (number, line) in logical_lines(text, &['#', ';'], true) {
            let at = Located::new(origin, number, &line);
            if let Some(name) = line.strip_prefix('[') {
                let Some(name) = name.trim_end().strip_suffix(']') else {
                    self.note(
                        at,
                        "a section header without its closing ']'; Samba ignores it",
                    );
                    continue;
                };
                *current = self.section(name.trim());
                continue;
            }
            let Some((written, value)) = line.split_once('=') else {
                self.note(at, "not a \"parameter = value\" line; Samba ignores it");
                continue;
            };
            let (written, value) = (written.trim(), value.trim());
            if key(written) == "include" {
                self.include(&at, value, current, depth);
                continue;
            }
            self.set(*current, written, value, at);
        }
    }

    fn include(&mut self, at: &Located, path: &str, current: &mut usize, depth: usize) {
        if path.is_empty() {
            return; // testparm -sv prints the empty default
        }
        if path.contains('%') || depth >= MAX_INCLUDE_DEPTH {
            let why = "an include that depends on the client (or nests too deep) is not followed";
            self.note(at.clone(), why);
            return;
        }
        match std::fs::read_to_string(Path::new(path)) {
            Ok(text) => self.read(path, &text, current, depth + 1),
            Err(e) => self.note(
                at.clone(),
                &format!("the included file cannot be read: {e}"),
            ),
        }
    }

    fn section(&mut self, name: &str) -> usize {
        if let Some(i) = self
            .sections
            .iter()
            .position(|s| s.name.eq_ignore_ascii_case(name))
        {
            return i;
        }
        self.sections.push(Section {
            name: name.to_string(),
            params: Vec::new(),
        });
        self.sections.len() - 1
    }

    fn set(&mut self, section: usize, written: &str, value: &str, at: Located) {
        let knowledge = knowledge();
        let written_key = key(written);
        let (name, value) = if let Some(&(name, _)) = knowledge.known.get(&written_key) {
            (name.to_string(), value.to_string())
        } else if let Some(&(name, inverted)) = knowledge.synonyms.get(&written_key) {
            let value = match (inverted, super::boolean(value)) {
                (true, Some(b)) => if b { "no" } else { "yes" }.to_string(),
                _ => value.to_string(),
            };
            (name.to_string(), value)
        } else if written.contains(':') {
            // parametric options ("idmap config * : backend", "vfs_module:option")
            (written.to_string(), value.to_string())
        } else {
            if removed_in(written).is_none() {
                let hint = knowledge
                    .known
                    .iter()
                    .filter(|(k, _)| k.starts_with(&written_key))
                    .map(|(_, (name, _))| *name)
                    .min_by_key(|name| (name.len(), *name))
                    .map(|name| format!(" (did you mean \"{name}\"?)"))
                    .unwrap_or_default();
                let message =
                    format!("\"{written}\" is not a Samba parameter{hint}; Samba ignores it");
                self.note(at.clone(), &message);
            }
            (written.to_string(), value.to_string())
        };
        let params = &mut self.sections[section].params;
        if let Some(i) = params.iter().position(|p| key(&p.name) == key(&name)) {
            let earlier = params.remove(i);
            let section_name = self.sections[section].name.clone();
            let message = format!(
                "\"{name}\" is set again in [{section_name}] (first at line {}): the last one wins",
                earlier.at.line
            );
            self.note(at.clone(), &message);
        }
        self.sections[section]
            .params
            .push(Param { name, value, at });
    }

    fn note(&mut self, at: Located, message: &str) {
        self.notes.push(Note {
            at,
            message: message.to_string(),
        });
    }

    pub fn global(&self) -> &Section {
        &self.sections[0]
    }

    /// The shares (every section but [global]).
    pub fn shares(&self) -> impl Iterator<Item = &Section> {
        self.sections.iter().skip(1)
    }

    /// The parameter as set by choice in a section: in a full dump, a value equal to the
    /// default (in [global]) or to [global]'s value (in a share) is no choice.
    pub fn chosen<'a>(&'a self, section: &'a Section, name: &str) -> Option<&'a Param> {
        let param = section.get(name)?;
        if self.dump {
            let inherited = if section.is_global() {
                default_of(name).map(str::to_string)
            } else {
                self.global()
                    .get(name)
                    .map(|p| p.value.clone())
                    .or_else(|| default_of(name).map(str::to_string))
            };
            if inherited.is_some_and(|v| v.eq_ignore_ascii_case(&param.value)) {
                return None;
            }
        }
        Some(param)
    }

    /// Every choice of a parameter, in [global] and in each share.
    pub fn choices<'a>(&'a self, name: &'a str) -> impl Iterator<Item = (&'a Section, &'a Param)> {
        self.sections
            .iter()
            .filter_map(move |s| self.chosen(s, name).map(|p| (s, p)))
    }

    /// The value a share gets: its own, else [global]'s (choices only).
    pub fn in_share<'a>(&'a self, share: &'a Section, name: &str) -> Option<&'a Param> {
        self.chosen(share, name)
            .or_else(|| self.chosen(self.global(), name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_case_and_spaces_and_synonyms_name_one_parameter() {
        let conf = SmbConf::parse(
            "smb.conf",
            "[global]\n  LOG   Level = 1\n\tmax protocol = SMB2\n\
             debuglevel = 2\n[data]\n  writeable = yes\n  Oplocks=No\n",
        );
        let global = conf.global();
        assert_eq!(global.get("log level").unwrap().value, "2");
        assert_eq!(global.get("server max protocol").unwrap().value, "SMB2");
        let data = &conf.sections[1];
        assert_eq!(data.get("read only").unwrap().value, "no");
        assert_eq!(data.get("oplocks").unwrap().at.line, 7);
        let duplicate = &conf.notes[0];
        assert_eq!(duplicate.at.line, 4);
        assert!(
            duplicate.message.contains("the last one wins"),
            "{duplicate:?}"
        );
        assert!(
            duplicate.message.contains("first at line 2"),
            "{duplicate:?}"
        );
    }

    #[test]
    fn continuation_lines_comments_and_headers() {
        let text = "; old comment\n# another\n[global]\n  socket options = TCP_NODELAY \\\n    \
                    SO_RCVBUF=65536\n[Homes]\n  browseable = no\n[homes]\n  read only = no\n";
        let conf = SmbConf::parse("f", text);
        let options = conf.global().get("socket options").unwrap();
        assert_eq!(options.value, "TCP_NODELAY  SO_RCVBUF=65536");
        assert_eq!(options.at.line, 4);
        assert_eq!(
            conf.sections.len(),
            2,
            "one [homes] section, whatever its case"
        );
        assert!(conf.notes.is_empty());
    }

    #[test]
    fn unknown_and_removed_parameters_are_told_apart() {
        let conf = SmbConf::parse(
            "f",
            "[global]\nlpq cache = 30\nread size = 16384\nSocket_Options = x\nbogus line\n",
        );
        let messages: Vec<&str> = conf.notes.iter().map(|n| n.message.as_str()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages[0].contains("\"lpq cache\" is not a Samba parameter"));
        assert!(messages[0].contains("did you mean \"lpq cache time\""));
        assert!(messages[1].contains("\"Socket_Options\" is not a Samba parameter"));
        assert!(messages[2].contains("not a \"parameter = value\" line"));
        assert_eq!(conf.global().get("read size").unwrap().value, "16384");
    }

    #[test]
    fn share_values_fall_back_to_global() {
        let conf = SmbConf::parse("f", "[global]\noplocks = no\n[a]\n[b]\noplocks = yes\n");
        let a = &conf.sections[1];
        let b = &conf.sections[2];
        assert_eq!(conf.in_share(a, "oplocks").unwrap().value, "no");
        assert_eq!(conf.in_share(b, "oplocks").unwrap().value, "yes");
        assert_eq!(conf.choices("oplocks").count(), 2);
    }

    #[test]
    fn a_testparm_dump_tells_defaults_from_choices() {
        let mut text = String::from("# Global parameters\n[global]\n");
        for line in PARAMETERS.lines().filter(|l| !l.starts_with('#')) {
            let line = match line {
                "read raw = Yes" => "read raw = No",
                other => other,
            };
            text.push('\t');
            text.push_str(line);
            text.push('\n');
        }
        text.push_str("\n[share]\n\toplocks = Yes\n\tstrict sync = No\n");
        let conf = SmbConf::parse("dump", &text);
        assert!(conf.dump);
        assert!(conf.notes.is_empty(), "{:?}", conf.notes.first());
        let global = conf.global();
        assert!(conf.chosen(global, "write raw").is_none(), "default");
        assert_eq!(conf.chosen(global, "read raw").unwrap().value, "No");
        let share = &conf.sections[1];
        assert!(conf.chosen(share, "oplocks").is_none(), "as [global]");
        assert_eq!(conf.chosen(share, "strict sync").unwrap().value, "No");
    }

    #[test]
    fn versions_as_samba_prints_them() {
        let v = SambaVersion::parse("Version 4.17.12-Debian").unwrap();
        assert_eq!(
            v,
            SambaVersion {
                major: 4,
                minor: 17,
                patch: 12
            }
        );
        assert!(SambaVersion::parse("4.6").unwrap() < SambaVersion::new(4, 7));
        assert!(SambaVersion::parse("four").is_err());
    }
}
