//! Where a password comes from: `--password-file`, the URL, `SHAREBENCH_PASSWORD`, or a prompt on
//! the terminal, in that order (what this command names beats the environment). A password
//! lives in a [`Secret`], which cannot be printed.

use std::fmt;
use std::io::IsTerminal;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

pub const PASSWORD_ENV: &str = "SHAREBENCH_PASSWORD";

/// A password. Its Debug form hides it and it has no Display, so it cannot reach output by
/// accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(text: impl Into<String>) -> Secret {
        Secret(text.into())
    }

    /// The password itself, for the protocol exchange only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<secret>")
    }
}

/// Finds the password for `target` (shown redacted in questions and errors).
pub fn password(
    password_file: Option<&Path>,
    in_url: Option<&str>,
    target: &str,
) -> Result<Secret, String> {
    if let Some(file) = password_file {
        return read_secret_file(file, "password file");
    }
    if let Some(password) = in_url {
        return Ok(Secret(password.to_string()));
    }
    if let Ok(password) = std::env::var(PASSWORD_ENV) {
        return Ok(Secret(password));
    }
    if std::io::stdin().is_terminal() {
        return rpassword::prompt_password(format!("password for {target}: "))
            .map(Secret)
            .map_err(|e| format!("cannot read the password from the terminal: {e}"));
    }
    Err(format!(
        "no password for {target}: set {PASSWORD_ENV}, give --password-file, or run on a \
         terminal to be asked"
    ))
}

/// The first line of `file` (a "password file", a "token file"), refused when others may read
/// it.
pub fn read_secret_file(file: &Path, what: &str) -> Result<Secret, String> {
    let shown = file.display();
    let meta =
        std::fs::metadata(file).map_err(|e| format!("cannot read the {what} {shown}: {e}"))?;
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(format!(
            "the {what} {shown} may be read by other users; make it private with 'chmod 600 {shown}'"
        ));
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read the {what} {shown}: {e}"))?;
    Ok(Secret(text.lines().next().unwrap_or("").to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_file_gives_its_first_line_and_an_open_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pw");
        std::fs::write(&file, "hunter2\nignored\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(
            password(Some(&file), Some("url"), "x").unwrap().expose(),
            "hunter2"
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = password(Some(&file), None, "x").unwrap_err();
        assert!(error.contains("chmod 600"), "{error}");
        assert!(!error.contains("hunter2"));
    }

    #[test]
    fn secrets_do_not_print() {
        assert_eq!(format!("{:?}", Secret::new("hunter2")), "<secret>");
    }
}
