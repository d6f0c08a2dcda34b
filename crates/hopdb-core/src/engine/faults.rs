//! Fault-injection hooks for the crash and failure tests, in the engine layer so every layer
//! above can reach them without importing each other.

use std::sync::atomic::{AtomicU32, Ordering};

/// Test hook: dies on the spot (as `kill -9` would) at the named step of a bulk commit or
/// rollback when `HOPDB_TEST_CRASH_AT` names it, so the crash tests reach every step
/// deterministically.
pub(crate) fn crash_point(name: &str) {
    if std::env::var_os("HOPDB_TEST_CRASH_AT").is_some_and(|v| v == name) {
        std::process::abort();
    }
}

/// Test hook: a number of upcoming commits that fail before reaching the engine, as if the
/// disk had refused the write.
#[derive(Default)]
pub(crate) struct CommitFaults {
    remaining: AtomicU32,
}

impl CommitFaults {
    /// Makes the next `n` commits fail.
    pub(crate) fn arm(&self, n: u32) {
        self.remaining.store(n, Ordering::SeqCst);
    }

    /// True (using one up) when this commit is to fail.
    pub(crate) fn take(&self) -> bool {
        self.remaining
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }
}
