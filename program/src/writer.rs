//! Sequential little-endian writer over account data, in Borsh order (what SAS layouts use).

use crate::error::ProgramError;

pub struct Writer<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl<'a> Writer<'a> {
    pub fn new(out: &'a mut [u8]) -> Self {
        Self { out, at: 0 }
    }

    pub fn bytes(&mut self, bytes: &[u8]) -> Result<&mut Self, ProgramError> {
        let end = self.at.checked_add(bytes.len()).ok_or(ProgramError::InvalidAccountData)?;
        let target = self.out.get_mut(self.at..end).ok_or(ProgramError::InvalidAccountData)?;
        target.copy_from_slice(bytes);
        self.at = end;
        Ok(self)
    }

    pub fn u8(&mut self, value: u8) -> Result<&mut Self, ProgramError> {
        self.bytes(&[value])
    }

    pub fn u32(&mut self, value: u32) -> Result<&mut Self, ProgramError> {
        self.bytes(&value.to_le_bytes())
    }

    pub fn u64(&mut self, value: u64) -> Result<&mut Self, ProgramError> {
        self.bytes(&value.to_le_bytes())
    }

    pub fn i64(&mut self, value: i64) -> Result<&mut Self, ProgramError> {
        self.bytes(&value.to_le_bytes())
    }

    /// A Borsh `Vec<u8>` / `String`: u32 length, then the bytes.
    pub fn vec(&mut self, bytes: &[u8]) -> Result<&mut Self, ProgramError> {
        self.u32(bytes.len() as u32)?.bytes(bytes)
    }

    /// Skips `len` bytes, leaving them as they are (zero in a new account).
    pub fn skip(&mut self, len: usize) -> Result<&mut Self, ProgramError> {
        let end = self.at.checked_add(len).ok_or(ProgramError::InvalidAccountData)?;
        if end > self.out.len() {
            return Err(ProgramError::InvalidAccountData);
        }
        self.at = end;
        Ok(self)
    }

    /// Bytes written so far.
    pub fn position(&self) -> usize {
        self.at
    }
}

#[cfg(test)]
mod tests {
    use super::Writer;
    use crate::error::ProgramError;

    #[test]
    fn writes_borsh_vectors_and_integers_little_endian() {
        let mut out = [0u8; 15];
        let mut w = Writer::new(&mut out);
        w.u8(7).unwrap().vec(b"ab").unwrap().u64(0x0102).unwrap();
        assert_eq!(w.position(), 15);
        assert_eq!(out, [7, 2, 0, 0, 0, b'a', b'b', 2, 1, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn refuses_to_write_past_the_end() {
        let mut out = [0u8; 3];
        let mut w = Writer::new(&mut out);
        assert_eq!(w.u32(1).err(), Some(ProgramError::InvalidAccountData));
        assert_eq!(w.skip(4).err(), Some(ProgramError::InvalidAccountData));
        assert_eq!(w.position(), 0);
    }
}
