//! Target URLs: `smb://[domain;]user@host[:port]/share/path`, `nfs://host/export?…`,
//! `ftp://user@host[:port]/path`. A password written into a URL is taken but never shown: every
//! URL that reaches output, logs or JSON goes through [`Url::redacted`].

use std::fmt;

#[derive(Clone, PartialEq, Eq)]
pub struct Url {
    pub scheme: String,
    pub domain: Option<String>,
    pub user: Option<String>,
    password: Option<String>,
    pub host: String,
    pub port: Option<u16>,
    /// Decoded path without its leading `/`.
    pub path: String,
    pub query: Vec<(String, String)>,
}

/// Never prints the password, even in debug output.
impl fmt::Debug for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

/// True when `spec` names a network target rather than a path.
pub fn is_url(spec: &str) -> bool {
    spec.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric())
    })
}

impl Url {
    pub fn parse(text: &str) -> Result<Url, String> {
        let bad = |why: &str| format!("'{}' is not a valid target URL: {why}", redact_text(text));
        let (scheme, rest) = text.split_once("://").ok_or_else(|| bad("no scheme"))?;
        let scheme = scheme.to_ascii_lowercase();
        let (rest, query) = match rest.split_once('?') {
            Some((rest, query)) => (rest, query),
            None => (rest, ""),
        };
        let (authority, path) = match rest.find('/') {
            Some(at) => (&rest[..at], &rest[at + 1..]),
            None => (rest, ""),
        };
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((userinfo, hostport)) => (Some(userinfo), hostport),
            None => (None, authority),
        };
        let (mut domain, mut user, mut password) = (None, None, None);
        if let Some(userinfo) = userinfo {
            let (name, secret) = match userinfo.split_once(':') {
                Some((name, secret)) => (name, Some(decode(secret).map_err(|e| bad(&e))?)),
                None => (userinfo, None),
            };
            let name = decode(name).map_err(|e| bad(&e))?;
            match name.split_once(';') {
                Some((d, u)) => {
                    domain = Some(d.to_string());
                    user = Some(u.to_string());
                }
                None => user = Some(name),
            }
            password = secret;
        }
        let (host, port) = split_host_port(hostport).map_err(|e| bad(&e))?;
        if host.is_empty() {
            return Err(bad("no host"));
        }
        let query = query
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                Ok((decode(key)?.to_ascii_lowercase(), decode(value)?))
            })
            .collect::<Result<Vec<_>, String>>()
            .map_err(|e| bad(&e))?;
        Ok(Url {
            scheme,
            domain,
            user: user.filter(|u| !u.is_empty()),
            password,
            host,
            port,
            path: decode(path).map_err(|e| bad(&e))?,
            query,
        })
    }

    /// The password written into the URL, if any (discouraged: it shows in process lists).
    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    pub fn param(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The URL with the password left out, safe for output, logs and JSON.
    pub fn redacted(&self) -> String {
        let mut out = format!("{}://", self.scheme);
        if let Some(user) = &self.user {
            if let Some(domain) = &self.domain {
                out.push_str(&format!("{domain};"));
            }
            out.push_str(&format!("{user}@"));
        }
        if self.host.contains(':') {
            out.push_str(&format!("[{}]", self.host));
        } else {
            out.push_str(&self.host);
        }
        if let Some(port) = self.port {
            out.push_str(&format!(":{port}"));
        }
        out.push('/');
        out.push_str(&self.path);
        if !self.query.is_empty() {
            let pairs: Vec<String> = self.query.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.push('?');
            out.push_str(&pairs.join("&"));
        }
        out
    }
}

fn split_host_port(hostport: &str) -> Result<(String, Option<u16>), String> {
    let (host, port) = if let Some(rest) = hostport.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or("an IPv6 address lacks its ']'")?;
        (host, after.strip_prefix(':'))
    } else {
        match hostport.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (hostport, None),
        }
    };
    let port = port
        .map(|p| p.parse::<u16>().map_err(|_| format!("'{p}' is not a port")))
        .transpose()?;
    Ok((host.to_string(), port))
}

/// Percent-decoding (RFC 3986).
fn decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or("a '%' is not followed by two hex digits")?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "it decodes to invalid UTF-8".to_string())
}

/// Removes a password from URL-like text that failed to parse, for the error message.
fn redact_text(text: &str) -> String {
    let Some((scheme, rest)) = text.split_once("://") else {
        return text.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rsplit_once('@') {
        Some((userinfo, _)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or("");
            let after = &rest[userinfo.len()..];
            format!("{scheme}://{user}:<hidden>{after}")
        }
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_url_parses_and_loses_its_password_when_shown() {
        let url = Url::parse("smb://CORP;alice:s%40cret@filer:4450/projects/q%201?x=1").unwrap();
        assert_eq!(url.scheme, "smb");
        assert_eq!(url.domain.as_deref(), Some("CORP"));
        assert_eq!(url.user.as_deref(), Some("alice"));
        assert_eq!(url.password(), Some("s@cret"));
        assert_eq!(url.host, "filer");
        assert_eq!(url.port, Some(4450));
        assert_eq!(url.path, "projects/q 1");
        assert_eq!(url.param("x"), Some("1"));
        assert_eq!(
            url.redacted(),
            "smb://CORP;alice@filer:4450/projects/q 1?x=1"
        );
        assert!(!format!("{url:?}").contains("cret"));
    }

    #[test]
    fn nfs_parameters_and_ipv6_hosts() {
        let url = Url::parse("nfs://[::1]/data?version=3&nfsport=2049&NFSPORT=2050").unwrap();
        assert_eq!(url.host, "::1");
        assert_eq!(url.port, None);
        assert_eq!(url.param("version"), Some("3"));
        assert_eq!(url.param("nfsport"), Some("2050"), "the last one wins");
        assert_eq!(
            url.redacted(),
            "nfs://[::1]/data?version=3&nfsport=2049&nfsport=2050"
        );
        let bare = Url::parse("ftp://host").unwrap();
        assert_eq!((bare.user, bare.path.as_str()), (None, ""));
    }

    #[test]
    fn bad_urls_are_refused_without_showing_a_password() {
        for text in [
            "ftp://bob:pw@host:99999/",
            "ftp://bob:pw@/x",
            "ftp://bob:pw@h/%zz",
        ] {
            let error = Url::parse(text).unwrap_err();
            assert!(!error.contains("pw@"), "{error}");
            assert!(error.contains("bob:<hidden>@"), "{error}");
        }
    }

    #[test]
    fn urls_are_told_from_paths() {
        assert!(is_url("ftp://h/"));
        assert!(!is_url("/mnt/share"));
        assert!(!is_url("./odd://name"));
    }
}
