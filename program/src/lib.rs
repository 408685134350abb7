//! The ABAS attestation program: agents' signed action receipts on Solana.
//!
//! `#![no_std]` and no crates: the entrypoint input parser and the syscall bindings are written
//! here (see `input` and `syscalls`), with host stand-ins so the crate also unit-tests on the host.
//! The byte-level contract is documented in `docs/program.md`.
#![cfg_attr(not(test), no_std)]

pub mod checks;
pub mod cpi;
pub mod ed25519;
pub mod error;
pub mod input;
pub mod instructions;
pub mod merkle;
pub mod message;
pub mod pda;
pub mod processor;
pub mod state;
pub mod syscalls;
pub mod writer;

#[cfg(target_arch = "bpf")]
mod entrypoint;

/// An Ed25519 public key or program address.
pub type Pubkey = [u8; 32];
