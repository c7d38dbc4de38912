//! The bytes a write sends.
//!
//! Every write carries incompressible pseudo-random bytes, so a server that compresses or
//! deduplicates cannot make the link look faster than it is. Each 4 KiB block also starts with
//! its own file offset (8 bytes, little endian): that makes every block unique (no dedup across
//! records) and lets a reader check that each block landed where it was meant to. Stamping costs
//! one 8-byte store per 4 KiB, so it stays off the profile of the hot path.

/// Distance between offset stamps.
pub const STAMP_EVERY: usize = 4096;
const STAMP_LEN: usize = 8;

/// Fills `buf` with the base pattern: the same bytes for the same position in every buffer.
pub fn fill_base(buf: &mut [u8]) {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for chunk in buf.chunks_mut(8) {
        // splitmix64: fast and incompressible enough for storage purposes
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
    }
}

/// Writes the offset stamps for a request of `buf.len()` bytes that goes to `file_offset`.
#[inline]
pub fn stamp(buf: &mut [u8], file_offset: u64) {
    let mut at = 0;
    while at + STAMP_LEN <= buf.len() {
        buf[at..at + STAMP_LEN].copy_from_slice(&(file_offset + at as u64).to_le_bytes());
        at += STAMP_EVERY;
    }
}

/// Checks data read back against what sharebench writes (`--verify`, like iozone -V). A file
/// passes when it was written with the same record size it is read with, since each request
/// carries the base pattern from its own start.
pub struct Checker {
    base: Vec<u8>,
}

impl Checker {
    pub fn new(max_io: usize) -> Checker {
        let mut base = vec![0; max_io];
        fill_base(&mut base);
        Checker { base }
    }

    /// Fails with `InvalidData`, naming the first 4 KiB block that differs.
    pub fn check(&self, data: &[u8], file_offset: u64) -> std::io::Result<()> {
        for (i, block) in data.chunks(STAMP_EVERY).enumerate() {
            let at = i * STAMP_EVERY;
            let base = &self.base[at..at + block.len()];
            let intact = if block.len() >= STAMP_LEN {
                block[..STAMP_LEN] == (file_offset + at as u64).to_le_bytes()
                    && block[STAMP_LEN..] == base[STAMP_LEN..]
            } else {
                block == base
            };
            if !intact {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "the data read at offset {} is not what was written there",
                        file_offset + at as u64
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The exact bytes a request of `len` bytes at `file_offset` writes.
pub fn expected(file_offset: u64, len: usize) -> Vec<u8> {
    let mut buf = vec![0; len];
    fill_base(&mut buf);
    stamp(&mut buf, file_offset);
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_carry_the_offset_of_each_block() {
        let buf = expected(1 << 20, 3 * STAMP_EVERY);
        for block in 0..3 {
            let at = block * STAMP_EVERY;
            let stamp = u64::from_le_bytes(buf[at..at + 8].try_into().unwrap());
            assert_eq!(stamp, (1 << 20) + at as u64);
        }
    }

    #[test]
    fn blocks_differ_and_do_not_compress_to_repeats() {
        let buf = expected(0, 2 * STAMP_EVERY);
        assert_ne!(buf[..STAMP_EVERY], buf[STAMP_EVERY..]);
        let distinct: std::collections::HashSet<u8> = buf.iter().copied().collect();
        assert!(distinct.len() > 250, "bytes look random");
    }

    #[test]
    fn the_checker_passes_what_was_written_and_names_the_first_bad_block() {
        let checker = Checker::new(3 * STAMP_EVERY);
        let mut data = expected(1 << 20, 3 * STAMP_EVERY);
        checker.check(&data, 1 << 20).unwrap();
        let moved = checker.check(&data, 2 << 20).unwrap_err();
        assert!(moved.to_string().contains("offset 2097152"), "{moved}");
        data[STAMP_EVERY + 100] ^= 1;
        let flipped = checker.check(&data, 1 << 20).unwrap_err();
        assert_eq!(flipped.kind(), std::io::ErrorKind::InvalidData);
        assert!(flipped
            .to_string()
            .contains(&format!("offset {}", (1 << 20) + STAMP_EVERY)));
        checker.check(&expected(5, 4)[..], 5).unwrap();
    }

    #[test]
    fn short_requests_are_stamped_if_they_fit() {
        assert_eq!(expected(7, 8), 7u64.to_le_bytes());
        let tiny = expected(7, 4);
        let mut base = vec![0; 4];
        fill_base(&mut base);
        assert_eq!(tiny, base);
    }
}
