//! Progress per position in a batch: the positions being searched, each with the counters its
//! search publishes ([`SearchProgress`]), so that a position that runs long shows its bound,
//! nodes and rate like a single `solve` does. On a terminal the longest-running one is shown in
//! the batch's bar; elsewhere one line per long position is printed every `--progress` seconds
//! (30 by default), so that a log of a long batch says which positions are still going.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fifteen_core::SearchProgress;

use crate::watch;

/// The positions being searched, by line number.
#[derive(Debug, Default)]
pub(super) struct Running {
    searches: Mutex<BTreeMap<usize, (Instant, Arc<SearchProgress>)>>,
}

impl Running {
    /// The search of the position on `line` starts: its counters.
    pub(super) fn start(&self, line: usize) -> Arc<SearchProgress> {
        let progress = Arc::new(SearchProgress::new());
        if let Ok(mut s) = self.searches.lock() {
            s.insert(line, (Instant::now(), Arc::clone(&progress)));
        }
        progress
    }

    /// The search of the position on `line` ended.
    pub(super) fn end(&self, line: usize) {
        if let Ok(mut s) = self.searches.lock() {
            s.remove(&line);
        }
    }

    /// A line for each position searched for at least `after` (once its search has begun),
    /// longest first: `line 12: search: bound 88, ...` (the rate is the position's mean so far).
    pub(super) fn report(&self, after: Duration) -> Vec<String> {
        let Ok(s) = self.searches.lock() else { return Vec::new() };
        let mut long: Vec<(Duration, usize, String)> = s
            .iter()
            .filter_map(|(&line, (t0, progress))| {
                let elapsed = t0.elapsed();
                let snap = progress.snapshot();
                // A search that has not begun (still building its move automaton) has nothing
                // to show yet.
                let begun = snap.bound > 0 || snap.generated > 0;
                (elapsed >= after && begun).then(|| {
                    let rate = snap.generated as f64 / elapsed.as_secs_f64().max(1e-3);
                    (elapsed, line, format!("line {line}: {}", watch::line(&snap, elapsed, rate)))
                })
            })
            .collect();
        long.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        long.into_iter().map(|(_, _, text)| text).collect()
    }
}
