//! XDR (RFC 4506): big-endian 4-byte units, opaque data padded to a multiple of four.

use std::io;

/// Appends XDR items to a buffer.
#[derive(Default)]
pub struct Encoder {
    pub buf: Vec<u8>,
}

impl Encoder {
    pub fn u32(&mut self, value: u32) -> &mut Self {
        self.buf.extend_from_slice(&value.to_be_bytes());
        self
    }

    pub fn u64(&mut self, value: u64) -> &mut Self {
        self.buf.extend_from_slice(&value.to_be_bytes());
        self
    }

    /// Variable-length opaque data: length, bytes, padding.
    pub fn opaque(&mut self, data: &[u8]) -> &mut Self {
        self.u32(data.len() as u32);
        self.buf.extend_from_slice(data);
        self.buf.resize(self.buf.len() + padding(data.len()), 0);
        self
    }

    pub fn string(&mut self, text: &str) -> &mut Self {
        self.opaque(text.as_bytes())
    }
}

/// Bytes of padding after `len` bytes of opaque data.
pub fn padding(len: usize) -> usize {
    (4 - len % 4) % 4
}

/// Reads XDR items from a reply.
pub struct Decoder<'a> {
    data: &'a [u8],
    pos: usize,
}

pub fn malformed() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "the server sent a malformed reply",
    )
}

impl<'a> Decoder<'a> {
    pub fn new(data: &'a [u8]) -> Decoder<'a> {
        Decoder { data, pos: 0 }
    }

    fn take(&mut self, len: usize) -> io::Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(len)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(malformed)?;
        let bytes = &self.data[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    pub fn u32(&mut self) -> io::Result<u32> {
        Ok(u32::from_be_bytes(
            self.take(4)?.try_into().expect("four bytes"),
        ))
    }

    pub fn u64(&mut self) -> io::Result<u64> {
        Ok(u64::from_be_bytes(
            self.take(8)?.try_into().expect("eight bytes"),
        ))
    }

    pub fn bool(&mut self) -> io::Result<bool> {
        Ok(self.u32()? != 0)
    }

    pub fn opaque(&mut self) -> io::Result<&'a [u8]> {
        let len = self.u32()? as usize;
        let bytes = self.take(len)?;
        self.take(padding(len))?;
        Ok(bytes)
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Fixed-length opaque data (no length, no padding: the length is a multiple of four).
    pub fn fixed(&mut self, len: usize) -> io::Result<&'a [u8]> {
        self.take(len)
    }

    pub fn skip(&mut self, len: usize) -> io::Result<()> {
        self.take(len).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_round_trip_with_padding() {
        let mut e = Encoder::default();
        e.u32(7).u64(1 << 40).opaque(b"abcde").string("xy");
        assert_eq!(e.buf.len(), 4 + 8 + (4 + 8) + (4 + 4));
        assert_eq!(&e.buf[..4], &[0, 0, 0, 7]);
        let mut d = Decoder::new(&e.buf);
        assert_eq!(d.u32().unwrap(), 7);
        assert_eq!(d.u64().unwrap(), 1 << 40);
        assert_eq!(d.opaque().unwrap(), b"abcde");
        assert_eq!(d.opaque().unwrap(), b"xy");
        assert_eq!(d.u32().unwrap_err().kind(), io::ErrorKind::InvalidData);
    }
}
