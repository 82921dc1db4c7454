//! Duplicate-path pruning with a finite-state machine (Taylor & Korf 1993, "Pruning duplicate
//! nodes in depth-first search").
//!
//! **What is forbidden.** Strings of blank moves are enumerated on an unbounded grid, relative to
//! the blank's start, shortest first and, within a length, in direction order (`U < L < R < D`).
//! A string's *effect* is the permutation it applies to the cells (which includes where the
//! blank ends); its *extent* is the bounding box of the cells it visits. A string `S` is
//! *forbidden* if an earlier string `T` (shorter, or as long and lexicographically smaller) has
//! the same effect and an extent inside `S`'s. Boards are rectangles, so a string stays on the
//! board exactly when its bounding box does: wherever `S` is legal, `T` is legal too and leads
//! to the same position. (Taylor and Korf compare the sets of visited cells; comparing bounding
//! boxes is also sound on rectangles and forbids more strings. [`Fsm::build`] can do either.)
//! Only the *minimal* forbidden strings (no forbidden proper substring) are kept. `d, d^3` (an
//! undo) is forbidden by the empty string, so the machine subsumes the no-undo rule.
//!
//! **The machine.** An Aho–Corasick automaton over the four directions recognises the moment
//! the moves so far end with a forbidden string: [`Fsm::step`] gives the next state or
//! [`PRUNE`]. Two are shared, each built once on first use. Boards of up to 24 cells
//! ([`Fsm::get`]) use strings of up to [`SHORT_LEN`] moves: longer ones save almost nothing
//! there (0.13% of the 4x4's expansions with its default tables). That machine is minimised
//! (states with the same future merged: a sixth fewer), so that its rows fit in 16 bits and
//! take less cache. Larger boards ([`Fsm::long`]) run deep enough for strings of up to
//! [`LONG_LEN`] moves to pay (with 16 instead of 12, 13% fewer expansions on the 5x5's shorter
//! instances, more on the longer ones): half a million states in 32-bit rows (8 MB), too many
//! for the cache, so the search prefetches each child's row when it prefetches the child's
//! table entries ([`Fsm::prefetch`]). It is not minimised: that takes 0.5 - 1 s and made it a
//! fifth smaller but no faster. [`Fsm::for_cells`] picks.
//!
//! **Soundness.** Order paths by length, then lexicographically; this order is well-founded.
//! Replacing a forbidden substring `S` of a legal path by its twin `T` gives a path that is
//! legal (`T`'s extent lies inside `S`'s, and the rest of the path visits the same cells since
//! `T` ends where `S` does with the same tiles moved), no longer, earlier in the order, and
//! ending at the same position. So the least path to any position (among those of at most a
//! given length) contains no forbidden substring, and the automaton never prunes it nor any of
//! its prefixes. In IDA* with an admissible heuristic every node on such a path to the goal of
//! optimal length `C*` has `g + h <= C*` (BPMX only raises values to other admissible bounds),
//! so the iteration with bound `C*` still finds an optimal solution; pruning only removes paths
//! that have such a twin.

use std::collections::VecDeque;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::key_map::KeyMap;

/// The result of [`Fsm::step`] when the move completes a forbidden string (the largest 16-bit
/// number: the short machine's states are stored in 16 bits, and the long machine's, in 32,
/// skip this number).
pub(crate) const PRUNE: u32 = u16::MAX as u32;

/// Longest forbidden string of the machine for boards of up to 24 cells ([`Fsm::get`]). Longer
/// strings prune more but take longer to find: with 12, IDA* generates 5 - 10% fewer nodes on
/// Korf's 100 than with 10; 14 saves 1 - 6% more for an automaton seven times larger (figures in
/// `docs/performance.md`).
pub(crate) const SHORT_LEN: usize = 12;

/// Longest forbidden string of the machine for larger boards ([`Fsm::long`]), whose searches
/// run deep enough for long strings to pay.
pub(crate) const LONG_LEN: usize = 16;

/// Longest forbidden string generated and checked in.
///
/// Enumerating the strings on every start would cost a one-position solve more than its
/// search (one to two minutes for 16), so they are generated once into `prune/forbidden.trie`
/// (checked in, like rust-analyzer's generated sources, in the form of [`trie`]). A test
/// checks the strings of up to 14 moves against the enumeration; with `FIFTEEN_SLOW_TESTS=1`
/// it checks them all, and rewrites the file, failing, if they ever differ. Each machine takes
/// the strings up to its length from the same list (a string is forbidden or not whatever the
/// longest length enumerated). `shared_machine_sizes` prints the machines' build times.
#[cfg_attr(not(test), expect(dead_code, reason = "the generator's limit, in the tests"))]
pub(crate) const MAX_LEN: usize = 16;

/// The checked-in strings, [`trie::encode`]d.
static FORBIDDEN: &[u8] = include_bytes!("prune/forbidden.trie");

/// Boards with at least this many cells use [`Fsm::long`].
const LONG_FROM_CELLS: usize = 25;

/// A deterministic automaton over the four directions that rejects (with [`PRUNE`]) every move
/// completing a forbidden string.
#[derive(Debug)]
pub(crate) struct Fsm {
    /// `rows[state][d]`: the state after move `d`, or [`PRUNE`].
    rows: Rows,
    /// Number of minimal forbidden strings the machine recognises.
    forbidden: usize,
    /// Time to enumerate the strings and build the automaton.
    build_time: Duration,
}

impl Fsm {
    /// The state before any move.
    pub(crate) const START: u32 = 0;

    /// The shared machine for strings of up to [`SHORT_LEN`] moves, built on first use.
    pub(crate) fn get() -> &'static Fsm {
        static FSM: OnceLock<Fsm> = OnceLock::new();
        FSM.get_or_init(|| Fsm::from_table(SHORT_LEN, true))
    }

    /// The shared machine for strings of up to [`LONG_LEN`] moves, built on first use.
    pub(crate) fn long() -> &'static Fsm {
        static FSM: OnceLock<Fsm> = OnceLock::new();
        FSM.get_or_init(|| Fsm::from_table(LONG_LEN, false))
    }

    /// The shared machine for a board of `cells` cells.
    pub(crate) fn for_cells(cells: usize) -> &'static Fsm {
        if cells >= LONG_FROM_CELLS { Fsm::long() } else { Fsm::get() }
    }

    /// The machine of the checked-in strings of up to `max_len` moves, [`minimise`]d or not.
    fn from_table(max_len: usize, minimised: bool) -> Fsm {
        let t0 = Instant::now();
        let mut patterns = trie::decode(FORBIDDEN);
        patterns.retain(|m| usize::from(m.len) <= max_len);
        let next = aho_corasick(&patterns);
        let rows = Rows::new(if minimised { minimise(next) } else { next });
        Fsm { rows, forbidden: patterns.len(), build_time: t0.elapsed() }
    }

    /// The machine that only forbids undoing the last move (the search without this pruning).
    #[cfg(test)]
    pub(crate) fn no_undo() -> &'static Fsm {
        static FSM: OnceLock<Fsm> = OnceLock::new();
        FSM.get_or_init(|| Fsm::build(2, Fit::Box))
    }

    /// The state after move `d` from `state`, or [`PRUNE`].
    #[cfg(test)]
    pub(crate) fn step(&self, state: u32, d: usize) -> u32 {
        self.row(state)[d & 3]
    }

    /// The states after each move from `state` ([`PRUNE`] for a forbidden move).
    #[inline(always)]
    pub(crate) fn row(&self, state: u32) -> [u32; 4] {
        match &self.rows {
            Rows::Narrow(rows) => rows[state as usize].map(u32::from),
            Rows::Wide(rows) => rows[state as usize],
        }
    }

    /// Starts loading the row of `state` if the rows are too many to stay in the cache (the
    /// long machine's); a hint, so any state will do.
    #[inline(always)]
    pub(crate) fn prefetch(&self, state: u32) {
        if let Rows::Wide(rows) = &self.rows {
            crate::pdb::prefetch_address(rows.as_ptr().addr() + 16 * state as usize);
        }
    }

    /// Number of states.
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn states(&self) -> usize {
        match &self.rows {
            Rows::Narrow(rows) => rows.len(),
            // Less the unreachable row numbered PRUNE.
            Rows::Wide(rows) => rows.len() - 1,
        }
    }

    /// Number of minimal forbidden strings.
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn forbidden(&self) -> usize {
        self.forbidden
    }

    /// How long building the machine took.
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn build_time(&self) -> Duration {
        self.build_time
    }

    /// Enumerates the minimal forbidden strings of up to `max_len` (at most [`MAX_LEN`]) moves
    /// and builds their automaton.
    #[cfg(test)]
    pub(crate) fn build(max_len: usize, fit: Fit) -> Fsm {
        let t0 = Instant::now();
        let patterns = forbidden_strings(max_len, fit);
        let rows = Rows::new(minimise(aho_corasick(&patterns)));
        Fsm { rows, forbidden: patterns.len(), build_time: t0.elapsed() }
    }
}

/// A string of moves: the first move in the highest bits, so for one length numeric order is
/// direction order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Moves {
    pub(crate) code: u32,
    pub(crate) len: u8,
}

impl Moves {
    pub(crate) fn dir(self, i: usize) -> usize {
        (self.code >> (2 * (self.len as usize - 1 - i))) as usize & 3
    }
}

/// A transition to a forbidden string's end before [`Rows::new`] makes it [`PRUNE`].
const END: u32 = u32::MAX;

/// An automaton's rows, in 16 bits when its states are fewer than [`PRUNE`] (the short
/// machine's 8,081: 64 KB, which stay in the cache beside the pattern databases' reads and
/// measured 1 - 1.5% faster on the 4x4 than 32 bits), else in 32.
#[derive(Debug)]
enum Rows {
    Narrow(Vec<[u16; 4]>),
    /// The state numbered [`PRUNE`] is an unreachable row, so that the same number prunes.
    Wide(Vec<[u32; 4]>),
}

impl Rows {
    /// `next`'s rows with [`END`] made [`PRUNE`].
    fn new(next: Vec<[u32; 4]>) -> Rows {
        if next.len() < PRUNE as usize {
            return Rows::Narrow(
                next.iter()
                    .map(|r| r.map(|x| if x == END { PRUNE as u16 } else { x as u16 }))
                    .collect(),
            );
        }
        assert!(next.len() < END as usize - 1, "too many states");
        let renumber = |x: u32| match x {
            END => PRUNE,
            x if x >= PRUNE => x + 1,
            x => x,
        };
        let mut rows: Vec<[u32; 4]> = next.iter().map(|r| r.map(renumber)).collect();
        rows.insert(PRUNE as usize, [PRUNE; 4]);
        Rows::Wide(rows)
    }
}

/// The minimal automaton of the same strings (Moore's partition refinement): states whose
/// futures are the same are merged. Every state accepts, so the first partition is one class;
/// each round splits the classes by where their four moves lead, until no class splits. Classes
/// are numbered in the order of their first state, so the start stays 0.
fn minimise(next: Vec<[u32; 4]>) -> Vec<[u32; 4]> {
    let class_of = |class: &[u32], t: u32| if t == END { END } else { class[t as usize] };
    // A state's class and its moves' classes in 5 x 24 bits (END becomes 2^24 - 1).
    assert!(next.len() < (1 << 24) - 1, "too many states to minimise");
    let key = |class: &[u32], c: u32, row: &[u32; 4]| {
        row.iter().fold(u128::from(c), |k, &t| k << 24 | u128::from(class_of(class, t) & 0xff_ffff))
    };
    let mut class = vec![0u32; next.len()];
    let mut classes = 1;
    loop {
        let mut ids = KeyMap::<u128>::with_capacity_and_hasher(classes * 2, Default::default());
        let refined: Vec<u32> = next
            .iter()
            .zip(&class)
            .map(|(row, &c)| {
                let fresh = ids.len() as u32;
                *ids.entry(key(&class, c, row)).or_insert(fresh)
            })
            .collect();
        class = refined;
        if ids.len() == classes {
            break;
        }
        classes = ids.len();
    }
    let mut out = vec![[END; 4]; classes];
    for (row, &c) in next.iter().zip(&class) {
        out[c as usize] = row.map(|t| class_of(&class, t));
    }
    out
}

/// The Aho–Corasick automaton of `patterns` as a complete transition table, with the pattern
/// ends replaced by [`END`] and state 0 the start.
fn aho_corasick(patterns: &[Moves]) -> Vec<[u32; 4]> {
    const NO: u32 = u32::MAX;
    let mut goto: Vec<[u32; 4]> = vec![[NO; 4]];
    let mut end = vec![false];
    for p in patterns {
        let mut s = 0;
        for i in 0..p.len as usize {
            let d = p.dir(i);
            if goto[s][d] == NO {
                goto[s][d] = goto.len() as u32;
                goto.push([NO; 4]);
                end.push(false);
            }
            s = goto[s][d] as usize;
        }
        end[s] = true;
    }
    // Breadth first: failure links, then missing edges follow them.
    let mut fail = vec![0u32; goto.len()];
    let mut order = Vec::with_capacity(goto.len());
    let mut queue = VecDeque::from([0usize]);
    while let Some(s) = queue.pop_front() {
        order.push(s);
        // Where the longest proper suffix goes (complete: it is shallower, so done already).
        let via_fail = if s == 0 { [0; 4] } else { goto[fail[s] as usize] };
        let mut row = goto[s];
        for (slot, via) in row.iter_mut().zip(via_fail) {
            if *slot == NO {
                *slot = via;
            } else {
                let t = *slot as usize;
                fail[t] = via;
                end[t] |= end[via as usize];
                queue.push_back(t);
            }
        }
        goto[s] = row;
    }
    // Number the states that are not pattern ends, in breadth-first order (the start first).
    let mut number = vec![NO; goto.len()];
    let mut kept = 0;
    for &s in &order {
        if !end[s] {
            number[s] = kept;
            kept += 1;
        }
    }
    order
        .iter()
        .filter(|&&s| !end[s])
        .map(|&s| goto[s].map(|t| if end[t as usize] { END } else { number[t as usize] }))
        .collect()
}

#[cfg(test)]
mod generate;
#[cfg(test)]
mod tests;
mod trie;

#[cfg(test)]
pub(crate) use generate::{Fit, forbidden_strings};
