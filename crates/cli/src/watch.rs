//! The progress line of a long search, on stderr: the current bound (a proven lower bound),
//! nodes generated, the node rate, the time so far and, once two iterations are complete, the
//! size the running iteration will reach if it grows like the last one and when that would be.
//!
//! The search publishes its counters into a [`SearchProgress`] (atomics, no I/O in the
//! library); a thread of ours reads them. Nothing is printed for a search shorter than `after`
//! (`--progress`, default 3 s), so quick answers stay one screen; a long optimal search gets a
//! note above its first line, once, on how to stop it or answer sooner. On a terminal the line is
//! redrawn in place every second and cleared when the search ends; elsewhere (a log, a pipe) a
//! new line is written every `after`, so that a log of an hours-long search shows how it went.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use fifteen_core::{ProgressSnapshot, SearchProgress};

/// A running progress display; dropping it stops it (and clears a terminal's line).
#[derive(Debug)]
pub(crate) struct Watch {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Watch {
    /// Starts showing `progress` once `after` has passed, with `note` on a line of its own
    /// above the first progress line. If the system refuses a thread, the search simply runs
    /// without a progress line.
    pub(crate) fn start(
        progress: Arc<SearchProgress>,
        after: Duration,
        note: Option<&'static str>,
    ) -> Watch {
        let (stop, wait) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || show(&progress, after, note, &wait))
            .ok();
        Watch { stop: Some(stop), thread }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // Disconnecting the channel wakes the thread at once.
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The display's loop, until the channel disconnects.
fn show(progress: &SearchProgress, after: Duration, note: Option<&str>, wait: &mpsc::Receiver<()>) {
    let terminal = std::io::stderr().is_terminal();
    let t0 = Instant::now();
    if !matches!(wait.recv_timeout(after), Err(RecvTimeoutError::Timeout)) {
        return;
    }
    if let Some(note) = note {
        eprintln!("{note}");
    }
    let every = if terminal { Duration::from_secs(1) } else { after };
    let (mut then, mut nodes_then) = (t0, 0);
    loop {
        let snap = progress.snapshot();
        let now = Instant::now();
        let secs = now.duration_since(then).as_secs_f64().max(1e-3);
        let rate = snap.generated.saturating_sub(nodes_then) as f64 / secs;
        let text = line(&snap, now.duration_since(t0), rate);
        if terminal {
            eprint!("\r\x1b[2K{text}");
        } else {
            eprintln!("{text}");
        }
        (then, nodes_then) = (now, snap.generated);
        if !matches!(wait.recv_timeout(every), Err(RecvTimeoutError::Timeout)) {
            break;
        }
    }
    if terminal {
        eprint!("\r\x1b[2K");
    }
}

/// One progress line: `search: bound 88, 1.23 G nodes, 45.1 M nodes/s, 27 s; iteration 412 M
/// of ~2.60 G, ETA 52 s`. `rate` is nodes per second lately.
pub(crate) fn line(snap: &ProgressSnapshot, elapsed: Duration, rate: f64) -> String {
    let mut text = format!(
        "search: bound {}, {} nodes, {} nodes/s, {}",
        snap.bound,
        si(snap.generated as f64),
        si(rate),
        duration(elapsed.as_secs_f64())
    );
    if let Some(total) = snap.iteration_estimate() {
        if snap.iteration < total && rate > 0.0 {
            let left = (total - snap.iteration) as f64 / rate;
            text.push_str(&format!(
                "; iteration {} of ~{}, ETA {}",
                si(snap.iteration as f64),
                si(total as f64),
                duration(left)
            ));
        } else {
            text.push_str(&format!(
                "; iteration {}, past the estimate of ~{}",
                si(snap.iteration as f64),
                si(total as f64)
            ));
        }
    }
    text
}

/// A count with an SI prefix and three digits: `950`, `12.3 k`, `1.23 G`.
fn si(x: f64) -> String {
    const PREFIXES: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, p) in PREFIXES {
        if x >= scale {
            let v = x / scale;
            let digits = if v >= 100.0 {
                0
            } else if v >= 10.0 {
                1
            } else {
                2
            };
            return format!("{v:.digits$} {p}");
        }
    }
    format!("{x:.0}")
}

/// Seconds as `27 s`, `4 min 05 s` or `2 h 03 min`.
fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_has_an_eta_once_two_iterations_are_done() {
        let mut snap = ProgressSnapshot {
            bound: 88,
            generated: 1_230_000_000,
            iteration: 400_000_000,
            last_iteration: 500_000_000,
            before_last_iteration: 100_000_000,
            iterations: 3,
        };
        let text = line(&snap, Duration::from_secs(27), 50e6);
        assert_eq!(
            text,
            "search: bound 88, 1.23 G nodes, 50.0 M nodes/s, 27 s; iteration 400 M of ~2.50 G, ETA 42 s"
        );
        snap.iteration = 3_000_000_000;
        let text = line(&snap, Duration::from_secs(3700), 50e6);
        assert!(
            text.contains("1 h 01 min; iteration 3.00 G, past the estimate of ~2.50 G"),
            "{text}"
        );
        snap.before_last_iteration = 0;
        let text = line(&snap, Duration::from_secs(75), 1234.0);
        assert_eq!(text, "search: bound 88, 1.23 G nodes, 1.23 k nodes/s, 1 min 15 s");
    }
}
