//! Near-optimal answers in the multi-tile metric on boards without an optimal MTM search: beam
//! search over line moves, ranked by a single-tile heuristic.
//!
//! A single-tile answer with its runs merged is an MTM path, but a poor one: on Korf's 100 the
//! optimal single-tile paths merge to 17% more lines than the MTM optimum, because nothing in a
//! single-tile search prefers long slides. Here each layer is the boards one *line* further
//! from the start, so a board that a long slide brought near the goal competes with boards
//! that took as many lines, not as many tiles. Boards are ranked as the single-tile beam ranks
//! them (`heuristic/beam_order.rs`: the heuristic's rank plus the far tiles' weight and, with
//! databases, linear conflict's tiles: a good order of nearness in either metric, and far
//! better than the heuristic's rank alone, as `docs/performance.md` measures), ties broken by
//! a hash. As in the single-tile beam (`search/beam.rs`), a board enters at most one layer,
//! and the first layer that holds the goal gives the answer, whose MTM length is that layer's
//! depth.
//!
//! [`anytime_mtm`] runs beams of growing width until its time is spent and keeps the path of
//! fewest lines; each run is pruned by the best so far. Pruning uses an admissible single-tile
//! estimate divided by the longest slide, an MTM lower bound.
//!
//! Invariants: children on the axis of the line that made a board are not generated (two
//! slides of one line compose to one, or to nothing, so every path keeps a version at least as
//! short without them); every path returned replays from the start to the goal, and its lines
//! are its runs ([`super::lines`]) because consecutive lines change axis.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::time::Instant;

use crate::board::MAX_CELLS;
use crate::heuristic::{Heuristic, with_beam_order};
use crate::key_map::KeyHasher;
use crate::moves::Dir;
use crate::search::{LimitKind, Limits, Problem, Stats, Zobrist};

/// The first width of [`anytime_mtm`]; each run is four times as wide as the last.
const FIRST_WIDTH: usize = 64;

/// The widest run [`anytime_mtm`] is asked for by the command line: the widest that a few
/// seconds afford on an 8x8.
pub const MTM_BEAM_MAX_WIDTH: usize = 1 << 18;

/// Boards a run may keep over all its layers (a hash and a link each) unless the limits say.
const MAX_KEPT: u64 = 40_000_000;

/// A child not yet made: the parent's index in its layer, the line, the rank and the hash.
#[derive(Clone, Copy)]
struct Candidate {
    key: u64,
    hash: u64,
    parent: u32,
    dir: u8,
    count: u8,
}

/// The axis of a blank direction: 1 for up and down, 2 for left and right (0: none yet).
#[inline(always)]
fn axis(d: Dir) -> u8 {
    match d {
        Dir::Up | Dir::Down => 1,
        Dir::Left | Dir::Right => 2,
    }
}

/// What one run came to.
enum Run {
    Found(Vec<Dir>),
    /// The beam emptied or passed its depth cap.
    Nothing,
    Stopped(LimitKind),
}

/// One beam of `width` boards a layer over line moves, for a path of fewer than `bound` lines.
fn beam_mtm<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    width: usize,
    bound: u32,
    limits: &Limits,
    stats: &mut Stats,
) -> Run {
    let start = problem.start();
    let size = start.size();
    let n = size.cells();
    let longest = (size.width().max(size.height()) - 1) as u32;
    let admissible = heuristic.admissible();
    let zobrist = Zobrist::new(n);
    let goal_hash = zobrist.of(problem.goal().cells());
    let max_kept = limits.max_stored.map_or(MAX_KEPT, |m| m as u64);
    // A beam that goes this deep in lines is lost (as many lines as the single-tile cap).
    let mut root_state = heuristic.init(start.cells());
    let root_h = heuristic.resolve(&mut root_state);
    let cap = crate::search::depth_cap(root_h);

    // The current layer: boards (n cells each), blanks, states, hashes, and the axis of the
    // line that made each.
    let mut cells: Vec<u8> = start.cells().to_vec();
    let mut blanks: Vec<u8> = vec![start.blank() as u8];
    let mut states: Vec<H::State> = vec![root_state];
    let mut hashes: Vec<u64> = vec![zobrist.of(start.cells())];
    let mut axes: Vec<u8> = vec![0];
    if hashes[0] == goal_hash && start == problem.goal() {
        return Run::Found(Vec::new());
    }
    let mut seen: HashSet<u64, BuildHasherDefault<KeyHasher>> = HashSet::default();
    seen.insert(hashes[0]);
    // Per layer: each board's (parent, blank direction, count).
    let mut trail: Vec<Vec<(u32, u8, u8)>> = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut board = vec![0u8; n];
    let mut depth = 0u32;
    while !blanks.is_empty() {
        let g = depth + 1;
        if g >= bound || g > cap {
            return Run::Nothing;
        }
        if let Some(kind) = limits.check_slow() {
            return Run::Stopped(kind);
        }
        candidates.clear();
        let mut goal: Option<Candidate> = None;
        for i in 0..blanks.len() {
            if i % 1024 == 1023
                && let Some(kind) = limits.check_slow()
            {
                return Run::Stopped(kind);
            }
            stats.expanded += 1;
            for d in Dir::ALL {
                if axis(d) == axes[i] {
                    continue;
                }
                board.copy_from_slice(&cells[i * n..(i + 1) * n]);
                let mut blank = blanks[i] as usize;
                let mut state = states[i];
                let mut hash = hashes[i];
                let mut count = 0u8;
                while let Some(to) = d.neighbor(size, blank) {
                    let tile = board[to];
                    board[blank] = tile;
                    board[to] = 0;
                    // The blank has no key: the hash changes by the tile's move alone.
                    hash ^= zobrist.key(tile, to) ^ zobrist.key(tile, blank);
                    // Resolved at every step: a lazy heuristic steps from a resolved state
                    // (tables of bits recover a value from the parent's).
                    state = heuristic.step(&state, &board, tile, to, blank);
                    let h = heuristic.resolve(&mut state);
                    blank = to;
                    count += 1;
                    if seen.contains(&hash) {
                        continue;
                    }
                    stats.generated += 1;
                    let c = Candidate { key: 0, hash, parent: i as u32, dir: d as u8, count };
                    if hash == goal_hash && board == problem.goal().cells() {
                        goal = Some(c);
                        break;
                    }
                    if admissible && g + h.div_ceil(longest) >= bound {
                        continue;
                    }
                    let key = u64::from(heuristic.rank(&state)) << 32 | hash >> 32;
                    candidates.push(Candidate { key, ..c });
                }
                if goal.is_some() {
                    break;
                }
            }
            if goal.is_some() {
                break;
            }
        }
        if let Some(c) = goal {
            let mut path = line_steps(c.dir, c.count);
            let mut at = c.parent as usize;
            for layer in trail.iter().rev() {
                let (parent, dir, count) = layer[at];
                let mut before = line_steps(dir, count);
                before.extend_from_slice(&path);
                path = before;
                at = parent as usize;
            }
            return Run::Found(path);
        }
        // One candidate per board (the same board reached twice ranks the same), the best
        // `width`, in parent order so that the next layer is made reading this one in order.
        candidates.sort_unstable_by_key(|c| c.hash);
        candidates.dedup_by_key(|c| c.hash);
        if candidates.len() > width {
            candidates.select_nth_unstable_by_key(width, |c| c.key);
            candidates.truncate(width);
        }
        candidates.sort_unstable_by_key(|c| (c.parent, c.dir, c.count));
        if seen.len() as u64 + candidates.len() as u64 > max_kept {
            return Run::Stopped(LimitKind::Memory);
        }
        let mut next_cells = Vec::with_capacity(candidates.len() * n);
        let mut next_blanks = Vec::with_capacity(candidates.len());
        let mut next_states = Vec::with_capacity(candidates.len());
        let mut next_axes = Vec::with_capacity(candidates.len());
        let mut links = Vec::with_capacity(candidates.len());
        for c in &candidates {
            let parent = c.parent as usize;
            board.copy_from_slice(&cells[parent * n..(parent + 1) * n]);
            let mut blank = blanks[parent] as usize;
            let mut state = states[parent];
            let d = Dir::ALL[c.dir as usize];
            for _ in 0..c.count {
                // In range: the candidate was made by these very steps.
                let Some(to) = d.neighbor(size, blank) else { break };
                let tile = board[to];
                board[blank] = tile;
                board[to] = 0;
                state = heuristic.step(&state, &board, tile, to, blank);
                heuristic.resolve(&mut state);
                blank = to;
            }
            seen.insert(c.hash);
            next_cells.extend_from_slice(&board);
            next_blanks.push(blank as u8);
            next_states.push(state);
            next_axes.push(axis(d));
            links.push((c.parent, c.dir, c.count));
        }
        hashes = candidates.iter().map(|c| c.hash).collect();
        cells = next_cells;
        blanks = next_blanks;
        states = next_states;
        axes = next_axes;
        trail.push(links);
        depth = g;
    }
    Run::Nothing
}

/// The single-tile steps of a line.
fn line_steps(dir: u8, count: u8) -> Vec<Dir> {
    vec![Dir::ALL[dir as usize]; count as usize]
}

/// What [`anytime_mtm`] found.
#[derive(Clone, Debug)]
pub struct MtmBeamAnswer {
    /// The path of fewest lines found (single-tile steps), if any beam arrived.
    pub moves: Option<Vec<Dir>>,
    /// The work of every run.
    pub stats: Stats,
    /// The widest run that finished.
    pub width: usize,
    /// The limit that stopped a run, if one did.
    pub stopped: Option<LimitKind>,
}

/// Beams over line moves of widths 64, 256, ... up to `max_width`, until `limits` (its deadline) stops them, or
/// the next run would not finish by it at the pace of the last, each pruned by the fewest lines
/// found so far, `incumbent` (a path from the start, for example a single-tile answer) included.
/// Returns the path of fewest lines found by the beams when it has fewer than `incumbent`'s
/// (`None` otherwise). Every path returned replays to the goal.
///
/// ```
/// use fifteen_core::mtm::{anytime_mtm, lines};
/// use fifteen_core::{Board, Limits, LinearConflict, Problem, Size, replay};
/// let goal = Board::blank_last(Size::S4X4);
/// let start = Board::parse("0 1 2 3 5 6 7 4 9 10 11 8 13 14 15 12", None).unwrap();
/// let h = LinearConflict::new(&goal);
/// let deadline = std::time::Instant::now() + std::time::Duration::from_millis(200);
/// let limits = Limits { deadline: Some(deadline), ..Limits::default() };
/// let found = anytime_mtm(&Problem::new(start.clone(), goal.clone()).unwrap(), &h, None, 4096, &limits);
/// let moves = found.moves.unwrap();
/// assert_eq!(replay(&start, &moves).unwrap().0, goal);
/// assert_eq!(lines(&moves).len(), 2); // three tiles right, three tiles up
/// ```
pub fn anytime_mtm<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    incumbent: Option<&[Dir]>,
    max_width: usize,
    limits: &Limits,
) -> MtmBeamAnswer {
    with_beam_order!(H, heuristic, problem.goal(), |ranked| {
        anytime_ranked(problem, ranked, incumbent, max_width, limits)
    })
}

/// [`anytime_mtm`] with boards ordered by `heuristic`'s [`Heuristic::rank`] as it is.
fn anytime_ranked<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    incumbent: Option<&[Dir]>,
    max_width: usize,
    limits: &Limits,
) -> MtmBeamAnswer {
    let mut stats = Stats::default();
    let mut best: Option<Vec<Dir>> = None;
    let mut bound = incumbent.map_or(u32::MAX, |m| super::lines(m).len() as u32);
    let mut width = FIRST_WIDTH;
    let mut done = 0;
    let mut stopped = None;
    if problem.start().size().cells() > MAX_CELLS || heuristic.size() != problem.start().size() {
        return MtmBeamAnswer { moves: None, stats, width: 0, stopped: None };
    }
    let t0 = Instant::now();
    while width <= max_width.max(FIRST_WIDTH) {
        let started = Instant::now();
        match beam_mtm(problem, heuristic, width, bound, limits, &mut stats) {
            Run::Found(moves) => {
                let replayed = crate::search::replay(problem.start(), &moves);
                if replayed.is_some_and(|(b, _)| &b == problem.goal()) {
                    bound = super::lines(&moves).len() as u32;
                    best = Some(moves);
                }
            }
            Run::Nothing => {}
            Run::Stopped(kind) => {
                stopped = Some(kind);
                break;
            }
        }
        done = width;
        if bound <= 1 {
            break;
        }
        // The next run takes about four times this one: skip it if it would not finish.
        if let Some(deadline) = limits.deadline {
            let next = started.elapsed() * 4;
            if Instant::now() + next > deadline {
                break;
            }
        }
        width *= 4;
    }
    stats.elapsed = t0.elapsed();
    MtmBeamAnswer { moves: best, stats, width: done, stopped }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heuristic::{LinearConflict, Manhattan};
    use crate::mtm::{bfs_mtm, lines};
    use crate::{Board, Size, replay};

    fn walk(size: Size, steps: usize, seed: u64) -> Board {
        let mut b = Board::blank_last(size);
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut last: Option<Dir> = None;
        let mut done = 0;
        while done < steps {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let d = Dir::ALL[(x >> 33) as usize % 4];
            if last == Some(d.opposite()) {
                continue;
            }
            if b.apply(d).is_some() {
                last = Some(d);
                done += 1;
            }
        }
        b
    }

    /// On 3x3 and 4x2 boards, whose exact MTM distances a BFS gives: every beam answer replays
    /// to the goal, its lines are its runs, it is never shorter than the optimum (which would
    /// mean a wrong path), and it beats the merged single-tile answer when that one is longer.
    #[test]
    fn beam_answers_replay_and_are_never_below_the_optimum() {
        for (size, steps) in [(Size::S3X3, 40), (Size::new(4, 2).unwrap(), 40)] {
            let goal = Board::blank_last(size);
            let h = Manhattan::new(&goal);
            for seed in 1..=12 {
                let start = walk(size, steps, seed);
                let problem = Problem::new(start.clone(), goal.clone()).unwrap();
                let optimal = lines(&bfs_mtm(&problem, &Limits::default()).unwrap().moves).len();
                let found = anytime_mtm(&problem, &h, None, 4096, &Limits::default());
                let moves = found.moves.expect("an unbounded beam finds a path");
                assert_eq!(replay(&start, &moves).unwrap().0, goal);
                let len = lines(&moves).len();
                assert!(len >= optimal, "{size} seed {seed}: {len} lines, optimum {optimal}");
                // A wide beam on boards this small is near the optimum.
                assert!(len <= optimal + 2, "{size} seed {seed}: {len} lines, optimum {optimal}");
            }
        }
    }

    /// Each run is pruned by the incumbent: an answer is returned only when it has fewer lines.
    #[test]
    fn an_incumbent_is_only_replaced_by_fewer_lines() {
        let size = Size::S4X4;
        let goal = Board::blank_last(size);
        let h = LinearConflict::new(&goal);
        for seed in 1..=6 {
            let start = walk(size, 80, seed);
            let problem = Problem::new(start.clone(), goal.clone()).unwrap();
            let first = anytime_mtm(&problem, &h, None, 1024, &Limits::default()).moves.unwrap();
            let again = anytime_mtm(&problem, &h, Some(&first), 4096, &Limits::default());
            if let Some(m) = again.moves {
                assert!(lines(&m).len() < lines(&first).len());
                assert_eq!(replay(&start, &m).unwrap().0, goal);
            }
        }
    }

    /// A deadline already passed stops the runs at once, with no answer and no panic.
    #[test]
    fn a_passed_deadline_stops_it() {
        let size = Size::new(6, 6).unwrap();
        let goal = Board::blank_last(size);
        let h = LinearConflict::new(&goal);
        let start = walk(size, 400, 3);
        let problem = Problem::new(start, goal).unwrap();
        let limits = Limits { deadline: Some(Instant::now()), ..Limits::default() };
        assert!(anytime_mtm(&problem, &h, None, 4096, &limits).moves.is_none());
    }
}
