//! The retrograde breadth-first search that fills one pattern database.
//!
//! A state is a placement of the pattern tiles plus the region of free cells (cells no pattern
//! tile holds) the blank is in; the blank moves inside its region at no cost. A region is named
//! by its lowest cell, its *representative*, so a state is indexed by
//! `rank(n, [pattern cells.., representative])`: the placement index times `n - k`, plus the
//! representative's rank among the free cells. Slots of free cells that are not the lowest of
//! their region are never used.
//!
//! Each state has a 2-bit code in an array of `AtomicU64` (32 states a word):
//!
//! - `00`: not reached yet;
//! - `01` / `10`: in the frontier of the current level or marked for the next one (the roles
//!   swap every level);
//! - `11`: done (expanded), or a slot that is not a representative.
//!
//! Levels are synchronous, so the set of states of each level, and thus the output, does not
//! depend on the thread count or on scheduling. A level runs one of two ways (Beamer's
//! direction-optimising BFS): *push* expands each frontier state and marks its unreached
//! neighbours with an atomic `fetch_or`; *pull*, used once the frontier outgrows what is left,
//! has each unreached state look for a neighbour in the frontier and mark itself. Moves are
//! reversible, so both find the same states.
//!
//! The entry of a placement is the lowest level of any of its states. A zero-aware table
//! ([`ZeroIndex`]) keeps each state's own level instead: the search is the same, and each state
//! expanded also writes its level at its zero-aware index.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use fifteen_core::pdb::{UNREACHABLE, ZeroIndex, rank, unrank};
use fifteen_core::{Board, MAX_CELLS, Size};
use rayon::prelude::*;
use zerocopy::FromBytes;

use crate::{BuildOptions, GenError, LevelReport};

/// Where [`Space::init_code`] keeps the number of representatives.
const INIT_COUNT_SHIFT: u32 = 58;
/// Codes of unreached / frontier A / frontier B / done, as described in the module docs.
const DONE: u64 = 0b11;
/// The low bit of every 2-bit field of a word.
const LOW: u64 = 0x5555_5555_5555_5555;
/// Placements per parallel work item; a multiple of 32 so items own whole words.
const CHUNK: u64 = 32 * 256;
/// Neighbour indices a push worker gathers before loading their words; at least the most
/// neighbours one state can have (4 per pattern tile) past the flush point.
const PUSH_BATCH: usize = 4 * MAX_CELLS + PUSH_FLUSH;
/// A push worker loads its gathered neighbours once it has more than this many: enough misses
/// to keep the memory system busy, few enough that their lines are still in L1 for the marks.
const PUSH_FLUSH: usize = 128;
/// Boards up to this many cells get a table of regions (1 MiB for 16 cells).
const TABLE_CELLS: usize = 16;
/// Refuse state arrays above this many bytes (the 8-tile 4x4 pattern needs 1 GiB).
const MAX_STATE_BYTES: u64 = 16 << 30;

/// Builds the database of `tiles` (in pattern order) for `goal`: one entry per placement, in
/// [`rank`] order, each the number of pattern-tile moves to the goal placement, or
/// [`UNREACHABLE`] for placements no position reaches (only when the pattern holds every tile).
///
/// The result is the same for every thread count.
pub fn build_pattern(
    size: Size,
    goal: &Board,
    tiles: &[u8],
    options: &BuildOptions<'_>,
) -> Result<Vec<u8>, GenError> {
    // A pool of our own rather than rayon's global one, whose start panics when the system
    // refuses threads; with fewer threads the result is the same, only later.
    let threads = options.threads.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .or_else(|_| rayon::ThreadPoolBuilder::new().num_threads(1).build())
        .map_err(|e| {
            let threads = match threads {
                0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
                n => n,
            };
            GenError::ThreadPool { threads, reason: e.to_string() }
        })?;
    pool.install(|| {
        let space = Space::new(size, goal, tiles)?;
        let zero = if options.zero_aware {
            let z = ZeroIndex::shared(size, tiles.len())
                .map_err(|e| GenError::BadPattern { reason: e.to_string() })?;
            Some(Zero {
                out: (0..z.entries()).map(|_| AtomicU8::new(UNREACHABLE)).collect(),
                index: z,
            })
        } else {
            None
        };
        let entries = space.run(options, zero.as_ref())?;
        Ok(match zero {
            Some(z) => z.out.into_iter().map(AtomicU8::into_inner).collect(),
            None => entries,
        })
    })
}

/// The zero-aware output: the index and an entry per (placement, blank region).
struct Zero {
    index: std::sync::Arc<ZeroIndex>,
    out: Vec<AtomicU8>,
}

impl Zero {
    /// Records `level` for the placement `cells` with the blank in the region of `blank`.
    #[inline]
    fn record(&self, cells: &[u8], blank: u32, level: u8) {
        let i = self.index.index(cells, blank as usize) as usize;
        self.out[i].store(level, Relaxed);
    }
}

/// The fixed facts of one search: board geometry and pattern.
struct Space {
    /// Cells on the board.
    n: usize,
    /// Pattern tiles.
    k: usize,
    /// Free cells (`n - k`): state slots per placement.
    free_slots: u64,
    /// Number of placements (entries).
    placements: u64,
    /// Number of state slots, `placements * free_slots`.
    states: u64,
    /// Board width, for flood fills.
    width: usize,
    /// All board cells.
    board: u64,
    /// Cells not in the first column (destinations of a step right).
    not_first_col: u64,
    /// Cells not in the last column (destinations of a step left).
    not_last_col: u64,
    /// Neighbours of each cell.
    neighbours: [u64; MAX_CELLS],
    /// For boards of at most [`TABLE_CELLS`] cells: `rep_digits[free << 4 | cell]` is the
    /// number of free cells below the lowest cell of `cell`'s region among the free cells
    /// `free | 1 << cell`, the last digit of a state's index (measured: a flood fill and a
    /// popcount cost more than this load).
    rep_digits: Vec<u8>,
    /// With `rep_digits`: `rep_masks[free]` holds the lowest cell of every region of `free`.
    rep_masks: Vec<u16>,
    /// With `rep_digits`: `init_codes[free]` is [`Space::init_code`] of `free`.
    init_codes: Vec<u64>,
    /// The goal cell of each pattern tile, in pattern order.
    goal_cells: Vec<u8>,
    /// `weights[i]`: the place value of tile i's digit in a placement index,
    /// `(n - i - 1) * (n - i - 2) * ... * (n - k + 1)`.
    weights: [u64; MAX_CELLS],
    /// The goal's blank cell.
    goal_blank: usize,
}

impl Space {
    fn new(size: Size, goal: &Board, tiles: &[u8]) -> Result<Space, GenError> {
        let bad = |reason: String| GenError::BadPattern { reason };
        let n = size.cells();
        if goal.size() != size {
            return Err(bad(format!("the goal is {} but the board is {size}", goal.size())));
        }
        if tiles.is_empty() {
            return Err(bad("the pattern has no tiles".to_string()));
        }
        let mut seen = 0u64;
        for &t in tiles {
            if t == 0 || t as usize >= n {
                return Err(bad(format!(
                    "tile {t} is not a tile of a {size} board (1 to {})",
                    n - 1
                )));
            }
            if seen & (1 << t) != 0 {
                return Err(bad(format!("tile {t} appears twice")));
            }
            seen |= 1 << t;
        }
        let k = tiles.len();
        let free_slots = (n - k) as u64;
        // k <= n - 1 <= 63 tiles: the placements of the largest supported patterns fit, but
        // check rather than wrap.
        let placements = (0..k)
            .try_fold(1u64, |acc, i| acc.checked_mul((n - i) as u64))
            .filter(|&p| p.checked_mul(free_slots).is_some())
            .ok_or_else(|| bad(format!("{k} tiles on {n} cells is far too many")))?;
        let states = placements * free_slots;
        let bytes = states.div_ceil(4);
        if bytes > MAX_STATE_BYTES {
            return Err(GenError::TooLarge { states, bytes, limit: MAX_STATE_BYTES });
        }
        debug_assert_eq!(placements, fifteen_core::pdb::placements(n, k));
        let width = size.width();
        let board = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let first_col = (0..n).filter(|c| c % width == 0).fold(0u64, |m, c| m | 1 << c);
        let last_col = (0..n).filter(|c| c % width == width - 1).fold(0u64, |m, c| m | 1 << c);
        let mut neighbours = [0u64; MAX_CELLS];
        for (cell, slot) in neighbours.iter_mut().enumerate().take(n) {
            for d in fifteen_core::Dir::ALL {
                if let Some(to) = d.neighbor(size, cell) {
                    *slot |= 1 << to;
                }
            }
        }
        let mut space = Space {
            n,
            k,
            free_slots,
            placements,
            states,
            width,
            board,
            not_first_col: board & !first_col,
            not_last_col: board & !last_col,
            neighbours,
            rep_digits: Vec::new(),
            rep_masks: Vec::new(),
            init_codes: Vec::new(),
            goal_cells: tiles.iter().map(|&t| goal.position(t) as u8).collect(),
            goal_blank: goal.blank(),
            weights: [0; MAX_CELLS],
        };
        let mut weight = 1;
        for i in (0..k).rev() {
            space.weights[i] = weight;
            weight *= (n - i) as u64;
        }
        if n <= TABLE_CELLS {
            let reps: Vec<u8> = (0..1u64 << TABLE_CELLS)
                .into_par_iter()
                .flat_map_iter(|free| {
                    let space = &space;
                    (0..TABLE_CELLS as u64).map(move |cell| {
                        space.flood(1 << cell, free | 1 << cell).trailing_zeros() as u8
                    })
                })
                .collect();
            space.rep_masks = (0..1usize << TABLE_CELLS)
                .map(|free| {
                    (0..TABLE_CELLS)
                        .filter(|&c| free & (1 << c) != 0 && reps[free << 4 | c] as usize == c)
                        .fold(0u16, |m, c| m | 1 << c)
                })
                .collect();
            space.rep_digits = reps
                .iter()
                .enumerate()
                .map(|(i, &rep)| {
                    let free = (i >> 4 | 1 << (i & 15)) as u64;
                    (free & ((1 << rep) - 1)).count_ones() as u8
                })
                .collect();
            space.init_codes =
                (0..1u64 << TABLE_CELLS).map(|free| space.compute_init_code(free)).collect();
        }
        Ok(space)
    }

    /// The initial codes of the slots of a placement with free cells `free`, slot j in bits
    /// `2j..2j + 2`: "unreached" for representatives, "done" for the other slots; and, from bit
    /// 58 on, the number of representatives.
    #[inline]
    fn init_code(&self, free: u64) -> u64 {
        match self.init_codes.get(free as usize) {
            Some(&code) => code,
            None => self.compute_init_code(free),
        }
    }

    fn compute_init_code(&self, free: u64) -> u64 {
        let reps = self.rep_mask(free);
        let (mut code, mut slot, mut left) = (0u64, 0, free);
        while left != 0 {
            let cell = left & left.wrapping_neg();
            left ^= cell;
            if reps & cell == 0 {
                code |= DONE << (2 * slot);
            }
            slot += 1;
        }
        code | (reps.count_ones() as u64) << INIT_COUNT_SHIFT
    }

    /// The lowest cell of every region of the free cells `free`.
    #[inline]
    fn rep_mask(&self, free: u64) -> u64 {
        if let Some(&mask) = self.rep_masks.get(free as usize) {
            return mask as u64;
        }
        let (mut left, mut reps) = (free, 0);
        while left != 0 {
            let seed = left & left.wrapping_neg();
            reps |= seed;
            left &= !self.flood(seed, free);
        }
        reps
    }

    /// The rank among the free cells `free` of the lowest cell of the region that holds `cell`
    /// (which is free).
    #[inline(always)]
    fn rep_digit(&self, cell: u8, free: u64) -> u64 {
        match self.rep_digits.get(((free << 4) | cell as u64) as usize) {
            Some(&digit) => digit as u64,
            None => {
                let rep = self.flood(1 << cell, free).trailing_zeros();
                (free & ((1 << rep) - 1)).count_ones() as u64
            }
        }
    }

    /// The region of free cells (`free`) connected to `seed`.
    #[inline(always)]
    fn flood(&self, seed: u64, free: u64) -> u64 {
        let w = self.width;
        let mut region = seed;
        loop {
            let grown = (region
                | ((region << 1) & self.not_first_col)
                | ((region >> 1) & self.not_last_col)
                | (region << w)
                | (region >> w))
                & free;
            if grown == region {
                return region;
            }
            region = grown;
        }
    }

    /// Loads placement `p` into `pl`.
    #[inline]
    fn load<const N: usize, const K: usize>(&self, p: u64, pl: &mut Placement) {
        let k = self.tiles::<N, K>();
        match pl.cells.first_chunk_mut::<K>() {
            // A constant size lets the compiler turn unrank's divisions into multiplications.
            Some(out) if N != 0 => unrank(N, p, out),
            _ => unrank(self.n, p, &mut pl.cells[..k]),
        }
        pl.index = p;
        let mut used = 0u64;
        for i in 0..k {
            let c = pl.cells[i];
            pl.earlier[i] = used;
            pl.owner[c as usize] = i as u8;
            used |= 1 << c;
        }
        for i in 0..k {
            pl.later[i] = used & !pl.earlier[i] & !(1 << pl.cells[i]);
        }
        pl.free = self.board & !used;
    }

    /// The number of pattern tiles: `K`, or the runtime value when `N` is 0.
    #[inline(always)]
    fn tiles<const N: usize, const K: usize>(&self) -> usize {
        if N != 0 { K } else { self.k }
    }

    /// State slots per placement: `N - K`, or the runtime value when `N` is 0.
    #[inline(always)]
    fn slots<const N: usize, const K: usize>(&self) -> u64 {
        if N != 0 { (N - K) as u64 } else { self.free_slots }
    }

    /// The index of the state whose pattern cells and representative are `cells[..=k]`: the
    /// definition [`Space::neighbours_of`]'s incremental ranking is checked against.
    #[cfg(debug_assertions)]
    fn state_index<const N: usize, const K: usize>(&self, cells: &[u8; MAX_CELLS]) -> u64 {
        if N != 0 { rank(N, &cells[..K + 1]) } else { rank(self.n, &cells[..=self.k]) }
    }

    /// Calls `visit` with the index of every state one pattern-tile move from the state with
    /// placement `pl` and blank region `region`, until `visit` returns `true`. Returns whether
    /// `visit` stopped it.
    ///
    /// The neighbour's index is computed from `pl.index` rather than by [`rank`]: when tile `i`
    /// moves from `from` to `to`, only digits from the i-th on change. Digit i changes by the
    /// number of cells in `[from, to)` (or `[to, from)`) that earlier tiles do not hold, and each
    /// later tile strictly between the two cells gains or loses the one cell below it. A step
    /// sideways has nothing between, so it is just one place value.
    #[inline]
    fn neighbours_of<const N: usize, const K: usize>(
        &self,
        pl: &Placement,
        region: u64,
        mut visit: impl FnMut(u64) -> bool,
    ) -> bool {
        let k = self.tiles::<N, K>();
        let f = self.slots::<N, K>();
        for i in 0..k {
            let from = pl.cells[i];
            let mut into = self.neighbours[from as usize] & region;
            while into != 0 {
                let to = into.trailing_zeros() as u8;
                into &= into - 1;
                // Tile i slides from `from` into the blank at `to`; the blank is now on `from`.
                let free_after = pl.free ^ (1u64 << to) ^ (1u64 << from);
                let (lo, hi) = (from.min(to), from.max(to));
                let between = ((1u64 << hi) - 1) & !((2u64 << lo) - 1);
                let mut step =
                    (1 + (between & !pl.earlier[i]).count_ones() as u64) * self.weights[i];
                let mut later = between & pl.later[i];
                while later != 0 {
                    step += self.weights[pl.owner[later.trailing_zeros() as usize] as usize];
                    later &= later - 1;
                }
                let p = if to > from { pl.index + step } else { pl.index - step };
                let state = p * f + self.rep_digit(from, free_after);
                #[cfg(debug_assertions)]
                {
                    let mut cells = pl.cells;
                    cells[i] = to;
                    cells[k] = self.flood(1 << from, free_after).trailing_zeros() as u8;
                    debug_assert_eq!(state, self.state_index::<N, K>(&cells));
                }
                if visit(state) {
                    return true;
                }
            }
        }
        false
    }

    /// Runs the whole search in the current rayon pool, with the board and pattern sizes as
    /// constants for the common presets.
    fn run(&self, options: &BuildOptions<'_>, zero: Option<&Zero>) -> Result<Vec<u8>, GenError> {
        match (self.n, self.k) {
            (16, 8) => self.run_with::<16, 8>(options, zero),
            (16, 7) => self.run_with::<16, 7>(options, zero),
            (16, 6) => self.run_with::<16, 6>(options, zero),
            (9, 8) => self.run_with::<9, 8>(options, zero),
            (25, 6) => self.run_with::<25, 6>(options, zero),
            _ => self.run_with::<0, 0>(options, zero),
        }
    }

    /// Runs the search; `N` and `K` are the cells and pattern tiles, or 0 for "read them from
    /// `self`".
    fn run_with<const N: usize, const K: usize>(
        &self,
        options: &BuildOptions<'_>,
        zero: Option<&Zero>,
    ) -> Result<Vec<u8>, GenError> {
        let start = Instant::now();
        let word_count =
            usize::try_from(self.states.div_ceil(32)).map_err(|_| GenError::TooLarge {
                states: self.states,
                bytes: self.states / 4,
                limit: usize::MAX as u64,
            })?;
        let entry_count = self.placements as usize;
        let mut map = huge_zeroed(word_count)?;
        let words = as_words(&mut map);
        let mut entries = vec![UNREACHABLE; entry_count];
        let chunk_words = (CHUNK * self.free_slots / 32) as usize;

        // Code every representative "unreached" and every other slot "done", and count the
        // states. Each work item writes its own words once, walking its placements in order.
        let space: u64 = words
            .par_chunks(chunk_words)
            .enumerate()
            .map(|(c, chunk)| {
                let first = c as u64 * CHUNK;
                let count = CHUNK.min(self.placements - first);
                self.init_chunk::<N, K>(chunk, first, count)
            })
            .sum();
        // Level 0: the goal placement with the blank in the goal blank's region.
        let mut cells = [0u8; MAX_CELLS];
        cells[..self.k].copy_from_slice(&self.goal_cells);
        let used = self.goal_cells.iter().fold(0u64, |m, &c| m | 1 << c);
        let region = self.flood(1 << self.goal_blank, self.board & !used);
        cells[self.k] = region.trailing_zeros() as u8;
        let goal_state = rank(self.n, &cells[..=self.k]);
        let mut cur = 0b01u64;
        set_code(words, goal_state, cur);

        let mut frontier = 1u64;
        let mut reached = 1u64;
        let mut depth = 0u32;
        while frontier > 0 {
            if depth >= UNREACHABLE as u32 {
                return Err(GenError::TooDeep { depth });
            }
            let next = cur ^ DONE;
            let unreached = space - reached;
            // Pull when the frontier is larger than what is left to find: every unreached state
            // then stops at its first frontier neighbour, and no atomic read-modify-writes hit
            // random words.
            let pull = frontier > unreached / 2;
            let level = depth as u8;
            let found: u64 = if pull {
                let found = words
                    .par_chunks(chunk_words)
                    .enumerate()
                    .map(|(c, chunk)| {
                        self.pull_chunk::<N, K>(words, c * chunk_words, chunk, cur, next)
                    })
                    .sum();
                words
                    .par_chunks(chunk_words)
                    .zip(entries.par_chunks_mut(CHUNK as usize))
                    .enumerate()
                    .for_each(|(c, (chunk, out))| {
                        self.retire_chunk::<N, K>(
                            c * chunk_words,
                            c as u64 * CHUNK,
                            chunk,
                            out,
                            cur,
                            level,
                            zero,
                        )
                    });
                found
            } else {
                words
                    .par_chunks(chunk_words)
                    .zip(entries.par_chunks_mut(CHUNK as usize))
                    .enumerate()
                    .map(|(c, (chunk, out))| {
                        self.push_chunk::<N, K>(
                            words,
                            c * chunk_words,
                            c as u64 * CHUNK,
                            chunk,
                            out,
                            cur,
                            next,
                            level,
                            zero,
                        )
                    })
                    .sum()
            };
            reached += found;
            if let Some(report) = options.progress {
                report(&LevelReport {
                    depth: level,
                    frontier,
                    reached,
                    space,
                    elapsed: start.elapsed(),
                    pull,
                });
            }
            frontier = found;
            cur = next;
            depth += 1;
        }
        Ok(entries)
    }

    /// Codes the slots of placements `first..first + count`, whose words are `chunk`, which
    /// starts on the first one's first slot: representatives "unreached", other slots "done". Returns the number of
    /// representatives. The placements are visited in rank order by stepping an odometer, so no
    /// placement is unranked but the first.
    fn init_chunk<const N: usize, const K: usize>(
        &self,
        chunk: &[AtomicU64],
        first: u64,
        count: u64,
    ) -> u64 {
        let k = self.tiles::<N, K>();
        let bits = 2 * self.slots::<N, K>() as u32;
        let mut cells = [0u8; MAX_CELLS];
        unrank(self.n, first, &mut cells[..k]);
        let mut used = cells[..k].iter().fold(0u64, |m, &c| m | 1 << c);
        let mut out = BitWriter { words: chunk, next: 0, acc: 0, filled: 0 };
        let mut states = 0;
        for _ in 0..count {
            let free = self.board & !used;
            if bits <= INIT_COUNT_SHIFT {
                let code = self.init_code(free);
                states += code >> INIT_COUNT_SHIFT;
                out.push(code & ((1u64 << bits) - 1), bits);
            } else {
                // Too many slots for one word of codes: one slot at a time.
                let reps = self.rep_mask(free);
                states += reps.count_ones() as u64;
                let mut left = free;
                while left != 0 {
                    let cell = left & left.wrapping_neg();
                    left ^= cell;
                    out.push(if reps & cell == 0 { DONE } else { 0 }, 2);
                }
            }
            used = self.advance(&mut cells[..k], used);
        }
        out.finish();
        states
    }

    /// Steps `cells` (a placement whose cells are `used`) to the next placement in rank order and
    /// returns its cells; after the last placement the cells are left unchanged.
    #[inline]
    fn advance(&self, cells: &mut [u8], mut used: u64) -> u64 {
        // The last tile that can move to a higher cell no earlier tile holds does; the tiles after
        // it take the lowest cells left, in order (each digit is a rank among the cells left).
        for i in (0..cells.len()).rev() {
            used &= !(1 << cells[i]);
            let higher = self.board & !used & !((2u64 << cells[i]) - 1);
            if higher != 0 {
                cells[i] = higher.trailing_zeros() as u8;
                used |= 1 << cells[i];
                for c in &mut cells[i + 1..] {
                    *c = (self.board & !used).trailing_zeros() as u8;
                    used |= 1 << *c;
                }
                return used;
            }
        }
        cells.iter().fold(0u64, |m, &c| m | 1 << c)
    }

    /// Push: expands every state of `chunk` with code `cur`, marks it done, records its
    /// placement's entry, and marks unreached neighbours `next`. Returns how many it marked.
    #[allow(clippy::too_many_arguments)]
    fn push_chunk<const N: usize, const K: usize>(
        &self,
        words: &[AtomicU64],
        first_word: usize,
        first: u64,
        chunk: &[AtomicU64],
        out: &mut [u8],
        cur: u64,
        next: u64,
        level: u8,
        zero: Option<&Zero>,
    ) -> u64 {
        let f = self.slots::<N, K>();
        let mut pl = Placement::new();
        let mut marked = 0;
        // Neighbours of several states are gathered, then their words are loaded together, so
        // the cache misses overlap: a `fetch_or` waits for every earlier load, so marking after
        // each state would cap the misses in flight at one state's neighbours.
        let mut batch = [0u64; PUSH_BATCH];
        let mut codes = [0u64; PUSH_BATCH];
        let mut count = 0;
        let room = PUSH_BATCH.saturating_sub(4 * self.tiles::<N, K>()).min(PUSH_FLUSH);
        for (i, word) in chunk.iter().enumerate() {
            let mut fields = fields_equal(word.load(Relaxed), cur);
            if fields == 0 {
                continue;
            }
            word.fetch_or(fields | fields << 1, Relaxed);
            while fields != 0 {
                let bit = fields.trailing_zeros() as u64;
                fields &= fields - 1;
                let state = (first_word + i) as u64 * 32 + bit / 2;
                let p = state / f;
                if p != pl.index {
                    self.load::<N, K>(p, &mut pl);
                    let e = &mut out[(p - first) as usize];
                    *e = (*e).min(level);
                }
                let rep = nth_cell(pl.free, state % f);
                if let Some(z) = zero {
                    z.record(&pl.cells[..self.tiles::<N, K>()], rep, level);
                }
                let region = self.flood(1 << rep, pl.free);
                self.neighbours_of::<N, K>(&pl, region, |s| {
                    batch[count] = s;
                    count += 1;
                    false
                });
                if count > room {
                    marked += mark_unreached(words, &batch[..count], &mut codes, next);
                    count = 0;
                }
            }
        }
        marked + mark_unreached(words, &batch[..count], &mut codes, next)
    }

    /// Pull: every unreached state of `chunk` with a neighbour coded `cur` is marked `next`.
    /// Returns how many it marked.
    fn pull_chunk<const N: usize, const K: usize>(
        &self,
        words: &[AtomicU64],
        first_word: usize,
        chunk: &[AtomicU64],
        cur: u64,
        next: u64,
    ) -> u64 {
        let f = self.slots::<N, K>();
        let mut pl = Placement::new();
        let mut marked = 0;
        for (i, word) in chunk.iter().enumerate() {
            let mut fields = fields_equal(word.load(Relaxed), 0);
            let mut set = 0;
            while fields != 0 {
                let bit = fields.trailing_zeros() as u64;
                fields &= fields - 1;
                let state = (first_word + i) as u64 * 32 + bit / 2;
                let p = state / f;
                if p != pl.index {
                    self.load::<N, K>(p, &mut pl);
                }
                let rep = nth_cell(pl.free, state % f);
                let region = self.flood(1 << rep, pl.free);
                let hit = self.neighbours_of::<N, K>(&pl, region, |s| {
                    let (w, shift) = locate(s);
                    (words[w].load(Relaxed) >> shift) & DONE == cur
                });
                if hit {
                    set |= next << bit;
                    marked += 1;
                }
            }
            if set != 0 {
                word.fetch_or(set, Relaxed);
            }
        }
        marked
    }

    /// After a pull level: records the entries of the states coded `cur` and marks them done.
    #[allow(clippy::too_many_arguments)]
    fn retire_chunk<const N: usize, const K: usize>(
        &self,
        first_word: usize,
        first: u64,
        chunk: &[AtomicU64],
        out: &mut [u8],
        cur: u64,
        level: u8,
        zero: Option<&Zero>,
    ) {
        let f = self.free_slots;
        let mut pl = Placement::new();
        for (i, word) in chunk.iter().enumerate() {
            let w = word.load(Relaxed);
            let mut fields = fields_equal(w, cur);
            if fields == 0 {
                continue;
            }
            word.store(w | fields | fields << 1, Relaxed);
            while fields != 0 {
                let bit = fields.trailing_zeros() as u64;
                fields &= fields - 1;
                let state = (first_word + i) as u64 * 32 + bit / 2;
                let p = state / f;
                let e = &mut out[(p - first) as usize];
                *e = (*e).min(level);
                if let Some(z) = zero {
                    if p != pl.index {
                        self.load::<N, K>(p, &mut pl);
                    }
                    let rep = nth_cell(pl.free, state % f);
                    z.record(&pl.cells[..self.tiles::<N, K>()], rep, level);
                }
            }
        }
    }
}

/// One placement, unranked once for all its states, with what [`Space::neighbours_of`] needs to
/// rank its neighbours incrementally.
struct Placement {
    /// Its index; `u64::MAX` before the first load.
    index: u64,
    /// The cell of each pattern tile (`cells[..k]`).
    cells: [u8; MAX_CELLS],
    /// The free cells.
    free: u64,
    /// `earlier[i]`: the cells of tiles `0..i`.
    earlier: [u64; MAX_CELLS],
    /// `later[i]`: the cells of tiles `i + 1..k`.
    later: [u64; MAX_CELLS],
    /// `owner[c]`: the tile on cell `c`, for the cells of pattern tiles.
    owner: [u8; MAX_CELLS],
}

impl Placement {
    fn new() -> Placement {
        Placement {
            index: u64::MAX,
            cells: [0; MAX_CELLS],
            free: 0,
            earlier: [0; MAX_CELLS],
            later: [0; MAX_CELLS],
            owner: [0; MAX_CELLS],
        }
    }
}

/// Writes consecutive bit fields to a run of words, each word once.
struct BitWriter<'a> {
    words: &'a [AtomicU64],
    /// The next word to write.
    next: usize,
    /// The low `filled` bits of that word.
    acc: u64,
    filled: u32,
}

impl BitWriter<'_> {
    /// Appends the `bits` (1 to 63) low bits of `code` (which has no others).
    #[inline]
    fn push(&mut self, code: u64, bits: u32) {
        self.acc |= code << self.filled;
        self.filled += bits;
        if self.filled >= 64 {
            self.words[self.next].store(self.acc, Relaxed);
            self.next += 1;
            self.filled -= 64;
            // The bits of `code` that did not fit.
            self.acc = if self.filled == 0 { 0 } else { code >> (bits - self.filled) };
        }
    }

    /// Writes the last, partial word, its unused slots "done".
    fn finish(self) {
        if self.filled > 0 {
            self.words[self.next].store(self.acc | u64::MAX << self.filled, Relaxed);
        }
    }
}

/// Marks `next` the unreached states of `batch`; returns how many it marked. `codes` is scratch
/// space at least as long as `batch`.
#[inline]
fn mark_unreached(words: &[AtomicU64], batch: &[u64], codes: &mut [u64], next: u64) -> u64 {
    // All loads first (they overlap), then the read-modify-writes of the unreached ones only.
    for (code, &s) in codes.iter_mut().zip(batch) {
        let (w, shift) = locate(s);
        *code = (words[w].load(Relaxed) >> shift) & DONE;
    }
    let mut marked = 0;
    for (&code, &s) in codes.iter().zip(batch) {
        if code == 0 {
            let (w, shift) = locate(s);
            let before = words[w].fetch_or(next << shift, Relaxed);
            if (before >> shift) & DONE == 0 {
                marked += 1;
            }
        }
    }
    marked
}

/// Anonymous zeroed memory for `words` 64-bit words, which the kernel is asked to back with
/// transparent huge pages: every neighbour lands on a random word of up to 1 GiB, and with 4 KiB
/// pages nearly each of those accesses also misses the TLB.
fn huge_zeroed(words: usize) -> Result<memmap2::MmapMut, GenError> {
    let bytes = words.max(1) * 8;
    let map = memmap2::MmapOptions::new()
        .len(bytes)
        .map_anon()
        .map_err(|source| GenError::Memory { bytes: bytes as u64, source })?;
    // Only a hint: without huge pages (another kernel setting, another OS) it is just slower.
    let _ = map.advise(memmap2::Advice::HugePage);
    Ok(map)
}

/// The memory of `map` as atomic words. A mapping is page-aligned and [`huge_zeroed`] makes its
/// length a multiple of 8, so the conversion cannot fail.
fn as_words(map: &mut memmap2::MmapMut) -> &[AtomicU64] {
    match <[AtomicU64]>::mut_from_bytes(&mut map[..]) {
        Ok(words) => words,
        Err(_) => unreachable!("a mapping is page-aligned and a whole number of words"),
    }
}

/// The word and bit shift of state `s`'s code.
#[inline(always)]
fn locate(s: u64) -> (usize, u64) {
    ((s / 32) as usize, 2 * (s % 32))
}

/// Sets state `s`'s code (from `00`).
fn set_code(words: &[AtomicU64], s: u64, code: u64) {
    let (w, shift) = locate(s);
    words[w].fetch_or(code << shift, Relaxed);
}

/// The low bit of every field of `word` equal to `code`.
#[inline(always)]
fn fields_equal(word: u64, code: u64) -> u64 {
    // XOR with the code repeated in every field turns matching fields into 00.
    let x = word ^ (code * LOW);
    !(x | (x >> 1)) & LOW
}

/// The `n`-th (0-based) set bit of `mask`.
#[inline(always)]
fn nth_cell(mut mask: u64, n: u64) -> u32 {
    for _ in 0..n {
        mask &= mask - 1;
    }
    mask.trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The odometer of the initialisation visits placements in rank order, and the incremental
    /// ranking of neighbours agrees with [`rank`].
    #[test]
    fn advance_and_neighbour_ranks_follow_rank() {
        for (w, h, tiles) in [(3, 3, &[1u8, 2, 3][..]), (4, 4, &[8, 9]), (3, 2, &[5, 1, 3, 2])] {
            let size = Size::new(w, h).unwrap();
            let space = Space::new(size, &Board::blank_first(size), tiles).unwrap();
            let (n, k) = (space.n, space.k);
            let mut cells = [0u8; MAX_CELLS];
            unrank(n, 0, &mut cells[..k]);
            let mut used = cells[..k].iter().fold(0u64, |m, &c| m | 1 << c);
            let mut pl = Placement::new();
            for p in 0..space.placements {
                assert_eq!(rank(n, &cells[..k]), p);
                space.load::<0, 0>(p, &mut pl);
                let mut reps = space.rep_mask(pl.free);
                while reps != 0 {
                    let region = space.flood(reps & reps.wrapping_neg(), pl.free);
                    reps &= !region;
                    let mut seen = Vec::new();
                    space.neighbours_of::<0, 0>(&pl, region, |s| {
                        seen.push(s);
                        false
                    });
                    // By definition: move each tile into each adjacent cell of the region.
                    let mut want = Vec::new();
                    for i in 0..k {
                        let from = pl.cells[i];
                        for to in 0..n as u8 {
                            if space.neighbours[from as usize] & region & 1 << to != 0 {
                                let mut moved = pl.cells;
                                moved[i] = to;
                                let after = pl.free ^ 1 << to ^ 1 << from;
                                moved[k] = space.flood(1 << from, after).trailing_zeros() as u8;
                                want.push(rank(n, &moved[..=k]));
                            }
                        }
                    }
                    seen.sort_unstable();
                    want.sort_unstable();
                    assert_eq!(seen, want);
                }
                used = space.advance(&mut cells[..k], used);
            }
        }
    }
}
