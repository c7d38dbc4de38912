//! ganesha.conf: blocks (`EXPORT { … }`, nested `FSAL { … }`) holding `Key = value;` settings,
//! `#` comments, names in any case, values that may be lists (`Transports = UDP, TCP;`) or
//! quoted. `%include` files are read when they exist.

use super::{Located, Note, Setting};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub name: String,
    pub at: Located,
    pub settings: Vec<Setting>,
    pub blocks: Vec<Block>,
}

impl Block {
    /// The setting's last value in this block (names compare without case).
    pub fn get(&self, key: &str) -> Option<&Setting> {
        self.settings
            .iter()
            .rev()
            .find(|s| s.key.eq_ignore_ascii_case(key))
    }

    /// Every block of this name, at any depth.
    pub fn all<'a>(&'a self, name: &'a str) -> Box<dyn Iterator<Item = &'a Block> + 'a> {
        Box::new(
            self.blocks
                .iter()
                .filter(move |b| b.name.eq_ignore_ascii_case(name))
                .chain(self.blocks.iter().flat_map(move |b| b.all(name))),
        )
    }
}

#[derive(Debug, Clone)]
pub struct GaneshaConf {
    /// The top level: a block named after the file holding the file's blocks.
    pub root: Block,
    pub notes: Vec<Note>,
}

pub fn parse(origin: &str, text: &str) -> GaneshaConf {
    let mut notes = Vec::new();
    let mut stack = vec![Block {
        name: origin.to_string(),
        at: Located::new(origin, 0, ""),
        settings: Vec::new(),
        blocks: Vec::new(),
    }];
    read(origin, text, &mut stack, &mut notes, 0);
    while stack.len() > 1 {
        let open = stack.pop().expect("more than the root");
        notes.push(Note {
            at: open.at.clone(),
            message: format!("block {} is never closed with '}}'", open.name),
        });
        stack.last_mut().expect("root").blocks.push(open);
    }
    GaneshaConf {
        root: stack.pop().expect("root"),
        notes,
    }
}

fn read(origin: &str, text: &str, stack: &mut Vec<Block>, notes: &mut Vec<Note>, depth: usize) {
    // a block's name may stand on a line of its own, its '{' on the next
    let mut named: Option<(String, Located)> = None;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let line = strip_comment(raw);
        if let Some(path) = line.trim().strip_prefix("%include") {
            let path = path.trim().trim_matches('"');
            match std::fs::read_to_string(path) {
                Ok(included) if depth < 8 => read(path, &included, stack, notes, depth + 1),
                _ => notes.push(Note {
                    at: Located::new(origin, number, raw),
                    message: format!("the included file {path} cannot be read"),
                }),
            }
            continue;
        }
        // a line may hold several pieces: "EXPORT { Export_Id = 1; Path = /x; }"
        let mut rest = line.trim();
        while !rest.is_empty() {
            let at = Located::new(origin, number, raw);
            if let Some(after) = rest.strip_prefix('}') {
                if stack.len() > 1 {
                    let done = stack.pop().expect("checked");
                    stack.last_mut().expect("root").blocks.push(done);
                } else {
                    notes.push(Note {
                        at,
                        message: "a '}' closes no block".into(),
                    });
                }
                rest = after.trim_start().trim_start_matches(';').trim_start();
                continue;
            }
            let brace = rest.find('{');
            let equals = rest.find('=');
            match (brace, equals) {
                (Some(b), e) if e.is_none_or(|e| b < e) => {
                    let (name, at) = match (rest[..b].trim(), named.take()) {
                        ("", Some((name, at))) => (name, at),
                        (name, _) => (name.to_string(), at),
                    };
                    stack.push(Block {
                        name,
                        at,
                        settings: Vec::new(),
                        blocks: Vec::new(),
                    });
                    rest = rest[b + 1..].trim_start();
                }
                (_, Some(e)) => {
                    let end = rest[e..].find([';', '}']).map_or(rest.len(), |i| e + i);
                    let key = rest[..e].trim().to_string();
                    let value = rest[e + 1..end].trim().trim_matches('"').to_string();
                    let block = stack.last_mut().expect("root");
                    if block.get(&key).is_some() {
                        notes.push(Note {
                            at: at.clone(),
                            message: format!(
                                "{key} is set again in block {}: the last one wins",
                                block.name
                            ),
                        });
                    }
                    block.settings.push(Setting { key, value, at });
                    rest = rest[end..]
                        .trim_start()
                        .trim_start_matches(';')
                        .trim_start();
                }
                _ if rest.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                    named = Some((rest.to_string(), at));
                    break;
                }
                _ => {
                    notes.push(Note {
                        at,
                        message: "neither a block nor a \"Key = value;\" setting".into(),
                    });
                    break;
                }
            }
        }
    }
}

/// Drops a `#` comment that is not inside quotes.
fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_settings_and_comments() {
        let text = "# ganesha\nNFS_CORE_PARAM {\n  nb_worker = 256; # old\n  Enable_UDP = false;\n}\n\
                    EXPORT\n{\n  Export_Id = 1;\n  Path = \"/srv/a#b\";\n  Transports = UDP, TCP;\n\
                    FSAL { Name = VFS; }\n}\nEXPORT { Export_Id = 2; Path = /srv/c; NFS_Commit = true; }\n";
        let conf = parse("ganesha.conf", text);
        assert!(conf.notes.is_empty(), "{:?}", conf.notes);
        let core = conf.root.all("nfs_core_param").next().unwrap();
        assert_eq!(core.get("Nb_Worker").unwrap().value, "256");
        assert_eq!(core.get("Nb_Worker").unwrap().at.line, 3);
        let exports: Vec<&Block> = conf.root.all("EXPORT").collect();
        assert_eq!(exports.len(), 2);
        assert_eq!(exports[0].get("path").unwrap().value, "/srv/a#b");
        assert_eq!(exports[0].get("transports").unwrap().value, "UDP, TCP");
        assert_eq!(exports[0].blocks[0].get("name").unwrap().value, "VFS");
        assert_eq!(exports[1].get("NFS_Commit").unwrap().value, "true");
        assert_eq!(conf.root.all("FSAL").count(), 1);
    }

    #[test]
    fn unbalanced_braces_and_repeats_are_noted() {
        let conf = parse("g", "EXPORT {\n MaxRead = 1M;\n MaxRead = 32768;\n");
        let messages: Vec<&str> = conf.notes.iter().map(|n| n.message.as_str()).collect();
        assert!(messages[0].contains("the last one wins"), "{messages:?}");
        assert!(messages[1].contains("never closed"), "{messages:?}");
        let export = conf.root.all("export").next().unwrap();
        assert_eq!(export.get("maxread").unwrap().value, "32768");
    }
}
