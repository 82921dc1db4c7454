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
//! [`PRUNE`]. It is the same for every board size, built once ([`Fsm::get`]) and shared.
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

/// The result of [`Fsm::step`] when the move completes a forbidden string (the largest 16-bit
/// number: states are stored in 16 bits).
pub(crate) const PRUNE: u32 = u16::MAX as u32;

/// Longest forbidden string [`Fsm::get`] recognises. Longer strings prune more but take longer to
/// find: with 12, IDA* generates 5 - 10% fewer nodes on Korf's 100 than with 10; 14 saves 1 - 6%
/// more for an automaton seven times larger (figures in `docs/performance.md`).
///
/// Enumerating them on every start would cost a one-position solve more than its search, so the
/// strings for `L = 12` are generated once into `prune/forbidden.rs` (checked in, like
/// rust-analyzer's generated sources); the test `forbidden_table_is_current` regenerates them and
/// fails, rewriting the file, if they ever differ. Building the automaton from them takes about a
/// millisecond.
pub(crate) const MAX_LEN: usize = 12;

/// A deterministic automaton over the four directions that rejects (with [`PRUNE`]) every move
/// completing a forbidden string.
#[derive(Debug)]
pub(crate) struct Fsm {
    /// `next[state][d]`: the state after move `d`, or [`PRUNE`]. In 16 bits, 78 KB for the
    /// 9 732 states of `L = 12` instead of 156 KB, which stay in the cache better beside the
    /// pattern databases' reads.
    next: Vec<[u16; 4]>,
    /// Number of minimal forbidden strings the machine recognises.
    forbidden: usize,
    /// Time to enumerate the strings and build the automaton.
    build_time: Duration,
}

impl Fsm {
    /// The state before any move.
    pub(crate) const START: u32 = 0;

    /// The shared machine for strings of up to [`MAX_LEN`] moves (the generated
    /// [`forbidden::FORBIDDEN`]), built on first use.
    pub(crate) fn get() -> &'static Fsm {
        static FSM: OnceLock<Fsm> = OnceLock::new();
        FSM.get_or_init(|| {
            let t0 = Instant::now();
            let patterns: Vec<Moves> =
                forbidden::FORBIDDEN.iter().map(|&packed| Moves::unpack(packed)).collect();
            debug_assert!(patterns.iter().all(|m| usize::from(m.len) <= MAX_LEN));
            let next = narrow(aho_corasick(&patterns));
            Fsm { next, forbidden: patterns.len(), build_time: t0.elapsed() }
        })
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
        u32::from(self.next[state as usize][d & 3])
    }

    /// The states after each move from `state` ([`PRUNE`] for a forbidden move).
    #[inline(always)]
    pub(crate) fn row(&self, state: u32) -> [u32; 4] {
        self.next[state as usize].map(u32::from)
    }

    /// Number of states.
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn states(&self) -> usize {
        self.next.len()
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

    /// Enumerates the minimal forbidden strings of up to `max_len` (at most 15) moves and builds
    /// their automaton.
    #[cfg(test)]
    pub(crate) fn build(max_len: usize, fit: Fit) -> Fsm {
        assert!(max_len <= 15, "strings are packed two bits a move into a u32");
        let t0 = Instant::now();
        let patterns = forbidden_strings(max_len, fit);
        let next = narrow(aho_corasick(&patterns));
        Fsm { next, forbidden: patterns.len(), build_time: t0.elapsed() }
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
    /// The packed form of `forbidden.rs`: the moves in bits `0..28`, the length in `28..32`.
    pub(crate) const fn unpack(packed: u32) -> Moves {
        Moves { code: packed & 0x0fff_ffff, len: (packed >> 28) as u8 }
    }

    /// The inverse of [`Moves::unpack`] (strings of at most 14 moves).
    #[cfg(test)]
    pub(crate) fn pack(self) -> u32 {
        u32::from(self.len) << 28 | self.code
    }

    pub(crate) fn dir(self, i: usize) -> usize {
        (self.code >> (2 * (self.len as usize - 1 - i))) as usize & 3
    }
}

/// The rows of [`aho_corasick`] in 16 bits: its entries are states, all below [`PRUNE`]
/// (`MAX_LEN` gives 9 732, the tests' machines fewer), or [`PRUNE`] itself.
fn narrow(next: Vec<[u32; 4]>) -> Vec<[u16; 4]> {
    assert!(next.len() < PRUNE as usize, "too many states for 16 bits");
    next.iter().map(|r| r.map(|x| x as u16)).collect()
}

/// The Aho–Corasick automaton of `patterns` as a complete transition table, with the pattern
/// ends replaced by [`PRUNE`] and state 0 the start.
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
        .map(|&s| goto[s].map(|t| if end[t as usize] { PRUNE } else { number[t as usize] }))
        .collect()
}

mod forbidden;
#[cfg(test)]
mod generate;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use generate::{Fit, forbidden_strings};
