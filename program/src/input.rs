//! The entrypoint's input region, parsed without copying: the serialized accounts, the
//! instruction data and the program id, as the BPF loader lays them out (aligned layout).
//!
//! Per account: a duplicate marker (0xff, or the index of the account it repeats, then 7 bytes of
//! padding), is_signer, is_writable, executable, 4 bytes of padding, key (32), owner (32),
//! lamports (u64), data length (u64), the data plus 10 KiB of room to grow, padding to 8 bytes,
//! rent epoch (u64). After the accounts: instruction data length (u64), the data, the program id.

use crate::Pubkey;

/// How many accounts are kept; later ones are skipped (no instruction needs more than 7).
pub const MAX_ACCOUNTS: usize = 8;
const NON_DUP_MARKER: u8 = u8::MAX;
const MAX_PERMITTED_DATA_INCREASE: usize = 10 * 1024;
const OFFSET_KEY: usize = 8;
const OFFSET_OWNER: usize = 40;
const OFFSET_LAMPORTS: usize = 72;
const OFFSET_DATA_LEN: usize = 80;
const OFFSET_DATA: usize = 88;

/// One account of the instruction, a view into the input region.
#[derive(Clone, Copy)]
pub struct Account {
    header: *mut u8,
}

impl Account {
    pub fn key(&self) -> &Pubkey {
        // SAFETY: header points at a serialized account; the key is 32 bytes at OFFSET_KEY.
        unsafe { &*(self.header.add(OFFSET_KEY) as *const Pubkey) }
    }

    pub fn owner(&self) -> &Pubkey {
        // SAFETY: as for key; the runtime keeps this field current after a CPI.
        unsafe { &*(self.header.add(OFFSET_OWNER) as *const Pubkey) }
    }

    pub fn is_signer(&self) -> bool {
        // SAFETY: byte 1 of the header.
        unsafe { *self.header.add(1) != 0 }
    }

    pub fn is_writable(&self) -> bool {
        // SAFETY: byte 2 of the header.
        unsafe { *self.header.add(2) != 0 }
    }

    pub fn lamports(&self) -> u64 {
        // SAFETY: the lamports field is 8-aligned inside the header.
        unsafe { *(self.header.add(OFFSET_LAMPORTS) as *const u64) }
    }

    pub fn data_len(&self) -> usize {
        // SAFETY: the data length field is 8-aligned inside the header; the runtime updates it
        // after a CPI that allocates the account.
        unsafe { *(self.header.add(OFFSET_DATA_LEN) as *const u64) as usize }
    }

    pub fn data(&self) -> &[u8] {
        // SAFETY: data_len bytes of account data follow the header.
        unsafe { core::slice::from_raw_parts(self.header.add(OFFSET_DATA), self.data_len()) }
    }

    /// Mutable account data. The runtime rejects the instruction if the account was not passed
    /// writable and the program owns it; callers check `is_writable` first for a clear error.
    /// The lifetime is the caller's: the input region lives for the whole entrypoint call.
    #[allow(clippy::mut_from_ref)]
    pub fn data_mut<'a>(&self) -> &'a mut [u8] {
        // SAFETY: as for data; the program never holds two mutable views of one account at once.
        unsafe { core::slice::from_raw_parts_mut(self.header.add(OFFSET_DATA), self.data_len()) }
    }

    pub(crate) fn set_lamports(&self, lamports: u64) {
        // SAFETY: as for lamports; the runtime checks after the instruction that only accounts the
        // program owns lost lamports and that the total is unchanged.
        unsafe { *(self.header.add(OFFSET_LAMPORTS) as *mut u64) = lamports }
    }

    /// Shrinks the account's data to `len` bytes: the runtime reads the new length back from the
    /// input region and accepts it for a writable account the program owns.
    pub(crate) fn shrink(&self, len: usize) -> bool {
        if len > self.data_len() {
            return false;
        }
        // SAFETY: the data length field is 8-aligned inside the header.
        unsafe { *(self.header.add(OFFSET_DATA_LEN) as *mut u64) = len as u64 };
        true
    }

    pub(crate) fn lamports_ptr(&self) -> *mut u64 {
        // SAFETY: pointer arithmetic inside the header.
        unsafe { self.header.add(OFFSET_LAMPORTS) as *mut u64 }
    }

    pub(crate) fn data_ptr(&self) -> *mut u8 {
        // SAFETY: pointer arithmetic inside the account's region.
        unsafe { self.header.add(OFFSET_DATA) }
    }

    pub(crate) fn is_executable(&self) -> bool {
        // SAFETY: byte 3 of the header.
        unsafe { *self.header.add(3) != 0 }
    }
}

/// What the entrypoint receives.
pub struct Input<'a> {
    pub program_id: &'a Pubkey,
    pub accounts: [Option<Account>; MAX_ACCOUNTS],
    pub account_count: usize,
    pub data: &'a [u8],
}

impl Input<'_> {
    /// The first `N` accounts, or None when fewer were passed.
    pub fn accounts<const N: usize>(&self) -> Option<[Account; N]> {
        if N > self.account_count || N > MAX_ACCOUNTS {
            return None;
        }
        let mut out = [Account { header: core::ptr::null_mut() }; N];
        for (slot, account) in out.iter_mut().zip(self.accounts.iter()) {
            *slot = (*account)?;
        }
        Some(out)
    }
}

/// Parses the input region.
///
/// # Safety
/// `input` must be the pointer the loader passed to the entrypoint.
pub unsafe fn parse<'a>(input: *mut u8) -> Input<'a> {
    let mut accounts = [None; MAX_ACCOUNTS];
    // SAFETY: the loader's layout, described at the top of this file.
    unsafe {
        let mut cursor = input;
        let count = *(cursor as *const u64) as usize;
        cursor = cursor.add(8);
        for index in 0..count {
            let marker = *cursor;
            let account = if marker == NON_DUP_MARKER {
                let header = cursor;
                let data_len = *(cursor.add(OFFSET_DATA_LEN) as *const u64) as usize;
                cursor = cursor.add(OFFSET_DATA + data_len + MAX_PERMITTED_DATA_INCREASE);
                cursor = ((cursor as usize + 7) & !7) as *mut u8;
                cursor = cursor.add(8); // rent epoch
                Some(Account { header })
            } else {
                cursor = cursor.add(8);
                // A duplicate always repeats an earlier account.
                accounts.get(marker as usize).copied().flatten()
            };
            if let Some(slot) = accounts.get_mut(index) {
                *slot = account;
            }
        }
        let data_len = *(cursor as *const u64) as usize;
        cursor = cursor.add(8);
        let data = core::slice::from_raw_parts(cursor, data_len);
        let program_id = &*(cursor.add(data_len) as *const Pubkey);
        Input { program_id, accounts, account_count: count, data }
    }
}
