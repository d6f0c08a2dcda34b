//! What every long-running algorithm accepts: a cancel flag, a deadline and a memory bound.
//!
//! Algorithms call [`Control::check`] when they start and then every few thousand steps (one
//! relaxed load, plus an `Instant::now` when a deadline is set), so a cancel or an expired
//! deadline stops them within microseconds. The memory bound is checked when the fixed tables
//! of a run (per-node arrays, bitsets) are allocated and then on every step that can grow a
//! frontier, visited set or result buffer, so a traversal errs with
//! [`AlgoError::MemoryLimit`] before its working memory passes the bound (the estimate counts
//! the algorithm's own buffers, not allocator overhead, nor the projection, which the caller
//! holds).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use thiserror::Error;

/// Why an algorithm stopped without an answer.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum AlgoError {
    /// The caller's cancel flag was set ([`Control::with_cancel`]).
    #[error("cancelled")]
    Cancelled,
    /// The run passed its deadline ([`Control::with_timeout`]); holds the timeout given.
    #[error("deadline of {0:?} exceeded")]
    DeadlineExceeded(Duration),
    /// The run's working memory would pass its bound ([`Control::with_max_memory`]).
    #[error("memory bound of {limit} bytes exceeded (needed about {needed})")]
    MemoryLimit {
        /// The bound, in bytes.
        limit: usize,
        /// The estimate that passed it, in bytes.
        needed: usize,
    },
    /// A node argument is not a node of the projection.
    #[error("node {node} is not in the projection (0..{n})")]
    NodeOutOfRange {
        /// The node asked for.
        node: u32,
        /// The projection's node count.
        n: u32,
    },
    /// An option or argument is outside its domain; the message says which and why.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// Cancellation, deadline and memory bound for one run. `Control::default()` is unbounded.
#[derive(Debug, Clone, Default)]
pub struct Control {
    cancel: Option<Arc<AtomicBool>>,
    deadline: Option<(Instant, Duration)>,
    max_memory: Option<usize>,
}

impl Control {
    /// No cancel flag, deadline or memory bound (the same as `Control::default()`).
    pub fn unbounded() -> Control {
        Control::default()
    }

    /// Stops the run (with [`AlgoError::Cancelled`]) once `flag` is set, from any thread.
    pub fn with_cancel(mut self, flag: Arc<AtomicBool>) -> Control {
        self.cancel = Some(flag);
        self
    }

    /// Stops the run once `timeout` has passed from now.
    pub fn with_timeout(mut self, timeout: Duration) -> Control {
        self.deadline = Some((Instant::now() + timeout, timeout));
        self
    }

    /// Bounds the working memory (frontiers, visited sets, result buffers) of the run.
    pub fn with_max_memory(mut self, bytes: usize) -> Control {
        self.max_memory = Some(bytes);
        self
    }

    /// Errs when the run must stop.
    pub fn check(&self) -> Result<(), AlgoError> {
        if let Some(flag) = &self.cancel {
            if flag.load(Ordering::Relaxed) {
                return Err(AlgoError::Cancelled);
            }
        }
        if let Some((at, timeout)) = self.deadline {
            if Instant::now() >= at {
                return Err(AlgoError::DeadlineExceeded(timeout));
            }
        }
        Ok(())
    }

    /// The memory bound in bytes, if any.
    pub fn max_memory(&self) -> Option<usize> {
        self.max_memory
    }

    /// Errs when `needed` bytes of working memory exceed the bound.
    pub fn check_memory(&self, needed: usize) -> Result<(), AlgoError> {
        match self.max_memory {
            Some(limit) if needed > limit => Err(AlgoError::MemoryLimit { limit, needed }),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_deadline_and_memory() {
        let flag = Arc::new(AtomicBool::new(false));
        let c = Control::unbounded().with_cancel(flag.clone()).with_max_memory(100);
        assert_eq!(c.check(), Ok(()));
        flag.store(true, Ordering::Relaxed);
        assert_eq!(c.check(), Err(AlgoError::Cancelled));
        assert!(c.check_memory(100).is_ok());
        assert_eq!(
            c.check_memory(101),
            Err(AlgoError::MemoryLimit {
                limit: 100,
                needed: 101
            })
        );
        let d = Control::unbounded().with_timeout(Duration::ZERO);
        assert!(matches!(d.check(), Err(AlgoError::DeadlineExceeded(_))));
    }
}
