//! `pdb-gen`: builds additive pattern databases (Korf & Felner 2002) by a parallel,
//! level-synchronous retrograde breadth-first search, and names the preset partitions.
//!
//! A pattern is a set of tiles. Its database gives, for every placement of those tiles, the least
//! number of moves **of pattern tiles** that brings them to their goal cells, the blank moving
//! freely through the cells no pattern tile holds. Every move moves one tile, so the entries of
//! disjoint patterns add up to an admissible (and consistent) heuristic.
//!
//! The library builds tables in memory ([`build_pattern`]) so tests can build tiny ones; the
//! `pdb-gen` binary adds the command line, progress display and file writing (via
//! [`fifteen_core::pdb::write_pdb_file`]).
//!
//! ```
//! use fifteen_core::{Board, Size};
//! use pdb_gen::{BuildOptions, build_pattern};
//! let size = Size::new(3, 2).unwrap();
//! let goal = Board::blank_first(size);
//! let entries = build_pattern(size, &goal, &[1, 2], &BuildOptions::default()).unwrap();
//! assert_eq!(entries.len(), 6 * 5);
//! // Tiles 1 and 2 at home: no move needed.
//! assert_eq!(entries[fifteen_core::pdb::rank(6, &[1, 2]) as usize], 0);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod bfs;
mod preset;
mod set;

use std::fmt;
use std::time::Duration;

use fifteen_core::pdb::PdbError;

pub use bfs::build_pattern;
pub use preset::{DEFAULTS, PRESETS, Preset, default_for, default_sizes, file_name, preset};
pub use set::{Progress, SetSpec, Written, build_set};

/// Generator name and version written into every file header.
pub const GENERATOR: &str = concat!("pdb-gen ", env!("CARGO_PKG_VERSION"));

/// What the search reports after each BFS level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelReport {
    /// The level just expanded: the number of pattern-tile moves.
    pub depth: u8,
    /// States (placement, blank region) at this depth.
    pub frontier: u64,
    /// States reached so far, this level's successors included.
    pub reached: u64,
    /// All states of the search space (placements times blank regions).
    pub space: u64,
    /// Time since the search started, initialisation included.
    pub elapsed: Duration,
    /// Whether this level searched backwards (each unreached state looks for a neighbour in the
    /// frontier) rather than forwards (each frontier state marks its neighbours).
    pub pull: bool,
}

/// How to run a build.
#[derive(Default)]
pub struct BuildOptions<'a> {
    /// Worker threads; `None` uses rayon's default (one per core).
    pub threads: Option<usize>,
    /// Called after every BFS level, from the calling thread.
    pub progress: Option<&'a (dyn Fn(&LevelReport) + Sync)>,
    /// Build a zero-aware table (an entry per placement and blank region, in
    /// [`fifteen_core::pdb::ZeroIndex`] order) instead of an ordinary one.
    pub zero_aware: bool,
}

impl fmt::Debug for BuildOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuildOptions")
            .field("threads", &self.threads)
            .field("progress", &self.progress.map(|_| "callback"))
            .field("zero_aware", &self.zero_aware)
            .finish()
    }
}

/// Why a database could not be built or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenError {
    /// The pattern or goal is not usable.
    #[error("invalid pattern: {reason}")]
    BadPattern {
        /// What is wrong.
        reason: String,
    },
    /// The search space does not fit in memory.
    #[error(
        "the search space has {states} states ({bytes} bytes at 2 bits each), over the limit of {limit} bytes; use smaller patterns"
    )]
    TooLarge {
        /// States (placements times free cells).
        states: u64,
        /// Bytes needed for the state array.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// Some placement is 255 or more moves away, which a `u8` entry cannot hold.
    #[error(
        "the search reached depth {depth}, which one-byte entries cannot hold; use smaller patterns"
    )]
    TooDeep {
        /// The depth reached.
        depth: u32,
    },
    /// The state array could not be allocated.
    #[error("cannot allocate {bytes} bytes for the search: {source}")]
    Memory {
        /// Bytes asked for.
        bytes: u64,
        /// The system's error.
        source: std::io::Error,
    },
    /// The thread pool could not start.
    #[error("cannot start the build's worker threads ({threads} asked for, then 1): {reason}")]
    ThreadPool {
        /// Threads requested.
        threads: usize,
        /// rayon's error text.
        reason: String,
    },
    /// Writing the file failed.
    #[error(transparent)]
    Pdb(#[from] PdbError),
}

#[cfg(test)]
mod tests;
