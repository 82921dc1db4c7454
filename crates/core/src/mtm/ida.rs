//! IDA* in the multi-tile metric with colour tables: the 4x4's optimal MTM search.
//!
//! - **Children.** A node's children slide 1 to `k` tiles of the blank's row or column toward
//!   it. Children on the axis of the move that made the node are skipped (two slides of one
//!   line compose to one slide of it, or to nothing), so a node of the 4x4 has 3 children (the
//!   root 6). A child is stepped from its parent: the board is 16 nibbles in a `u64`, and the
//!   views' ranks ([`Slots`]) change by one multiply-add each per single-tile step.
//! - **Reads a level ahead** (as the single-tile search, `search/ida.rs`): when a node's
//!   children have been read, the children of every child within the bound are stepped and
//!   their table entries prefetched before the search descends into the first, so that those
//!   random reads overlap. Nodes are counted when their parent is expanded.
//! - **Estimates** are the maximum over the node's views, read until one puts the child over
//!   the bound. The views disagree (the dual ones are not consistent with each other), so
//!   bidirectional pathmax applies (BPMX, Felner et al. 2011): a child's estimate minus one
//!   bounds its parent's, in MTM as in STM since every move costs one, and the parent's minus
//!   one bounds its children's; a subtree that returns with a raised estimate can cut its
//!   remaining siblings. Children are searched cheapest first.
//!
//! The answer is optimal because every estimate is admissible (`views.rs`) and pathmax keeps
//! admissible values admissible.

use std::time::Instant;

use super::views::{ColourViews, MAX_LOOKS, Slots};
use crate::moves::Dir;
use crate::pdb::prefetch;
use crate::search::{LimitKind, Limits, Problem, SearchError, Solution, Stats};

/// How often (in nodes generated) the limits are checked.
const CHECK_EVERY: u64 = 1 << 14;

/// No neighbour.
const NONE: u8 = u8::MAX;

/// A child: its board and views, the lookups it needs, and the line that made it.
#[derive(Clone, Copy)]
struct Kid {
    board: u64,
    slots: Slots,
    index: [u32; MAX_LOOKS],
    table: [u8; MAX_LOOKS],
    looks: u8,
    blank: u8,
    dir: u8,
    len: u8,
    h: u32,
}

const EMPTY: Kid = Kid {
    board: 0,
    slots: [0; super::views::SLOTS],
    index: [0; MAX_LOOKS],
    table: [0; MAX_LOOKS],
    looks: 0,
    blank: 0,
    dir: 0,
    len: 0,
    h: 0,
};

/// What a subtree came to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Flow {
    /// No solution within the bound; the node's estimate, raised by pathmax.
    Done(u32),
    Found,
    Stop,
}

/// The axis of a direction: 0 vertical, 1 horizontal.
#[inline(always)]
fn axis(d: usize) -> usize {
    usize::from(d == Dir::Left as usize || d == Dir::Right as usize)
}

struct Search<'a> {
    views: &'a ColourViews,
    entries: Vec<&'a [u8]>,
    limits: &'a Limits,
    next: [[u8; 4]; 16],
    goal: u64,
    /// The most children of a node (the root's), the width of a level's stride.
    width: usize,
    /// Per depth, the children of each child of the node being expanded there:
    /// `levels[(depth * width + slot) * width + i]`.
    levels: Vec<Kid>,
    path: Vec<Dir>,
    bound: u32,
    next_bound: u32,
    stats: Stats,
    check_at: u64,
    stop: Option<LimitKind>,
}

/// The board as nibbles, cell `c` in bits `4c..4c+4`.
fn pack(cells: &[u8]) -> u64 {
    cells.iter().enumerate().fold(0, |acc, (c, &t)| acc | u64::from(t) << (4 * c))
}

#[inline(always)]
fn tile_at(board: u64, c: usize) -> usize {
    (board >> (4 * c) & 15) as usize
}

/// IDA* with `views` (of the problem's goal): an optimal MTM solution.
pub(super) fn ida_colour(
    problem: &Problem,
    views: &ColourViews,
    limits: &Limits,
) -> Result<Solution, SearchError> {
    let started = Instant::now();
    let start = problem.start();
    let size = start.size();
    let n = size.cells();
    let mut next = [[NONE; 4]; 16];
    for (c, row) in next.iter_mut().enumerate().take(n) {
        for d in Dir::ALL {
            row[d as usize] = d.neighbor(size, c).map_or(NONE, |x| x as u8);
        }
    }
    let (w, h) = (size.width(), size.height());
    let width = (w - 1) + (h - 1);
    let mut s = Search {
        views,
        entries: views.tables().iter().map(|t| t.entries()).collect(),
        limits,
        next,
        goal: pack(problem.goal().cells()),
        width,
        levels: Vec::new(),
        path: Vec::with_capacity(256),
        bound: 0,
        next_bound: u32::MAX,
        stats: Stats { generated: 1, ..Stats::default() },
        check_at: CHECK_EVERY,
        stop: None,
    };
    let board = pack(start.cells());
    let slots = views.start(start.cells());
    let initial_h = views.estimate(start.cells());
    let finish = |s: Search<'_>| {
        let mut stats = s.stats;
        stats.elapsed = started.elapsed();
        let tiles = crate::search::replay(start, &s.path).map(|(_, t)| t).unwrap_or_default();
        Solution { moves: s.path, tiles, optimal: true, initial_h, stats }
    };
    if board == s.goal {
        return Ok(finish(s));
    }
    let mut bound = initial_h;
    loop {
        s.stats.thresholds.push(bound);
        if let Some(p) = &limits.progress {
            p.iteration(bound, s.stats.generated);
        }
        s.bound = bound;
        s.next_bound = u32::MAX;
        s.path.clear();
        s.ensure(0);
        let count = s.step_kids(board, &slots, start.blank(), 2, 0, 0);
        match s.expand(0, 0, count, initial_h, 0) {
            Flow::Found => return Ok(finish(s)),
            Flow::Stop => {
                let mut stats = s.stats;
                stats.elapsed = started.elapsed();
                let kind = s.stop.unwrap_or(LimitKind::Cancelled);
                return Err(SearchError::LimitReached { kind, lower_bound: bound, stats });
            }
            Flow::Done(_) => {
                if s.next_bound == u32::MAX {
                    return Err(SearchError::NotApplicable(
                        "the MTM search found no path (unsolvable position)".to_string(),
                    ));
                }
                bound = s.next_bound;
            }
        }
    }
}

impl Search<'_> {
    /// Makes room for the children of the children at `depth`.
    fn ensure(&mut self, depth: usize) {
        let need = (depth + 1) * self.width * self.width;
        if self.levels.len() < need {
            self.levels.resize(need, EMPTY);
        }
    }

    #[inline(always)]
    fn note(&mut self, f: u32) {
        self.next_bound = self.next_bound.min(f);
    }

    /// Steps the children of the node with `board`, `slots` and the blank on `blank` into
    /// `levels[depth][slot]`, skipping the axis `skip` (2: none), and prefetches their entries.
    #[inline(always)]
    fn step_kids(
        &mut self,
        board: u64,
        slots: &Slots,
        blank: usize,
        skip: usize,
        depth: usize,
        slot: usize,
    ) -> usize {
        let base = (depth * self.width + slot) * self.width;
        let views = self.views;
        let mut count = 0;
        for d in 0..4 {
            if axis(d) == skip {
                continue;
            }
            let mut bd = board;
            let mut s = *slots;
            let mut b = blank;
            let mut len = 0;
            loop {
                let to = self.next[b][d];
                if to == NONE {
                    break;
                }
                let to = to as usize;
                let t = tile_at(bd, to) as u64;
                bd ^= t << (4 * b) | t << (4 * to);
                views.step(&mut s, b, to, t as usize);
                b = to;
                len += 1;
                let kid = &mut self.levels[base + count];
                kid.board = bd;
                kid.slots = s;
                kid.blank = b as u8;
                kid.dir = d as u8;
                kid.len = len;
                let mut looks = [(0u8, 0u32); MAX_LOOKS];
                let k = views.indices(&s, b, |c| tile_at(bd, c), &mut looks);
                kid.looks = k as u8;
                for (j, &(t, i)) in looks[..k].iter().enumerate() {
                    kid.table[j] = t;
                    kid.index[j] = i;
                    if let Some(e) = self.entries[t as usize].get(i as usize) {
                        prefetch(e);
                    }
                }
                count += 1;
            }
        }
        count
    }

    /// Publishes progress and checks the limits; true if the search must stop.
    #[cold]
    fn checkpoint(&mut self) -> bool {
        let limits = self.limits;
        let total = self.stats.generated;
        if let Some(p) = &limits.progress {
            p.seen(total);
        }
        self.check_at = total + CHECK_EVERY;
        if let Some(max) = limits.max_nodes {
            if total >= max {
                self.stop = Some(LimitKind::Nodes);
                return true;
            }
            self.check_at = self.check_at.min(max);
        }
        if let Some(kind) = limits.check_slow() {
            self.stop = Some(kind);
            return true;
        }
        false
    }

    /// Expands the node at depth `g` (`depth`) with estimate `h`, whose `count` children are
    /// stepped and prefetched in `levels[depth][slot]`.
    fn expand(&mut self, depth: usize, slot: usize, count: usize, h: u32, g: u32) -> Flow {
        self.stats.expanded += 1;
        self.stats.generated += count as u64;
        if self.stats.generated >= self.check_at && self.checkpoint() {
            return Flow::Stop;
        }
        let base = (depth * self.width + slot) * self.width;
        let bound = self.bound;
        // A child with an estimate above `room` is over the bound.
        let room = bound.saturating_sub(g + 1);
        let mut hmax = 0;
        let mut reads = 0;
        for i in 0..count {
            let kid = &self.levels[base + i];
            let mut kh = 0u32;
            for j in 0..kid.looks as usize {
                let e = self.entries[kid.table[j] as usize][kid.index[j] as usize];
                reads += 1;
                kh = kh.max(u32::from(e));
                if kh > room {
                    break;
                }
            }
            self.levels[base + i].h = kh;
            hmax = hmax.max(kh);
        }
        self.stats.lookups += reads;
        let mut hp = h.max(hmax.saturating_sub(1));
        if g + hp > bound {
            self.note(g + hp);
            return Flow::Done(hp);
        }
        // Cheapest first (stable: ties keep the direction order).
        let mut order = [0u8; 16];
        let mut keys = [0u64; 16];
        for (i, key) in keys.iter_mut().enumerate().take(count) {
            let kh = self.levels[base + i].h.max(hp.saturating_sub(1));
            *key = u64::from(kh) << 8 | i as u64;
        }
        keys[..count].sort_unstable();
        let mut within = 0;
        for (i, &k) in keys[..count].iter().enumerate() {
            order[i] = k as u8;
            if g + 1 + (k >> 8) as u32 <= bound {
                within += 1;
            }
        }
        if within < count {
            self.note(g + 1 + (keys[within] >> 8) as u32);
        }
        if within == 0 {
            return Flow::Done(hp);
        }
        self.ensure(depth + 1);
        let mut grand = [0usize; 16];
        for &i in &order[..within] {
            let i = i as usize;
            let kid = self.levels[base + i];
            grand[i] = self.step_kids(
                kid.board,
                &kid.slots,
                kid.blank as usize,
                axis(kid.dir as usize),
                depth + 1,
                i,
            );
        }
        for &i in &order[..within] {
            let i = i as usize;
            let kid = &self.levels[base + i];
            let (board, dir, len) = (kid.board, kid.dir, kid.len);
            let kh = kid.h.max(hp.saturating_sub(1));
            if g + 1 + kh > bound {
                // Raised by a sibling's subtree (pathmax): this child and the rest are over.
                self.note(g + 1 + kh);
                break;
            }
            let mark = self.path.len();
            for _ in 0..len {
                self.path.push(Dir::ALL[dir as usize]);
            }
            if kh == 0 && board == self.goal {
                return Flow::Found;
            }
            match self.expand(depth + 1, i, grand[i], kh, g + 1) {
                Flow::Found => return Flow::Found,
                Flow::Stop => return Flow::Stop,
                Flow::Done(hc) => {
                    hp = hp.max(hc.saturating_sub(1));
                    if g + hp > bound {
                        self.note(g + hp);
                        self.path.truncate(mark);
                        return Flow::Done(hp);
                    }
                }
            }
            self.path.truncate(mark);
        }
        Flow::Done(hp)
    }
}
