//! The byte primitives of the stored forms of series chunks and curves: LEB128 varints,
//! length-prefixed UTF-8 text, and a bounds-checked reader that turns any truncation or bad
//! byte into an error (never a panic).

use crate::error::{Error, Result};

/// Appends an unsigned LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends text as `len:varint utf8`.
pub fn put_text(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Reads stored bytes; `what` names the stored thing in errors.
#[derive(Clone)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8], what: &'static str) -> Self {
        Reader { bytes, at: 0, what }
    }

    /// The error for corrupt bytes.
    pub fn corrupt(&self, why: &str) -> Error {
        Error::Internal(format!("corrupt {}: {why}", self.what))
    }

    /// The next `N` bytes.
    pub fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let slice = self
            .bytes
            .get(self.at..self.at + N)
            .ok_or_else(|| self.corrupt("truncated"))?;
        self.at += N;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        Ok(out)
    }

    /// The next `n` bytes, borrowed.
    pub fn slice(&mut self, n: usize) -> Result<&'a [u8]> {
        let slice = self
            .bytes
            .get(self.at..self.at.saturating_add(n))
            .ok_or_else(|| self.corrupt("truncated"))?;
        self.at += n;
        Ok(slice)
    }

    /// Whether every byte has been read.
    pub fn at_end(&self) -> bool {
        self.at == self.bytes.len()
    }

    /// The next byte.
    pub fn byte(&mut self) -> Result<u8> {
        Ok(self.take::<1>()?[0])
    }

    /// The next varint.
    pub fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(self.corrupt("varint too long"))
    }

    /// The next text, borrowed.
    pub fn str(&mut self) -> Result<&'a str> {
        let len = self.varint()? as usize;
        let slice = self
            .bytes
            .get(self.at..self.at + len)
            .ok_or_else(|| self.corrupt("truncated text"))?;
        self.at += len;
        std::str::from_utf8(slice).map_err(|_| self.corrupt("text is not UTF-8"))
    }

    /// Skips the next text without reading it.
    pub fn skip_text(&mut self) -> Result<()> {
        self.raw_text().map(|_| ())
    }

    /// The next text's bytes, borrowed and not checked to be UTF-8.
    pub fn raw_text(&mut self) -> Result<&'a [u8]> {
        let len = self.varint()? as usize;
        self.slice(len)
    }

    /// The next text, owned.
    pub fn text(&mut self) -> Result<String> {
        self.str().map(str::to_string)
    }
}
