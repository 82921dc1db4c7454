//! Tables of a coloured abstraction in the multi-tile metric: the 4x4's strong MTM heuristic.
//!
//! A table's goal has its cells painted in a few classes (the blank its own); a position's
//! abstraction paints each tile with the class of its goal cell, so that tiles of one class are
//! interchangeable. An MTM move of the position is an MTM move of its abstraction, so the
//! abstraction's MTM distance, found by a BFS over all its states, is a lower bound on the
//! position's (an abstraction, or homomorphism, never lengthens a path). Every tile is in the
//! abstraction and every move costs 1, so no argument about which moves a pattern pays for is
//! needed; the views of the tables (`views.rs`) are combined by their maximum.
//!
//! **Goals.** A table's goal is the blank-first goal with the blank swapped with the tile of
//! one cell `e` (the blank-first goal itself for `e = 0`), so that one colouring serves goals
//! with the blank on a corner, an edge or a centre cell: the default set ([`default_4x4_set`])
//! is the same colouring ([`DEFAULT_4X4`], Tomas Rokicki's, as the slidy solver uses it) with
//! its blank moved to cells 0, 1, 5, 4 and 15 ([`DEFAULT_4X4_BLANKS`]), so that every position
//! has dual lookups and a corner or an edge cell has two. A file's goal
//! tells these layouts from the first one (blank-last goal, another ranking), which is refused.
//!
//! **Ranking.** A state's rank is that of the string of the other cells' classes
//! (lexicographic among all strings with the table's class sizes) times the cell count, plus
//! the blank's cell. The string's rank splits: the first cells decide where their block of strings starts, the last eight the
//! offset inside it. So with the string written as 2-bit class codes, `rank = hi[first part] +
//! lo[last part]` ([`Ranker`]), and a search keeps the packed string up to date move by move
//! instead of ranking afresh. The default colouring (classes of 2, 4, 5 and 4 tiles besides the
//! blank) has 16! / (2! 4! 5! 4!) = 151,351,200 states, one byte each, and its half tables 4^7
//! and 4^8 entries (192 KB, in L2). The table is stored in the v2 file format with its own entry
//! encoding ([`EntryEncoding::MtmColour`]), so the single-tile loaders refuse it and
//! [`ColourTable::open`] refuses their files.
//!
//! **Splits.** A fifth class would need 3-bit codes and half tables 8^7 and 8^8 entries long,
//! out of the cache. Instead a colouring may mark one class a *subclass* of the last 2-bit
//! class ([`Split`]): the ranker sees the two merged, and the state's index is the merged rank
//! times C(merged size, subclass size) plus the rank of the subclass's cells among the merged
//! class's cells (the combinatorial number system over the merged class's place values, two
//! popcounts a cell). The finer set ([`SPLIT_4X4`], [`split_4x4_set`]) splits Rokicki's class
//! of five tiles in three and two: 1,513,512,000 states a table, 1.5 GB at a byte each, built
//! only when asked for (`fifteen pdb build 4x4-mtm-split`) and preferred when present.

use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use crate::board::{Board, Size};
use crate::moves::Dir;
use crate::pdb::{
    EntryEncoding, LoadMode, PdbError, PdbMeta, PdbTable, UNREACHABLE, encode_header_as,
    write_pdb_file_as,
};

/// The preset name of the default 4x4 MTM set; its files are `4x4-mtm.p1.pdb` and so on.
pub const COLOUR_PRESET: &str = "4x4-mtm";

/// The default 4x4 colouring, by cell of the blank-first goal (0 is the blank's class): Tomas
/// Rokicki's, which the slidy solver uses (there drawn for the blank-last goal, turned here by
/// a half turn).
pub const DEFAULT_4X4: [u8; 16] = [0, 4, 4, 3, 4, 4, 3, 3, 2, 2, 3, 3, 2, 2, 1, 1];

/// The blank cells of the default set's tables, in file order (`.p1` first): a corner, an edge
/// cell and a centre cell, so that a table serves every cell of the board by a symmetry.
pub const DEFAULT_4X4_BLANKS: [usize; 5] = [0, 1, 5, 4, 15];

/// The most cells a colouring may have (its states are packed in nibbles).
pub const MAX_COLOUR_CELLS: usize = 16;

/// The most classes besides the blank's that the ranking codes: a class code takes 2 bits. A
/// colouring may have one class more, a *split* ([`Colouring::is_split`]).
pub const MAX_CLASSES: usize = 4;

/// The preset name of the finer 4x4 MTM set: the default colouring with its class of five
/// tiles split in three and two ([`SPLIT_4X4`]), ten times the states.
pub const SPLIT_PRESET: &str = "4x4-mtm-split";

/// The finer 4x4 colouring, by cell of the blank-first goal: [`DEFAULT_4X4`] with classes 3 and
/// 4 swapped (the class of five tiles last) and two of its cells, 6 and 10, in a fifth class
/// that splits it (of nine splits measured, the fewest nodes: `docs/performance.md`).
pub const SPLIT_4X4: [u8; 16] = [0, 3, 3, 4, 3, 3, 5, 4, 2, 2, 5, 4, 2, 2, 1, 1];

/// Bits of a cell's class code in a packed board.
const BITS: u32 = 2;

/// String positions ranked by the low half table (the last ones): 16 bits of index.
const LO_CELLS: usize = 8;

/// Binomial coefficients up to 20 choose 20.
const fn binomials() -> [[u64; 21]; 21] {
    let mut b = [[0u64; 21]; 21];
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

static BINOM: [[u64; 21]; 21] = binomials();

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

/// The goal of a table whose blank is on cell `e`: the blank-first goal with the blank and
/// tile `e` swapped.
pub fn table_goal(size: Size, e: usize) -> Board {
    let mut cells: Vec<u8> = (0..size.cells() as u8).collect();
    cells.swap(0, e);
    Board::from_cells(size, &cells).unwrap_or_else(|_| unreachable!("a permutation of the cells"))
}

/// A colouring of a table's goal: the class of each cell, the blank's cell in class 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Colouring {
    size: Size,
    /// Class of each goal cell; 0 only on the blank's cell.
    cell_class: [u8; MAX_COLOUR_CELLS],
    /// Number of cells of each class, the blank's (1) first.
    sizes: Vec<u8>,
    /// The blank's cell.
    blank: usize,
    /// With [`MAX_CLASSES`] + 1 classes besides the blank's, how the last one splits the one
    /// before it.
    split: Option<Split>,
}

/// A colouring's last class taken as a subclass of the class before it (a *split*): the
/// string of classes is ranked with the two merged (so with the 2-bit codes of at most
/// [`MAX_CLASSES`] classes, the merged class's code 3), and the state's index is that rank times
/// `C(total, sub)` plus where the subclass's cells lie among the merged class's
/// ([`Split::rank`]). The abstraction is finer than the merged colouring's, so its entries are
/// at least as large and still lower bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Split {
    /// Cells of the merged class (the parent's and the subclass's).
    total: u8,
    /// Cells of the subclass.
    sub: u8,
    /// `C(total, sub)`: how many ranks [`Split::rank`] gives.
    factor: u32,
}

impl Split {
    /// How many sub-ranks there are (`C(total, sub)`).
    #[inline(always)]
    pub(crate) fn factor(&self) -> u32 {
        self.factor
    }

    /// Where the subclass lies among the merged class's cells: `v` is the packed board of the
    /// merged classes (the merged class's code 3) and `s` the sum of the place values of the
    /// subclass's cells. The rank in the combinatorial number system of the subclass's places
    /// among the merged class's fields, counted from the low end: `sum C(j_m, m + 1)` over its
    /// cells in increasing place value, `j_m` the merged class's fields below the `m`-th.
    #[inline(always)]
    pub(crate) fn rank(&self, v: u32, s: u32) -> u32 {
        // A field's low bit where its code is 3.
        let merged = v & (v >> 1) & 0x5555_5555;
        let mut s = s;
        let mut rank = 0u32;
        let mut m = 1;
        while s != 0 {
            let low = s & s.wrapping_neg();
            let j = (merged & (low - 1)).count_ones() as usize;
            rank += BINOM[j][m] as u32;
            m += 1;
            s ^= low;
        }
        rank
    }

    /// The subclass's places among the merged class's fields (bit `i`: the `i`-th field from
    /// the low end) of each rank, in rank order.
    fn subsets(&self) -> Vec<u32> {
        let mut all: Vec<(u32, u32)> = (0u32..1 << self.total)
            .filter(|m| m.count_ones() == u32::from(self.sub))
            .map(|mask| {
                let mut rank = 0u32;
                let mut k = 1;
                for (i, row) in BINOM.iter().enumerate().take(self.total as usize) {
                    if mask >> i & 1 == 1 {
                        rank += row[k] as u32;
                        k += 1;
                    }
                }
                (rank, mask)
            })
            .collect();
        all.sort_unstable();
        debug_assert!(all.iter().enumerate().all(|(i, &(r, _))| r as usize == i));
        all.into_iter().map(|(_, mask)| mask).collect()
    }
}

impl Colouring {
    /// The colouring of a `size` goal with `class_of_cell` (0 on the blank's cell only, classes
    /// numbered from 1 without gaps), or `None` if it is not one, or if the board or the number
    /// of classes is too large for the ranking's half tables.
    pub fn new(size: Size, class_of_cell: &[u8]) -> Option<Colouring> {
        let n = size.cells();
        if class_of_cell.len() != n || n > MAX_COLOUR_CELLS {
            return None;
        }
        let classes = *class_of_cell.iter().max()? as usize + 1;
        if !(2..=MAX_CLASSES + 2).contains(&classes) {
            return None;
        }
        let mut sizes = vec![0u8; classes];
        for &c in class_of_cell {
            sizes[c as usize] += 1;
        }
        if sizes[0] != 1 || sizes.contains(&0) {
            return None;
        }
        let blank = class_of_cell.iter().position(|&c| c == 0)?;
        let mut cell_class = [0u8; MAX_COLOUR_CELLS];
        cell_class[..n].copy_from_slice(class_of_cell);
        let split = (classes == MAX_CLASSES + 2).then(|| {
            let (total, sub) =
                (sizes[MAX_CLASSES] + sizes[MAX_CLASSES + 1], sizes[MAX_CLASSES + 1]);
            Split { total, sub, factor: BINOM[total as usize][sub as usize] as u32 }
        });
        Some(Colouring { size, cell_class, sizes, blank, split })
    }

    /// The finer 4x4 colouring ([`SPLIT_4X4`], blank on cell 0).
    pub fn split_4x4() -> Colouring {
        Colouring::new(Size::S4X4, &SPLIT_4X4).unwrap_or_else(|| unreachable!())
    }

    /// How its last class splits the one before it, if it has [`MAX_CLASSES`] + 1 classes
    /// besides the blank's.
    pub(crate) fn split(&self) -> Option<Split> {
        self.split
    }

    /// Whether it has a split class (ten or so times the states of the merged colouring).
    pub fn is_split(&self) -> bool {
        self.split.is_some()
    }

    /// The name its files' headers give the set (`4x4-mtm`, or `4x4-mtm-split`).
    fn preset_name(&self) -> String {
        let split = if self.is_split() { "-split" } else { "" };
        format!("{}-mtm{split}", self.size)
    }

    /// The class sizes the string is ranked by: the split's two classes merged.
    fn merged_sizes(&self) -> Vec<u8> {
        let mut sizes = self.sizes.clone();
        if let Some(s) = self.split {
            sizes.truncate(MAX_CLASSES + 1);
            sizes[MAX_CLASSES] = s.total;
        }
        sizes
    }

    /// The index of a board of classes (one 0, the blank) in this colouring's table.
    pub(crate) fn rank(&self, classes: &[u8]) -> u64 {
        let ranker = self.ranker();
        let n = self.size.cells();
        let merged: Vec<u8> = classes[..n].iter().map(|&c| c.min(MAX_CLASSES as u8)).collect();
        let r = ranker.rank(&merged);
        match self.split {
            None => r,
            Some(split) => {
                let v = ranker.pack(&merged) as u32;
                let s: u64 = (0..n)
                    .filter(|&c| classes[c] as usize == MAX_CLASSES + 1)
                    .map(|c| ranker.weight(c))
                    .sum();
                r * u64::from(split.factor) + u64::from(split.rank(v, s as u32))
            }
        }
    }

    /// The default 4x4 colouring ([`DEFAULT_4X4`], blank on cell 0).
    pub fn default_4x4() -> Colouring {
        Colouring::new(Size::S4X4, &DEFAULT_4X4).unwrap_or_else(|| unreachable!())
    }

    /// The same colouring with the blank moved to cell `e` (its class goes to the blank's old
    /// cell), or `None` if `e` is off the board.
    pub fn with_blank_at(&self, e: usize) -> Option<Colouring> {
        let n = self.size.cells();
        if e >= n {
            return None;
        }
        let mut classes = self.cell_class;
        classes.swap(self.blank, e);
        Colouring::new(self.size, &classes[..n])
    }

    /// The board size.
    pub fn size(&self) -> Size {
        self.size
    }

    /// The blank's cell in the goal.
    pub fn blank(&self) -> usize {
        self.blank
    }

    /// The class of each goal cell.
    pub fn classes(&self) -> &[u8] {
        &self.cell_class[..self.size.cells()]
    }

    /// The number of cells of each class, the blank's first.
    pub fn class_sizes(&self) -> &[u8] {
        &self.sizes
    }

    /// The number of abstract states (table entries).
    pub fn states(&self) -> u64 {
        multinomial(self.size.cells(), &self.sizes)
    }

    /// The table's goal ([`table_goal`]).
    pub fn goal(&self) -> Board {
        table_goal(self.size, self.blank)
    }

    /// The goal and its tiles class by class, with the class ends: what the file header
    /// records.
    fn header_parts(&self) -> (Board, Vec<u8>, u64) {
        let goal = self.goal();
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

    /// The colouring a file header describes, or why it is not one this version reads.
    ///
    /// A colouring of [`MAX_CLASSES`] + 1 classes besides the blank's is a split: its last class
    /// a subclass of the one before it.
    fn from_header(goal: &Board, tiles: &[u8], class_ends: u64) -> Result<Colouring, String> {
        let size = goal.size();
        if *goal != table_goal(size, goal.blank()) {
            if *goal == Board::blank_last(size) {
                return Err("the table has the layout of an older version of fifteen (a blank-last goal, ranked otherwise); rebuild it with `fifteen pdb build --metric mtm`".to_string());
            }
            return Err(
                "the goal is not the blank-first goal with the blank moved to one cell".to_string()
            );
        }
        let mut class_of_cell = vec![0u8; size.cells()];
        let mut class = 1u8;
        for (i, &t) in tiles.iter().enumerate() {
            class_of_cell[goal.position(t)] = class;
            if class_ends >> i & 1 == 1 {
                class += 1;
            }
        }
        Colouring::new(size, &class_of_cell).ok_or_else(|| {
            format!(
                "the colour classes are not a colouring this version ranks (at most {MAX_COLOUR_CELLS} cells and {} classes besides the blank's)",
                MAX_CLASSES + 1
            )
        })
    }

    /// The ranker of this colouring's class sizes, a split's two classes merged (shared between
    /// colourings of equal sizes).
    pub(crate) fn ranker(&self) -> Arc<Ranker> {
        Ranker::shared(self.size.cells(), &self.merged_sizes())
    }
}

/// The rank of a colour table's goal state, from its file header's goal, tiles and class ends
/// (the file check's), or why the header is not a colour table this version reads.
pub(crate) fn goal_rank(goal: &Board, tiles: &[u8], class_ends: u64) -> Result<u64, String> {
    let c = Colouring::from_header(goal, tiles, class_ends)?;
    Ok(c.rank(c.classes()))
}

/// The rank of colour states (see the module docs): `index(v, p) = (hi[s >> 16] +
/// lo[s & 0xFFFF]) * n + p`, where `v` is the state's *packed board* (each cell's class code,
/// the class minus one and 0 for the blank, in [`Ranker::weight`] place values: 2 bits a
/// cell, cell 0 highest), `p` the blank's cell and `s` the packed board with the blank's field
/// taken out: the string of the other cells' classes, its last 8 in the low 16 bits. Every
/// shift is by a constant, and the two tables hold 4^7 and 4^8 entries for the 4x4.
#[derive(Debug)]
pub(crate) struct Ranker {
    n: usize,
    /// Classes other than the blank's.
    k: usize,
    /// Class sizes, the blank's first.
    sizes: Vec<u8>,
    /// String positions in the low half.
    lo_cells: usize,
    hi: Vec<u32>,
    /// At most 8 positions, so at most 8! = 40,320 strings: 16 bits.
    lo: Vec<u16>,
}

impl Ranker {
    /// The ranker of `n` cells with classes of `sizes`, built once per process.
    fn shared(n: usize, sizes: &[u8]) -> Arc<Ranker> {
        static ALL: OnceLock<Mutex<Vec<Arc<Ranker>>>> = OnceLock::new();
        let all = ALL.get_or_init(|| Mutex::new(Vec::new()));
        let mut all = all.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = all.iter().find(|r| r.n == n && r.sizes == sizes) {
            return r.clone();
        }
        let r = Arc::new(Ranker::new(n, sizes));
        all.push(r.clone());
        r
    }

    fn new(n: usize, sizes: &[u8]) -> Ranker {
        let k = sizes.len() - 1;
        let bits = BITS;
        let m = n - 1;
        let lo_cells = m.min(LO_CELLS);
        let hi_cells = m - lo_cells;
        let tally: Vec<u8> = sizes[1..].to_vec();
        // The first half of the string: where the block of its strings starts (0 where the half
        // has more of a class than there are, or a code that is no class).
        let hi = (0..1usize << (bits as usize * hi_cells))
            .into_par_iter()
            .map(|h| {
                let codes = codes_of(h, bits, hi_cells);
                let mut left = [0u8; 8];
                left[..k].copy_from_slice(&tally);
                prefix_rank(&codes[..hi_cells], &mut left, m).unwrap_or(0) as u32
            })
            .collect();
        // The second half: its rank among the strings of its own classes.
        let lo = (0..1usize << (bits as usize * lo_cells))
            .into_par_iter()
            .map(|l| {
                let codes = codes_of(l, bits, lo_cells);
                let Some(mut own) = counts(&codes[..lo_cells], &tally) else { return 0 };
                prefix_rank(&codes[..lo_cells], &mut own, lo_cells).unwrap_or(0) as u16
            })
            .collect();
        Ranker { n, k, sizes: sizes.to_vec(), lo_cells, hi, lo }
    }

    /// The place value of cell `c` in a packed board.
    #[inline(always)]
    pub(crate) fn weight(&self, c: usize) -> u64 {
        1 << (BITS as usize * (self.n - 1 - c))
    }

    /// The mask of the fields after cell `p`'s in a packed board.
    #[inline(always)]
    pub(crate) fn keep(&self, p: usize) -> u32 {
        (1u32 << (BITS as usize * (self.n - 1 - p))) - 1
    }

    /// The rank of the state with packed board `v` and the blank on `p`.
    #[inline(always)]
    pub(crate) fn index(&self, v: u64, p: usize) -> u64 {
        self.index_keep(v as u32, self.keep(p), p as u8)
    }

    /// [`Ranker::index`] with the blank's [`Ranker::keep`] given.
    #[inline(always)]
    pub(crate) fn index_keep(&self, v: u32, keep: u32, p: u8) -> u64 {
        // The fields before the blank's move down over it.
        let s = (v >> BITS) & !keep | v & keep;
        let r = u64::from(self.hi[(s >> 16) as usize]) + u64::from(self.lo[(s & 0xFFFF) as usize]);
        r * self.n as u64 + u64::from(p)
    }

    /// The packed board of a board of classes.
    pub(crate) fn pack(&self, classes: &[u8]) -> u64 {
        (0..self.n).map(|c| u64::from(classes[c].saturating_sub(1)) * self.weight(c)).sum()
    }

    /// The rank of a board of classes (one 0, the blank).
    pub(crate) fn rank(&self, classes: &[u8]) -> u64 {
        let p = classes.iter().position(|&c| c == 0).unwrap_or(0);
        self.index(self.pack(classes), p)
    }
}

/// The `len` codes of `bits` bits each in `x`, the first highest.
fn codes_of(x: usize, bits: u32, len: usize) -> [u8; MAX_COLOUR_CELLS] {
    let mut d = [0u8; MAX_COLOUR_CELLS];
    for (i, c) in d.iter_mut().enumerate().take(len) {
        *c = (x >> (bits as usize * (len - 1 - i)) & ((1 << bits) - 1)) as u8;
    }
    d
}

/// How many of each class `codes` hold, or `None` if a code is no class or more of a class
/// than `tally` has.
fn counts(codes: &[u8], tally: &[u8]) -> Option<[u8; 8]> {
    let mut own = [0u8; 8];
    for &c in codes {
        let c = c as usize;
        if c >= tally.len() || own[c] == tally[c] {
            return None;
        }
        own[c] += 1;
    }
    Some(own)
}

/// The number of strings of the classes `left` (of `n` cells in all) that come before those
/// starting with `codes`, lexicographically; `left` loses the codes' classes. `None` if the
/// codes use more of a class than `left` has.
fn prefix_rank(codes: &[u8], left: &mut [u8; 8], n: usize) -> Option<u64> {
    let mut rank = 0u64;
    let mut cells = n;
    for &d in codes {
        let d = d as usize;
        if d >= 8 || left[d] == 0 {
            return None;
        }
        cells -= 1;
        for s in 0..d {
            if left[s] > 0 {
                left[s] -= 1;
                rank += multinomial(cells, left);
                left[s] += 1;
            }
        }
        left[d] -= 1;
    }
    Some(rank)
}

/// Builds the MTM table of `colouring` by a parallel BFS from its goal; `progress(depth,
/// states)` is called after each level. Entries are distances (every state is reachable when
/// some class has two cells or more; [`UNREACHABLE`] otherwise).
///
/// States are visited block by block (a first half of the string, then every second half that
/// completes it, then every cell of the blank, then every place of a split's subclass, in rank
/// order), so that no state is unranked. A level pushes from its states while they are fewer
/// than the states not yet reached, then pulls: each unreached state looks for a neighbour on
/// the level.
pub fn build_colour_table(colouring: &Colouring, progress: &(dyn Fn(u8, u64) + Sync)) -> Vec<u8> {
    let ranker = colouring.ranker();
    let split = colouring.split;
    let factor = split.map_or(1, |s| s.factor as usize);
    let subsets = split.map_or_else(|| vec![0], |s| s.subsets());
    let blocks = Blocks::new(&ranker);
    let total = colouring.states() as usize;
    let table: Vec<AtomicU8> =
        (0..total).into_par_iter().map(|_| AtomicU8::new(UNREACHABLE)).collect();
    let size = colouring.size;
    let n = size.cells();
    let m = n - 1;
    let hi_cells = m - ranker.lo_cells;
    let goal = colouring.rank(colouring.classes()) as usize;
    table[goal].store(0, Ordering::Relaxed);
    let neighbours: Vec<[Option<usize>; 4]> =
        (0..n).map(|c| Dir::ALL.map(|d| d.neighbor(size, c))).collect();
    let at = Neighbours { ranker: &ranker, split, neighbours: &neighbours };
    let merged_class = MAX_CLASSES as u8;
    let mut depth = 0u8;
    let mut seen = 1u64;
    let mut frontier = 1u64;
    progress(0, seen);
    while depth < UNREACHABLE - 1 {
        let pull = frontier > total as u64 - seen;
        let wanted = |e: u8| if pull { e == UNREACHABLE } else { e == depth };
        let found: u64 = blocks
            .prefixes
            .par_iter()
            .map(|&(hi_value, start, list)| {
                let suffixes = &blocks.suffixes[list as usize];
                let first = codes_of(hi_value as usize, BITS, hi_cells);
                let mut string = [0u8; MAX_COLOUR_CELLS];
                string[..hi_cells].copy_from_slice(&first[..hi_cells]);
                let mut new = 0u64;
                for (j, &lo_value) in suffixes.iter().enumerate() {
                    let base = (start as usize + j) * n * factor;
                    let entries = &table[base..base + n * factor];
                    if !entries.iter().any(|e| wanted(e.load(Ordering::Relaxed))) {
                        continue;
                    }
                    let second = codes_of(lo_value as usize, BITS, m - hi_cells);
                    string[hi_cells..m].copy_from_slice(&second[..m - hi_cells]);
                    for (p, block) in entries.chunks_exact(factor).enumerate() {
                        if !block.iter().any(|e| wanted(e.load(Ordering::Relaxed))) {
                            continue;
                        }
                        // The board: the string with the blank inserted on `p`.
                        let mut classes = [0u8; MAX_COLOUR_CELLS];
                        for c in 0..n {
                            classes[c] = match c.cmp(&p) {
                                std::cmp::Ordering::Less => string[c] + 1,
                                std::cmp::Ordering::Equal => 0,
                                std::cmp::Ordering::Greater => string[c - 1] + 1,
                            };
                        }
                        let v = ranker.pack(&classes);
                        // A split's merged class's cells in increasing place value (none
                        // without a split).
                        let mut places = [0usize; MAX_COLOUR_CELLS];
                        let mut count = 0;
                        if split.is_some() {
                            for c in (0..n).rev().filter(|&c| classes[c] == merged_class) {
                                places[count] = c;
                                count += 1;
                            }
                        }
                        for (entry, &mask) in block.iter().zip(&subsets) {
                            if !wanted(entry.load(Ordering::Relaxed)) {
                                continue;
                            }
                            let mut full = classes;
                            let mut sub = 0u64;
                            for (i, &c) in places[..count].iter().enumerate() {
                                if mask >> i & 1 == 1 {
                                    full[c] = merged_class + 1;
                                    sub += ranker.weight(c);
                                }
                            }
                            let hit = at.each(&full, p, v, sub, |j| {
                                let e = &table[j as usize];
                                if pull {
                                    e.load(Ordering::Relaxed) == depth
                                } else {
                                    if e.load(Ordering::Relaxed) == UNREACHABLE {
                                        e.store(depth + 1, Ordering::Relaxed);
                                    }
                                    false
                                }
                            });
                            if pull && hit {
                                entry.store(depth + 1, Ordering::Relaxed);
                                new += 1;
                            }
                        }
                    }
                }
                new
            })
            .sum();
        // A push may store a state twice from two threads: count the level exactly.
        let new = if pull {
            found
        } else {
            table.par_iter().filter(|e| e.load(Ordering::Relaxed) == depth + 1).count() as u64
        };
        if new == 0 {
            break;
        }
        depth += 1;
        seen += new;
        frontier = new;
        progress(depth, seen);
    }
    table.into_par_iter().map(AtomicU8::into_inner).collect()
}

/// What the build needs to rank a state's MTM neighbours.
struct Neighbours<'a> {
    ranker: &'a Ranker,
    split: Option<Split>,
    neighbours: &'a [[Option<usize>; 4]],
}

impl Neighbours<'_> {
    /// Calls `f` on the index of every MTM neighbour of the state `classes` (blank on `blank`,
    /// packed board `v` of the merged classes, a split's subclass on the place values summed in
    /// `sub`) until it returns true; returns whether it did.
    #[inline(always)]
    fn each(
        &self,
        classes: &[u8; MAX_COLOUR_CELLS],
        blank: usize,
        v: u64,
        sub: u64,
        mut f: impl FnMut(u64) -> bool,
    ) -> bool {
        let ranker = self.ranker;
        for d in Dir::ALL {
            let (mut b, mut v, mut sub) = (blank, v, sub);
            while let Some(to) = self.neighbours[b][d as usize] {
                // The class on `to` slides onto `b`; the blank's code is 0.
                let class = classes[to];
                let c = u64::from(class.min(MAX_CLASSES as u8) - 1);
                let moved = ranker.weight(b).wrapping_sub(ranker.weight(to));
                v = v.wrapping_add(c.wrapping_mul(moved));
                if class as usize > MAX_CLASSES {
                    sub = sub.wrapping_add(moved);
                }
                b = to;
                let index = match self.split {
                    None => ranker.index(v, b),
                    Some(s) => {
                        ranker.index(v, b) * u64::from(s.factor)
                            + u64::from(s.rank(v as u32, sub as u32))
                    }
                };
                if f(index) {
                    return true;
                }
            }
        }
        false
    }
}

/// The strings of a colouring in rank order, block by block: each valid first half (its
/// packed value and the rank its block starts at) with the list of second halves that complete
/// it, in order.
struct Blocks {
    prefixes: Vec<(u32, u64, u32)>,
    suffixes: Vec<Vec<u32>>,
}

impl Blocks {
    fn new(r: &Ranker) -> Blocks {
        let m = r.n - 1;
        let tally = &r.sizes[1..];
        // Second halves grouped by their class counts, each group in increasing order (which
        // is lexicographic order).
        let mut groups: std::collections::HashMap<[u8; 8], u32> = Default::default();
        let mut suffixes: Vec<Vec<u32>> = Vec::new();
        for l in 0..1usize << (BITS as usize * r.lo_cells) {
            let codes = codes_of(l, BITS, r.lo_cells);
            let Some(own) = counts(&codes[..r.lo_cells], tally) else { continue };
            let g = *groups.entry(own).or_insert_with(|| {
                suffixes.push(Vec::new());
                (suffixes.len() - 1) as u32
            });
            suffixes[g as usize].push(l as u32);
        }
        let mut prefixes = Vec::new();
        let hi_cells = m - r.lo_cells;
        for h in 0..1usize << (BITS as usize * hi_cells) {
            let codes = codes_of(h, BITS, hi_cells);
            let Some(own) = counts(&codes[..hi_cells], tally) else { continue };
            let mut rest = [0u8; 8];
            for c in 0..r.k {
                rest[c] = tally[c] - own[c];
            }
            if let Some(&g) = groups.get(&rest) {
                prefixes.push((h as u32, u64::from(r.hi[h]), g));
            }
        }
        Blocks { prefixes, suffixes }
    }
}

/// A loaded MTM colour table.
#[derive(Clone, Debug)]
pub struct ColourTable {
    colouring: Colouring,
    table: Arc<PdbTable>,
}

impl ColourTable {
    /// Wraps a table read from a file or from bytes, checking that it is an MTM colour table
    /// of a layout this version reads.
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
            .map_err(|reason| PdbError::BadPattern { reason })?;
        if colouring.states() > u64::from(u32::MAX) {
            return Err(PdbError::BadPattern {
                reason: format!("{} states do not fit the 32-bit index", colouring.states()),
            });
        }
        Ok(ColourTable { colouring, table })
    }

    /// Opens the table at `path`.
    pub fn open(path: &Path, mode: LoadMode) -> Result<ColourTable, PdbError> {
        ColourTable::from_table(Arc::new(PdbTable::open(path, mode)?))
    }

    /// A table from entries built in memory (tests, and small boards).
    pub fn from_entries(colouring: &Colouring, entries: Vec<u8>) -> Result<ColourTable, PdbError> {
        let bytes = encode_file(colouring, &entries)?;
        ColourTable::from_table(Arc::new(PdbTable::from_vec(bytes)?))
    }

    /// The colouring.
    pub fn colouring(&self) -> &Colouring {
        &self.colouring
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

    /// The entries, in rank order.
    #[inline(always)]
    pub(crate) fn entries(&self) -> &[u8] {
        self.table.entries()
    }
}

/// The file name of table `i` (from 1) of the default set.
pub fn colour_file(i: usize) -> String {
    format!("{COLOUR_PRESET}.p{i}.pdb")
}

/// The file name of table `i` (from 1) of the finer set ([`SPLIT_PRESET`]).
pub fn split_file(i: usize) -> String {
    format!("{SPLIT_PRESET}.p{i}.pdb")
}

/// The colourings of the finer 4x4 set, in file order: [`SPLIT_4X4`] with its blank on the
/// default set's cells.
pub fn split_4x4_set() -> Vec<Colouring> {
    on_default_blanks(&Colouring::split_4x4())
}

/// The colourings of the default 4x4 set, in file order.
pub fn default_4x4_set() -> Vec<Colouring> {
    on_default_blanks(&Colouring::default_4x4())
}

/// A 4x4 colouring with its blank moved to each of [`DEFAULT_4X4_BLANKS`], in file order.
fn on_default_blanks(base: &Colouring) -> Vec<Colouring> {
    DEFAULT_4X4_BLANKS
        .iter()
        .map(|&e| base.with_blank_at(e).unwrap_or_else(|| unreachable!("a cell of the 4x4")))
        .collect()
}

/// The whole file for `entries` of `colouring`.
fn encode_file(colouring: &Colouring, entries: &[u8]) -> Result<Vec<u8>, PdbError> {
    let (goal, tiles, class_ends) = colouring.header_parts();
    let meta = PdbMeta {
        generator: format!("fifteen-core {}", env!("CARGO_PKG_VERSION")),
        preset: Some(colouring.preset_name()),
    };
    let mut bytes =
        encode_header_as(&goal, &tiles, EntryEncoding::MtmColour { class_ends }, &meta, entries)?;
    bytes.extend_from_slice(entries);
    Ok(bytes)
}

/// Writes `entries` of `colouring` to `path` (whole or not at all).
pub fn write_colour_table(
    path: &Path,
    colouring: &Colouring,
    entries: &[u8],
    generator: &str,
) -> Result<(), PdbError> {
    let (goal, tiles, class_ends) = colouring.header_parts();
    let meta = PdbMeta { generator: generator.to_string(), preset: Some(colouring.preset_name()) };
    write_pdb_file_as(path, &goal, &tiles, EntryEncoding::MtmColour { class_ends }, &meta, entries)
}
