//! IDA* in the multi-tile metric with colour tables: the 4x4's optimal MTM search.
//!
//! - **Children.** A node's children slide 1 to `k` tiles of the blank's row or column toward
//!   it. Children on the axis of the move that made the node are skipped (two slides of one
//!   line compose to one slide of it, or to nothing), so a node of the 4x4 has 3 children (the
//!   root 6). So are the children whose line completes a string with an earlier twin
//!   (`prune.rs`; each child carries its state in that machine), on the iterations that are
//!   split (below; short searches do not pay for the machine's reads). A child is stepped
//!   from its parent: the board is 16 nibbles in a `u64`, and the views' ranks ([`Slots`])
//!   change by one multiply-add each per single-tile step.
//! - **Reads a level ahead** (as the single-tile search, `search/ida.rs`): when a node's
//!   children have been read, the children of every child within the bound are stepped and
//!   their table entries prefetched, so that those random reads overlap. Nodes are counted
//!   when their parent is expanded.
//! - **Estimates** are the maximum over the node's views, read until one puts the child two over
//!   its room (pathmax then closes the parent as well). The views disagree (the dual ones are not
//!   consistent with each other), so bidirectional pathmax applies (BPMX, Felner et al. 2011): a
//!   child's estimate minus one bounds its parent's, in MTM as in STM since every move costs one,
//!   and the parent's minus one bounds its children's; a subtree that returns with a raised
//!   estimate can cut its remaining siblings. Children are searched cheapest first.
//! - **Frames.** The depth-first search is a loop over an explicit stack of frames that can
//!   stop after any expansion ([`Search::tick`]), so that several searches could share a
//!   thread (interleaving positions, as the single-tile search's lanes do, did not pay here:
//!   `docs/performance.md`).
//!
//! - **Threads.** An iteration that follows one of [`SPLIT_AFTER`] nodes or more (so not those
//!   of a search that ends in a tenth of a second) is split: the nodes within the bound a few
//!   moves deep (about [`SUBTREES`], whatever the thread count) become subtrees, in the order
//!   the depth-first search meets them, and `limits.threads` threads take them in turn, each
//!   subtree one iteration of the same search from its root. The answer is the solution of the
//!   first subtree in that order that has one (a thread drops a later subtree once an earlier
//!   one has an answer), so it is the same for every thread count; node limits are counted over
//!   all threads. A split loses only pathmax between the subtrees' roots, which is admissible
//!   either way.
//!
//! The answer is optimal because every estimate is admissible (`views.rs`) and pathmax keeps
//! admissible values admissible.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::prune::{LineFsm, PRUNE};
use super::views::{ColourViews, MAX_LOOKS, Slots, slots_for};
use crate::moves::Dir;
use crate::pdb::prefetch;
use crate::search::{LimitKind, Limits, Problem, SearchError, Solution, Stats};

/// How often (in nodes generated) the search checks its limits.
const CHECK_EVERY: u64 = 1 << 14;

/// No neighbour.
const NONE: u8 = u8::MAX;

/// The most children of a node (of the root of a 2x8 board: 1 + 7).
const MAX_KIDS: usize = 16;

/// A child: its board and views, the lookups it needs, and the line that made it.
#[derive(Clone, Copy)]
struct Kid<const S: usize> {
    board: u64,
    slots: Slots<S>,
    index: [u32; MAX_LOOKS],
    table: [u8; MAX_LOOKS],
    looks: u8,
    blank: u8,
    dir: u8,
    len: u8,
    /// The estimate (at most a table entry raised by pathmax: 16 bits hold it).
    h: u16,
    /// The state of the duplicate-path machine after the line that made this child.
    fsm: u16,
}

impl<const S: usize> Kid<S> {
    const EMPTY: Kid<S> = Kid {
        board: 0,
        slots: [0; S],
        index: [0; MAX_LOOKS],
        table: [0; MAX_LOOKS],
        looks: 0,
        blank: 0,
        dir: 0,
        len: 0,
        h: 0,
        fsm: LineFsm::START as u16,
    };
}

/// The axis of a direction: 0 vertical, 1 horizontal.
#[inline(always)]
fn axis(d: usize) -> usize {
    usize::from(d == Dir::Left as usize || d == Dir::Right as usize)
}

/// The board as nibbles, cell `c` in bits `4c..4c+4`.
fn pack(cells: &[u8]) -> u64 {
    cells.iter().enumerate().fold(0, |acc, (c, &t)| acc | u64::from(t) << (4 * c))
}

#[inline(always)]
fn tile_at(board: u64, c: usize) -> usize {
    (board >> (4 * c) & 15) as usize
}

/// What the search reads and never changes.
struct Shared<'a, const S: usize> {
    views: &'a ColourViews,
    fsm: &'a LineFsm,
    entries: Vec<&'a [u8]>,
    next: [[u8; 4]; 16],
    /// The most children of the root, and of any other node.
    root_kids: usize,
    kids: usize,
}

impl<'a, const S: usize> Shared<'a, S> {
    fn new(views: &'a ColourViews, fsm: &'a LineFsm) -> Shared<'a, S> {
        // Split tables' indices need the subclasses' slots (`ColourViews::indices`).
        assert_eq!(S, slots_for(views.is_split()), "slots of the wrong count for these tables");
        let size = views.size();
        let mut next = [[NONE; 4]; 16];
        for (c, row) in next.iter_mut().enumerate().take(size.cells()) {
            for d in Dir::ALL {
                row[d as usize] = d.neighbor(size, c).map_or(NONE, |x| x as u8);
            }
        }
        let (w, h) = (size.width(), size.height());
        Shared {
            views,
            fsm,
            entries: views.tables().iter().map(|t| t.entries()).collect(),
            next,
            root_kids: (w - 1) + (h - 1),
            kids: (w - 1).max(h - 1),
        }
    }

    /// Where the children of child `slot` of the node being expanded at `depth` are kept
    /// (slot 0 at depth 0: the root's children).
    #[inline(always)]
    fn base(&self, depth: usize, slot: usize) -> usize {
        match depth {
            0 => 0,
            _ => self.root_kids + (depth - 1) * self.root_kids * self.kids + slot * self.kids,
        }
    }

    /// Steps the children of `node` into `out`, skipping the axis `skip` (2: none) and the
    /// lines the duplicate-path machine rejects from the node's state, and prefetches their
    /// entries; returns how many.
    #[inline(always)]
    fn step_kids(&self, node: &Kid<S>, skip: usize, out: &mut [Kid<S>]) -> usize {
        let (board, slots, blank) = (node.board, &node.slots, node.blank as usize);
        let state = u32::from(node.fsm);
        let views = self.views;
        let narrow = skip < 2;
        let row = if narrow { self.fsm.narrow_row(state) } else { self.fsm.row(state) };
        let mut count = 0;
        for d in 0..4 {
            if axis(d) == skip {
                continue;
            }
            let first = if narrow { self.fsm.narrow_symbol(d, 1) } else { self.fsm.symbol(d, 1) };
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
                let fsm = u32::from(row[first + len as usize - 1]);
                if fsm == PRUNE {
                    continue;
                }
                let kid = &mut out[count];
                kid.fsm = fsm as u16;
                kid.board = bd;
                kid.slots = s;
                kid.blank = b as u8;
                kid.dir = d as u8;
                kid.len = len;
                let k = views.indices(&s, b, |c| tile_at(bd, c), &mut kid.table, &mut kid.index);
                kid.looks = k as u8;
                for (&t, &i) in kid.table[..k].iter().zip(&kid.index[..k]) {
                    if let Some(e) = self.entries[t as usize].get(i as usize) {
                        prefetch(e);
                    }
                }
                count += 1;
            }
        }
        count
    }
}

/// What the search's last step came to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tick {
    /// More to search.
    Busy,
    /// The path reaches the goal.
    Found,
    /// A limit stopped the search.
    Stopped(LimitKind),
    /// The last iteration found nothing, and nothing lies beyond its bound.
    Exhausted,
}

/// The expansion the search does next: the node at `depth` (moves from the root) whose `count`
/// children were stepped into the slots from `base`, with estimate `h`.
#[derive(Clone, Copy, Default)]
struct Next {
    depth: usize,
    base: usize,
    count: usize,
    h: u32,
}

/// A node being expanded: what a recursive search keeps on its call stack.
#[derive(Clone, Copy)]
struct Frame {
    depth: usize,
    base: usize,
    /// The node's estimate, raised by pathmax.
    hp: u32,
    /// The children within the bound, cheapest first, and how many have been entered.
    order: [u8; MAX_KIDS],
    within: usize,
    entered: usize,
    /// How many children each child has (stepped from `base(depth + 1, i)`).
    grand: [u8; MAX_KIDS],
    /// The path's length at this node.
    mark: usize,
}

/// One position's IDA*, resumable after any expansion.
struct Search<const S: usize> {
    limits: Limits,
    goal: u64,
    root: Kid<S>,
    root_h: u32,
    /// The root's moves from the position (a subtree's root; 0 for the position itself), its
    /// depth, and the axis of its last move (2: none).
    prefix: usize,
    g0: u32,
    skip: usize,
    /// Searches one iteration only (a subtree of a split iteration): its end is `Exhausted`.
    single: bool,
    levels: Vec<Kid<S>>,
    frames: Vec<Frame>,
    path: Vec<Dir>,
    next: Next,
    bound: u32,
    next_bound: u32,
    stats: Stats,
    check_at: u64,
}

impl<const S: usize> Search<S> {
    /// The search of `problem`, on its first iteration.
    fn new(shared: &Shared<'_, S>, problem: &Problem, limits: Limits) -> (Search<S>, Tick) {
        let start = problem.start();
        let views = shared.views;
        let mut root = Kid::EMPTY;
        root.board = pack(start.cells());
        root.slots = views.start(start.cells());
        root.blank = start.blank() as u8;
        let root_h = views.estimate(start.cells());
        let mut search = Search {
            limits,
            goal: pack(problem.goal().cells()),
            root,
            root_h,
            prefix: 0,
            g0: 0,
            skip: 2,
            single: false,
            levels: Vec::new(),
            frames: Vec::new(),
            path: Vec::with_capacity(256),
            next: Next::default(),
            bound: root_h,
            next_bound: u32::MAX,
            stats: Stats { generated: 1, ..Stats::default() },
            check_at: CHECK_EVERY,
        };
        let tick = if root.board == search.goal { Tick::Found } else { search.begin(shared) };
        (search, tick)
    }

    /// Starts an iteration with the search's bound: steps and prefetches the root's children.
    fn begin(&mut self, shared: &Shared<'_, S>) -> Tick {
        if !self.single {
            self.stats.thresholds.push(self.bound);
            if let Some(p) = &self.limits.progress {
                p.iteration(self.bound, self.stats.generated);
            }
        }
        self.next_bound = u32::MAX;
        self.frames.clear();
        self.path.truncate(self.prefix);
        self.ensure(shared, 0);
        let r = self.root;
        let count = shared.step_kids(&r, self.skip, &mut self.levels[..shared.root_kids]);
        self.next = Next { depth: 0, base: 0, count, h: self.root_h };
        Tick::Busy
    }

    /// Makes room for the children of the children of a node at `depth`.
    fn ensure(&mut self, shared: &Shared<'_, S>, depth: usize) {
        let need = shared.base(depth + 1, shared.root_kids);
        if self.levels.len() < need {
            self.levels.resize(need, Kid::EMPTY);
        }
    }

    #[inline(always)]
    fn note(&mut self, f: u32) {
        self.next_bound = self.next_bound.min(f);
    }

    /// Counts the next expansion's children, checks the limits when due, expands it and walks
    /// to the one after.
    #[inline(always)]
    fn tick(&mut self, shared: &Shared<'_, S>) -> Tick {
        self.stats.expanded += 1;
        self.stats.generated += self.next.count as u64;
        if self.stats.generated >= self.check_at
            && let Some(kind) = self.check()
        {
            return Tick::Stopped(kind);
        }
        let returned = self.expand(shared);
        self.resume(shared, returned)
    }

    /// Publishes progress and checks the limits; sets when to check next.
    #[cold]
    fn check(&mut self) -> Option<LimitKind> {
        self.limits.check_count(self.stats.generated, CHECK_EVERY, &mut self.check_at)
    }

    /// Expands the next node: reads its children's entries, applies pathmax, and steps and
    /// prefetches the children of each child within the bound. Pushes the node's frame, or
    /// returns its (raised) estimate if no child is within the bound.
    #[inline(always)]
    fn expand(&mut self, shared: &Shared<'_, S>) -> Option<u32> {
        let Next { depth, base, count, h } = self.next;
        let g = depth as u32 + self.g0;
        let bound = self.bound;
        // A child with an estimate above `room` is over the bound; one above `room + 2` also
        // puts its parent over (pathmax), so reads stop there.
        let room = bound.saturating_sub(g + 1);
        let mut hmax = 0;
        let mut reads = 0;
        for kid in &mut self.levels[base..base + count] {
            let mut kh = 0u32;
            for j in 0..kid.looks as usize {
                let e = shared.entries[kid.table[j] as usize][kid.index[j] as usize];
                reads += 1;
                kh = kh.max(u32::from(e));
                if kh > room + 2 {
                    break;
                }
            }
            kid.h = kh as u16;
            hmax = hmax.max(kh);
        }
        self.stats.lookups += reads;
        let hp = h.max(hmax.saturating_sub(1));
        if g + hp > bound {
            self.note(g + hp);
            return Some(hp);
        }
        // Cheapest first (ties in the direction order).
        let floor = hp.saturating_sub(1);
        let mut keys = [u64::MAX; MAX_KIDS];
        for (i, (key, kid)) in keys.iter_mut().zip(&self.levels[base..base + count]).enumerate() {
            *key = u64::from(u32::from(kid.h).max(floor)) << 8 | i as u64;
        }
        if count == 3 {
            // A network of compare-exchanges: which child is cheaper is data the branch
            // predictor cannot guess.
            for (a, b) in [(0, 1), (1, 2), (0, 1)] {
                let (x, y) = (keys[a], keys[b]);
                keys[a] = x.min(y);
                keys[b] = x.max(y);
            }
        } else {
            keys[..count].sort_unstable();
        }
        let mut order = [0u8; MAX_KIDS];
        let mut within = 0;
        for (o, &k) in order.iter_mut().zip(&keys[..count]) {
            *o = k as u8;
            within += usize::from(g + 1 + (k >> 8) as u32 <= bound);
        }
        if within < count {
            self.note(g + 1 + (keys[within] >> 8) as u32);
        }
        if within == 0 {
            return Some(hp);
        }
        self.ensure(shared, depth);
        let mut grand = [0u8; MAX_KIDS];
        for &i in &order[..within] {
            let i = i as usize;
            let to = shared.base(depth + 1, i);
            // The grandchildren lie after the children.
            let (done, deeper) = self.levels.split_at_mut(to);
            let kid = &done[base + i];
            grand[i] =
                shared.step_kids(kid, axis(kid.dir as usize), &mut deeper[..shared.kids]) as u8;
        }
        let mark = self.path.len();
        self.frames.push(Frame { depth, base, hp, order, within, entered: 0, grand, mark });
        None
    }

    /// Walks to the next node to expand: hands a returned estimate to the frame above (pathmax
    /// may close it), enters the frame's next child, or closes finished frames. At the end of
    /// an iteration starts the next one.
    #[inline(always)]
    fn resume(&mut self, shared: &Shared<'_, S>, mut returned: Option<u32>) -> Tick {
        let bound = self.bound;
        loop {
            let Some(f) = self.frames.last_mut() else {
                if self.single || self.next_bound == u32::MAX {
                    return Tick::Exhausted;
                }
                self.bound = self.next_bound;
                return self.begin(shared);
            };
            let g = f.depth as u32 + self.g0;
            self.path.truncate(f.mark);
            if let Some(hc) = returned.take() {
                f.hp = f.hp.max(hc.saturating_sub(1));
            }
            if g + f.hp > bound {
                let hp = f.hp;
                self.frames.pop();
                self.note(g + hp);
                returned = Some(hp);
                continue;
            }
            if f.entered == f.within {
                returned = Some(f.hp);
                self.frames.pop();
                continue;
            }
            let i = f.order[f.entered] as usize;
            f.entered += 1;
            let kid = &self.levels[f.base + i];
            let kh = u32::from(kid.h).max(f.hp.saturating_sub(1));
            if g + 1 + kh > bound {
                // Raised by a sibling's subtree (pathmax): this child and the rest are over.
                f.entered = f.within;
                self.next_bound = self.next_bound.min(g + 1 + kh);
                continue;
            }
            let (board, dir, len) = (kid.board, kid.dir, kid.len);
            let depth = f.depth + 1;
            self.next =
                Next { depth, base: shared.base(depth, i), count: f.grand[i] as usize, h: kh };
            for _ in 0..len {
                self.path.push(Dir::ALL[dir as usize]);
            }
            if kh == 0 && board == self.goal {
                return Tick::Found;
            }
            return Tick::Busy;
        }
    }

    /// The answer of a search that ended with `end` after `elapsed`.
    fn finish(
        &mut self,
        problem: &Problem,
        end: Tick,
        elapsed: Duration,
    ) -> Result<Solution, SearchError> {
        let mut stats = std::mem::take(&mut self.stats);
        stats.elapsed = elapsed;
        match end {
            Tick::Found => {
                let moves = std::mem::take(&mut self.path);
                let (_, tiles) = crate::search::replay(problem.start(), &moves)
                    .ok_or_else(|| SearchError::NotApplicable("internal error: bad path".into()))?;
                Ok(Solution { moves, tiles, optimal: true, initial_h: self.root_h, stats })
            }
            Tick::Stopped(kind) => {
                Err(SearchError::LimitReached { kind, lower_bound: self.bound, stats })
            }
            _ => Err(SearchError::NotApplicable(
                "the MTM search found no path (unsolvable position)".to_string(),
            )),
        }
    }
}

/// Subtrees a split iteration aims for, whatever the thread count: the split, and so the answer,
/// is the same for every count.
const SUBTREES: usize = 256;

/// An iteration is split when the one before generated this many nodes (about 0.1 s): short
/// searches, such as most of Korf's 100, pay nothing for the split.
pub(super) const SPLIT_AFTER: u64 = 1 << 20;

/// The root of one subtree of a split iteration: the node (its estimate in `kid.h`), its depth,
/// the axis of its last move (2: none) and its moves from the position.
#[derive(Clone)]
struct SubRoot<const S: usize> {
    kid: Kid<S>,
    g: u32,
    skip: usize,
    moves: Vec<Dir>,
}

impl<const S: usize> Search<S> {
    /// Starts one iteration, with f-bound `bound`, of the subtree under `sub`.
    fn subtree(&mut self, shared: &Shared<'_, S>, sub: &SubRoot<S>, bound: u32) -> Tick {
        self.single = true;
        self.root = sub.kid;
        self.root_h = u32::from(sub.kid.h);
        self.g0 = sub.g;
        self.skip = sub.skip;
        self.path.clear();
        self.path.extend_from_slice(&sub.moves);
        self.prefix = sub.moves.len();
        self.bound = bound;
        self.check_at = self.stats.generated + CHECK_EVERY;
        if sub.kid.h == 0 && sub.kid.board == self.goal {
            return Tick::Found;
        }
        self.begin(shared)
    }
}

/// Appends the children of `node` within `bound` to `out`, in the order the search enters
/// them (as [`Search::expand`] orders them); a goal node is kept as its own subtree.
fn children_of<const S: usize>(
    shared: &Shared<'_, S>,
    node: &SubRoot<S>,
    bound: u32,
    goal: u64,
    out: &mut Vec<SubRoot<S>>,
    next_bound: &mut u32,
    stats: &mut Stats,
) {
    if node.kid.h == 0 && node.kid.board == goal {
        out.push(node.clone());
        return;
    }
    let mut kids = [Kid::EMPTY; MAX_KIDS];
    let n = &node.kid;
    let count = shared.step_kids(n, node.skip, &mut kids);
    stats.expanded += 1;
    stats.generated += count as u64;
    let g = node.g;
    let room = bound.saturating_sub(g + 1);
    let mut hmax = 0;
    for kid in &mut kids[..count] {
        let mut kh = 0u32;
        for j in 0..kid.looks as usize {
            stats.lookups += 1;
            kh = kh.max(u32::from(shared.entries[kid.table[j] as usize][kid.index[j] as usize]));
            if kh > room + 2 {
                break;
            }
        }
        kid.h = kh as u16;
        hmax = hmax.max(kh);
    }
    let hp = u32::from(n.h).max(hmax.saturating_sub(1));
    if g + hp > bound {
        *next_bound = (*next_bound).min(g + hp);
        return;
    }
    let floor = hp.saturating_sub(1);
    let mut keys = [u64::MAX; MAX_KIDS];
    for (i, (key, kid)) in keys.iter_mut().zip(&kids[..count]).enumerate() {
        *key = u64::from(u32::from(kid.h).max(floor)) << 8 | i as u64;
    }
    keys[..count].sort_unstable();
    for &k in &keys[..count] {
        let kh = (k >> 8) as u32;
        if g + 1 + kh > bound {
            *next_bound = (*next_bound).min(g + 1 + kh);
            break;
        }
        let mut kid = kids[k as u8 as usize];
        kid.h = kh as u16;
        let mut moves = node.moves.clone();
        moves.extend(std::iter::repeat_n(Dir::ALL[kid.dir as usize], usize::from(kid.len)));
        out.push(SubRoot { kid, g: g + 1, skip: axis(kid.dir as usize), moves });
    }
}

/// What the threads of a split iteration share.
struct Split<const S: usize> {
    frontier: Vec<SubRoot<S>>,
    bound: u32,
    /// The next subtree to take, the first with a solution, and whether a node limit stopped
    /// the search.
    next: AtomicUsize,
    best: AtomicUsize,
    halt: AtomicBool,
    found: Mutex<Vec<(usize, Vec<Dir>)>>,
    /// The iteration's totals: the next bound, its statistics, and the limit that stopped it.
    totals: Mutex<(u32, Stats, Option<LimitKind>)>,
}

/// One thread's share of a split iteration: subtrees taken in turn until none is left or an
/// earlier one has a solution.
fn split_work<const S: usize>(
    shared: &Shared<'_, S>,
    split: &Split<S>,
    search: &mut Search<S>,
    limits: &Limits,
    total: &AtomicU64,
) {
    let mut next_bound = u32::MAX;
    let mut stop = None;
    let mut published = search.stats.generated;
    'take: loop {
        let i = split.next.fetch_add(1, Ordering::Relaxed);
        if i >= split.frontier.len() || i > split.best.load(Ordering::Relaxed) {
            break;
        }
        let mut tick = search.subtree(shared, &split.frontier[i], split.bound);
        let mut check_at = published + CHECK_EVERY;
        while tick == Tick::Busy {
            tick = search.tick(shared);
            if search.stats.generated >= check_at {
                let now = total.fetch_add(search.stats.generated - published, Ordering::Relaxed)
                    + (search.stats.generated - published);
                published = search.stats.generated;
                check_at = published + CHECK_EVERY;
                if let Some(p) = &limits.progress {
                    p.seen(now);
                }
                if limits.max_nodes.is_some_and(|max| now >= max) {
                    split.halt.store(true, Ordering::Relaxed);
                    stop = Some(LimitKind::Nodes);
                    break 'take;
                }
                if split.halt.load(Ordering::Relaxed) {
                    break 'take;
                }
                if split.best.load(Ordering::Relaxed) < i {
                    continue 'take;
                }
            }
        }
        match tick {
            Tick::Found => {
                split.best.fetch_min(i, Ordering::Relaxed);
                if let Ok(mut f) = split.found.lock() {
                    f.push((i, search.path.clone()));
                }
            }
            Tick::Stopped(kind) => {
                stop = Some(kind);
                break;
            }
            _ => next_bound = next_bound.min(search.next_bound),
        }
    }
    total.fetch_add(search.stats.generated - published, Ordering::Relaxed);
    let stats = std::mem::take(&mut search.stats);
    if let Ok(mut t) = split.totals.lock() {
        t.0 = t.0.min(next_bound);
        t.1.expanded += stats.expanded;
        t.1.generated += stats.generated;
        t.1.lookups += stats.lookups;
        t.2 = t.2.or(stop);
    }
}

/// IDA* with `views` (of the problem's goal): an optimal MTM solution. An iteration that follows
/// one of `split_after` nodes or more ([`SPLIT_AFTER`]) is split into about [`SUBTREES`]
/// subtrees, searched on `limits.threads` threads in depth-first order; the answer is the first
/// subtree's solution in that order, the same for every thread count.
pub(super) fn ida_colour(
    problem: &Problem,
    views: &ColourViews,
    limits: &Limits,
    split_after: u64,
) -> Result<Solution, SearchError> {
    // The slots per node are a constant of the search (`views.rs`).
    if views.is_split() {
        ida_colour_with::<{ slots_for(true) }>(problem, views, limits, split_after)
    } else {
        ida_colour_with::<{ slots_for(false) }>(problem, views, limits, split_after)
    }
}

/// [`ida_colour`] carrying `S` slots per node.
fn ida_colour_with<const S: usize>(
    problem: &Problem,
    views: &ColourViews,
    limits: &Limits,
    split_after: u64,
) -> Result<Solution, SearchError> {
    // Iterations before the split prune no duplicate lines: the machine's row per child costs
    // more than it saves on short searches (docs/performance.md).
    let nothing = LineFsm::nothing(views.size());
    let shared = Shared::<S>::new(views, &nothing);
    let pruned = Shared::<S>::new(views, LineFsm::for_size(views.size()));
    let started = Instant::now();
    let threads = limits.threads.max(1);
    // The subtrees' own limits: the clock and the cancel flag; nodes and progress are counted
    // over all threads here.
    let sub_limits = Limits { max_nodes: None, progress: None, ..limits.clone() };
    let (first, tick) = Search::new(&shared, problem, sub_limits.clone());
    let root_h = first.root_h;
    let goal = first.goal;
    if tick == Tick::Found {
        let mut first = first;
        return first.finish(problem, tick, started.elapsed());
    }
    let root =
        SubRoot { kid: Kid { h: root_h as u16, ..first.root }, g: 0, skip: 2, moves: Vec::new() };
    let mut searches = vec![first];
    for _ in 1..threads {
        searches.push(Search::new(&shared, problem, sub_limits.clone()).0);
    }
    let total = AtomicU64::new(1);
    let mut stats = Stats { generated: 1, ..Stats::default() };
    let mut bound = root_h;
    // Nodes generated by the last iteration.
    let mut last = 0;
    loop {
        stats.thresholds.push(bound);
        if let Some(p) = &limits.progress {
            p.iteration(bound, total.load(Ordering::Relaxed));
        }
        let mut frontier = vec![root.clone()];
        let mut next_bound = u32::MAX;
        let mut split_stats = Stats::default();
        let (depth, shared) = if last < split_after { (0, &shared) } else { (8, &pruned) };
        for _ in 0..depth {
            if frontier.len() >= SUBTREES || frontier.is_empty() {
                break;
            }
            let mut deeper = Vec::new();
            for node in &frontier {
                children_of(
                    shared,
                    node,
                    bound,
                    goal,
                    &mut deeper,
                    &mut next_bound,
                    &mut split_stats,
                );
            }
            frontier = deeper;
        }
        total.fetch_add(split_stats.generated, Ordering::Relaxed);
        let split = Split {
            frontier,
            bound,
            next: AtomicUsize::new(0),
            best: AtomicUsize::new(usize::MAX),
            halt: AtomicBool::new(false),
            found: Mutex::new(Vec::new()),
            totals: Mutex::new((next_bound, split_stats, None)),
        };
        let (mine, others) = searches.split_first_mut().expect("one search per thread");
        let helpers = if split.frontier.len() > 1 { others.len() } else { 0 };
        std::thread::scope(|scope| {
            // A thread the system refuses to start leaves its share to the others: every thread
            // takes subtrees from the same counter, so the answer is the same, only later.
            for search in others[..helpers].iter_mut() {
                let (split, total) = (&split, &total);
                let _ = std::thread::Builder::new()
                    .spawn_scoped(scope, move || split_work(shared, split, search, limits, total));
            }
            split_work(shared, &split, mine, limits, &total);
        });
        let (next_bound, it, stop) = split.totals.into_inner().unwrap_or_default();
        last = it.generated;
        stats.expanded += it.expanded;
        stats.lookups += it.lookups;
        stats.generated = total.load(Ordering::Relaxed);
        let found = split.found.into_inner().unwrap_or_default().into_iter().min_by_key(|f| f.0);
        if let Some((_, moves)) = found {
            stats.elapsed = started.elapsed();
            let (_, tiles) = crate::search::replay(problem.start(), &moves)
                .ok_or_else(|| SearchError::NotApplicable("internal error: bad path".into()))?;
            return Ok(Solution { moves, tiles, optimal: true, initial_h: root_h, stats });
        }
        if let Some(kind) = stop {
            stats.elapsed = started.elapsed();
            return Err(SearchError::LimitReached { kind, lower_bound: bound, stats });
        }
        if next_bound == u32::MAX {
            return Err(SearchError::NotApplicable(
                "the MTM search found no path (unsolvable position)".to_string(),
            ));
        }
        bound = next_bound;
    }
}
