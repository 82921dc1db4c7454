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
//! [`LONG_LEN`] moves to pay (with 18 instead of 12, a third fewer expansions on the 5x5's
//! longest instances of Korf's ten shortest, a sixth to a fifth on the others): 3.8 million
//! states in 32-bit rows (61 MB), far too many for the cache, so the search prefetches each
//! child's row when it prefetches the child's table entries ([`Fsm::prefetch`]), and the rows
//! live in memory advised for 2 MiB pages. It is not minimised (at 16 moves that took 0.5 - 1 s
//! and made the machine a fifth smaller but no faster), and it is built straight from the
//! checked-in trie, whose nodes breadth first are its states (0.15 - 0.5 s on first use, more
//! than a short search takes: IDA* takes it only after its first 131,072 nodes, building it
//! on a thread of its own meanwhile, [`Fsm::for_search`], and the anytime search builds both
//! machines beside its beams, [`Fsm::warm_up`]; a search with a deadline waits for a build no
//! later than the deadline, [`Fsm::for_search_by`]). [`Fsm::for_cells`] picks by board alone.
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

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::huge_pages::HugeBytes;
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
pub(crate) const LONG_LEN: usize = 18;

/// Longest forbidden string generated and checked in.
///
/// Enumerating the strings on every start would cost a one-position solve far more than its
/// search (about 9 minutes and 8 GB for 18 on 2 cores), so they are generated once into
/// `prune/forbidden.trie` (checked in, like rust-analyzer's generated sources, in the form of
/// [`trie`]: 1,086,925 strings in 2.4 MB). A test checks the strings of up to 14 moves against
/// the enumeration (a few seconds); with `FIFTEEN_SLOW_TESTS=1` it checks them all, and
/// rewrites the file, failing, if they ever differ. Each machine takes the strings up to its
/// length from the same list (a string is forbidden or not whatever the longest length
/// enumerated). `shared_machine_sizes` prints the machines' build times.
pub(crate) const MAX_LEN: usize = 18;

/// The checked-in strings, [`trie::encode`]d.
static FORBIDDEN: &[u8] = include_bytes!("prune/forbidden.trie");

/// Boards with at least this many cells use [`Fsm::long`].
const LONG_FROM_CELLS: usize = 25;

/// Nodes an IDA* search on a large board generates before its iterations take the long machine
/// ([`Fsm::for_search`]): a few hundredths of a second. An iteration on the 5x5 generates
/// several times the nodes of all those before it, so the switch must come early for the long
/// machine to serve the iterations that count (at 2^20 nodes, #40 and #44 of Korf's 5x5
/// instances generated 8 - 15% more nodes).
const LONG_AFTER: u64 = 1 << 17;

/// The shared machines ([`Fsm::get`], [`Fsm::long`]).
static SHORT: OnceLock<Fsm> = OnceLock::new();
static LONG: OnceLock<Fsm> = OnceLock::new();

/// Whether a thread was started to build the short (index 0) and the long (1) machine
/// ([`Fsm::warm_up`]).
static STARTED: [AtomicBool; 2] = [AtomicBool::new(false), AtomicBool::new(false)];

/// The shared long machine's cell (`long`), or the short one's.
fn shared(long: bool) -> &'static OnceLock<Fsm> {
    if long { &LONG } else { &SHORT }
}

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
        SHORT.get_or_init(|| Fsm::from_table(SHORT_LEN, true))
    }

    /// The shared machine for strings of up to [`LONG_LEN`] moves, built on first use.
    pub(crate) fn long() -> &'static Fsm {
        LONG.get_or_init(|| Fsm::from_table(LONG_LEN, false))
    }

    /// The shared machine for a board of `cells` cells.
    pub(crate) fn for_cells(cells: usize) -> &'static Fsm {
        if cells >= LONG_FROM_CELLS { Fsm::long() } else { Fsm::get() }
    }

    /// The machine for an IDA* iteration on a board of `cells` cells that starts after the
    /// search has generated `generated` nodes: [`Fsm::for_cells`]'s, except that a search on a
    /// large board takes the short machine until it has generated [`LONG_AFTER`] nodes (and
    /// starts building the long one on a thread of its own a little before). Building the long
    /// machine takes longer than a short search (0.15 - 0.2 s, most of an easy 5x5 solve's
    /// time) and it pays only on long ones. The choice depends only on the count, never on
    /// whether the long machine happens to be built already, so a search generates the same
    /// nodes and finds the same answer in a batch as alone, on any thread count.
    pub(crate) fn for_search(cells: usize, generated: u64) -> &'static Fsm {
        if cells < LONG_FROM_CELLS {
            return Fsm::get();
        }
        if generated >= LONG_AFTER {
            return Fsm::long();
        }
        if generated >= LONG_AFTER / 32 {
            Fsm::warm_up(cells);
        }
        Fsm::get()
    }

    /// [`Fsm::for_search`], waiting for the machine's build (started on a thread of its own) no
    /// later than `deadline`: `None` if the deadline passes first, so that a search with a time
    /// limit is not held past it by a build it cannot cut short (the short machine takes about
    /// 20 ms, the long one 0.15 - 0.5 s). Without a deadline, or when no thread can be started,
    /// the search builds the machine itself, as [`Fsm::for_search`] does.
    pub(crate) fn for_search_by(
        cells: usize,
        generated: u64,
        deadline: Option<Instant>,
    ) -> Option<&'static Fsm> {
        if let Some(deadline) = deadline {
            let long = cells >= LONG_FROM_CELLS && generated >= LONG_AFTER;
            if shared(long).get().is_none() {
                Fsm::warm_up(cells);
                while shared(long).get().is_none()
                    && STARTED[usize::from(long)].load(Ordering::Relaxed)
                {
                    if Instant::now() >= deadline {
                        return None;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        }
        Some(Fsm::for_search(cells, generated))
    }

    /// Starts building the machines a search on a board of `cells` cells may use, on a thread
    /// of their own, for a search that will need them later: the short machine, then on boards
    /// of [`LONG_FROM_CELLS`] cells and more the long one. Nothing for a machine built or being
    /// built already; if no thread can be started, the search builds what it needs when it
    /// needs it.
    pub(crate) fn warm_up(cells: usize) {
        // At most one build per machine: a search asks at every iteration until it is built.
        let wanted: &[bool] = if cells >= LONG_FROM_CELLS { &[false, true] } else { &[false] };
        let todo: Vec<bool> = wanted
            .iter()
            .copied()
            .filter(|&long| {
                shared(long).get().is_none()
                    && !STARTED[usize::from(long)].swap(true, Ordering::Relaxed)
            })
            .collect();
        if todo.is_empty() {
            return;
        }
        let build = todo.clone();
        let started = std::thread::Builder::new().spawn(move || {
            for long in build {
                let _built = if long { Fsm::long() } else { Fsm::get() };
            }
        });
        if started.is_err() {
            // The search builds them when it needs them; a later call may try again.
            for long in todo {
                STARTED[usize::from(long)].store(false, Ordering::Relaxed);
            }
        }
    }

    /// The machine of the checked-in strings of up to `max_len` moves, [`minimise`]d or not.
    fn from_table(max_len: usize, minimised: bool) -> Fsm {
        let t0 = Instant::now();
        let (next, forbidden) = if max_len >= MAX_LEN {
            aho_corasick(FORBIDDEN)
        } else {
            aho_corasick(&trie::encode(&trie::decode(FORBIDDEN, max_len)))
        };
        let rows = Rows::new(if minimised { minimise(next) } else { next });
        Fsm { rows, forbidden, build_time: t0.elapsed() }
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
            Rows::Wide(rows) => rows.row(state),
        }
    }

    /// Starts loading the row of `state` if the rows are too many to stay in the cache (the
    /// long machine's); a hint, so any state will do.
    #[inline(always)]
    pub(crate) fn prefetch(&self, state: u32) {
        if let Rows::Wide(rows) = &self.rows {
            crate::pdb::prefetch_address(rows.bytes().as_ptr().addr() + 16 * state as usize);
        }
    }

    /// Number of states.
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn states(&self) -> usize {
        match &self.rows {
            Rows::Narrow(rows) => rows.len(),
            // Less the unreachable row numbered PRUNE.
            Rows::Wide(rows) => rows.bytes().len() / 16 - 1,
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
        let rows = Rows::new(minimise(aho_corasick(&trie::encode(&patterns)).0));
        Fsm { rows, forbidden: patterns.len(), build_time: t0.elapsed() }
    }
}

/// A string of moves: the first move in the highest bits, so for one length numeric order is
/// direction order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Moves {
    pub(crate) code: u64,
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
    Wide(WideRows),
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
        let (below, above) = next.split_at(PRUNE as usize);
        let rows = below.iter().chain([&[END; 4]]).chain(above).map(|r| r.map(renumber));
        Rows::Wide(WideRows::new(rows, next.len() + 1))
    }
}

/// A large machine's rows, 16 bytes each, in memory advised for 2 MiB pages where the system
/// has them (`huge_pages`): the search reads one row per node at random, and with 4 KiB pages
/// most of those reads would also miss the TLB.
#[derive(Debug)]
struct WideRows(HugeBytes);

impl WideRows {
    /// The `count` rows of `rows`.
    fn new(rows: impl Iterator<Item = [u32; 4]>, count: usize) -> WideRows {
        let mut out = HugeBytes::zeroed(count * 16);
        for (chunk, row) in out.bytes_mut().chunks_exact_mut(16).zip(rows) {
            for (b, x) in chunk.chunks_exact_mut(4).zip(row) {
                b.copy_from_slice(&x.to_ne_bytes());
            }
        }
        WideRows(out)
    }

    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self.0.bytes()
    }

    /// Row `state` ([`PRUNE`] everywhere for a state out of range, which the machine never
    /// gives).
    #[inline(always)]
    fn row(&self, state: u32) -> [u32; 4] {
        let at = 16 * state as usize;
        match self.bytes().get(at..at + 16) {
            Some(b) => {
                let word = |i: usize| {
                    u32::from_ne_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
                };
                [word(0), word(1), word(2), word(3)]
            }
            None => [PRUNE; 4],
        }
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

/// The Aho–Corasick automaton of the strings in `trie` ([`trie`]'s form) as a complete
/// transition table, with the string ends replaced by [`END`] and state 0 the start; and the
/// number of strings. The trie's nodes breadth first are the goto function's states breadth
/// first, so node `i` is the `i`-th nibble and the strings need not be decoded and inserted
/// one by one (for the long machine's million strings, about a third of a second saved on
/// every start).
fn aho_corasick(trie: &[u8]) -> (Vec<[u32; 4]>, usize) {
    const NO: u32 = u32::MAX;
    let nibble = |i: usize| trie.get(i / 2).map_or(0, |b| (b >> (4 * (i % 2))) & 15);
    // A node a nibble.
    let nodes = 2 * trie.len();
    let mut goto: Vec<[u32; 4]> = Vec::with_capacity(nodes);
    goto.push([NO; 4]);
    let mut end = Vec::with_capacity(nodes);
    end.push(false);
    let mut i = 0;
    while i < goto.len() {
        let mask = nibble(i);
        // A leaf ends a string (a childless root: there are none).
        end[i] = mask == 0 && i > 0;
        for d in 0..4 {
            if mask >> d & 1 == 1 {
                goto[i][d] = goto.len() as u32;
                goto.push([NO; 4]);
                end.push(false);
            }
        }
        i += 1;
    }
    let forbidden = end.iter().filter(|&&e| e).count();
    // Failure links, then missing edges follow them, in breadth-first order (a state's failure
    // is shallower, so its row is complete already).
    let mut fail = vec![0u32; goto.len()];
    for s in 0..goto.len() {
        let via_fail = if s == 0 { [0; 4] } else { goto[fail[s] as usize] };
        let mut row = goto[s];
        for (slot, via) in row.iter_mut().zip(via_fail) {
            if *slot == NO {
                *slot = via;
            } else {
                let t = *slot as usize;
                fail[t] = via;
                end[t] |= end[via as usize];
            }
        }
        goto[s] = row;
    }
    drop(fail);
    // Number the states that are not string ends, in breadth-first order (the start first).
    let mut number = vec![NO; goto.len()];
    for (kept, (n, _)) in number.iter_mut().zip(&end).filter(|(_, e)| !**e).enumerate() {
        *n = kept as u32;
    }
    let rows = goto
        .iter()
        .zip(&end)
        .filter(|(_, e)| !**e)
        .map(|(row, _)| row.map(|t| if end[t as usize] { END } else { number[t as usize] }))
        .collect();
    (rows, forbidden)
}

#[cfg(test)]
mod generate;
#[cfg(test)]
mod tests;
mod trie;

#[cfg(test)]
pub(crate) use generate::{Fit, forbidden_strings};
