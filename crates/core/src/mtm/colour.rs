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
//! its blank moved to cells 0, 1 and 5, so that every position has dual lookups. A file's goal
//! tells these layouts from the first one (blank-last goal, another ranking), which is refused.
//!
//! **Ranking.** A state is ranked lexicographically as a string of classes over the cells
//! (cell 0 first, the blank's class 0 first), among all strings with the table's class sizes.
//! That rank splits: the first half of the cells decide where their block of strings starts,
//! the second half the offset inside it. So with each half written as a base-`k` number (`k`
//! classes), `rank = hi[first half] + lo[second half]` ([`Ranker`]), and a search keeps the two
//! numbers up to date move by move instead of ranking afresh. The default colouring (classes of
//! 1, 2, 4, 5 and 4 cells) has 16! / (2! 4! 5! 4!) = 151,351,200 states, one byte each, and its
//! half tables 5^8 entries each. The table is stored in the v2 file format with its own entry
//! encoding ([`EntryEncoding::MtmColour`]), so the single-tile loaders refuse it and
//! [`ColourTable::open`] refuses their files.

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
pub const DEFAULT_4X4_BLANKS: [usize; 3] = [0, 1, 5];

/// The most cells a colouring may have (its states are packed in nibbles).
pub const MAX_COLOUR_CELLS: usize = 16;

/// The most entries of each of a [`Ranker`]'s half tables.
const MAX_HALF_ENTRIES: usize = 1 << 21;

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
        let lo_cells = n - n / 2;
        if classes < 2 || (classes as u64).checked_pow(lo_cells as u32)? > MAX_HALF_ENTRIES as u64 {
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
        Some(Colouring { size, cell_class, sizes, blank })
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
                "the colour classes are not a colouring this version ranks (at most {MAX_COLOUR_CELLS} cells and {} entries per half table)",
                MAX_HALF_ENTRIES
            )
        })
    }

    /// The ranker of this colouring's class sizes (shared between colourings of equal sizes).
    pub(crate) fn ranker(&self) -> Arc<Ranker> {
        Ranker::shared(self.size.cells(), &self.sizes)
    }
}

/// The rank of a colour table's goal state, from its file header's goal, tiles and class ends
/// (the file check's), or why the header is not a colour table this version reads.
pub(crate) fn goal_rank(goal: &Board, tiles: &[u8], class_ends: u64) -> Result<u64, String> {
    let c = Colouring::from_header(goal, tiles, class_ends)?;
    Ok(c.ranker().rank(c.classes()))
}

/// The lexicographic rank of class strings with given class sizes, as two half tables (see
/// the module docs): `index(packed) = hi[packed >> 32] + lo[packed & 0xFFFF_FFFF]`, where
/// `packed` is the sum over cells of the cell's class times its [`Ranker::weight`].
#[derive(Debug)]
pub(crate) struct Ranker {
    n: usize,
    /// Number of classes (the base of the half numbers).
    k: usize,
    /// Class sizes, the blank's first.
    sizes: Vec<u8>,
    /// Cells in the first half.
    half: usize,
    /// Each cell's place value: `k^(half-1-c) << 32` in the first half, `k^(n-1-c)` after.
    weight: [u64; MAX_COLOUR_CELLS],
    hi: Vec<u32>,
    /// At most 8 cells, so at most 8! = 40,320 strings: 16 bits (the two tables fit the L2
    /// cache better).
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
        let k = sizes.len();
        let half = n / 2;
        let mut weight = [0u64; MAX_COLOUR_CELLS];
        for (c, w) in weight.iter_mut().enumerate().take(n) {
            *w = if c < half {
                (k as u64).pow((half - 1 - c) as u32) << 32
            } else {
                (k as u64).pow((n - 1 - c) as u32)
            };
        }
        // The first half: where the block of its strings starts (0 where the half has more of
        // a class than there are).
        let hi = (0..k.pow(half as u32))
            .into_par_iter()
            .map(|h| {
                let digits = digits_of(h, k, half);
                let mut left = [0u8; 8];
                left[..k].copy_from_slice(sizes);
                prefix_rank(&digits[..half], &mut left, n).unwrap_or(0) as u32
            })
            .collect();
        // The second half: its rank among the strings of its own classes.
        let lo = (0..k.pow((n - half) as u32))
            .into_par_iter()
            .map(|l| {
                let digits = digits_of(l, k, n - half);
                let mut own = [0u8; 8];
                for &d in &digits[..n - half] {
                    own[d as usize] += 1;
                }
                if (0..k).any(|s| own[s] > sizes[s]) {
                    return 0;
                }
                prefix_rank(&digits[..n - half], &mut own, n - half).unwrap_or(0) as u16
            })
            .collect();
        Ranker { n, k, sizes: sizes.to_vec(), half, weight, hi, lo }
    }

    /// The place value of cell `c` in a packed state.
    #[inline(always)]
    pub(crate) fn weight(&self, c: usize) -> u64 {
        self.weight[c]
    }

    /// The rank of a packed state.
    #[inline(always)]
    pub(crate) fn index(&self, packed: u64) -> u64 {
        u64::from(self.hi[(packed >> 32) as usize]) + u64::from(self.lo[packed as u32 as usize])
    }

    /// The packed state of a string of classes.
    pub(crate) fn pack(&self, classes: &[u8]) -> u64 {
        classes.iter().zip(&self.weight).map(|(&c, &w)| u64::from(c) * w).sum()
    }

    /// The rank of a string of classes.
    pub(crate) fn rank(&self, classes: &[u8]) -> u64 {
        self.index(self.pack(classes))
    }
}

/// The `len` base-`k` digits of `x`, most significant first.
fn digits_of(mut x: usize, k: usize, len: usize) -> [u8; MAX_COLOUR_CELLS] {
    let mut d = [0u8; MAX_COLOUR_CELLS];
    for i in (0..len).rev() {
        d[i] = (x % k) as u8;
        x /= k;
    }
    d
}

/// The number of strings of the classes `left` (of `n` cells in all) that come before those
/// starting with `digits`, lexicographically; `left` loses the digits' classes. `None` if the
/// digits use more of a class than `left` has.
fn prefix_rank(digits: &[u8], left: &mut [u8; 8], n: usize) -> Option<u64> {
    let mut rank = 0u64;
    let mut cells = n;
    for &d in digits {
        let d = d as usize;
        if left[d] == 0 {
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
/// States are visited block by block (a first half, then every second half that completes it,
/// in rank order), so that no state is unranked. A level pushes from its states while they are
/// fewer than the states not yet reached, then pulls: each unreached state looks for a
/// neighbour on the level.
pub fn build_colour_table(colouring: &Colouring, progress: &(dyn Fn(u8, u64) + Sync)) -> Vec<u8> {
    let ranker = colouring.ranker();
    let blocks = Blocks::new(&ranker);
    let total = colouring.states() as usize;
    let table: Vec<AtomicU8> = (0..total).map(|_| AtomicU8::new(UNREACHABLE)).collect();
    let size = colouring.size;
    let n = size.cells();
    let goal = ranker.rank(colouring.classes()) as usize;
    table[goal].store(0, Ordering::Relaxed);
    let neighbours: Vec<[Option<usize>; 4]> =
        (0..n).map(|c| Dir::ALL.map(|d| d.neighbor(size, c))).collect();
    let mut depth = 0u8;
    let mut seen = 1u64;
    let mut frontier = 1u64;
    progress(0, seen);
    while depth < UNREACHABLE - 1 {
        let pull = frontier > total as u64 - seen;
        let found: u64 = blocks
            .prefixes
            .par_iter()
            .map(|&(hi_value, start, list)| {
                let suffixes = &blocks.suffixes[list as usize];
                let mut classes = [0u8; MAX_COLOUR_CELLS];
                let first = digits_of(hi_value as usize, ranker.k, ranker.half);
                classes[..ranker.half].copy_from_slice(&first[..ranker.half]);
                let mut new = 0u64;
                for (j, &lo_value) in suffixes.iter().enumerate() {
                    let idx = start as usize + j;
                    let e = table[idx].load(Ordering::Relaxed);
                    if (pull && e != UNREACHABLE) || (!pull && e != depth) {
                        continue;
                    }
                    let second = digits_of(lo_value as usize, ranker.k, n - ranker.half);
                    classes[ranker.half..n].copy_from_slice(&second[..n - ranker.half]);
                    let packed = (u64::from(hi_value) << 32) | u64::from(lo_value);
                    let blank = classes[..n].iter().position(|&c| c == 0).unwrap_or(0);
                    let hit =
                        for_each_neighbour(&ranker, &neighbours, &classes, blank, packed, |j| {
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
                        table[idx].store(depth + 1, Ordering::Relaxed);
                        new += 1;
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
    table.into_iter().map(AtomicU8::into_inner).collect()
}

/// Calls `f` on the rank of every MTM neighbour of the state `classes` (blank on `blank`,
/// packed as `packed`) until it returns true; returns whether it did.
#[inline(always)]
fn for_each_neighbour(
    ranker: &Ranker,
    neighbours: &[[Option<usize>; 4]],
    classes: &[u8; MAX_COLOUR_CELLS],
    blank: usize,
    packed: u64,
    mut f: impl FnMut(u64) -> bool,
) -> bool {
    for d in Dir::ALL {
        let mut b = blank;
        let mut p = packed;
        while let Some(to) = neighbours[b][d as usize] {
            // The class on `to` slides onto `b`; the blank's class is 0.
            let c = u64::from(classes[to]);
            p = p.wrapping_add(c.wrapping_mul(ranker.weight(b).wrapping_sub(ranker.weight(to))));
            b = to;
            if f(ranker.index(p)) {
                return true;
            }
        }
    }
    false
}

/// The states of a colouring in rank order, block by block: each valid first half (its packed
/// value and the rank its block starts at) with the list of second halves that complete it, in
/// order.
struct Blocks {
    prefixes: Vec<(u32, u64, u32)>,
    suffixes: Vec<Vec<u32>>,
}

impl Blocks {
    fn new(r: &Ranker) -> Blocks {
        let lo_cells = r.n - r.half;
        // Second halves grouped by their class counts, each group in increasing order (which
        // is lexicographic order).
        let mut groups: std::collections::HashMap<[u8; 8], u32> = Default::default();
        let mut suffixes: Vec<Vec<u32>> = Vec::new();
        for l in 0..r.k.pow(lo_cells as u32) {
            let digits = digits_of(l, r.k, lo_cells);
            let mut own = [0u8; 8];
            for &d in &digits[..lo_cells] {
                own[d as usize] += 1;
            }
            if (0..r.k).any(|s| own[s] > r.sizes[s]) {
                continue;
            }
            let g = *groups.entry(own).or_insert_with(|| {
                suffixes.push(Vec::new());
                (suffixes.len() - 1) as u32
            });
            suffixes[g as usize].push(l as u32);
        }
        let mut prefixes = Vec::new();
        for h in 0..r.k.pow(r.half as u32) {
            let digits = digits_of(h, r.k, r.half);
            let mut rest = [0u8; 8];
            rest[..r.k].copy_from_slice(&r.sizes);
            if digits[..r.half].iter().any(|&d| {
                let short = rest[d as usize] == 0;
                rest[d as usize] = rest[d as usize].saturating_sub(1);
                short
            }) {
                continue;
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

/// The colourings of the default 4x4 set, in file order.
pub fn default_4x4_set() -> Vec<Colouring> {
    let base = Colouring::default_4x4();
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
        preset: Some(format!("{}-mtm", colouring.size)),
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
    let meta = PdbMeta {
        generator: generator.to_string(),
        preset: Some(format!("{}-mtm", colouring.size)),
    };
    write_pdb_file_as(path, &goal, &tiles, EntryEncoding::MtmColour { class_ends }, &meta, entries)
}
