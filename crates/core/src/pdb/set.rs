//! Database sets: finding the tables in a folder, grouping them into complete sets (disjoint
//! partitions, or catalogues of overlapping patterns with at least one exact cover), and choosing
//! the strongest set that serves a goal.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::PdbError;
use super::heuristic::PdbHeuristic;
use super::table::{LoadMode, PdbTable};
use crate::board::{Board, Size};

/// A complete partition of the tiles into pattern tables that share a board and a goal.
#[derive(Clone, Debug)]
pub struct PdbSet {
    /// The preset name (`4x4-7-8`, `4x4-6-6-3`, ...) or `custom`.
    pub name: String,
    /// The tables, one per pattern.
    pub tables: Vec<Arc<PdbTable>>,
}

/// Why no set could be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PdbSetError {
    /// A table failed to load.
    #[error("{0}")]
    Table(#[from] PdbError),
    /// No tables were given.
    #[error("no pattern tables given")]
    NoTables,
    /// A table is for another board size.
    #[error("wrong database for this board: it is for {found} but the board is {expected}")]
    WrongBoard {
        /// The board's size.
        expected: Size,
        /// The table's size.
        found: Size,
    },
    /// A table has more entries than a 32-bit index reaches.
    #[error(
        "a table has {entries} entries, more than the solver indexes (2^32); use smaller patterns"
    )]
    TableTooLarge {
        /// Its entry count.
        entries: u64,
    },
    /// The tables of a set were built for different goals.
    #[error("the tables of the set were built for different goals")]
    MixedGoals,
    /// A catalogue needs more lookups per position than the solver keeps.
    #[error(
        "the catalogue needs {lookups} lookups per position, more than the {most} the solver keeps; use fewer patterns"
    )]
    TooManyLookups {
        /// Lookups needed.
        lookups: usize,
        /// The most there is room for.
        most: usize,
    },
    /// Two tables share a tile.
    #[error("tile {tile} is in two patterns: the set is not a disjoint partition")]
    OverlappingPatterns {
        /// The shared tile.
        tile: u8,
    },
    /// The goal's blank cannot be mapped onto the databases' blank by a symmetry.
    #[error(
        "wrong database for this goal: no symmetry of the board takes the goal's blank (cell {blank}) to the databases' blank; build databases for this goal with `pdb-gen --goal`"
    )]
    GoalNotCovered {
        /// The goal's blank cell.
        blank: usize,
    },
}

impl PdbSet {
    /// Total entries over the tables: larger patterns give stronger estimates.
    pub fn entries(&self) -> u64 {
        self.tables.iter().map(|t| t.header().entry_count).sum()
    }

    /// The board size.
    pub fn size(&self) -> Size {
        self.tables[0].size()
    }

    /// The heuristic for `goal`, with reflected lookups if `reflect` and dual lookups (at nodes
    /// with the blank on a corner) if `dual`.
    pub fn heuristic(
        &self,
        goal: &Board,
        reflect: bool,
        dual: bool,
    ) -> Result<PdbHeuristic, PdbSetError> {
        let mut name = format!("pdb {}", self.name);
        if reflect {
            name.push_str(" +reflect");
        }
        if dual {
            name.push_str(" +dual");
        }
        PdbHeuristic::new(goal, self.tables.clone(), reflect, dual, name)
    }

    /// Whether this set can serve `goal` (right size, blank reachable by a symmetry).
    pub fn serves(&self, goal: &Board) -> bool {
        super::serves_goal(self.tables[0].goal(), goal)
    }
}

/// What a folder holds: the complete sets, and the files that failed to load.
#[derive(Debug, Default)]
pub struct Scan {
    /// Complete sets, strongest first.
    pub sets: Vec<PdbSet>,
    /// Files ending in `.pdb` that could not be used, with why.
    pub errors: Vec<(PathBuf, PdbError)>,
    /// Valid tables that belong to no complete set.
    pub incomplete: Vec<PathBuf>,
}

/// Opens every `*.pdb` file in `dir` and groups the tables into complete sets. A missing folder
/// is an empty scan.
pub fn scan_dir(dir: &Path, mode: LoadMode) -> Scan {
    scan_dir_except(dir, mode, |_| false)
}

/// [`scan_dir`] without the files for which `skip` is true, which are not even opened (opening
/// maps or reads a file whole: a caller leaves out what does not fit in memory).
pub fn scan_dir_except(dir: &Path, mode: LoadMode, skip: impl Fn(&Path) -> bool) -> Scan {
    let mut scan = Scan::default();
    let Ok(read) = std::fs::read_dir(dir) else { return scan };
    let mut paths: Vec<PathBuf> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pdb") && !skip(p))
        .collect();
    paths.sort();
    let mut tables: Vec<Arc<PdbTable>> = Vec::new();
    for p in paths {
        match PdbTable::open(&p, mode) {
            Ok(t) => tables.push(Arc::new(t)),
            Err(e) => scan.errors.push((p, e)),
        }
    }
    // Group by (preset, size, goal); keep groups that partition all tiles exactly.
    let mut groups: Vec<(String, Vec<Arc<PdbTable>>)> = Vec::new();
    // Tables of the multi-tile metric are not single-tile sets (see `mtm::ColourTable`).
    for t in tables.into_iter().filter(|t| t.header().encoding.metric() == "stm") {
        let name = t.header().preset.clone().unwrap_or_else(|| "custom".to_string());
        match groups
            .iter_mut()
            .find(|(n, g)| *n == name && g[0].size() == t.size() && g[0].goal() == t.goal())
        {
            Some((_, g)) => g.push(t),
            None => groups.push((name, vec![t])),
        }
    }
    for (name, group) in groups {
        let n = group[0].size().cells();
        let mut count = vec![0u32; n];
        for t in &group {
            for &tile in t.tiles() {
                count[tile as usize] += 1;
            }
        }
        // A partition (every tile once), or a catalogue: tables whose patterns overlap and
        // cover the tiles exactly in at least one way.
        let masks: Vec<u64> =
            group.iter().map(|t| t.tiles().iter().fold(0u64, |m, &x| m | 1 << x)).collect();
        let complete = count[1..].iter().all(|&c| c == 1)
            || (count[1..].iter().all(|&c| c >= 1)
                && !super::catalogue::exact_covers(n, &masks).is_empty());
        if complete {
            scan.sets.push(PdbSet { name, tables: group });
        } else {
            scan.incomplete.extend(group.iter().filter_map(|t| t.path().map(Path::to_path_buf)));
        }
    }
    scan.sets.sort_by_key(|s| std::cmp::Reverse(s.entries()));
    scan
}

/// The strongest set in `dir` that serves `goal`, if any.
pub fn best_set(dir: &Path, goal: &Board, mode: LoadMode) -> Option<PdbSet> {
    scan_dir(dir, mode).sets.into_iter().find(|s| s.serves(goal))
}
