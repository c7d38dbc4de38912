//! NTSTATUS codes this client acts on (MS-ERREF 2.3), and how a failed one reads to a user.

use std::io;

pub const SUCCESS: u32 = 0x0000_0000;
pub const PENDING: u32 = 0x0000_0103;
pub const NO_MORE_FILES: u32 = 0x8000_0006;
pub const MORE_PROCESSING_REQUIRED: u32 = 0xC000_0016;
pub const OBJECT_NAME_NOT_FOUND: u32 = 0xC000_0034;
pub const END_OF_FILE: u32 = 0xC000_0011;

/// An io::Error for a failed `command` on `what` (a path or the share); the kind lets callers
/// tell "not found" or "exists" from real failures.
pub fn error(status: u32, what: &str) -> io::Error {
    use io::ErrorKind::*;
    let (kind, text) = match status {
        OBJECT_NAME_NOT_FOUND | 0xC000_003A => (NotFound, format!("{what} does not exist")),
        0xC000_0035 => (AlreadyExists, format!("{what} already exists")),
        0xC000_0022 => (
            PermissionDenied,
            format!("the SMB server denied access to {what}"),
        ),
        0xC000_006D | 0xC000_006E | 0xC000_0070 | 0xC000_0071 | 0xC000_0072 | 0xC000_0193
        | 0xC000_0224 => (
            PermissionDenied,
            "the SMB server refused the user name or password".to_string(),
        ),
        0xC000_00CC => (NotFound, format!("the SMB server has no share {what}")),
        0xC000_0101 => (DirectoryNotEmpty, format!("{what} is not empty")),
        0xC000_0103 => (NotADirectory, format!("{what} is not a directory")),
        0xC000_00BA => (IsADirectory, format!("{what} is a directory")),
        0xC000_007F => (StorageFull, "the SMB share is full".to_string()),
        0xC000_0043 => (
            ResourceBusy,
            format!("{what} is open elsewhere in a way that excludes this use"),
        ),
        0xC000_0056 => (NotFound, format!("{what} is being deleted")),
        END_OF_FILE => (
            UnexpectedEof,
            format!("{what} ended before the offset read"),
        ),
        0xC000_0203 | 0xC000_035C => (
            ConnectionAborted,
            "the SMB server ended the session".to_string(),
        ),
        0xC000_0205 | 0xC000_009A => (
            OutOfMemory,
            "the SMB server ran out of resources".to_string(),
        ),
        0xC000_00BB => (
            Unsupported,
            format!("the SMB server does not support this request on {what}"),
        ),
        other => (
            Other,
            format!("the SMB server failed on {what} (status 0x{other:08x})"),
        ),
    };
    io::Error::new(kind, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_keep_their_meaning_as_error_kinds() {
        assert_eq!(
            error(OBJECT_NAME_NOT_FOUND, "a").kind(),
            io::ErrorKind::NotFound
        );
        assert_eq!(error(0xC000_0035, "a").kind(), io::ErrorKind::AlreadyExists);
        let logon = error(0xC000_006D, "share").to_string();
        assert!(logon.contains("user name or password"), "{logon}");
        assert!(error(0xC000_1234, "x").to_string().contains("0xc0001234"));
    }
}
