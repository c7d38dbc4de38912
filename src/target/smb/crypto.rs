//! SMB2/3 message security (MS-SMB2 3.1.4): the key derivation function, the three signing
//! algorithms, the pre-authentication integrity hash of 3.1.1, and the AES-CCM/GCM ciphers of
//! encrypted sessions. Signatures are computed over a message given in pieces (header and
//! arguments, then the data where it lies), so signing a WRITE never copies its data.

#[cfg(target_arch = "x86_64")]
use super::polyval_wide::{self, Wide};
use aes::cipher::{array::Array, BlockCipherEncrypt};
use aes::{Aes128, Aes256};
use ccm::aead::consts::{U11, U16};
use ccm::{AeadInOut, Ccm, KeyInit};
use cmac::Cmac;
use hmac::{Hmac, Mac};
use polyval::hazmat::FieldElement;
use polyval::universal_hash::UniversalHash;
use polyval::Polyval;
use sha2::{Digest, Sha256, Sha512};
use std::io;

/// The SMB 3 KDF: SP800-108 in counter mode with HMAC-SHA256, one round (up to 256 bits).
pub fn kdf(key: &[u8], label: &[u8], context: &[u8], bits: u32) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes any key");
    mac.update(&1u32.to_be_bytes());
    mac.update(label);
    mac.update(&[0]);
    mac.update(context);
    mac.update(&bits.to_be_bytes());
    mac.finalize().into_bytes()[..bits as usize / 8].to_vec()
}

/// The 3.1.1 pre-authentication integrity hash: SHA-512 chained over the NEGOTIATE and
/// SESSION_SETUP messages, which binds the session's keys to what both sides saw.
#[derive(Clone)]
pub struct Preauth(pub [u8; 64]);

impl Preauth {
    pub fn new() -> Preauth {
        Preauth([0; 64])
    }

    pub fn update(&mut self, message: &[u8]) {
        let mut sha = Sha512::new();
        sha.update(self.0);
        sha.update(message);
        self.0.copy_from_slice(&sha.finalize());
    }
}

impl Default for Preauth {
    fn default() -> Self {
        Preauth::new()
    }
}

/// Signing algorithm identifiers (MS-SMB2 2.2.3.1.7).
pub const HMAC_SHA256: u16 = 0x0000;
pub const AES_CMAC: u16 = 0x0001;
pub const AES_GMAC: u16 = 0x0002;

/// A session's signing key, ready for one of the three algorithms.
#[derive(Clone)]
pub enum Signer {
    /// 2.0.2 and 2.1: the first 16 bytes of HMAC-SHA256 keyed by the session key.
    HmacSha256(Hmac<Sha256>),
    /// 3.0 and later.
    AesCmac(Cmac<Aes128>),
    /// 3.1.1 when negotiated: GCM with no plaintext, the message as associated data.
    AesGmac { cipher: Aes128, hash_key: GhashKey },
}

impl Signer {
    pub fn new(algorithm: u16, key: &[u8]) -> Signer {
        match algorithm {
            HMAC_SHA256 => Signer::HmacSha256(
                <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes any key"),
            ),
            AES_CMAC => {
                Signer::AesCmac(<Cmac<Aes128> as KeyInit>::new_from_slice(key).expect("16 bytes"))
            }
            _ => {
                let cipher = Aes128::new_from_slice(key).expect("16 bytes");
                let mut h = Array::from([0u8; 16]);
                cipher.encrypt_block(&mut h);
                Signer::AesGmac {
                    cipher,
                    hash_key: GhashKey::new(h.into()),
                }
            }
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Signer::HmacSha256(_) => "HMAC-SHA256",
            Signer::AesCmac(_) => "AES-CMAC",
            Signer::AesGmac { .. } => "AES-GMAC",
        }
    }

    /// The signature of a message given as consecutive `pieces` whose signature field is zero.
    /// GMAC's nonce is the message id and whether the message is a response (or a cancel).
    pub fn sign(
        &self,
        pieces: &[&[u8]],
        message_id: u64,
        response: bool,
        cancel: bool,
    ) -> [u8; 16] {
        let mut signature = [0u8; 16];
        match self {
            Signer::HmacSha256(mac) => {
                let mut mac = mac.clone();
                pieces.iter().for_each(|p| mac.update(p));
                signature.copy_from_slice(&mac.finalize().into_bytes()[..16]);
            }
            Signer::AesCmac(mac) => {
                let mut mac = mac.clone();
                pieces.iter().for_each(|p| mac.update(p));
                signature.copy_from_slice(&mac.finalize().into_bytes());
            }
            Signer::AesGmac { cipher, hash_key } => {
                let mut nonce = [0u8; 16];
                nonce[..8].copy_from_slice(&message_id.to_le_bytes());
                nonce[8] = response as u8 | (cancel as u8) << 1;
                nonce[15] = 1; // J0 = nonce || 0x00000001
                let mut ghash = Ghash::new(hash_key);
                pieces.iter().for_each(|p| ghash.update(p));
                let hash = ghash.finish();
                let mut mask = Array::from(nonce);
                cipher.encrypt_block(&mut mask);
                for (out, (a, b)) in signature.iter_mut().zip(hash.iter().zip(mask.iter())) {
                    *out = a ^ b;
                }
            }
        }
        signature
    }
}

/// GHASH's key, prepared for POLYVAL, GHASH's mirror image (RFC 8452, appendix A): blocks go
/// in byte-reversed and the key is H reversed, times x.
#[derive(Clone, Copy)]
pub struct GhashKey {
    polyval: [u8; 16],
    /// The eight-blocks-at-a-time kernel, on CPUs that have it.
    #[cfg(target_arch = "x86_64")]
    wide: Option<Wide>,
}

impl GhashKey {
    fn new(h: [u8; 16]) -> GhashKey {
        let polyval: [u8; 16] = FieldElement::from(h).reverse().mulx().into();
        GhashKey {
            polyval,
            #[cfg(target_arch = "x86_64")]
            // SAFETY: only where the CPU has what it needs.
            wide: polyval_wide::available().then(|| unsafe { Wide::new(polyval) }),
        }
    }
}

/// GHASH (GCM's hash) over data that arrives in pieces of any length, padding only the last
/// block, so a WRITE is hashed where its header and data lie.
struct Ghash<'k> {
    key: &'k GhashKey,
    /// The `polyval` crate's state, or the wide kernel's accumulator.
    slow: Option<Polyval>,
    acc: [u8; 16],
    partial: [u8; 16],
    filled: usize,
    len: usize,
}

impl<'k> Ghash<'k> {
    fn new(key: &'k GhashKey) -> Ghash<'k> {
        #[cfg(target_arch = "x86_64")]
        let wide = key.wide.is_some();
        #[cfg(not(target_arch = "x86_64"))]
        let wide = false;
        Ghash {
            key,
            slow: (!wide).then(|| Polyval::new(&Array::from(key.polyval))),
            acc: [0; 16],
            partial: [0; 16],
            filled: 0,
            len: 0,
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        self.len += data.len();
        if self.filled > 0 {
            let take = (16 - self.filled).min(data.len());
            self.partial[self.filled..self.filled + take].copy_from_slice(&data[..take]);
            self.filled += take;
            data = &data[take..];
            if self.filled < 16 {
                return;
            }
            let partial = self.partial;
            self.whole_blocks(&partial);
            self.filled = 0;
        }
        let whole = data.len() / 16 * 16;
        self.whole_blocks(&data[..whole]);
        let rest = &data[whole..];
        self.partial[..rest.len()].copy_from_slice(rest);
        self.filled = rest.len();
    }

    /// Hashes whole blocks of GHASH input.
    fn whole_blocks(&mut self, data: &[u8]) {
        let Some(polyval) = self.slow.as_mut() else {
            #[cfg(target_arch = "x86_64")]
            if let Some(wide) = &self.key.wide {
                // SAFETY: `wide` exists only where the CPU has what it needs; whole blocks.
                self.acc = unsafe { wide.update(self.acc, data, true) };
            }
            return;
        };
        let mut reversed = [Array::from([0u8; 16]); 64];
        for chunk in data.chunks(16 * reversed.len()) {
            let blocks = chunk.len() / 16;
            for (slot, block) in reversed.iter_mut().zip(chunk.chunks_exact(16)) {
                let value = u128::from_be_bytes(block.try_into().expect("16"));
                *slot = Array::from(value.to_le_bytes());
            }
            polyval.update(&reversed[..blocks]);
        }
    }

    /// The hash, after the zero-padded last block and the lengths block (no ciphertext).
    fn finish(mut self) -> [u8; 16] {
        let mut last = [0u8; 16];
        last[..self.filled].copy_from_slice(&self.partial[..self.filled]);
        if self.filled > 0 {
            self.whole_blocks(&last);
        }
        let mut lengths = [0u8; 16];
        lengths[..8].copy_from_slice(&(self.len as u64 * 8).to_be_bytes());
        self.whole_blocks(&lengths);
        let mut hash: [u8; 16] = match self.slow {
            Some(polyval) => polyval.finalize().into(),
            None => self.acc,
        };
        hash.reverse();
        hash
    }
}

/// Cipher identifiers (MS-SMB2 2.2.3.1.2).
pub const AES_128_CCM: u16 = 0x0001;
pub const AES_128_GCM: u16 = 0x0002;
pub const AES_256_CCM: u16 = 0x0003;
pub const AES_256_GCM: u16 = 0x0004;

pub fn cipher_name(cipher: u16) -> &'static str {
    match cipher {
        AES_128_CCM => "AES-128-CCM",
        AES_128_GCM => "AES-128-GCM",
        AES_256_CCM => "AES-256-CCM",
        AES_256_GCM => "AES-256-GCM",
        _ => "unknown",
    }
}

/// Key length in bits a cipher takes.
pub fn cipher_bits(cipher: u16) -> u32 {
    if matches!(cipher, AES_256_CCM | AES_256_GCM) {
        256
    } else {
        128
    }
}

type Aes128Ccm = Ccm<Aes128, U16, U11>;
type Aes256Ccm = Ccm<Aes256, U16, U11>;

/// One direction's key. GCM goes through ring, whose AES-GCM (BoringSSL's assembly, with
/// VAES and VPCLMULQDQ where the CPU has them) sealed 7.7 GB/s on the lab VM where RustCrypto's
/// managed 2.5; CCM, which only 3.0 and 3.0.2 use, is RustCrypto's.
enum Aead {
    Gcm(Box<ring::aead::LessSafeKey>),
    Ccm128(Box<Aes128Ccm>),
    Ccm256(Box<Aes256Ccm>),
}

impl Aead {
    fn new(cipher: u16, key: &[u8]) -> Aead {
        let gcm = |algorithm| {
            let key = ring::aead::UnboundKey::new(algorithm, key).expect("a key of its length");
            Aead::Gcm(Box::new(ring::aead::LessSafeKey::new(key)))
        };
        match cipher {
            AES_128_GCM => gcm(&ring::aead::AES_128_GCM),
            AES_256_GCM => gcm(&ring::aead::AES_256_GCM),
            AES_256_CCM => Aead::Ccm256(Box::new(Aes256Ccm::new_from_slice(key).expect("32"))),
            _ => Aead::Ccm128(Box::new(Aes128Ccm::new_from_slice(key).expect("16"))),
        }
    }

    /// Encrypts `data` in place; returns the tag. GCM takes the first 12 bytes of the nonce
    /// field, CCM the first 11.
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8]) -> [u8; 16] {
        let tag = match self {
            Aead::Gcm(key) => {
                let aad = ring::aead::Aad::from(aad);
                let tag = key.seal_in_place_separate_tag(gcm_nonce(nonce), aad, data);
                return tag
                    .expect("a message within the cipher's limits")
                    .as_ref()
                    .try_into()
                    .expect("16");
            }
            Aead::Ccm128(c) => c.encrypt_inout_detached(ccm_nonce(nonce), aad, data.into()),
            Aead::Ccm256(c) => c.encrypt_inout_detached(ccm_nonce(nonce), aad, data.into()),
        };
        tag.expect("a message within the cipher's limits").into()
    }

    /// Decrypts `data` in place; false when it fails its integrity check.
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> bool {
        let tag16: &Array<u8, U16> = tag.try_into().expect("16");
        match self {
            Aead::Gcm(key) => {
                let tag = ring::aead::Tag::try_from(tag).expect("16");
                let aad = ring::aead::Aad::from(aad);
                key.open_in_place_separate_tag(gcm_nonce(nonce), aad, tag, data, 0..)
                    .is_ok()
            }
            Aead::Ccm128(c) => c
                .decrypt_inout_detached(ccm_nonce(nonce), aad, data.into(), tag16)
                .is_ok(),
            Aead::Ccm256(c) => c
                .decrypt_inout_detached(ccm_nonce(nonce), aad, data.into(), tag16)
                .is_ok(),
        }
    }
}

/// ring takes each nonce by value, as a promise never to reuse it with the key; the transform
/// header's counter keeps that promise.
fn gcm_nonce(nonce: &[u8]) -> ring::aead::Nonce {
    ring::aead::Nonce::try_assume_unique_for_key(&nonce[..12]).expect("12 bytes")
}

fn ccm_nonce(nonce: &[u8]) -> &Array<u8, U11> {
    nonce[..11].try_into().expect("11 bytes")
}

/// "\xFDSMB": a TRANSFORM_HEADER, an encrypted message follows.
pub const TRANSFORM_ID: [u8; 4] = [0xFD, b'S', b'M', b'B'];
pub const TRANSFORM_LEN: usize = 52;

/// An encrypted session's keys, one per direction, and the nonce counter.
pub struct Encryption {
    cipher: u16,
    outgoing: Aead,
    incoming: Aead,
    /// Random per connection, so nonces never repeat across connections sharing a key.
    nonce_salt: [u8; 4],
    next_nonce: u64,
}

impl Encryption {
    pub fn new(cipher: u16, outgoing_key: &[u8], incoming_key: &[u8], nonce_salt: [u8; 4]) -> Self {
        Encryption {
            cipher,
            outgoing: Aead::new(cipher, outgoing_key),
            incoming: Aead::new(cipher, incoming_key),
            nonce_salt,
            next_nonce: 0,
        }
    }

    pub fn cipher(&self) -> u16 {
        self.cipher
    }

    /// Encrypts the message in `buf[TRANSFORM_LEN..]` in place and writes the transform header
    /// in front of it.
    pub fn seal(&mut self, buf: &mut [u8], session_id: u64) {
        let (header, message) = buf.split_at_mut(TRANSFORM_LEN);
        self.next_nonce += 1;
        header.fill(0);
        header[..4].copy_from_slice(&TRANSFORM_ID);
        // an 8-byte counter and 3 salt bytes fit both nonce sizes (GCM 12, CCM 11)
        header[20..28].copy_from_slice(&self.next_nonce.to_le_bytes());
        header[28..31].copy_from_slice(&self.nonce_salt[..3]);
        header[36..40].copy_from_slice(&(message.len() as u32).to_le_bytes());
        header[42..44].copy_from_slice(&1u16.to_le_bytes()); // encrypted
        header[44..52].copy_from_slice(&session_id.to_le_bytes());
        let nonce: [u8; 16] = header[20..36].try_into().expect("16");
        let tag = self.outgoing.seal(&nonce, &header[20..52], message);
        header[4..20].copy_from_slice(&tag);
    }

    /// Decrypts a transform message in place; the plaintext message is `buf[TRANSFORM_LEN..]`.
    pub fn open(&self, buf: &mut [u8]) -> io::Result<()> {
        if buf.len() < TRANSFORM_LEN {
            return Err(super::wire::malformed());
        }
        let (header, message) = buf.split_at_mut(TRANSFORM_LEN);
        let size = u32::from_le_bytes(header[36..40].try_into().expect("4")) as usize;
        if size != message.len() {
            return Err(super::wire::malformed());
        }
        let (tag, nonce): ([u8; 16], [u8; 16]) = (
            header[4..20].try_into().expect("16"),
            header[20..36].try_into().expect("16"),
        );
        if self.incoming.open(&nonce, &header[20..52], message, &tag) {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "an encrypted SMB message failed its integrity check",
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231 test case 2: HMAC-SHA256 with key "Jefe".
    #[test]
    fn hmac_signing_is_the_first_half_of_hmac_sha256() {
        let signer = Signer::new(HMAC_SHA256, b"Jefe");
        let signature = signer.sign(&[b"what do ya want ", b"for nothing?"], 0, false, false);
        assert_eq!(
            signature,
            [
                0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24, 0x26, 0x08, 0x95,
                0x75, 0xc7
            ]
        );
    }

    /// RFC 4493 example 2: AES-CMAC of one block.
    #[test]
    fn cmac_signing_matches_rfc_4493() {
        let key = hex("2b7e151628aed2a6abf7158809cf4f3c");
        let signer = Signer::new(AES_CMAC, &key);
        let message = hex("6bc1bee22e409f96e93d7e117393172a");
        let signature = signer.sign(&[&message[..5], &message[5..]], 0, false, false);
        assert_eq!(signature.to_vec(), hex("070a16b46b4d4144f79bdd9dd04a287c"));
    }

    /// GMAC over pieces equals AES-GCM with the whole message as associated data and no
    /// plaintext, with the nonce SMB prescribes; and any change to the message changes it.
    #[test]
    fn gmac_over_pieces_equals_gcm_over_the_whole() {
        let key = [7u8; 16];
        let message: Vec<u8> = (0..1000u32).map(|i| (i * 31 % 253) as u8).collect();
        let signer = Signer::new(AES_GMAC, &key);
        let pieces = [
            &message[..64],
            &message[64..112],
            &message[112..113],
            &message[113..],
        ];
        let signature = signer.sign(&pieces, 0x0102_0304_0506_0708, true, false);
        let mut nonce = [0u8; 12];
        nonce[..8].copy_from_slice(&0x0102_0304_0506_0708u64.to_le_bytes());
        nonce[8] = 1;
        let gcm = ring::aead::UnboundKey::new(&ring::aead::AES_128_GCM, &key).unwrap();
        let tag = ring::aead::LessSafeKey::new(gcm)
            .seal_in_place_separate_tag(gcm_nonce(&nonce), ring::aead::Aad::from(&message), &mut [])
            .unwrap();
        assert_eq!(signature.as_slice(), tag.as_ref());
        let mut changed = message.clone();
        changed[500] ^= 1;
        assert_ne!(
            signature,
            signer.sign(&[&changed], 0x0102_0304_0506_0708, true, false)
        );
        assert_ne!(
            signature,
            signer.sign(&[&message], 0x0102_0304_0506_0708, false, false)
        );
    }

    #[test]
    fn gmac_is_the_same_with_either_polyval_kernel() {
        let wide = Signer::new(AES_GMAC, &[5; 16]);
        let Signer::AesGmac { cipher, hash_key } = wide.clone() else {
            unreachable!()
        };
        #[cfg(target_arch = "x86_64")]
        let narrow = Signer::AesGmac {
            cipher,
            hash_key: GhashKey {
                wide: None,
                ..hash_key
            },
        };
        #[cfg(not(target_arch = "x86_64"))]
        let narrow = Signer::AesGmac { cipher, hash_key };
        let message: Vec<u8> = (0..4099u32).map(|i| (i * 7 % 251) as u8).collect();
        for cut in [0, 1, 64, 112, 129, 4000] {
            let pieces = [&message[..cut], &message[cut..]];
            assert_eq!(
                wide.sign(&pieces, 9, true, false),
                narrow.sign(&pieces, 9, true, false)
            );
        }
    }

    #[test]
    fn kdf_is_hmac_sha256_of_counter_label_context_and_length() {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&[9; 16]).unwrap();
        mac.update(b"\x00\x00\x00\x01SMB2AESCMAC\x00\x00SmbSign\x00\x00\x00\x00\x80");
        let expected = mac.finalize().into_bytes();
        assert_eq!(
            kdf(&[9; 16], b"SMB2AESCMAC\0", b"SmbSign\0", 128),
            expected[..16]
        );
        assert_eq!(kdf(&[9; 16], b"L\0", b"C", 256).len(), 32);
    }

    #[test]
    fn sealed_messages_open_with_the_peers_keys_and_fail_when_changed() {
        for cipher in [AES_128_CCM, AES_128_GCM, AES_256_CCM, AES_256_GCM] {
            let bytes = cipher_bits(cipher) as usize / 8;
            let (a, b) = (vec![1u8; bytes], vec![2u8; bytes]);
            let mut client = Encryption::new(cipher, &a, &b, [1, 2, 3, 4]);
            let server = Encryption::new(cipher, &b, &a, [0; 4]);
            let message: Vec<u8> = (0..300u32).map(|i| i as u8).collect();
            let mut buf = vec![0u8; TRANSFORM_LEN];
            buf.extend_from_slice(&message);
            client.seal(&mut buf, 77);
            assert_ne!(buf[TRANSFORM_LEN..], message[..], "{}", cipher_name(cipher));
            let mut tampered = buf.clone();
            tampered[TRANSFORM_LEN + 10] ^= 1;
            assert!(server.open(&mut tampered).is_err());
            // the server decrypts with its incoming key, which is the client's outgoing one
            server.open(&mut buf).unwrap();
            assert_eq!(buf[TRANSFORM_LEN..], message[..]);
            assert_eq!(&buf[44..52], &77u64.to_le_bytes());
        }
    }

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect()
    }
}
