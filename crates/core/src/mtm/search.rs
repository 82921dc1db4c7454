//! Optimal searches in the multi-tile metric: IDA* over line moves, and BFS for small boards.
//!
//! A node's children slide 1 to `k` tiles of the blank's row or column toward it, `k` the room
//! on that side. Children on the axis of the move that made the node are skipped: two slides in
//! one line compose to one slide of that line (or to nothing), so some path at least as short
//! never makes them, and optimality is kept. The path is stored as single-tile steps, so that a
//! [`Solution`] replays as everywhere else; its MTM length is its number of runs
//! ([`lines`](super::lines)).

use std::collections::HashMap;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use super::colour::ColourTable;
use super::crossings::{Counts, Crossings};
use super::views::ColourViews;
use super::wd::WalkingDistance;
use crate::board::{Board, MAX_CELLS};
use crate::moves::Dir;
use crate::search::{LimitKind, Limits, Problem, SearchError, Solution, Stats};

/// Which admissible MTM estimate a [`MtmHeuristic`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MtmHeuristicKind {
    /// Colour tables (4x4), through their regular and dual views.
    Colour,
    /// Walking distance counting line moves.
    WalkingDistance,
    /// The most tiles that must cross any one boundary, each way, per axis
    /// ([`Crossings`](super::Crossings); boards whose walking-distance tables would be too
    /// large).
    Bound,
}

/// An admissible MTM estimate: the maximum over the colour tables' views when tables serve the
/// goal, else the walking distance when its tables fit, else line crossings.
#[derive(Clone, Debug)]
pub struct MtmHeuristic {
    goal: Board,
    crossings: Crossings,
    wd: Option<Arc<WalkingDistance>>,
    colour: Option<Arc<ColourViews>>,
}

impl MtmHeuristic {
    /// The estimate for `goal`, with those of `tables` that serve it (tables of another size
    /// are ignored).
    pub fn new(goal: &Board, tables: &[Arc<ColourTable>]) -> MtmHeuristic {
        let colour = ColourViews::new(goal, tables).map(Arc::new);
        // With tables, walking distance adds nothing (docs/performance.md).
        let wd = if colour.is_some() { None } else { WalkingDistance::new(goal).map(Arc::new) };
        MtmHeuristic { goal: goal.clone(), crossings: Crossings::new(goal), wd, colour }
    }

    /// Line crossings alone, whatever the board: the estimate of boards past 16 cells, for
    /// tests on boards small enough to check against a BFS.
    #[cfg(test)]
    pub(super) fn crossings_only(goal: &Board) -> MtmHeuristic {
        MtmHeuristic { goal: goal.clone(), crossings: Crossings::new(goal), wd: None, colour: None }
    }

    /// The colour tables' views, if they serve the goal.
    #[cfg(test)]
    pub(super) fn colour_views(&self) -> Option<&ColourViews> {
        self.colour.as_deref()
    }

    /// Which estimate this is.
    pub fn kind(&self) -> MtmHeuristicKind {
        match (&self.colour, &self.wd) {
            (Some(_), _) => MtmHeuristicKind::Colour,
            (None, Some(_)) => MtmHeuristicKind::WalkingDistance,
            (None, None) => MtmHeuristicKind::Bound,
        }
    }

    /// A name for output.
    pub fn name(&self) -> String {
        match (self.kind(), &self.colour) {
            (MtmHeuristicKind::Colour, Some(c)) => {
                let (regular, duals) = c.counts();
                format!(
                    "mtm colour tables ({} tables, {regular} views, up to {duals} dual)",
                    c.tables().len()
                )
            }
            (MtmHeuristicKind::WalkingDistance, _) => "mtm walking distance".to_string(),
            _ => "mtm line crossings".to_string(),
        }
    }

    /// The goal.
    pub fn goal(&self) -> &Board {
        &self.goal
    }

    /// The estimate for `board`: a proven lower bound on its MTM distance to the goal.
    pub fn estimate(&self, board: &Board) -> u32 {
        if let Some(c) = &self.colour {
            return c.estimate(board.cells());
        }
        self.h(&self.start(board.cells()))
    }

    fn start(&self, cells: &[u8]) -> State {
        match &self.wd {
            Some(wd) => State::Wd(wd.start(cells)),
            None => State::Crossings(self.crossings.counts(cells)),
        }
    }

    /// The state after the blank moved from `from` to `to`, `tile` sliding the other way.
    #[inline(always)]
    fn step(&self, st: State, tile: u8, from: usize, to: usize) -> State {
        match (&self.wd, st) {
            (Some(wd), State::Wd(s)) => State::Wd(wd.step(s, tile, from, to)),
            (_, State::Crossings(mut k)) => {
                self.crossings.step(&mut k, tile, to, from);
                State::Crossings(k)
            }
            (None, st) => st,
        }
    }

    /// The walking distance, or else line crossings (searches without tables).
    #[inline(always)]
    fn h(&self, st: &State) -> u32 {
        match (&self.wd, st) {
            (Some(wd), State::Wd(s)) => wd.h(*s),
            (_, State::Crossings(k)) => self.crossings.h(k),
            (None, State::Wd(_)) => 0,
        }
    }
}

/// What a search keeps of the estimate from node to node: the walking distance's state
/// indices, or the line crossings' counts.
#[derive(Clone, Copy, Debug)]
enum State {
    Wd((u32, u32)),
    Crossings(Counts),
}

/// The proven MTM lower bound of `problem`'s start: the heuristic's estimate.
pub fn mtm_lower_bound(problem: &Problem, h: &MtmHeuristic) -> u32 {
    h.estimate(problem.start())
}

/// Whether two blank directions are on the same axis.
#[inline(always)]
fn same_axis(a: Dir, b: Dir) -> bool {
    matches!((a, b), (Dir::Up | Dir::Down, Dir::Up | Dir::Down))
        || matches!((a, b), (Dir::Left | Dir::Right, Dir::Left | Dir::Right))
}

struct Ida<'a> {
    h: &'a MtmHeuristic,
    limits: &'a Limits,
    goal: [u8; MAX_CELLS],
    cells: [u8; MAX_CELLS],
    next: Vec<[Option<usize>; 4]>,
    n: usize,
    path: Vec<Dir>,
    stats: Stats,
    stop: Option<LimitKind>,
}

enum Step {
    Found,
    Next(u32),
}

impl Ida<'_> {
    fn dfs(&mut self, blank: usize, g: u32, bound: u32, last: Option<Dir>, st: State) -> Step {
        self.stats.expanded += 1;
        let mut min = u32::MAX;
        for d in Dir::ALL {
            if last.is_some_and(|l| same_axis(l, d)) {
                continue;
            }
            let mut b = blank;
            let mut s = st;
            let mark = self.path.len();
            while let Some(to) = self.next[b][d as usize] {
                let tile = self.cells[to];
                self.cells[b] = tile;
                self.cells[to] = 0;
                s = self.h.step(s, tile, b, to);
                b = to;
                self.path.push(d);
                self.stats.generated += 1;
                if let Some(kind) = self.limits.check(self.stats.generated) {
                    self.stop = Some(kind);
                    return Step::Next(u32::MAX);
                }
                let h = self.h.h(&s);
                let f = g + 1 + h;
                if f <= bound {
                    if h == 0 && self.cells[..self.n] == self.goal[..self.n] {
                        return Step::Found;
                    }
                    match self.dfs(b, g + 1, bound, Some(d), s) {
                        Step::Found => return Step::Found,
                        Step::Next(m) => min = min.min(m),
                    }
                    if self.stop.is_some() {
                        return Step::Next(u32::MAX);
                    }
                } else {
                    min = min.min(f);
                }
            }
            // Slide the line back.
            let back = d.opposite();
            while self.path.len() > mark {
                self.path.pop();
                let Some(to) = self.next[b][back as usize] else { break };
                self.cells[b] = self.cells[to];
                self.cells[to] = 0;
                b = to;
            }
        }
        Step::Next(min)
    }
}

/// IDA* in the multi-tile metric with the admissible estimate `h`: an optimal MTM solution, its
/// moves as single-tile steps (group them with [`lines`](super::lines)).
pub fn ida_mtm(
    problem: &Problem,
    h: &MtmHeuristic,
    limits: &Limits,
) -> Result<Solution, SearchError> {
    if let Some(views) = &h.colour
        && problem.start().size() == h.goal.size()
    {
        return super::ida::ida_colour(problem, views, limits, super::ida::SPLIT_AFTER);
    }
    let started = Instant::now();
    let start = problem.start();
    let size = start.size();
    let n = size.cells();
    let mut cells = [0u8; MAX_CELLS];
    cells[..n].copy_from_slice(start.cells());
    let mut goal = [0u8; MAX_CELLS];
    goal[..n].copy_from_slice(problem.goal().cells());
    let next = (0..n).map(|c| Dir::ALL.map(|d| d.neighbor(size, c))).collect();
    let mut ida = Ida {
        h,
        limits,
        goal,
        cells,
        next,
        n,
        path: Vec::new(),
        stats: Stats { generated: 1, ..Stats::default() },
        stop: None,
    };
    let st = h.start(start.cells());
    let initial_h = h.h(&st);
    let mut bound = initial_h;
    let finish = |ida: Ida<'_>| {
        let mut stats = ida.stats;
        stats.elapsed = started.elapsed();
        let tiles = crate::search::replay(start, &ida.path).map(|(_, t)| t).unwrap_or_default();
        Solution { moves: ida.path, tiles, optimal: true, initial_h, stats }
    };
    if start == problem.goal() {
        return Ok(finish(ida));
    }
    loop {
        ida.stats.thresholds.push(bound);
        match ida.dfs(start.blank(), 0, bound, None, st) {
            Step::Found => return Ok(finish(ida)),
            Step::Next(m) => {
                if let Some(kind) = ida.stop {
                    let mut stats = ida.stats;
                    stats.elapsed = started.elapsed();
                    return Err(SearchError::LimitReached { kind, lower_bound: bound, stats });
                }
                if m == u32::MAX {
                    return Err(SearchError::NotApplicable(
                        "the MTM search found no path (unsolvable position)".to_string(),
                    ));
                }
                bound = m;
            }
        }
    }
}

/// Breadth-first search in the multi-tile metric (boards of at most 16 cells; stops at
/// `limits.max_stored` nodes stored): an optimal MTM solution.
pub fn bfs_mtm(problem: &Problem, limits: &Limits) -> Result<Solution, SearchError> {
    let started = Instant::now();
    let start = problem.start();
    let size = start.size();
    let n = size.cells();
    if n > 16 {
        return Err(SearchError::NotApplicable(format!(
            "BFS in the multi-tile metric runs on boards of at most 16 cells, not {n}"
        )));
    }
    let pack = |cells: &[u8]| cells.iter().fold(0u64, |acc, &t| acc << 4 | u64::from(t));
    let goal = pack(problem.goal().cells());
    let mut parent: HashMap<u64, (u64, Dir, u8)> = HashMap::new();
    let root = pack(start.cells());
    parent.insert(root, (root, Dir::Up, 0));
    let mut queue = VecDeque::from([(start.cells().to_vec(), 0u32)]);
    let mut stats = Stats { generated: 1, ..Stats::default() };
    let mut found = root == goal;
    while !found && let Some((cells, depth)) = queue.pop_front() {
        stats.expanded += 1;
        let key = pack(&cells);
        let blank = cells.iter().position(|&t| t == 0).unwrap_or(0);
        for d in Dir::ALL {
            let mut cur = cells.clone();
            let mut b = blank;
            let mut k = 0u8;
            while let Some(to) = d.neighbor(size, b) {
                cur.swap(b, to);
                b = to;
                k += 1;
                stats.generated += 1;
                let child = pack(&cur);
                if parent.contains_key(&child) {
                    continue;
                }
                parent.insert(child, (key, d, k));
                if child == goal {
                    found = true;
                    break;
                }
                queue.push_back((cur.clone(), depth + 1));
            }
            if found {
                break;
            }
        }
        if !found {
            let kind = limits.check(stats.generated).or_else(|| {
                limits.max_stored.filter(|&m| parent.len() > m).map(|_| LimitKind::Memory)
            });
            if let Some(kind) = kind {
                stats.elapsed = started.elapsed();
                return Err(SearchError::LimitReached { kind, lower_bound: depth, stats });
            }
        }
    }
    if !found {
        return Err(SearchError::NotApplicable("BFS found no path".to_string()));
    }
    let mut moves = Vec::new();
    let mut at = goal;
    while at != root {
        let (p, d, k) = parent[&at];
        moves.extend(std::iter::repeat_n(d, k as usize));
        at = p;
    }
    moves.reverse();
    let tiles = crate::search::replay(start, &moves).map(|(_, t)| t).unwrap_or_default();
    stats.elapsed = started.elapsed();
    Ok(Solution { moves, tiles, optimal: true, initial_h: 0, stats })
}
