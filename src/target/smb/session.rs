//! From a negotiated connection to a share: NTLMv2 authentication through sspi (SESSION_SETUP,
//! MS-SMB2 3.2.5.3), the session's signing and encryption keys (3.2.5.3.1), TREE_CONNECT, and
//! the teardown. The NTLM tokens travel as raw NTLMSSP, without SPNEGO around them: Samba and
//! Windows both accept that, as the Linux kernel client relies on.

use super::connection::{Connection, Security};
use super::crypto::{self, Encryption, Preauth, Signer};
use super::status;
use super::wire::{
    self, Reader, Writer, HEADER_LEN, LOGOFF, SESSION_SETUP, TREE_CONNECT, TREE_DISCONNECT,
};
use crate::target::credentials::Secret;
use sspi::{
    AuthIdentity, BufferType, ClientRequestFlags, CredentialUse, DataRepresentation, Ntlm,
    SecurityBuffer, SecurityStatus, Sspi, SspiImpl, Username,
};
use std::io;

const ACCESS_DENIED: u32 = 0xC000_0022;
/// SESSION_SETUP's SecurityMode: signing enabled (required only if the server requires it).
const SIGNING_ENABLED: u8 = 0x01;
/// SessionFlags.
const IS_GUEST: u16 = 0x0001;
const IS_NULL: u16 = 0x0002;
const ENCRYPT_DATA: u16 = 0x0004;
/// TREE_CONNECT response ShareFlags: the share wants every message encrypted.
const SHARE_ENCRYPT_DATA: u32 = 0x0000_8000;
/// Server capability: encryption (3.0 and 3.0.2 announce it here).
const CAP_ENCRYPTION: u32 = 0x0000_0040;

/// Who logs on. No user means guest.
pub struct Credentials {
    pub domain: Option<String>,
    pub user: Option<String>,
    pub password: Option<Secret>,
}

/// An established session: what it settled, and the keys to encrypt with should a share ask.
pub struct Session {
    pub info: SessionInfo,
    keys: Option<Keys>,
}

/// What the session settled, for the result document.
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    pub guest: bool,
    pub signing: Option<&'static str>,
    pub cipher: Option<&'static str>,
}

fn auth_error(e: sspi::Error) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("NTLM authentication failed: {e}"),
    )
}

/// Authenticates on `conn`. A user maps to NTLMv2 with their password; no user logs on as
/// guest (an unknown user with an empty password, which the server maps to its guest account).
pub fn set_up(conn: &mut Connection, who: &Credentials, encrypt: bool) -> io::Result<Session> {
    let user = who.user.as_deref().unwrap_or("GUEST");
    let username = Username::new(user, who.domain.as_deref()).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("the user name {user:?} is not valid: {e}"),
        )
    })?;
    let identity = AuthIdentity {
        username,
        password: who
            .password
            .as_ref()
            .map(|p| p.expose().to_string())
            .unwrap_or_default()
            .into(),
    };
    let mut ntlm = Ntlm::new();
    let mut credentials = ntlm
        .acquire_credentials_handle()
        .with_credential_use(CredentialUse::Outbound)
        .with_auth_data(&identity)
        .execute(&mut ntlm)
        .map_err(auth_error)?
        .credentials_handle;
    let mut preauth = Preauth::new();
    if conn.negotiated.dialect == 0x0311 {
        for message in &conn.negotiated.exchanged {
            preauth.update(message);
        }
    }
    let mut input: Vec<u8> = Vec::new();
    let (final_response, flags) = loop {
        let token = next_token(&mut ntlm, &mut credentials, std::mem::take(&mut input))?;
        let mut body = Writer::default();
        body.u16(25)
            .u8(0)
            .u8(SIGNING_ENABLED)
            .u32(0)
            .u32(0)
            .u16((HEADER_LEN + 24) as u16)
            .u16(token.len() as u16)
            .u64(0)
            .bytes(&token);
        let id = conn.send(SESSION_SETUP, &body.buf, &[], 1)?;
        let response = conn.wait_for(id)?;
        let status = response.header.status;
        conn.session_id = response.header.session_id;
        let message = conn.message(&response).to_vec();
        let r = Reader { data: &message };
        match status {
            status::MORE_PROCESSING_REQUIRED => {
                if conn.negotiated.dialect == 0x0311 {
                    preauth.update(conn.last_request());
                    preauth.update(&message);
                }
                let offset = r.u16(HEADER_LEN + 4)? as usize;
                let len = r.u16(HEADER_LEN + 6)? as usize;
                input = r.bytes(offset, len)?.to_vec();
            }
            status::SUCCESS => {
                if conn.negotiated.dialect == 0x0311 {
                    preauth.update(conn.last_request());
                }
                break (response, r.u16(HEADER_LEN + 2)?);
            }
            ACCESS_DENIED if conn.negotiated.dialect < 0x0300 => {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "the SMB server refused a {} session; a server that requires encryption \
                         refuses every SMB 2 session, so offer SMB 3",
                        wire::dialect_name(conn.negotiated.dialect)
                    ),
                ))
            }
            ACCESS_DENIED if who.user.is_none() => {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    "the SMB server refused a guest session; give a user",
                ))
            }
            failed => return Err(status::error(failed, "the session")),
        }
    };
    let guest = flags & (IS_GUEST | IS_NULL) != 0;
    let mut info = SessionInfo {
        guest,
        ..SessionInfo::default()
    };
    if guest {
        if conn.negotiated.signing_required {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the SMB server requires signing, which a guest session cannot do; give a user",
            ));
        }
        if encrypt || flags & ENCRYPT_DATA != 0 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "encryption needs a user's session keys; a guest session has none",
            ));
        }
        return Ok(Session { info, keys: None });
    }
    let session_key = ntlm
        .query_context_session_key()
        .map_err(auth_error)?
        .session_key;
    let session_key: &[u8] = session_key.as_ref();
    let keys = Keys::derive(&conn.negotiated, session_key, &preauth);
    let signer = Signer::new(keys.signing_algorithm, &keys.signing);
    conn.security.signer = Some(signer.clone());
    conn.verify_late(&final_response)?;
    conn.security.sign_requests = conn.negotiated.signing_required;
    if conn.security.sign_requests {
        info.signing = Some(signer.name());
    }
    if encrypt || flags & ENCRYPT_DATA != 0 {
        start_encryption(conn, &keys, &mut info)?;
    }
    Ok(Session {
        info,
        keys: Some(keys),
    })
}

/// One NTLM leg: the token to send, given the server's last one (none at first).
fn next_token(
    ntlm: &mut Ntlm,
    credentials: &mut <Ntlm as SspiImpl>::CredentialsHandle,
    input: Vec<u8>,
) -> io::Result<Vec<u8>> {
    let mut output = vec![SecurityBuffer::new(Vec::new(), BufferType::Token)];
    let mut inputs = vec![SecurityBuffer::new(input, BufferType::Token)];
    let mut builder = ntlm
        .initialize_security_context()
        .with_credentials_handle(credentials)
        .with_context_requirements(
            ClientRequestFlags::INTEGRITY
                | ClientRequestFlags::CONFIDENTIALITY
                | ClientRequestFlags::ALLOCATE_MEMORY,
        )
        .with_target_data_representation(DataRepresentation::Native)
        .with_target_name("sharebench")
        .with_output(&mut output);
    if !inputs[0].buffer.is_empty() {
        builder = builder.with_input(&mut inputs);
    }
    let result = ntlm
        .initialize_security_context_impl(&mut builder)
        .map_err(auth_error)?
        .resolve_to_result()
        .map_err(auth_error)?;
    if matches!(
        result.status,
        SecurityStatus::CompleteNeeded | SecurityStatus::CompleteAndContinue
    ) {
        ntlm.complete_auth_token(&mut output).map_err(auth_error)?;
    }
    Ok(std::mem::take(&mut output[0].buffer))
}

/// The keys of a session (MS-SMB2 3.2.5.3.1).
struct Keys {
    signing_algorithm: u16,
    signing: Vec<u8>,
    /// 3.x: client-to-server and server-to-client cipher keys, and the cipher.
    cipher: Option<(u16, Vec<u8>, Vec<u8>)>,
}

impl Keys {
    fn derive(
        negotiated: &super::negotiate::Negotiated,
        session_key: &[u8],
        preauth: &Preauth,
    ) -> Keys {
        match negotiated.dialect {
            0x0202 | 0x0210 => Keys {
                signing_algorithm: crypto::HMAC_SHA256,
                signing: session_key.to_vec(),
                cipher: None,
            },
            0x0300 | 0x0302 => {
                let cipher = (negotiated.capabilities & CAP_ENCRYPTION != 0).then(|| {
                    (
                        crypto::AES_128_CCM,
                        crypto::kdf(session_key, b"SMB2AESCCM\0", b"ServerIn \0", 128),
                        crypto::kdf(session_key, b"SMB2AESCCM\0", b"ServerOut\0", 128),
                    )
                });
                Keys {
                    signing_algorithm: crypto::AES_CMAC,
                    signing: crypto::kdf(session_key, b"SMB2AESCMAC\0", b"SmbSign\0", 128),
                    cipher,
                }
            }
            _ => {
                let context = &preauth.0;
                let cipher = negotiated.cipher.map(|cipher| {
                    let bits = crypto::cipher_bits(cipher);
                    (
                        cipher,
                        crypto::kdf(session_key, b"SMBC2SCipherKey\0", context, bits),
                        crypto::kdf(session_key, b"SMBS2CCipherKey\0", context, bits),
                    )
                });
                Keys {
                    signing_algorithm: negotiated.signing_algorithm.unwrap_or(crypto::AES_CMAC),
                    signing: crypto::kdf(session_key, b"SMBSigningKey\0", context, 128),
                    cipher,
                }
            }
        }
    }
}

fn start_encryption(conn: &mut Connection, keys: &Keys, info: &mut SessionInfo) -> io::Result<()> {
    let Some((cipher, outgoing, incoming)) = &keys.cipher else {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "encryption needs SMB 3 with a cipher both sides know; the session is {}",
                wire::dialect_name(conn.negotiated.dialect)
            ),
        ));
    };
    let salt = crate::random::bytes()?;
    conn.security.encryption = Some(Encryption::new(*cipher, outgoing, incoming, salt));
    info.cipher = Some(crypto::cipher_name(*cipher));
    info.signing = None; // encrypted messages are not signed
    Ok(())
}

/// Connects the session to `\\host\share`, and turns on encryption when the share demands it.
pub fn tree_connect(
    conn: &mut Connection,
    host: &str,
    share: &str,
    session: &mut Session,
) -> io::Result<()> {
    let path = wire::utf16(&format!("\\\\{host}\\{share}"));
    let mut body = Writer::default();
    body.u16(9)
        .u16(0)
        .u16((HEADER_LEN + 8) as u16)
        .u16(path.len() as u16)
        .bytes(&path);
    // 3.1.1 servers refuse an unsigned TREE_CONNECT from a user's session (MS-SMB2 3.3.5.7):
    // the signature is what proves the negotiation was not tampered with
    let was_signing = conn.security.sign_requests;
    conn.security.sign_requests |= conn.negotiated.dialect == 0x0311 && session.keys.is_some();
    let answer = conn.call(TREE_CONNECT, &body.buf, &format!("named '{share}'"));
    conn.security.sign_requests = was_signing;
    let message = answer?;
    let r = Reader { data: &message };
    conn.tree_id = r.u32(36)?;
    let share_flags = r.u32(HEADER_LEN + 4)?;
    if share_flags & SHARE_ENCRYPT_DATA != 0 && conn.security.encryption.is_none() {
        match &session.keys {
            Some(keys) => start_encryption(conn, keys, &mut session.info)?,
            None => {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("the share '{share}' requires encryption, which a guest session cannot do; give a user"),
                ))
            }
        }
    }
    Ok(())
}

/// Ends the tree and the session, best effort (the connection closes next either way).
pub fn tear_down(conn: &mut Connection) {
    let mut body = Writer::default();
    body.u16(4).u16(0);
    if conn.tree_id != 0 {
        let _ = conn.call(TREE_DISCONNECT, &body.buf, "the share");
        conn.tree_id = 0;
    }
    if conn.session_id != 0 {
        let _ = conn.call(LOGOFF, &body.buf, "the session");
        conn.session_id = 0;
    }
    conn.security = Security::default();
}
