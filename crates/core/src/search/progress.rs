//! What a running IDA* search publishes for whoever shows its progress: the current f-bound,
//! the nodes generated so far and per iteration. The search only stores into atomics, at the
//! points where it already looks at the clock (every few thousand nodes) and between
//! iterations, so watching costs it nothing measurable and it does no I/O; the command line
//! reads [`SearchProgress::snapshot`] from a thread of its own.
//!
//! Invariant: the bound of the current iteration is a proven lower bound as soon as it is
//! published (every shorter path was searched by the earlier iterations), which is what an
//! interrupted search reports.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// Counters a search updates while it runs (see the module docs). Share one per search through
/// [`Limits::progress`](super::Limits::progress).
#[derive(Debug, Default)]
pub struct SearchProgress {
    bound: AtomicU32,
    generated: AtomicU64,
    iteration_start: AtomicU64,
    last: AtomicU64,
    before_last: AtomicU64,
    done: AtomicU32,
    started: AtomicBool,
}

/// One reading of a [`SearchProgress`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProgressSnapshot {
    /// The f-bound of the iteration running (0 before the first): every solution has at least
    /// this many moves.
    pub bound: u32,
    /// Nodes generated since the search started (counted every few thousand nodes).
    pub generated: u64,
    /// Of those, the nodes of the iteration running.
    pub iteration: u64,
    /// Nodes of the last complete iteration (0 if none).
    pub last_iteration: u64,
    /// Nodes of the complete iteration before that (0 if none).
    pub before_last_iteration: u64,
    /// Complete iterations.
    pub iterations: u32,
}

impl ProgressSnapshot {
    /// The nodes the running iteration will generate if it exhausts its bound, when the last
    /// two complete iterations say something about it: the last one's count times its growth
    /// over the one before. (The iteration that finds the answer usually stops before that.)
    ///
    /// ```
    /// use fifteen_core::ProgressSnapshot;
    /// let s = ProgressSnapshot { last_iteration: 600, before_last_iteration: 100, ..Default::default() };
    /// assert_eq!(s.iteration_estimate(), Some(3600));
    /// ```
    pub fn iteration_estimate(&self) -> Option<u64> {
        if self.before_last_iteration == 0 || self.last_iteration < self.before_last_iteration {
            return None;
        }
        let growth = self.last_iteration as f64 / self.before_last_iteration as f64;
        Some((self.last_iteration as f64 * growth) as u64)
    }
}

impl SearchProgress {
    /// Counters of a search not started yet.
    pub fn new() -> SearchProgress {
        SearchProgress::default()
    }

    /// The counters now. (Each is read on its own: a snapshot taken while an iteration ends
    /// may mix the two iterations' counts.)
    pub fn snapshot(&self) -> ProgressSnapshot {
        let generated = self.generated.load(Ordering::Relaxed);
        ProgressSnapshot {
            bound: self.bound.load(Ordering::Relaxed),
            generated,
            iteration: generated.saturating_sub(self.iteration_start.load(Ordering::Relaxed)),
            last_iteration: self.last.load(Ordering::Relaxed),
            before_last_iteration: self.before_last.load(Ordering::Relaxed),
            iterations: self.done.load(Ordering::Relaxed),
        }
    }

    /// An iteration with `bound` starts after `generated` nodes in all; the one before it, if
    /// any, is complete.
    pub(crate) fn iteration(&self, bound: u32, generated: u64) {
        self.seen(generated);
        if self.started.swap(true, Ordering::Relaxed) {
            let start = self.iteration_start.load(Ordering::Relaxed);
            self.before_last.store(self.last.load(Ordering::Relaxed), Ordering::Relaxed);
            self.last.store(generated.saturating_sub(start), Ordering::Relaxed);
            self.done.fetch_add(1, Ordering::Relaxed);
        }
        self.iteration_start.store(generated, Ordering::Relaxed);
        self.bound.store(bound, Ordering::Relaxed);
    }

    /// The search has generated at least `generated` nodes.
    pub(crate) fn seen(&self, generated: u64) {
        self.generated.fetch_max(generated, Ordering::Relaxed);
    }
}
