//! IDA* (Korf 1985): depth-first iterations with a rising f-bound. Memory is the path only; the
//! board lives in one array that moves mutate and undo, so a node costs a table read, a swap
//! and a heuristic update.
//!
//! Two refinements for heuristics that read large tables ([`Heuristic::LAZY`]):
//! - table reads are software-pipelined one level ahead. When a node's children have been read
//!   and sorted, the children of *every* child within the bound are stepped and their entries
//!   prefetched, all before the search descends into the first child, so
//!   the reads of all siblings' children overlap and each child finds its own children stepped
//!   and (mostly) loaded. Nodes are counted when their parent is expanded, not when they are
//!   stepped, so the order of the search and the node counts are those of the plain
//!   depth-first search. The first child still waits for reads prefetched just before;
//!   interleaving several searches per thread (*lanes*, `lanes.rs`) gives those reads the other
//!   lanes' expansions to arrive.
//! - bidirectional pathmax (BPMX, Felner et al. 2005): a child's estimate minus one bounds the
//!   parent's, and the parent's minus one bounds every child's. The database heuristic is
//!   admissible but not consistent (entries are minima over blank positions), so this prunes.
//!   Children are then searched cheapest first, which finds the answer sooner in the last
//!   iteration.
//!
//! Which child is cheaper, or within the bound, depends on table values the branch predictor
//! cannot guess, so the loops over children do not branch on them: the children within the
//! bound are a prefix of the sorted order and are counted, not tested; the reads of all the
//! children of a node are one loop over a mask of their stale slots (16 bits per child) before
//! any estimate; and the sort is a network of compare-exchanges. A child whose estimate needs
//! more reads than its parent started (a catalogue whose leading partition does not prune it)
//! starts them, and waits on them only after every sibling has started its own
//! ([`Heuristic::resolve_begin`], [`Heuristic::resolve_rest`]).
//!
//! **Duplicate paths.** Each node carries the state of a finite-state machine over the moves
//! from the root ([`Fsm`], Taylor & Korf 1993): a move that completes a string with a no longer,
//! no less legal twin (an undo, or for example twice round a 2x2 square) is not generated. This
//! replaces the no-undo rule and keeps a shortest path to every position, so answers stay optimal.
//!
//! **Subtree order.** On boards of [`ORDERED_MIN_CELLS`] cells and more, where one iteration
//! takes seconds to hours, every iteration is split into about [`ORDERED_SUBTREES`] subtrees
//! (whatever the thread count, one thread too), and each subtree's *reach*, the least estimate
//! of a node it expanded, is kept. The next iteration searches its subtrees in the order of
//! the reach of the subtree of the last iteration that they extend or lie on (nearest the goal
//! first; ties in depth-first order). An iteration's answer is in a subtree that came near the
//! goal in the iteration before, so the last iteration, most of the search's nodes, finds it
//! sooner. Only the last iteration changes: the others search every subtree anyway. A subtree
//! that took more than 1/[`SPLIT_SHARE`] of the last iteration's expansions is split into its
//! children's subtrees (`split_large`), so that no thread is left alone on a large one at an
//! iteration's end, and the thread holding the answer keeps the others busy for less time.
//!
//! **Parallel search.** Each iteration first walks the tree (in the same depth-first order) down
//! to a depth where there are enough subtrees for the threads, then threads take subtrees in
//! order. The answer is the first solution in the subtrees' order: a thread that finds one in
//! subtree `i` records it, subtrees after `i` are abandoned, subtrees before `i` finish. That is
//! the solution a single thread finds, so the moves are the same for every thread count (with
//! ordered subtrees too: their split does not depend on it, and a reach is a subtree's whole
//! search). With [`Limits::lanes`] above one, each thread interleaves that many subtrees (one
//! thread too: the iteration is split for it alone); the moves stay the same, and the last
//! iteration may generate a few more nodes.
//!
//! What these choices were worth, and what was tried and not kept: `docs/performance.md`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use super::{CHECK_EVERY, LimitKind, Limits, Problem, SearchError, Solution, Stats};
use crate::board::MAX_CELLS;
use crate::heuristic::Heuristic;
use crate::moves::{Dir, Fsm, MoveTable, NONE, PRUNE};

/// Solves `problem` optimally (if `heuristic` is admissible) with IDA*, on `limits.threads`
/// threads.
///
/// ```
/// use fifteen_core::{Board, Limits, Manhattan, Problem, Size, ida};
/// let goal = Board::blank_last(Size::S3X3);
/// let start = Board::parse("1 0 2 4 6 3 7 5 8", None).unwrap();
/// let h = Manhattan::new(&goal);
/// let sol = ida(&Problem::new(start, goal).unwrap(), &h, &Limits::default()).unwrap();
/// assert_eq!(sol.len(), 5);
/// ```
pub fn ida<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
) -> Result<Solution, SearchError> {
    ida_with(problem, heuristic, limits, None, 0)
}

/// [`ida`] whose first iteration's bound is at least `from`, which the caller has proven no
/// solution is shorter than (a search stopped in an iteration of bound `from` resumes there:
/// every shorter path was searched). The answer is still optimal.
pub(crate) fn ida_from<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
    from: u32,
) -> Result<Solution, SearchError> {
    ida_with(problem, heuristic, limits, None, from)
}

/// Builds what IDA* on boards of `size` shares between searches, its duplicate-path machines (up
/// to half a second on boards of 25 cells and more), so that a search started later does not
/// spend its own time limit on it. A search builds them itself when they are missing.
pub fn prepare_ida(size: crate::Size) {
    // Large boards start on the short machine too (`Fsm::for_search`).
    Fsm::get();
    Fsm::for_cells(size.cells());
}

/// [`ida`] with the move strings that `fsm` accepts ([`Fsm::no_undo`] only forbids undos; `None`
/// prunes duplicate paths with [`Fsm::for_search`]'s machine, which may change between
/// iterations), its first bound at least `from`.
pub(crate) fn ida_with<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
    fsm: Option<&Fsm>,
    from: u32,
) -> Result<Solution, SearchError> {
    let t0 = Instant::now();
    let start = problem.start();
    let size = start.size();
    if heuristic.size() != size {
        return Err(SearchError::NotApplicable(format!(
            "the heuristic is for {} but the board is {size}",
            heuristic.size()
        )));
    }
    let n = size.cells();
    let mut cells = [0u8; MAX_CELLS];
    cells[..n].copy_from_slice(start.cells());
    let mut goal = [0u8; MAX_CELLS];
    goal[..n].copy_from_slice(problem.goal().cells());
    let mut root = heuristic.init(start.cells());
    let initial_h = heuristic.resolve(&mut root);
    let table = MoveTable::new(size);
    let threads = limits.threads.max(1);
    let root = Node {
        cells,
        blank: start.blank() as u8,
        g: 0,
        h: initial_h,
        fsm: Fsm::START,
        state: root,
        moves: Vec::new(),
    };
    // The machine of an iteration that starts after `generated` nodes (set per iteration).
    // `None` when the deadline passed while the long machine was being built.
    let machine = |generated: u64| match fsm {
        Some(fsm) => Some(fsm),
        None => Fsm::for_search_by(n, generated, limits.deadline),
    };
    let mut stats = Stats { generated: 1, ..Stats::default() };
    let mut bound = initial_h.max(from);
    let Some(first) = machine(stats.generated) else {
        stats.elapsed = t0.elapsed();
        return Err(SearchError::LimitReached { kind: LimitKind::Time, lower_bound: bound, stats });
    };
    let mut shared = Shared {
        h: heuristic,
        table: &table,
        fsm: first,
        limits,
        goal,
        n,
        generated: AtomicU64::new(1),
    };
    // Each subtree's moves and reach in the last iteration, when subtrees are ordered.
    let mut reach: Option<Vec<(Vec<Dir>, u32)>> = (n >= ORDERED_MIN_CELLS).then(Vec::new);
    let mut sizes: Vec<u64> = Vec::new();
    loop {
        let Some(fsm) = machine(stats.generated) else {
            stats.elapsed = t0.elapsed();
            let kind = LimitKind::Time;
            return Err(SearchError::LimitReached { kind, lower_bound: bound, stats });
        };
        stats.thresholds.push(bound);
        shared.fsm = fsm;
        if let Some(p) = &limits.progress {
            p.iteration(bound, shared.generated.load(Ordering::Relaxed));
        }
        let outcome = iteration(&shared, &root, bound, threads, reach.as_deref(), &sizes);
        if let Some(r) = &mut reach {
            *r = outcome.reach;
            sizes = outcome.sizes;
        }
        stats.expanded += outcome.expanded;
        stats.lookups += outcome.lookups;
        stats.generated = shared.generated.load(Ordering::Relaxed);
        if let Some(moves) = outcome.found {
            stats.elapsed = t0.elapsed();
            let (_, tiles) = super::replay(start, &moves)
                .ok_or_else(|| SearchError::NotApplicable("internal error: bad path".into()))?;
            return Ok(Solution {
                moves,
                tiles,
                optimal: heuristic.admissible(),
                initial_h,
                stats,
            });
        }
        if let Some(kind) = outcome.stop {
            stats.elapsed = t0.elapsed();
            return Err(SearchError::LimitReached { kind, lower_bound: bound, stats });
        }
        if outcome.next_bound == u32::MAX {
            return Err(SearchError::NotApplicable("the search space was exhausted".into()));
        }
        bound = outcome.next_bound;
    }
}

/// Subtrees per thread that a parallel iteration aims for, so that uneven subtrees even out.
const SUBTREES_PER_THREAD: usize = 64;

/// Boards of this many cells and more: IDA* splits each iteration into subtrees, on one thread
/// too, and searches them in the order of how near the goal each came in the iteration before
/// (see the module docs of `search/ida.rs`). Its answers are the same for any thread and lane
/// count, but not those of [`ida_lanes`](crate::ida_lanes), which interleaves whole positions
/// depth-first: the CLI's batch solves such boards one at a time instead.
pub const ORDERED_MIN_CELLS: usize = 25;

/// The subtrees an ordered iteration aims for, whatever the thread count (measured best of
/// 256, 1,024 and 4,096 on the 5x5: `docs/performance.md`).
const ORDERED_SUBTREES: usize = 1024;

/// What every thread of a search reads.
pub(super) struct Shared<'a, H: Heuristic> {
    h: &'a H,
    table: &'a MoveTable,
    /// Which move strings to search (duplicate-path pruning).
    fsm: &'a Fsm,
    pub(super) limits: &'a Limits,
    pub(super) goal: [u8; MAX_CELLS],
    n: usize,
    /// Nodes generated by all threads (published every [`CHECK_EVERY`] nodes).
    pub(super) generated: AtomicU64,
}

/// A node of the search tree: the root, or the root of one subtree of a parallel iteration.
#[derive(Clone)]
pub(super) struct Node<S> {
    pub(super) cells: [u8; MAX_CELLS],
    pub(super) blank: u8,
    pub(super) g: u32,
    pub(super) h: u32,
    /// The automaton's state after the moves from the root.
    pub(super) fsm: u32,
    pub(super) state: S,
    /// Moves from the search's root.
    pub(super) moves: Vec<Dir>,
}

/// What one iteration found.
#[derive(Default)]
pub(super) struct Outcome {
    pub(super) found: Option<Vec<Dir>>,
    pub(super) stop: Option<LimitKind>,
    pub(super) next_bound: u32,
    pub(super) expanded: u64,
    /// Table reads (see [`Stats::lookups`]).
    pub(super) lookups: u64,
    /// A split iteration's subtrees: each one's moves from the root and its reach (the least
    /// estimate of a node it expanded; `u32::MAX` if it was not searched to the end).
    pub(super) reach: Vec<(Vec<Dir>, u32)>,
    /// Each of those subtrees' expansions (0 if it was not searched to the end).
    pub(super) sizes: Vec<u64>,
}

/// An iteration split over threads: its subtrees in search order, the next one to take, the
/// earliest with a solution, the solutions found, and each subtree's reach.
pub(super) struct Split<S> {
    pub(super) frontier: Vec<Node<S>>,
    pub(super) next: AtomicUsize,
    pub(super) best: AtomicUsize,
    pub(super) results: Mutex<Vec<(usize, Vec<Dir>)>>,
    /// The least estimate of a node each subtree expanded, set when its search ends.
    pub(super) reach: Vec<AtomicU32>,
    /// The expansions of each subtree, set when its search ends.
    pub(super) sizes: Vec<AtomicU64>,
}

/// One iteration with f-bound `bound`; with `last` (the last iteration's subtrees and their
/// reach), split into ordered subtrees even on one thread.
fn iteration<H: Heuristic>(
    shared: &Shared<'_, H>,
    root: &Node<H::State>,
    bound: u32,
    threads: usize,
    last: Option<&[(Vec<Dir>, u32)]>,
    last_sizes: &[u64],
) -> Outcome {
    let lanes = if H::LAZY { shared.limits.lanes } else { 1 };
    if threads == 1 && lanes <= 1 && last.is_none() {
        let mut w = Worker::new(shared, root, bound, None);
        let flow = w.dfs(root.blank as usize, &root.state, root.h, root.g, root.fsm);
        w.publish();
        return Outcome {
            found: (flow == Flow::Found).then(|| std::mem::take(&mut w.path)),
            stop: w.stop,
            next_bound: w.next_bound,
            expanded: w.expanded,
            lookups: w.lookups,
            reach: Vec::new(),
            sizes: Vec::new(),
        };
    }
    // Split: collect subtree roots in depth-first order, deepening until there are enough.
    let mut frontier = vec![root.clone()];
    let mut depth = 0;
    let target = if last.is_some() { ORDERED_SUBTREES } else { SUBTREES_PER_THREAD * threads };
    let mut splitter = Worker::new(shared, root, bound, None);
    while frontier.len() < target && depth < 12 && splitter.stop.is_none() {
        let mut deeper = Vec::new();
        for node in &frontier {
            splitter.children_of(node, &mut deeper);
        }
        if deeper.is_empty() {
            break;
        }
        frontier = deeper;
        depth += 1;
    }
    if let (Some(last), None) = (last, splitter.stop) {
        split_large(&mut splitter, &mut frontier, last, last_sizes);
    }
    splitter.publish();
    let (expanded, lookups, next_bound) =
        (splitter.expanded, splitter.lookups, splitter.next_bound);
    if let Some(kind) = splitter.stop {
        // A limit (or Ctrl-C) while splitting: the frontier is not whole, so the iteration
        // ends here.
        return Outcome { stop: Some(kind), next_bound, expanded, lookups, ..Outcome::default() };
    }
    if let Some(last) = last {
        order_subtrees(&mut frontier, last);
    }
    let split = Split {
        next: AtomicUsize::new(0),
        best: AtomicUsize::new(usize::MAX),
        results: Mutex::new(Vec::new()),
        reach: frontier.iter().map(|_| AtomicU32::new(u32::MAX)).collect(),
        sizes: frontier.iter().map(|_| AtomicU64::new(0)).collect(),
        frontier,
    };
    let totals = Mutex::new(Outcome { next_bound, expanded, lookups, ..Outcome::default() });
    let work = || {
        let local = if lanes > 1 {
            super::lanes::subtrees(shared, &split, bound, lanes)
        } else {
            subtrees(shared, &split, bound)
        };
        if let Ok(mut t) = totals.lock() {
            t.expanded += local.expanded;
            t.lookups += local.lookups;
            t.next_bound = t.next_bound.min(local.next_bound);
            t.stop = t.stop.or(local.stop);
        }
    };
    std::thread::scope(|scope| {
        // The calling thread is one of the `threads`. A thread the system refuses to start
        // (memory or thread limits) leaves its share to the others, since every thread takes
        // subtrees from the same counter: the answer is the same, only later.
        for _ in 1..threads {
            let _ = std::thread::Builder::new().spawn_scoped(scope, work);
        }
        work();
    });
    let mut out = totals.into_inner().unwrap_or_default();
    out.reach = (split.frontier.iter().zip(&split.reach))
        .map(|(node, r)| (node.moves.clone(), r.load(Ordering::Relaxed)))
        .collect();
    out.sizes = split.sizes.iter().map(|x| x.load(Ordering::Relaxed)).collect();
    let found = split.results.into_inner().unwrap_or_default().into_iter().min_by_key(|(i, _)| *i);
    if let Some((_, path)) = found {
        out.found = Some(path);
        out.stop = None;
    }
    out
}

/// A subtree larger than this share of the last iteration (by its expansions then) is split
/// into its children's subtrees: the threads then end an iteration more evenly, and the one
/// holding the answer keeps the other busy for less time.
const SPLIT_SHARE: u64 = 256;

/// Replaces each node of `frontier` whose subtree took more than 1 / [`SPLIT_SHARE`] of the
/// last iteration's expansions (`last` and `sizes`: its subtrees' moves and expansions) by its
/// children, in the order a depth-first search takes them, up to three levels deeper. A node
/// that the last split reached deeper than it sums its descendants' sizes; one deeper than the
/// last split's shares its ancestor's size with its frontier siblings under that ancestor. The
/// sizes are the same for any thread count, and so is the split: a subtree's first answer is
/// its children's first, so the answer is too.
fn split_large<H: Heuristic>(
    splitter: &mut Worker<'_, '_, H>,
    frontier: &mut Vec<Node<H::State>>,
    last: &[(Vec<Dir>, u32)],
    sizes: &[u64],
) {
    let total: u64 = sizes.iter().sum();
    if sizes.len() != last.len() || total == 0 {
        return;
    }
    let most = total / SPLIT_SHARE;
    // The last subtrees by their moves, and the summed sizes of those below each proper prefix
    // of their moves: a node's lookups then cost its depth, not the last split's length.
    let at: HashMap<&[Dir], usize> =
        last.iter().enumerate().map(|(i, (m, _))| (m.as_slice(), i)).collect();
    let mut below: HashMap<&[Dir], u64> = HashMap::new();
    for ((m, _), &size) in last.iter().zip(sizes) {
        for k in 0..m.len() {
            *below.entry(&m[..k]).or_insert(0) += size;
        }
    }
    for _ in 0..3 {
        // Frontier nodes under each last subtree that is an ancestor of theirs (or is them).
        let mut under = vec![0u64; last.len()];
        let matched: Vec<Option<usize>> = frontier
            .iter()
            .map(|node| {
                let i = (0..=node.moves.len()).find_map(|k| at.get(&node.moves[..k]).copied());
                if let Some(i) = i {
                    under[i] += 1;
                }
                i
            })
            .collect();
        let size_of = |k: usize, node: &Node<H::State>| match matched[k] {
            Some(i) => sizes[i] / under[i].max(1),
            None => below.get(node.moves.as_slice()).copied().unwrap_or(0),
        };
        if !(0..frontier.len()).any(|k| size_of(k, &frontier[k]) > most) {
            return;
        }
        let mut out = Vec::with_capacity(frontier.len() + 16);
        for (k, node) in frontier.iter().enumerate() {
            if size_of(k, node) > most {
                splitter.children_of(node, &mut out);
            } else {
                out.push(node.clone());
            }
        }
        *frontier = out;
    }
}

/// Sorts `frontier` (in depth-first order) by the reach of the last iteration's subtree that
/// each node's subtree extends or lies on (the least, when it holds several), stably; a node
/// that none matches goes last.
pub(super) fn order_subtrees<S>(frontier: &mut Vec<Node<S>>, last: &[(Vec<Dir>, u32)]) {
    // The least reach of the last subtrees at or below each prefix of their moves, so that a
    // node's lookups cost its depth (the split frontiers hold thousands of nodes).
    let mut least: HashMap<&[Dir], u32> = HashMap::new();
    for (m, r) in last {
        for k in 0..=m.len() {
            let e = least.entry(&m[..k]).or_insert(u32::MAX);
            *e = (*e).min(*r);
        }
    }
    let exact: HashMap<&[Dir], u32> = last.iter().map(|(m, r)| (m.as_slice(), *r)).collect();
    let reach_of = |node: &Node<S>| {
        // A last subtree the node lies on (the moves of one are a prefix of the node's), or
        // those it holds.
        let above = (0..node.moves.len()).find_map(|k| exact.get(&node.moves[..k]).copied());
        let here = least.get(node.moves.as_slice()).copied();
        above.into_iter().chain(here).min().unwrap_or(u32::MAX)
    };
    let mut keyed: Vec<(u32, Node<S>)> =
        std::mem::take(frontier).into_iter().map(|node| (reach_of(&node), node)).collect();
    keyed.sort_by_key(|(r, _)| *r);
    *frontier = keyed.into_iter().map(|(_, node)| node).collect();
}

/// One thread's part of a split iteration: takes its subtrees in order and searches each,
/// until none is left or an earlier subtree has the answer.
fn subtrees<H: Heuristic>(shared: &Shared<'_, H>, split: &Split<H::State>, bound: u32) -> Outcome {
    let mut local = Outcome { next_bound: u32::MAX, ..Outcome::default() };
    loop {
        let i = split.next.fetch_add(1, Ordering::Relaxed);
        if i >= split.frontier.len() || i > split.best.load(Ordering::Relaxed) {
            break;
        }
        let node = &split.frontier[i];
        let mut w = Worker::new(shared, node, bound, Some((&split.best, i)));
        let flow = w.dfs(node.blank as usize, &node.state, node.h, node.g, node.fsm);
        w.publish();
        if flow == Flow::Done {
            split.reach[i].store(w.reach, Ordering::Relaxed);
            split.sizes[i].store(w.expanded, Ordering::Relaxed);
        }
        local.expanded += w.expanded;
        local.lookups += w.lookups;
        local.next_bound = local.next_bound.min(w.next_bound);
        match flow {
            Flow::Found => {
                split.best.fetch_min(i, Ordering::Relaxed);
                if let Ok(mut r) = split.results.lock() {
                    r.push((i, std::mem::take(&mut w.path)));
                }
            }
            Flow::Stop if w.stop.is_some() => {
                local.stop = w.stop;
                // A limit ends every thread: make the others stop at their next check.
                split.best.fetch_min(0, Ordering::Relaxed);
                break;
            }
            _ => {}
        }
    }
    local
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Flow {
    /// No solution below within the bound.
    Done,
    /// The goal was found; the path is in the worker.
    Found,
    /// A limit, or an earlier subtree's solution, ended the search.
    Stop,
}

/// One thread's depth-first search below one node.
struct Worker<'a, 's, H: Heuristic> {
    shared: &'s Shared<'a, H>,
    cells: [u8; MAX_CELLS],
    path: Vec<Dir>,
    bound: u32,
    next_bound: u32,
    expanded: u64,
    /// Table reads (see [`Stats::lookups`]).
    lookups: u64,
    /// Nodes generated since the last publication to `shared.generated`.
    pending: u64,
    /// When `pending` reaches this, [`Worker::checkpoint`] runs.
    check_at: u64,
    stop: Option<LimitKind>,
    /// In a parallel iteration: the index of the earliest subtree with a solution, and ours.
    race: Option<(&'s AtomicUsize, usize)>,
    /// Lazy heuristics: per depth below the worker's root, the children of each child of the
    /// node being expanded there, stepped and prefetched ahead of their parent's expansion.
    /// Kept here rather than on the call stack so that a node need not initialise its own.
    levels: Vec<Grand<H::State>>,
    /// The least estimate of a node expanded (see [`Outcome::reach`]).
    reach: u32,
}

impl<H: Heuristic> Shared<'_, H> {
    pub(super) fn stepper(&self) -> Stepper<'_, H> {
        Stepper { h: self.h, table: self.table, fsm: self.fsm, n: self.n }
    }
}

/// What stepping a node's children takes: the heuristic, the board's moves, the automaton
/// over move strings and the number of cells.
pub(super) struct Stepper<'a, H> {
    pub(super) h: &'a H,
    pub(super) table: &'a MoveTable,
    pub(super) fsm: &'a Fsm,
    pub(super) n: usize,
}

/// The stepped children of (up to) four nodes.
pub(super) type Grand<S> = [[Kid<S>; 4]; 4];

impl<'a, 's, H: Heuristic> Worker<'a, 's, H> {
    fn new(
        shared: &'s Shared<'a, H>,
        node: &Node<H::State>,
        bound: u32,
        race: Option<(&'s AtomicUsize, usize)>,
    ) -> Self {
        let mut path = Vec::with_capacity(256);
        path.extend_from_slice(&node.moves);
        Worker {
            shared,
            cells: node.cells,
            path,
            bound,
            next_bound: u32::MAX,
            expanded: 0,
            lookups: 0,
            pending: 0,
            check_at: 0,
            stop: None,
            race,
            levels: Vec::new(),
            reach: u32::MAX,
        }
    }

    fn publish(&mut self) {
        self.shared.generated.fetch_add(self.pending, Ordering::Relaxed);
        self.pending = 0;
    }

    /// Counts `k` generated nodes; true if the search must stop.
    #[inline(always)]
    fn count(&mut self, k: u64) -> bool {
        self.pending += k;
        self.pending >= self.check_at && self.checkpoint()
    }

    /// Publishes the count, then checks the node limit (exactly: the next checkpoint is never
    /// past it), the clock, the cancel flag and whether an earlier subtree has the answer.
    #[cold]
    fn checkpoint(&mut self) -> bool {
        self.publish();
        let limits = self.shared.limits;
        let total = self.shared.generated.load(Ordering::Relaxed);
        if let Some(p) = &limits.progress {
            p.seen(total);
        }
        self.check_at = CHECK_EVERY;
        if let Some(max) = limits.max_nodes {
            if total >= max {
                self.stop = Some(LimitKind::Nodes);
                return true;
            }
            self.check_at = self.check_at.min(max - total);
        }
        if let Some(kind) = limits.check_slow() {
            self.stop = Some(kind);
            return true;
        }
        self.raced()
    }

    #[inline(always)]
    fn note(&mut self, f: u32) {
        if f < self.next_bound {
            self.next_bound = f;
        }
    }

    fn is_goal(&self) -> bool {
        let n = self.shared.n;
        self.cells[..n] == self.shared.goal[..n]
    }

    /// Searches below the node with the blank on `blank`, estimate `h`, reached with `g` moves
    /// that left the automaton in state `fsm`; its f is within the bound.
    fn dfs(&mut self, blank: usize, state: &H::State, h: u32, g: u32, fsm: u32) -> Flow {
        if h == 0 && self.is_goal() {
            return Flow::Found;
        }
        if H::LAZY {
            if self.levels.is_empty() {
                let kid = Kid { dir: 0, to: 0, h: 0, fsm: 0, state: *state };
                self.levels.push([[kid; 4]; 4]);
            }
            let stepper = self.shared.stepper();
            let kids = &mut self.levels[0][0];
            let count = stepper.step(&mut self.cells, blank, state, fsm, kids);
            stepper.prefetch(&kids[..count]);
            self.expand_lazy(blank, h, g, (0, 0), count)
        } else {
            self.reach = self.reach.min(h);
            self.expand(blank, state, g, fsm)
        }
    }

    /// Children one at a time: for heuristics whose update is a few arithmetic operations.
    #[inline(always)]
    fn expand(&mut self, blank: usize, state: &H::State, g: u32, fsm: u32) -> Flow {
        self.expanded += 1;
        let hs = self.shared.h;
        let n = self.shared.n;
        let next = *self.shared.table.of(blank);
        let steps = self.shared.fsm.row(fsm);
        for (d, (&to, &kid_fsm)) in next.iter().zip(&steps).enumerate() {
            if to == NONE || kid_fsm == PRUNE {
                continue;
            }
            let to = to as usize;
            let tile = self.cells[to];
            self.cells[blank] = tile;
            self.cells[to] = 0;
            if self.count(1) {
                return Flow::Stop;
            }
            let child = hs.step(state, &self.cells[..n], tile, to, blank);
            let ch = hs.h(&child);
            let f = g + 1 + ch;
            if f <= self.bound {
                self.path.push(Dir::ALL[d]);
                match self.dfs(to, &child, ch, g + 1, kid_fsm) {
                    Flow::Found => return Flow::Found,
                    Flow::Stop => return Flow::Stop,
                    Flow::Done => {}
                }
                self.path.pop();
            } else {
                self.note(f);
            }
            self.cells[to] = tile;
            self.cells[blank] = 0;
        }
        Flow::Done
    }

    /// Expands a node whose children its parent already stepped and prefetched (the first
    /// `count` of `levels[at.0][at.1]`): reads them, applies BPMX, then steps and prefetches
    /// the children of every child within the bound into `levels[at.0 + 1]` (all of them
    /// before descending, so that their misses overlap with each other and with the first
    /// child's subtree) and searches the children cheapest first.
    fn expand_lazy(
        &mut self,
        blank: usize,
        h: u32,
        g: u32,
        at: (usize, usize),
        count: usize,
    ) -> Flow {
        let (level, slot) = at;
        self.expanded += 1;
        self.reach = self.reach.min(h);
        if self.count(count as u64) {
            return Flow::Stop;
        }
        let kids = &mut self.levels[level][slot][..count];
        let Some((hp, order)) =
            settle(self.shared.h, kids, h, g, self.bound, &mut self.next_bound, &mut self.lookups)
        else {
            return if self.raced() { Flow::Stop } else { Flow::Done };
        };
        if self.levels.len() == level + 1 {
            let first = self.levels[level][0][0];
            self.levels.push([[first; 4]; 4]);
        }
        let mut grand_count = [0; 4];
        let (done, next) = self.levels.split_at_mut(level + 1);
        let kids = &done[level][slot];
        // The children within the bound come first in the order (it sorts by estimate, and
        // BPMX raises every estimate to the same floor): count them rather than test each in
        // each loop, a branch on data the predictor cannot guess.
        let floor = hp.saturating_sub(1);
        let bound = self.bound;
        let within = kids.iter().take(count).filter(|k| g + 1 + k.h.max(floor) <= bound).count();
        for &i in &order[..within] {
            let i = i as usize % 4;
            let kid = &kids[i];
            let to = kid.to as usize;
            self.cells[blank] = self.cells[to];
            self.cells[to] = 0;
            let stepper = self.shared.stepper();
            let grand = &mut next[0][i];
            let count = stepper.step(&mut self.cells, to, &kid.state, kid.fsm, grand);
            stepper.prefetch(&grand[..count]);
            grand_count[i] = count;
            self.cells[to] = self.cells[blank];
            self.cells[blank] = 0;
        }
        if within < count {
            // The cheapest child beyond the bound sets the next bound (its f is the least).
            let kid = &self.levels[level][slot][order[within] as usize % 4];
            self.note(g + 1 + kid.h.max(floor));
        }
        for &i in &order[..within] {
            let i = i as usize % 4;
            let kid = &self.levels[level][slot][i];
            let (kid_h, to, d) = (kid.h, kid.to as usize, kid.dir as usize);
            let hc = kid_h.max(floor);
            let tile = self.cells[to];
            self.cells[blank] = tile;
            self.cells[to] = 0;
            self.path.push(Dir::ALL[d]);
            if hc == 0 && self.is_goal() {
                return Flow::Found;
            }
            match self.expand_lazy(to, hc, g + 1, (level + 1, i), grand_count[i]) {
                Flow::Found => return Flow::Found,
                Flow::Stop => return Flow::Stop,
                Flow::Done => {}
            }
            self.path.pop();
            self.cells[to] = tile;
            self.cells[blank] = 0;
        }
        Flow::Done
    }

    fn raced(&self) -> bool {
        self.race.is_some_and(|(best, mine)| best.load(Ordering::Relaxed) < mine)
    }

    /// The children of a node, resolved and sorted by estimate, and the parent's estimate
    /// raised by BPMX; `None` if BPMX prunes the parent or the search must stop.
    #[inline(always)]
    fn kids(
        &mut self,
        blank: usize,
        state: &H::State,
        h: u32,
        g: u32,
        fsm: u32,
    ) -> Option<Kids<H::State>> {
        self.expanded += 1;
        let mut kids = [Kid { dir: 0, to: 0, h: 0, fsm: 0, state: *state }; 4];
        let stepper = self.shared.stepper();
        let count = stepper.step(&mut self.cells, blank, state, fsm, &mut kids);
        stepper.prefetch(&kids[..count]);
        if self.count(count as u64) {
            return None;
        }
        let (hp, order) = settle(
            self.shared.h,
            &mut kids[..count],
            h,
            g,
            self.bound,
            &mut self.next_bound,
            &mut self.lookups,
        )?;
        Some(Kids { kids, order, count, hp })
    }

    /// Appends the children of `node` within the bound to `out`, in search order (for
    /// splitting an iteration into subtrees). A goal child is kept as its own subtree.
    fn children_of(&mut self, node: &Node<H::State>, out: &mut Vec<Node<H::State>>) {
        if node.h == 0 && node.cells[..self.shared.n] == self.shared.goal[..self.shared.n] {
            out.push(node.clone());
            return;
        }
        self.cells = node.cells;
        let (blank, g) = (node.blank as usize, node.g);
        let hs = self.shared.h;
        if H::LAZY {
            let Some(Kids { kids, order, count, hp }) =
                self.kids(blank, &node.state, node.h, g, node.fsm)
            else {
                return;
            };
            for &i in &order[..count] {
                let kid = &kids[i as usize % 4];
                let hc = kid.h.max(hp.saturating_sub(1));
                if g + 1 + hc > self.bound {
                    self.note(g + 1 + hc);
                    continue;
                }
                let (d, to) = (kid.dir as usize, kid.to as usize);
                out.push(self.child_node(node, d, to, kid.fsm, hc, kid.state));
            }
        } else {
            self.expanded += 1;
            let next = *self.shared.table.of(blank);
            let steps = self.shared.fsm.row(node.fsm);
            for (d, (&to, &kid_fsm)) in next.iter().zip(&steps).enumerate() {
                if to == NONE || kid_fsm == PRUNE {
                    continue;
                }
                let to = to as usize;
                let tile = self.cells[to];
                self.cells[blank] = tile;
                self.cells[to] = 0;
                self.pending += 1;
                let child = hs.step(&node.state, &self.cells[..self.shared.n], tile, to, blank);
                self.cells[to] = tile;
                self.cells[blank] = 0;
                let ch = hs.h(&child);
                if g + 1 + ch > self.bound {
                    self.note(g + 1 + ch);
                    continue;
                }
                out.push(self.child_node(node, d, to, kid_fsm, ch, child));
            }
        }
    }

    fn child_node(
        &self,
        node: &Node<H::State>,
        d: usize,
        to: usize,
        fsm: u32,
        h: u32,
        state: H::State,
    ) -> Node<H::State> {
        let mut cells = node.cells;
        let blank = node.blank as usize;
        cells[blank] = cells[to];
        cells[to] = 0;
        let mut moves = node.moves.clone();
        moves.push(Dir::ALL[d]);
        Node { cells, blank: to as u8, g: node.g + 1, h, fsm, state, moves }
    }
}

/// The children of a node, resolved: the first `count` of `kids`, to be searched in `order`,
/// and the parent's estimate after BPMX.
struct Kids<S> {
    kids: [Kid<S>; 4],
    order: [u8; 4],
    count: usize,
    hp: u32,
}

/// A child being considered.
#[derive(Clone, Copy)]
pub(super) struct Kid<S> {
    pub(super) dir: u8,
    pub(super) to: u8,
    pub(super) h: u32,
    pub(super) fsm: u32,
    pub(super) state: S,
}

impl<H: Heuristic> Stepper<'_, H> {
    /// Steps the children of the node on `cells` (blank on `blank`, heuristic state `state`,
    /// automaton state `fsm`) into `kids`; returns how many there are. `cells` is left as it
    /// was. Counts nothing: a node counts when its parent is expanded.
    #[inline(always)]
    pub(super) fn step(
        &self,
        cells: &mut [u8; MAX_CELLS],
        blank: usize,
        state: &H::State,
        fsm: u32,
        kids: &mut [Kid<H::State>; 4],
    ) -> usize {
        let next = *self.table.of(blank);
        let steps = self.fsm.row(fsm);
        let mut count = 0;
        for (d, (&to, &kid_fsm)) in next.iter().zip(&steps).enumerate() {
            if to == NONE || kid_fsm == PRUNE {
                continue;
            }
            let to = to as usize;
            let tile = cells[to];
            cells[blank] = tile;
            cells[to] = 0;
            // At most four moves, so `count` stays below 4.
            let kid = &mut kids[count % 4];
            kid.dir = d as u8;
            kid.to = to as u8;
            kid.fsm = kid_fsm;
            self.h.step_into(state, &mut kid.state, &cells[..self.n], tile, to, blank);
            cells[to] = tile;
            cells[blank] = 0;
            count += 1;
        }
        count
    }

    /// Starts loading the table entries that the stepped `kids` will read, and their rows of
    /// the automaton.
    #[inline(always)]
    pub(super) fn prefetch(&self, kids: &[Kid<H::State>]) {
        for kid in kids {
            self.fsm.prefetch(kid.fsm);
            self.h.prefetch(&kid.state);
        }
    }
}

/// Reads the entries of the stepped `kids` of a node with estimate `h` at depth `g` and applies
/// BPMX; returns the node's raised estimate and the order to search the kids in (cheapest
/// first), or `None` (after noting its f in `next_bound`) if that puts the node over `bound`.
/// The kids stay where they are: sorting their indices moves a byte each instead of a state.
#[inline(always)]
pub(super) fn settle<H: Heuristic>(
    hs: &H,
    kids: &mut [Kid<H::State>],
    h: u32,
    g: u32,
    bound: u32,
    next_bound: &mut u32,
    lookups: &mut u64,
) -> Option<(u32, [u8; 4])> {
    let mut hmax = 0;
    // Sort keys: estimate, then tie-break, then the fixed direction order (the index).
    let mut keys = [u64::MAX; 4];
    // All the children's reads in one loop (see the module docs), then their estimates.
    let mut all = 0u64;
    for (i, kid) in kids.iter().enumerate() {
        *lookups += u64::from(hs.pending_reads(&kid.state));
        all |= u64::from(hs.pending(&kid.state)) << (16 * i);
    }
    while all != 0 {
        let bit = all.trailing_zeros() as usize;
        all &= all - 1;
        hs.read_slot(&mut kids[(bit / 16) % 4].state, bit % 16);
    }
    // A child is searched only if its estimate is at most `room`.
    let room = bound.saturating_sub(g + 1);
    // Each child's first part, then the rest of those it did not decide: their loads overlap.
    let mut rest = 0u32;
    for (i, kid) in kids.iter_mut().enumerate() {
        hs.clear_pending(&mut kid.state);
        match hs.resolve_begin(&mut kid.state, room) {
            Some(h) => kid.h = h,
            None => rest |= 1 << i,
        }
    }
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let kid = &mut kids[i % 4];
        kid.h = hs.resolve_rest(&mut kid.state);
    }
    for ((i, kid), key) in kids.iter_mut().enumerate().zip(&mut keys) {
        let kid_h = kid.h;
        *lookups += u64::from(hs.reads_done(&kid.state));
        hmax = hmax.max(kid_h);
        *key = u64::from(kid_h) << 40 | u64::from(hs.tie_break(&kid.state)) << 8 | i as u64;
    }
    let hp = h.max(hmax.saturating_sub(1));
    if g + hp > bound {
        *next_bound = (*next_bound).min(g + hp);
        return None;
    }
    // A sorting network of four (unused keys are the largest): branch-free compare-exchanges,
    // since which child is cheaper is data the branch predictor cannot guess.
    for (a, b) in [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)] {
        let (x, y) = (keys[a], keys[b]);
        keys[a] = x.min(y);
        keys[b] = x.max(y);
    }
    Some((hp, keys.map(|k| k as u8)))
}
