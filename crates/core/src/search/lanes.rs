//! IDA* on many positions at once: one thread interleaves the searches of several positions
//! (*lanes*), one node expansion of each in turn.
//!
//! Why: with large tables each expansion waits for the reads that its parent prefetched (see
//! `ida.rs`: the first child of every node is read right after its entries were prefetched).
//! Between two expansions of one lane the other lanes expand a node each, so those reads
//! have that long to arrive. Every lane searches its tree exactly as [`ida`](super::ida) does
//! alone with one thread (the same order, nodes, lookups and moves; the tests check it), so
//! unlike splitting one position's tree, interleaving costs no extra nodes.
//!
//! The search of a lane is the recursion of `ida.rs` turned into a loop over an explicit
//! stack of frames, so that it can stop after any expansion and resume later. An expansion is
//! `ida.rs`'s `expand_lazy`, except that its prefetches go out in one burst after all of its
//! stepping. The path to the current node is not kept: a lane that finds the goal rebuilds it
//! from its frames.
//!
//! What the lanes do not hide is mostly the machine's: where every random lookup is a page walk
//! (a VM whose host maps its memory with small pages), a prefetch waits for its walk, and more
//! lanes or larger bursts do not help. `cargo bench -p fifteen-core --bench lookups` measures
//! what a prefetched lookup adds to a busy core.
//!
//! One position uses lanes too ([`subtrees`], with [`Limits::lanes`]): each iteration is split
//! into subtrees as for several threads, and each thread (one included) interleaves several.
//! There interleaving does cost nodes, in the last iteration only: a lane may be searching a
//! subtree after the one with the answer when that answer is found (the answer itself is the
//! same: the first in depth-first order).
//!
//! What the lanes were worth, and what was tried and not kept: `docs/performance.md`, "Lanes".

use std::time::{Duration, Instant};

use std::sync::atomic::Ordering;

use super::CHECK_EVERY;
use super::ida::{Grand, Kid, Node, Outcome, Shared, Split, Stepper, settle};
use super::{LimitKind, Limits, Problem, SearchError, Solution, Stats};
use crate::board::MAX_CELLS;
use crate::heuristic::Heuristic;
use crate::moves::{Dir, Fsm, MoveTable};

/// Solves every problem that `next` hands out with IDA*, interleaving up to `lanes` of them on
/// the calling thread, and hands each answer to `done` with the problem's tag, in the order
/// they finish.
///
/// `next(wait)` gives the next problem with its own limits (`Limits::threads` is ignored), or
/// `None`. With `wait` false some lanes are busy: return `None` at once if nothing is ready (it
/// is asked again when a lane frees up). With `wait` true every lane is idle: `None` ends the
/// run.
///
/// Heuristics that read no tables ([`Heuristic::LAZY`] false) gain nothing from interleaving:
/// their problems are solved one at a time. Each position is searched in depth-first order,
/// also on boards of [`ORDERED_MIN_CELLS`](crate::ORDERED_MIN_CELLS) cells and more, where
/// [`ida`](crate::ida) orders its subtrees and may find another optimal path: callers that
/// want the answer of [`ida`](crate::ida) solve those with it (the CLI's batch does).
pub fn ida_lanes<H: Heuristic, T>(
    heuristic: &H,
    lanes: usize,
    mut next: impl FnMut(bool) -> Option<(T, Problem, Limits)>,
    mut done: impl FnMut(T, Result<Solution, SearchError>),
) {
    let lanes = if H::LAZY { lanes.max(1) } else { 1 };
    let size = heuristic.size();
    let table = MoveTable::new(size);
    let shared =
        Stepper { h: heuristic, table: &table, fsm: Fsm::for_cells(size.cells()), n: size.cells() };
    let mut running: Vec<(T, Lane<H::State>)> = Vec::with_capacity(lanes);
    let mut spare: Vec<Lane<H::State>> = Vec::new();
    let mut clock = Clock {
        start: Instant::now(),
        idle: Duration::ZERO,
        ticks: 0,
        given: Duration::ZERO,
        paid: 0,
    };
    // When to ask `next` again after it had nothing while some lanes ran: asking can cost a lock
    // and a channel poll, which every round of ticks made a single lane 1.2 times slower.
    let mut ask_at = 0;
    loop {
        // Fill idle lanes.
        while running.len() < lanes {
            let wait = running.is_empty();
            if !wait && clock.ticks < ask_at {
                break;
            }
            let asked = Instant::now();
            let handed = next(wait);
            if wait {
                clock.idle += asked.elapsed();
            }
            let Some((tag, problem, limits)) = handed else {
                ask_at = clock.ticks + ASK_EVERY;
                break;
            };
            let started = Instant::now();
            if problem.start().size() != size || !H::LAZY {
                let answer = super::ida(&problem, heuristic, &Limits { threads: 1, ..limits });
                clock.idle += started.elapsed();
                done(tag, answer);
                continue;
            }
            let mut lane = spare.pop().unwrap_or_else(Lane::empty);
            let tick = lane.start(&shared, problem, limits);
            // The lane's own setup time, not its ticks'.
            clock.idle += started.elapsed();
            match tick {
                Tick::Busy => running.push((tag, lane)),
                end => {
                    done(tag, lane.finish(&shared, end, &mut clock));
                    spare.push(lane);
                }
            }
        }
        if running.is_empty() {
            return;
        }
        let mut j = 0;
        while j < running.len() {
            clock.ticks += 1;
            let lane = &mut running[j].1;
            let mut tick = lane.tick(&shared);
            if tick == Tick::Check {
                tick = match lane.check_own() {
                    Some(kind) => Tick::Stopped(kind),
                    None => lane.go(&shared),
                };
            }
            if tick == Tick::Busy {
                j += 1;
                continue;
            }
            let (tag, mut lane) = running.swap_remove(j);
            done(tag, lane.finish(&shared, tick, &mut clock));
            spare.push(lane);
        }
    }
}

/// One thread's part of an iteration split over threads: takes the split's subtrees in order
/// and searches up to `lanes` of them at a time, interleaved, until none is left or an earlier
/// subtree has the answer (see `ida.rs`, "Parallel search"). Found paths go to `split`.
pub(super) fn subtrees<H: Heuristic>(
    shared: &Shared<'_, H>,
    split: &Split<H::State>,
    bound: u32,
    lanes: usize,
) -> Outcome {
    let stepper = shared.stepper();
    let mut out = Outcome { next_bound: u32::MAX, ..Outcome::default() };
    let mut running: Vec<(usize, Lane<H::State>)> = Vec::with_capacity(lanes);
    let mut spare: Vec<Lane<H::State>> = Vec::new();
    let mut more = true;
    let mut stop = false;
    loop {
        while more && !stop && running.len() < lanes {
            let i = split.next.fetch_add(1, Ordering::Relaxed);
            if i >= split.frontier.len() || i > split.best.load(Ordering::Relaxed) {
                more = false;
                break;
            }
            let mut lane = spare.pop().unwrap_or_else(Lane::empty);
            lane.goal = shared.goal;
            let tick = lane.start_node(&stepper, &split.frontier[i], bound);
            if tick == Tick::Busy {
                running.push((i, lane));
            } else {
                stop |= end_subtree(shared, split, &mut out, i, &mut lane, tick);
                spare.push(lane);
            }
        }
        if running.is_empty() || stop {
            break;
        }
        let mut j = 0;
        while j < running.len() {
            let (i, lane) = &mut running[j];
            let mut tick = lane.tick(&stepper);
            if tick == Tick::Check {
                tick = match lane.check_shared(shared, split, *i) {
                    Some(end) => end,
                    None => lane.go(&stepper),
                };
            }
            if tick == Tick::Busy {
                j += 1;
                continue;
            }
            let (i, mut lane) = running.swap_remove(j);
            stop |= end_subtree(shared, split, &mut out, i, &mut lane, tick);
            spare.push(lane);
            if stop {
                break;
            }
        }
    }
    // A limit ended the iteration: the lanes still running count what they did.
    for (_, lane) in &mut running {
        lane.publish(shared);
        out.add(lane);
    }
    out
}

/// Records a subtree's lane that ended with `tick`; true if a limit stops the whole search.
fn end_subtree<H: Heuristic>(
    shared: &Shared<'_, H>,
    split: &Split<H::State>,
    out: &mut Outcome,
    i: usize,
    lane: &mut Lane<H::State>,
    tick: Tick,
) -> bool {
    lane.publish(shared);
    out.add(lane);
    // A subtree searched to its end: its reach orders the next iteration's subtrees, and its
    // size says whether to split it (counted as `ida.rs`'s workers count, root included, so
    // that the split is the same in lanes).
    if tick == Tick::Done {
        split.reach[i].store(lane.reach, Ordering::Relaxed);
        split.sizes[i].store(lane.stats.expanded, Ordering::Relaxed);
    }
    match tick {
        Tick::Found => {
            split.best.fetch_min(i, Ordering::Relaxed);
            if let Ok(mut r) = split.results.lock() {
                r.push((i, lane.path()));
            }
            false
        }
        Tick::Stopped(kind) => {
            out.stop = Some(kind);
            // A limit ends every thread: make the others stop at their next check.
            split.best.fetch_min(0, Ordering::Relaxed);
            true
        }
        _ => false,
    }
}

impl Outcome {
    /// Adds what `lane` did to the totals.
    fn add<S>(&mut self, lane: &Lane<S>) {
        self.expanded += lane.stats.expanded;
        self.lookups += lane.stats.lookups;
        self.next_bound = self.next_bound.min(lane.next_bound);
    }
}

/// Ticks between two requests for more problems while lanes are free but none came last time
/// (about 0.1 ms with 7-8).
const ASK_EVERY: u64 = 1 << 10;

/// The thread's time, for sharing it among the positions: a position that finishes gets the
/// time not yet given out in proportion to its share of the ticks not yet paid for, so that the
/// positions' times add up to the thread's.
struct Clock {
    start: Instant,
    /// Time not spent in ticks: waiting for problems, setting lanes up (each lane counts its
    /// own), solving problems alone.
    idle: Duration,
    ticks: u64,
    given: Duration,
    paid: u64,
}

impl Clock {
    fn share(&mut self, ticks: u64) -> Duration {
        let busy = self.start.elapsed().saturating_sub(self.idle);
        let left = busy.saturating_sub(self.given);
        let owed = self.ticks.saturating_sub(self.paid).max(ticks).max(1);
        let share = left.mul_f64(ticks as f64 / owed as f64);
        self.given += share;
        self.paid += ticks;
        share
    }
}

/// What a lane's last step came to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tick {
    /// More to search.
    Busy,
    /// Counted the next expansion's children and due to check its limits: check, then
    /// [`Lane::go`] (or stop the lane).
    Check,
    /// The path in the lane reaches the goal.
    Found,
    /// A limit stopped the search.
    Stopped(LimitKind),
    /// An earlier subtree of the split has the answer: this one is abandoned.
    Raced,
    /// A subtree's iteration found nothing within its bound.
    Done,
    /// The last iteration found nothing within its bound, and nothing lies beyond it.
    Exhausted,
}

/// The expansion a lane does next: the node reached by the moves on the lane's path, whose
/// children its parent stepped and prefetched into `levels[level][slot][..count]`.
#[derive(Clone, Copy, Default)]
struct Next {
    level: usize,
    slot: usize,
    count: usize,
    blank: usize,
    h: u32,
    g: u32,
}

/// A node being expanded: what `ida.rs`'s `expand_lazy` keeps on the call stack.
#[derive(Clone, Copy)]
struct Frame {
    level: usize,
    slot: usize,
    blank: usize,
    g: u32,
    /// The floor BPMX puts under the children's estimates.
    floor: u32,
    /// The children to search, cheapest first: the first `within` of `order`.
    order: [u8; 4],
    within: usize,
    /// How many of them have been entered.
    entered: usize,
    /// How many children each child has (stepped into `levels[level + 1][i]`).
    grand_count: [usize; 4],
}

/// A depth-first search with IDA*'s bound below one node, resumable after any expansion:
/// a whole position's IDA* (the bound rising after each iteration), or one iteration below one
/// subtree of a split.
struct Lane<S> {
    /// The position's problem (whole positions only).
    problem: Option<Problem>,
    /// The position's limits (whole positions only; a split's lanes check the search's).
    limits: Limits,
    /// The time `start` took (ticks are timed by the [`Clock`]).
    setup: Duration,
    goal: [u8; MAX_CELLS],
    /// Where the search starts: the position, or a subtree's root.
    root: Option<Node<S>>,
    /// Whether an iteration that finds nothing starts the next (whole positions).
    iterate: bool,
    cells: [u8; MAX_CELLS],
    levels: Vec<Grand<S>>,
    frames: Vec<Frame>,
    next: Next,
    bound: u32,
    next_bound: u32,
    stats: Stats,
    /// When `stats.generated` reaches this, the limits are checked.
    check_at: u64,
    /// How much of `stats.generated` a split's lane has added to the search's count.
    published: u64,
    /// A split's lane: the least estimate of a node it expanded (see `Outcome::reach`).
    reach: u32,
}

impl<S: Copy> Lane<S> {
    fn empty() -> Self {
        Lane {
            problem: None,
            limits: Limits::default(),
            setup: Duration::ZERO,
            goal: [0; MAX_CELLS],
            root: None,
            iterate: true,
            cells: [0; MAX_CELLS],
            levels: Vec::new(),
            frames: Vec::new(),
            next: Next::default(),
            bound: 0,
            next_bound: u32::MAX,
            stats: Stats::default(),
            check_at: 0,
            published: 0,
            reach: u32::MAX,
        }
    }

    /// Sets the lane up for the whole of `problem` and starts its first iteration.
    fn start<H: Heuristic<State = S>>(
        &mut self,
        stepper: &Stepper<'_, H>,
        problem: Problem,
        limits: Limits,
    ) -> Tick {
        let n = stepper.n;
        let start = problem.start();
        let t0 = Instant::now();
        let mut cells = [0; MAX_CELLS];
        cells[..n].copy_from_slice(start.cells());
        self.goal = [0; MAX_CELLS];
        self.goal[..n].copy_from_slice(problem.goal().cells());
        let mut state = stepper.h.init(start.cells());
        let h = stepper.h.resolve(&mut state);
        let root = Node {
            cells,
            blank: start.blank() as u8,
            g: 0,
            h,
            fsm: Fsm::START,
            state,
            moves: Vec::new(),
        };
        self.problem = Some(problem);
        self.limits = limits;
        self.iterate = true;
        self.stats = Stats { generated: 1, ..Stats::default() };
        self.check_at = 0;
        self.bound = h;
        self.set_root(root);
        let tick = self.begin(stepper);
        self.setup = t0.elapsed();
        tick
    }

    /// Sets the lane up for one iteration with `bound` below `node` (its goal set already).
    fn start_node<H: Heuristic<State = S>>(
        &mut self,
        stepper: &Stepper<'_, H>,
        node: &Node<S>,
        bound: u32,
    ) -> Tick {
        self.iterate = false;
        // The split counted the subtree's root.
        self.stats = Stats::default();
        self.check_at = 0;
        self.published = 0;
        self.reach = u32::MAX;
        self.bound = bound;
        self.set_root(node.clone());
        self.begin(stepper)
    }

    /// Makes `root` the lane's root.
    fn set_root(&mut self, root: Node<S>) {
        if self.levels.is_empty() {
            let kid = Kid { dir: 0, to: 0, h: 0, fsm: 0, state: root.state };
            self.levels.push([[kid; 4]; 4]);
        }
        self.root = Some(root);
    }

    /// Starts an iteration with the lane's bound: steps and prefetches the root's children.
    fn begin<H: Heuristic<State = S>>(&mut self, stepper: &Stepper<'_, H>) -> Tick {
        let Some(root) = &self.root else { return Tick::Exhausted };
        if self.iterate {
            self.stats.thresholds.push(self.bound);
            if let Some(p) = &self.limits.progress {
                p.iteration(self.bound, self.stats.generated);
            }
        }
        self.next_bound = u32::MAX;
        self.cells = root.cells;
        self.frames.clear();
        if root.h == 0 && self.is_goal(stepper.n) {
            return Tick::Found;
        }
        let (blank, h, g) = (root.blank as usize, root.h, root.g);
        let kids = &mut self.levels[0][0];
        let count = stepper.step(&mut self.cells, blank, &root.state, root.fsm, kids);
        stepper.prefetch(&kids[..count]);
        self.next = Next { level: 0, slot: 0, count, blank, h, g };
        Tick::Busy
    }

    /// The moves from the position to the node the lane is on: the root's, then the child
    /// each frame entered last. (Built when asked, rather than kept by a push and a pop at
    /// every expansion.)
    fn path(&self) -> Vec<Dir> {
        let mut path = self.root.as_ref().map_or_else(Vec::new, |r| r.moves.clone());
        for f in &self.frames {
            let i = f.order[f.entered.saturating_sub(1) % 4] as usize % 4;
            path.push(Dir::ALL[self.levels[f.level][f.slot][i].dir as usize % 4]);
        }
        path
    }

    fn is_goal(&self, n: usize) -> bool {
        self.cells[..n] == self.goal[..n]
    }

    /// Counts the next expansion's children; then, unless the limits are due to be checked
    /// (see [`Tick::Check`]), expands it and walks to the one after.
    #[inline(always)]
    fn tick<H: Heuristic<State = S>>(&mut self, stepper: &Stepper<'_, H>) -> Tick {
        self.stats.expanded += 1;
        self.reach = self.reach.min(self.next.h);
        self.stats.generated += self.next.count as u64;
        if self.stats.generated >= self.check_at {
            return Tick::Check;
        }
        self.go(stepper)
    }

    /// The expansion counted by [`Lane::tick`], then the walk to the next one.
    #[inline(always)]
    fn go<H: Heuristic<State = S>>(&mut self, stepper: &Stepper<'_, H>) -> Tick {
        self.expand(stepper, self.next);
        self.advance(stepper)
    }

    /// Checks a whole position's own limits; sets when to check next.
    #[cold]
    fn check_own(&mut self) -> Option<LimitKind> {
        self.limits.check_count(self.stats.generated, CHECK_EVERY, &mut self.check_at)
    }

    /// Checks a split's lane for subtree `mine`: publishes its count, then checks the search's
    /// limits (the node limit exactly, as `ida.rs`'s workers do) and whether an earlier subtree
    /// has the answer. Sets when to check next.
    #[cold]
    fn check_shared<H: Heuristic>(
        &mut self,
        shared: &Shared<'_, H>,
        split: &Split<S>,
        mine: usize,
    ) -> Option<Tick> {
        self.publish(shared);
        let limits = shared.limits;
        let total = shared.generated.load(Ordering::Relaxed);
        if let Some(p) = &limits.progress {
            p.seen(total);
        }
        let mut every = CHECK_EVERY;
        if let Some(max) = limits.max_nodes {
            if total >= max {
                return Some(Tick::Stopped(LimitKind::Nodes));
            }
            every = every.min(max - total);
        }
        self.check_at = self.stats.generated + every;
        if let Some(kind) = limits.check_slow() {
            return Some(Tick::Stopped(kind));
        }
        (split.best.load(Ordering::Relaxed) < mine).then_some(Tick::Raced)
    }

    /// Adds a split's lane's new nodes to the search's count.
    fn publish<H: Heuristic>(&mut self, shared: &Shared<'_, H>) {
        shared.generated.fetch_add(self.stats.generated - self.published, Ordering::Relaxed);
        self.published = self.stats.generated;
    }
    /// `expand_lazy` up to its loop over the children: reads the children of the node `nx`,
    /// applies BPMX, and steps and prefetches the children of each child within the bound.
    /// (The loop over the children repeats `expand_lazy`'s, with the prefetches in one burst:
    /// one function for both costs 2 - 4% more instructions per node, `docs/performance.md`.)
    #[inline(always)]
    fn expand<H: Heuristic<State = S>>(&mut self, shared: &Stepper<'_, H>, nx: Next) {
        let bound = self.bound;
        let kids = &mut self.levels[nx.level][nx.slot][..nx.count];
        let Some((hp, order)) = settle(
            shared.h,
            kids,
            nx.h,
            nx.g,
            bound,
            &mut self.next_bound,
            &mut self.stats.lookups,
        ) else {
            return;
        };
        if self.levels.len() == nx.level + 1 {
            let first = self.levels[nx.level][0][0];
            self.levels.push([[first; 4]; 4]);
        }
        let mut grand_count = [0; 4];
        let (done, deeper) = self.levels.split_at_mut(nx.level + 1);
        let kids = &done[nx.level][nx.slot];
        let floor = hp.saturating_sub(1);
        let within =
            kids.iter().take(nx.count).filter(|k| nx.g + 1 + k.h.max(floor) <= bound).count();
        for &i in &order[..within] {
            let i = i as usize % 4;
            let kid = &kids[i];
            let to = kid.to as usize;
            self.cells[nx.blank] = self.cells[to];
            self.cells[to] = 0;
            grand_count[i] =
                shared.step(&mut self.cells, to, &kid.state, kid.fsm, &mut deeper[0][i]);
            self.cells[to] = self.cells[nx.blank];
            self.cells[nx.blank] = 0;
        }
        // All of the expansion's prefetches together, after the stepping, rather than each
        // child's after its own.
        for &i in &order[..within] {
            let i = i as usize % 4;
            shared.prefetch(&deeper[0][i][..grand_count[i]]);
        }
        if within < nx.count {
            let kid = &kids[order[within] as usize % 4];
            let f = nx.g + 1 + kid.h.max(floor);
            self.next_bound = self.next_bound.min(f);
        }
        if within > 0 {
            self.frames.push(Frame {
                level: nx.level,
                slot: nx.slot,
                blank: nx.blank,
                g: nx.g,
                floor,
                order,
                within,
                entered: 0,
                grand_count,
            });
        }
    }

    /// `expand_lazy`'s loop over the children, resumed: leaves the child entered last, enters
    /// the next one (popping finished frames), and sets it up as the next expansion. At the
    /// end of an iteration starts the next one.
    #[inline(always)]
    fn advance<H: Heuristic<State = S>>(&mut self, shared: &Stepper<'_, H>) -> Tick {
        loop {
            let Some(f) = self.frames.last_mut() else {
                if !self.iterate {
                    return Tick::Done;
                }
                if self.next_bound == u32::MAX {
                    return Tick::Exhausted;
                }
                self.bound = self.next_bound;
                return self.begin(shared);
            };
            let kids = &self.levels[f.level][f.slot];
            if f.entered > 0 {
                let to = kids[f.order[f.entered - 1] as usize % 4].to as usize;
                self.cells[to] = self.cells[f.blank];
                self.cells[f.blank] = 0;
            }
            if f.entered == f.within {
                self.frames.pop();
                continue;
            }
            let i = f.order[f.entered] as usize % 4;
            f.entered += 1;
            let kid = &kids[i];
            let (to, hc) = (kid.to as usize, kid.h.max(f.floor));
            self.cells[f.blank] = self.cells[to];
            self.cells[to] = 0;
            self.next = Next {
                level: f.level + 1,
                slot: i,
                count: f.grand_count[i],
                blank: to,
                h: hc,
                g: f.g + 1,
            };
            if hc == 0 && self.is_goal(shared.n) {
                return Tick::Found;
            }
            return Tick::Busy;
        }
    }

    /// The answer of a lane that ended with `end`.
    fn finish<H: Heuristic<State = S>>(
        &mut self,
        shared: &Stepper<'_, H>,
        end: Tick,
        clock: &mut Clock,
    ) -> Result<Solution, SearchError> {
        let mut stats = std::mem::take(&mut self.stats);
        // Setting up, and the last tick of a lane stopped by a limit, count as ticks too.
        stats.elapsed = self.setup + clock.share(stats.expanded);
        let problem = self.problem.take();
        match (end, problem) {
            (Tick::Found, Some(problem)) => {
                let moves = self.path();
                let (_, tiles) = super::replay(problem.start(), &moves)
                    .ok_or_else(|| SearchError::NotApplicable("internal error: bad path".into()))?;
                Ok(Solution {
                    moves,
                    tiles,
                    optimal: shared.h.admissible(),
                    initial_h: self.root.as_ref().map_or(0, |r| r.h),
                    stats,
                })
            }
            (Tick::Stopped(kind), _) => {
                Err(SearchError::LimitReached { kind, lower_bound: self.bound, stats })
            }
            _ => Err(SearchError::NotApplicable("the search space was exhausted".into())),
        }
    }
}
