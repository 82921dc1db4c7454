//! A table of a coloured abstraction in the multi-tile metric: the 4x4's strong MTM heuristic.
//!
//! The canonical goal's cells are painted in a few classes (the blank its own); a position's
//! abstraction paints each tile with the class of its goal cell, so that tiles of one class are
//! interchangeable. An MTM move of the position is an MTM move of its abstraction, so the
//! abstraction's MTM distance, found by a BFS over all its states, is a lower bound on the
//! position's (an abstraction, or homomorphism, never lengthens a path). Unlike the additive
//! single-tile databases this needs no argument about which moves a pattern pays for: every tile
//! is in the abstraction, every move costs 1, and two views of one table (the symmetries that put
//! the goal's blank on the canonical blank: for a square, a map and its transpose) are combined
//! by their maximum.
//!
//! States are ranked as a multiset permutation: the blank's cell, then for each class but the
//! last the combination (colex rank) of its cells among the cells left by the classes before it.
//! The default 4x4 colouring ([`DEFAULT_4X4`], classes of 2, 4, 4 and 5 tiles) has
//! 16 x C(15,2) x C(13,4) x C(9,4) = 151,351,200 states, one byte each. The table is stored in
//! the v2 file format with its own entry encoding ([`EntryEncoding::MtmColour`]), so the
//! single-tile loaders refuse it and [`ColourTable::open`] refuses their files.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use rayon::prelude::*;

use crate::board::{Board, MAX_CELLS, Size};
use crate::moves::Dir;
use crate::pdb::{
    EntryEncoding, LoadMode, PdbError, PdbMeta, PdbTable, UNREACHABLE, encode_header_as,
    symmetries, write_pdb_file_as,
};

/// The file name of the default 4x4 MTM table (preset `4x4-mtm`).
pub const COLOUR_FILE: &str = "4x4-mtm.p1.pdb";

/// The default 4x4 colouring, by goal cell of the blank-last goal (0 is the blank's class).
pub const DEFAULT_4X4: [u8; 16] = [1, 1, 2, 2, 3, 3, 2, 2, 3, 4, 4, 4, 3, 4, 4, 0];

/// Binomial coefficients up to 64 choose 64 (values up to 16 cells are all that is used).
const fn binomials() -> [[u64; MAX_CELLS + 1]; MAX_CELLS + 1] {
    let mut b = [[0u64; MAX_CELLS + 1]; MAX_CELLS + 1];
    let mut n = 0;
    while n <= 20 {
        b[n][0] = 1;
        let mut k = 1;
        while k <= n {
            b[n][k] = b[n - 1][k - 1] + if k < n { b[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    b
}

static BINOM: [[u64; MAX_CELLS + 1]; MAX_CELLS + 1] = binomials();

/// The sizes of the classes of `tiles` tiles whose ends are the bits of `class_ends` (with the
/// blank's class of 1 first), or `None` if the bits do not end the last class at the last tile.
pub(crate) fn class_sizes(tiles: usize, class_ends: u64) -> Option<Vec<u8>> {
    if tiles == 0 || tiles > 20 || class_ends >> tiles != 0 || class_ends >> (tiles - 1) & 1 == 0 {
        return None;
    }
    let mut sizes = vec![1u8];
    let mut run = 0u8;
    for i in 0..tiles {
        run += 1;
        if class_ends >> i & 1 == 1 {
            sizes.push(run);
            run = 0;
        }
    }
    Some(sizes)
}

/// `n! / prod(sizes!)` for sizes summing to `n` (at most 20 cells).
pub(crate) fn multinomial(n: usize, sizes: &[u8]) -> u64 {
    let mut left = n;
    let mut total = 1u64;
    for &s in sizes {
        total = total.saturating_mul(BINOM[left][s as usize]);
        left -= s as usize;
    }
    total
}

/// A colouring of a board's canonical goal (blank last): the class of each cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Colouring {
    size: Size,
    /// Class of each canonical cell; 0 only on the blank's cell.
    cell_class: [u8; MAX_CELLS],
    /// Number of cells of each class, the blank's (1) first.
    sizes: Vec<u8>,
    /// The number of states of each class's combination: `radix[j] = C(cells left, sizes[j])`.
    radix: Vec<u64>,
}

impl Colouring {
    /// The colouring of the blank-last goal of `size` with `class_of_cell` (0 on the last cell
    /// only, classes numbered from 1 without gaps), or `None` if it is not one.
    pub fn new(size: Size, class_of_cell: &[u8]) -> Option<Colouring> {
        let n = size.cells();
        if class_of_cell.len() != n || n > 20 || class_of_cell[n - 1] != 0 {
            return None;
        }
        let classes = *class_of_cell.iter().max()? as usize + 1;
        if classes > 8 {
            return None;
        }
        let mut sizes = vec![0u8; classes];
        for &c in class_of_cell {
            sizes[c as usize] += 1;
        }
        if sizes[0] != 1 || sizes.contains(&0) {
            return None;
        }
        let mut cell_class = [0u8; MAX_CELLS];
        cell_class[..n].copy_from_slice(class_of_cell);
        let mut radix = Vec::new();
        let mut left = n;
        for &s in &sizes {
            radix.push(BINOM[left][s as usize]);
            left -= s as usize;
        }
        Some(Colouring { size, cell_class, sizes, radix })
    }

    /// The default 4x4 colouring.
    pub fn default_4x4() -> Colouring {
        Colouring::new(Size::S4X4, &DEFAULT_4X4).unwrap_or_else(|| unreachable!())
    }

    /// The number of abstract states (table entries).
    pub fn states(&self) -> u64 {
        multinomial(self.size.cells(), &self.sizes)
    }

    /// The canonical goal (blank last) and its tiles class by class, with the class ends: what
    /// the file header records.
    fn header_parts(&self) -> (Board, Vec<u8>, u64) {
        let goal = Board::blank_last(self.size);
        let mut tiles = Vec::new();
        let mut ends = 0u64;
        for class in 1..self.sizes.len() as u8 {
            for (cell, &t) in goal.cells().iter().enumerate() {
                if self.cell_class[cell] == class {
                    tiles.push(t);
                }
            }
            ends |= 1 << (tiles.len() - 1);
        }
        (goal, tiles, ends)
    }

    /// The colouring a file header describes.
    fn from_header(goal: &Board, tiles: &[u8], class_ends: u64) -> Option<Colouring> {
        if *goal != Board::blank_last(goal.size()) {
            return None;
        }
        let mut class_of_cell = vec![0u8; goal.size().cells()];
        let mut class = 1u8;
        for (i, &t) in tiles.iter().enumerate() {
            class_of_cell[goal.position(t)] = class;
            if class_ends >> i & 1 == 1 {
                class += 1;
            }
        }
        Colouring::new(goal.size(), &class_of_cell)
    }

    /// The rank of a colour array (the class on each canonical cell).
    #[inline(always)]
    fn rank(&self, colours: impl Fn(usize) -> u8) -> u64 {
        let last = self.sizes.len() - 1;
        let mut pos = [0usize; 8];
        let mut cnt = [0usize; 8];
        let mut digit = [0u64; 8];
        for y in 0..self.size.cells() {
            let c = colours(y) as usize;
            for j in 0..=c.min(last - 1) {
                if j == c {
                    cnt[j] += 1;
                    digit[j] += BINOM[pos[j]][cnt[j]];
                }
                pos[j] += 1;
            }
        }
        let mut idx = 0u64;
        for (r, d) in self.radix[..last].iter().zip(digit) {
            idx = idx * r + d;
        }
        idx
    }

    /// The colour array of state `idx`.
    fn unrank(&self, mut idx: u64, out: &mut [u8]) {
        let n = self.size.cells();
        let last = self.sizes.len() - 1;
        let mut digits = [0u64; 8];
        for j in (0..last).rev() {
            digits[j] = idx % self.radix[j];
            idx /= self.radix[j];
        }
        out[..n].fill(last as u8);
        // The cells no class has taken yet, in order (no allocation: this runs per state).
        let mut free = [0u8; MAX_CELLS];
        for (k, f) in free.iter_mut().enumerate().take(n) {
            *f = k as u8;
        }
        let mut left = n;
        for (j, &digit) in digits[..last].iter().enumerate() {
            let mut r = digit;
            let mut members = [false; MAX_CELLS];
            let mut p = left;
            for i in (1..=self.sizes[j] as usize).rev() {
                p -= 1;
                while BINOM[p][i] > r {
                    p -= 1;
                }
                r -= BINOM[p][i];
                members[p] = true;
            }
            let mut kept = 0;
            for k in 0..left {
                let cell = free[k];
                if members[k] {
                    out[cell as usize] = j as u8;
                } else {
                    free[kept] = cell;
                    kept += 1;
                }
            }
            left = kept;
        }
    }
}

/// Builds the MTM table of `colouring` by a parallel BFS from its goal; `progress(depth,
/// states)` is called after each level. Entries are distances ([`UNREACHABLE`] for the half of
/// the states of the wrong parity).
pub fn build_colour_table(colouring: &Colouring, progress: &(dyn Fn(u8, u64) + Sync)) -> Vec<u8> {
    let total = colouring.states() as usize;
    let table: Vec<AtomicU8> = (0..total).map(|_| AtomicU8::new(UNREACHABLE)).collect();
    let size = colouring.size;
    let n = size.cells();
    let goal_idx = colouring.rank(|y| colouring.cell_class[y]);
    table[goal_idx as usize].store(0, Ordering::Relaxed);
    let mut depth = 0u8;
    let mut seen = 1u64;
    progress(0, seen);
    let neighbours: Vec<[Option<usize>; 4]> =
        (0..n).map(|c| Dir::ALL.map(|d| d.neighbor(size, c))).collect();
    loop {
        let found = AtomicU64::new(0);
        table.par_chunks(1 << 16).enumerate().for_each(|(chunk, entries)| {
            let mut colours = [0u8; MAX_CELLS];
            let mut new = 0u64;
            for (k, e) in entries.iter().enumerate() {
                if e.load(Ordering::Relaxed) != depth {
                    continue;
                }
                colouring.unrank(((chunk << 16) + k) as u64, &mut colours);
                let blank = colours[..n].iter().position(|&c| c == 0).unwrap_or(0);
                for d in Dir::ALL {
                    let d = d as usize;
                    let mut cur = colours;
                    let mut b = blank;
                    while let Some(to) = neighbours[b][d] {
                        cur[b] = cur[to];
                        cur[to] = 0;
                        b = to;
                        let j = colouring.rank(|y| cur[y]) as usize;
                        if table[j].load(Ordering::Relaxed) == UNREACHABLE {
                            table[j].store(depth + 1, Ordering::Relaxed);
                            new += 1;
                        }
                    }
                }
            }
            found.fetch_add(new, Ordering::Relaxed);
        });
        // Two threads may both count a state they reached at once; recount exactly.
        let new = table.par_iter().filter(|e| e.load(Ordering::Relaxed) == depth + 1).count();
        let _ = found.into_inner();
        if new == 0 {
            break;
        }
        depth += 1;
        seen += new as u64;
        progress(depth, seen);
    }
    table.into_iter().map(AtomicU8::into_inner).collect()
}

/// A loaded MTM colour table and the views it serves a goal through.
#[derive(Clone, Debug)]
pub struct ColourTable {
    colouring: Colouring,
    table: Arc<PdbTable>,
}

/// The way one goal looks a position up in a [`ColourTable`].
#[derive(Clone, Debug)]
pub(crate) struct ColourView {
    /// The position's cell shown on each canonical cell.
    inv: [u8; MAX_CELLS],
    /// The class each of the position's tiles plays.
    tile_class: [u8; MAX_CELLS],
}

impl ColourTable {
    /// Wraps a table read from a file or from bytes, checking that it is an MTM colour table.
    pub fn from_table(table: Arc<PdbTable>) -> Result<ColourTable, PdbError> {
        let header = table.header();
        let EntryEncoding::MtmColour { class_ends } = header.encoding else {
            return Err(PdbError::WrongMetric {
                expected: "mtm",
                found: header.encoding.metric(),
                hint: " --metric mtm",
            });
        };
        let colouring = Colouring::from_header(table.goal(), &header.tiles, class_ends)
            .ok_or_else(|| PdbError::BadPattern {
                reason: "the colour classes do not describe a blank-last goal".to_string(),
            })?;
        Ok(ColourTable { colouring, table })
    }

    /// Opens `dir/`[`COLOUR_FILE`].
    pub fn open(dir: &Path, mode: LoadMode) -> Result<ColourTable, PdbError> {
        ColourTable::from_table(Arc::new(PdbTable::open(&dir.join(COLOUR_FILE), mode)?))
    }

    /// A table from entries built in memory (tests, and small boards).
    pub fn from_entries(colouring: &Colouring, entries: Vec<u8>) -> Result<ColourTable, PdbError> {
        let bytes = encode_file(colouring, &entries)?;
        ColourTable::from_table(Arc::new(PdbTable::from_vec(bytes)?))
    }

    /// The board size.
    pub fn size(&self) -> Size {
        self.colouring.size
    }

    /// The number of entries.
    pub fn states(&self) -> u64 {
        self.colouring.states()
    }

    /// The underlying table (file path, load mode).
    pub fn table(&self) -> &PdbTable {
        &self.table
    }

    /// The views through which this table serves `goal`: every symmetry of the board that puts
    /// the goal's blank on the canonical blank. Empty if the goal is of another size or its
    /// blank is not on a corner.
    pub(crate) fn views(&self, goal: &Board) -> Vec<ColourView> {
        let size = self.colouring.size;
        if goal.size() != size {
            return Vec::new();
        }
        let n = size.cells();
        let canonical_blank = n - 1;
        let mut out = Vec::new();
        for s in symmetries(size) {
            if s[goal.blank()] as usize != canonical_blank {
                continue;
            }
            let mut inv = [0u8; MAX_CELLS];
            let mut tile_class = [0u8; MAX_CELLS];
            for x in 0..n {
                inv[s[x] as usize] = x as u8;
            }
            for (x, &t) in goal.cells().iter().enumerate() {
                tile_class[t as usize] = self.colouring.cell_class[s[x] as usize];
            }
            out.push(ColourView { inv, tile_class });
        }
        out
    }

    /// The table's estimate of `cells` through `view`.
    #[inline(always)]
    pub(crate) fn lookup(&self, view: &ColourView, cells: &[u8]) -> u32 {
        let idx = self.colouring.rank(|y| view.tile_class[cells[view.inv[y] as usize] as usize]);
        u32::from(self.table.get(idx))
    }
}

/// The whole file for `entries` of `colouring`.
fn encode_file(colouring: &Colouring, entries: &[u8]) -> Result<Vec<u8>, PdbError> {
    let (goal, tiles, class_ends) = colouring.header_parts();
    let meta = PdbMeta {
        generator: format!("fifteen-core {}", env!("CARGO_PKG_VERSION")),
        preset: Some(format!("{}-mtm", colouring.size)),
    };
    let mut bytes =
        encode_header_as(&goal, &tiles, EntryEncoding::MtmColour { class_ends }, &meta, entries)?;
    bytes.extend_from_slice(entries);
    Ok(bytes)
}

/// Writes `entries` of `colouring` to `dir/`[`COLOUR_FILE`] (whole or not at all).
pub fn write_colour_table(
    dir: &Path,
    colouring: &Colouring,
    entries: &[u8],
    generator: &str,
) -> Result<(), PdbError> {
    let (goal, tiles, class_ends) = colouring.header_parts();
    let meta = PdbMeta {
        generator: generator.to_string(),
        preset: Some(format!("{}-mtm", colouring.size)),
    };
    write_pdb_file_as(
        &dir.join(COLOUR_FILE),
        &goal,
        &tiles,
        EntryEncoding::MtmColour { class_ends },
        &meta,
        entries,
    )
}
