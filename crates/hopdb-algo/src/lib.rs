//! Graph algorithms over a compact CSR (compressed sparse row) projection.
//!
//! This crate knows nothing about storage: `hopdb-core` (or a test) builds a [`Csr`] from a
//! snapshot, with nodes numbered densely `0..n`, and the algorithms here index arrays by that
//! number. Keeping the algorithms storage-free makes them testable on their own against
//! NetworkX and igraph, and lets the projection strategy change without touching them.
#![deny(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod control;
pub mod csr;

pub use control::{AlgoError, Control};
pub use csr::{Csr, CsrError};
