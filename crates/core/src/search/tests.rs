//! Tests of the searches against published optimal lengths, exhaustive 3x3 distances, and each
//! other.

use proptest::prelude::*;

use super::*;
use crate::moves::Fsm;
use crate::{Exact, Heuristic, LinearConflict, Manhattan, Misplaced, Size};

/// Every 3x3 position's distance to `goal` (indexed by rank; `u8::MAX` where unreachable), by
/// breadth-first search over ranks. Shared by the near-optimal searches' tests.
pub(super) fn distances_3x3(goal: &Board) -> Vec<u8> {
    let mut dist = vec![u8::MAX; 362_880];
    let mut queue = std::collections::VecDeque::new();
    dist[crate::pdb::rank(9, goal.cells()) as usize] = 0;
    queue.push_back(goal.clone());
    while let Some(b) = queue.pop_front() {
        let d = dist[crate::pdb::rank(9, b.cells()) as usize];
        for dir in Dir::ALL {
            let mut next = b.clone();
            if next.apply(dir).is_some() {
                let r = crate::pdb::rank(9, next.cells()) as usize;
                if dist[r] == u8::MAX {
                    dist[r] = d + 1;
                    queue.push_back(next);
                }
            }
        }
    }
    dist
}

/// Every `step`-th 3x3 position by rank from `skip` on that `dist` (of [`distances_3x3`]) says
/// reaches the goal: its rank, the board and its distance.
pub(super) fn reachable_3x3(
    dist: &[u8],
    skip: usize,
    step: usize,
) -> impl Iterator<Item = (usize, Board, u8)> + '_ {
    dist.iter().enumerate().skip(skip).step_by(step).filter(|&(_, &d)| d != u8::MAX).map(
        |(r, &d)| {
            let mut cells = [0u8; 9];
            crate::pdb::unrank(9, r as u64, &mut cells);
            (r, Board::from_cells(Size::S3X3, &cells).unwrap(), d)
        },
    )
}

/// Checks that `s` replays from `start` to `goal` with the tiles it reports.
fn assert_replays(s: &Solution, start: &Board, goal: &Board) {
    let (end, tiles) = replay(start, &s.moves).unwrap();
    assert_eq!(&end, goal, "{start:?}");
    assert_eq!(tiles, s.tiles);
}

/// The optimal length from `start` to `goal` by every optimal search and heuristic, checked to
/// agree.
fn solve_len(start: &str, goal: Board) -> usize {
    let start = Board::parse(start, None).unwrap();
    let p = Problem::new(start.clone(), goal.clone()).unwrap();
    let none = Limits::default();
    let exact = Exact::new(&goal).unwrap();
    let a = ida(&p, &Manhattan::new(&goal), &none).unwrap();
    let b = ida(&p, &LinearConflict::new(&goal), &none).unwrap();
    let c = ida(&p, &Misplaced::new(&goal), &none).unwrap();
    let d = ida(&p, &exact, &none).unwrap();
    let e = astar(&p, &Manhattan::new(&goal), &none).unwrap();
    let f = astar(&p, &LinearConflict::new(&goal), &none).unwrap();
    let g = astar(&p, &exact, &none).unwrap();
    let h = bfs(&p, &none).unwrap();
    let w = weighted_astar(&p, &LinearConflict::new(&goal), 1.0, &none).unwrap();
    for s in [&a, &b, &c, &d, &e, &f, &g, &h, &w] {
        assert_replays(s, &start, &goal);
        assert!(s.optimal);
        assert_eq!(s.len(), a.len());
    }
    assert_eq!(h.initial_h, 0);
    assert_eq!(d.initial_h as usize, a.len(), "the exact heuristic is the distance");
    a.len()
}

#[test]
fn write_up_cases() {
    let last = Board::blank_last(Size::S3X3);
    let first = Board::blank_first(Size::S3X3);
    assert_eq!(solve_len("1 2 3 4 5 6 0 7 8", last.clone()), 2);
    assert_eq!(solve_len("1 0 2 4 6 3 7 5 8", last), 5);
    assert_eq!(solve_len("8 7 6 5 4 3 2 1 0", first.clone()), 28);
    assert_eq!(solve_len("7 4 2 0 6 5 8 3 1", first), 21);
}

#[test]
fn goal_is_zero_moves() {
    let goal = Board::blank_last(Size::new(3, 4).unwrap());
    let p = Problem::new(goal.clone(), goal.clone()).unwrap();
    let s = ida(&p, &Manhattan::new(&goal), &Limits::default()).unwrap();
    assert!(s.is_empty());
    assert_eq!(s.stats.generated, 1);
}

#[test]
fn node_limit_reports_lower_bound() {
    let start = Board::parse("8 7 6 5 4 3 2 1 0", None).unwrap();
    let goal = Board::blank_first(Size::S3X3);
    let p = Problem::new(start, goal.clone()).unwrap();
    let limits = Limits { max_nodes: Some(100), ..Limits::default() };
    match ida(&p, &Manhattan::new(&goal), &limits) {
        Err(SearchError::LimitReached { kind: LimitKind::Nodes, lower_bound, stats }) => {
            assert!(lower_bound <= 28);
            assert!(lower_bound >= Manhattan::new(&goal).estimate(p.start().cells()));
            assert_eq!(stats.generated, 100);
        }
        other => panic!("expected a node limit, got {other:?}"),
    }
}

/// The board reached from `goal` by the moves in `dirs` (0..4, as in [`Dir::ALL`]) that stay on
/// the board and do not undo the move before, and how many were applied. Skipping reversals
/// keeps the walks from collapsing back towards the goal.
fn walk(goal: &Board, dirs: &[u8], max_k: usize) -> (Board, usize) {
    let mut b = goal.clone();
    let mut k = 0;
    let mut last: Option<Dir> = None;
    for &d in dirs {
        if k == max_k {
            break;
        }
        let d = Dir::ALL[d as usize % 4];
        if last.is_some_and(|l| l.opposite() == d) {
            continue;
        }
        if b.apply(d).is_some() {
            k += 1;
            last = Some(d);
        }
    }
    (b, k)
}

/// A deterministic pseudo-random walk of `steps` moves.
fn lcg_walk(goal: &Board, steps: usize, seed: u64) -> Board {
    let mut x = seed;
    // At least half the attempts apply (two or more moves stay on the board, one is a reversal).
    let dirs: Vec<u8> = (0..steps * 4)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) as u8 % 4
        })
        .collect();
    walk(goal, &dirs, steps).0
}

/// Every `step`-th 3x3 position by rank that can reach `goal`, with its exact distance.
fn sample_3x3(exact: &Exact, step: usize) -> Vec<(Board, u32)> {
    let mut cells = [0u8; 9];
    (0..362_880u64)
        .step_by(step)
        .filter_map(|index| {
            crate::pdb::unrank(9, index, &mut cells);
            let d = exact.distance(&cells)?;
            Some((Board::from_cells(Size::S3X3, &cells).unwrap(), d))
        })
        .collect()
}

#[test]
fn ida_agrees_with_exact_distances_on_a_3x3_sample() {
    let goal = Board::blank_last(Size::S3X3);
    let exact = Exact::new(&goal).unwrap();
    let (md, lc) = (Manhattan::new(&goal), LinearConflict::new(&goal));
    let sample = sample_3x3(&exact, 50);
    assert!(sample.len() > 3000);
    for (start, d) in sample {
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        for s in [ida(&p, &md, &Limits::default()), ida(&p, &lc, &Limits::default())] {
            let s = s.unwrap();
            assert_eq!(s.len() as u32, d, "{start:?}");
            assert_replays(&s, &start, &goal);
        }
    }
}

#[test]
fn ida_resumed_at_a_proven_bound_stays_optimal_and_skips_the_iterations_below() {
    // Every 3x3 distance d from 16 up, resumed at each proven bound from d - 8 to d: the same
    // length (exact, by BFS), and no more nodes than a search from the start's estimate.
    let goal = Board::blank_last(Size::S3X3);
    let exact = Exact::new(&goal).unwrap();
    let md = Manhattan::new(&goal);
    let sample: Vec<_> = sample_3x3(&exact, 997).into_iter().filter(|(_, d)| *d >= 16).collect();
    assert!(sample.len() > 100);
    for (start, d) in sample {
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let whole = ida(&p, &md, &Limits::default()).unwrap();
        for from in d - 8..=d {
            let resumed = ida::ida_from(&p, &md, &Limits::default(), from).unwrap();
            assert_eq!(resumed.len() as u32, d, "{start:?} from {from}");
            assert_replays(&resumed, &start, &goal);
            assert!(resumed.stats.generated <= whole.stats.generated, "{start:?} from {from}");
            assert!(resumed.stats.thresholds.iter().all(|&t| t >= from));
        }
    }
}

#[test]
fn astar_bfs_greedy_weighted_agree_with_exact_on_a_3x3_sample() {
    let goal = Board::blank_first(Size::S3X3);
    let exact = Exact::new(&goal).unwrap();
    let (md, lc) = (Manhattan::new(&goal), LinearConflict::new(&goal));
    let none = Limits::default();
    for (i, (start, d)) in sample_3x3(&exact, 499).into_iter().enumerate() {
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        for s in [astar(&p, &md, &none).unwrap(), astar(&p, &lc, &none).unwrap()] {
            assert_eq!(s.len() as u32, d, "{start:?}");
            assert!(s.optimal);
            assert_replays(&s, &start, &goal);
        }
        // BFS stores up to the whole space, so a tenth of the sample.
        if i % 10 == 0 {
            let s = bfs(&p, &none).unwrap();
            assert_eq!(s.len() as u32, d, "{start:?}");
            assert_replays(&s, &start, &goal);
        }
        let g = greedy(&p, &lc, &none).unwrap();
        assert!(!g.optimal);
        assert!(g.len() as u32 >= d && (g.len() as u32 - d).is_multiple_of(2));
        assert_replays(&g, &start, &goal);
        let w = weighted_astar(&p, &lc, 1.5, &none).unwrap();
        assert!(w.len() as f64 <= 1.5 * d as f64, "{start:?}: {} vs {d}", w.len());
        assert!(!w.optimal);
        assert_replays(&w, &start, &goal);
    }
}

#[test]
fn bfs_and_astar_match_exact_on_every_2x3_position() {
    let size = Size::new(2, 3).unwrap();
    let goal = Board::blank_last(size);
    let exact = Exact::new(&goal).unwrap();
    let mut cells = [0u8; 6];
    let mut solved = 0;
    for index in 0..720 {
        crate::pdb::unrank(6, index, &mut cells);
        let start = Board::from_cells(size, &cells).unwrap();
        let Ok(p) = Problem::new(start.clone(), goal.clone()) else {
            assert_eq!(exact.distance(&cells), None);
            continue;
        };
        let d = exact.distance(&cells).unwrap() as usize;
        let b = bfs(&p, &Limits::default()).unwrap();
        let a = astar(&p, &Manhattan::new(&goal), &Limits::default()).unwrap();
        assert_eq!((b.len(), a.len()), (d, d), "{start:?}");
        assert_replays(&b, &start, &goal);
        solved += 1;
    }
    assert_eq!(solved, 360);
}

/// Korf's 100 as (id, optimal length, start), goal `0 1 2 ... 15`.
fn korf100() -> Vec<(u32, usize, Board)> {
    let text =
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/instances/korf100.txt"));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let nums: Vec<u32> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();
            assert_eq!(nums.len(), 18, "{line}");
            let cells: Vec<u8> = nums[2..].iter().map(|&t| t as u8).collect();
            (nums[0], nums[1] as usize, Board::from_cells(Size::S4X4, &cells).unwrap())
        })
        .collect()
}

#[test]
fn korf_ten_shortest_with_linear_conflict() {
    let mut all = korf100();
    assert_eq!(all.len(), 100);
    all.sort_by_key(|&(id, len, _)| (len, id));
    let goal = Board::blank_first(Size::S4X4);
    let h = LinearConflict::new(&goal);
    // Two threads: the instances are independent and the suite should stay short.
    let shortest = &all[..10];
    std::thread::scope(|scope| {
        for half in shortest.chunks(5) {
            let (goal, h) = (&goal, &h);
            scope.spawn(move || {
                for (id, opt, start) in half {
                    let p = Problem::new(start.clone(), goal.clone()).unwrap();
                    let s = ida(&p, h, &Limits::default()).unwrap();
                    assert_eq!(s.len(), *opt, "Korf #{id}");
                    assert!(s.optimal);
                    assert_replays(&s, start, goal);
                }
            });
        }
    });
}

#[test]
fn weighted_and_greedy_on_easy_4x4_positions() {
    let goal = Board::blank_first(Size::S4X4);
    let lc = LinearConflict::new(&goal);
    let none = Limits::default();
    for seed in 1..=4 {
        let start = lcg_walk(&goal, 30, seed);
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let opt = ida(&p, &lc, &none).unwrap().len();
        let w = weighted_astar(&p, &lc, 1.5, &none).unwrap();
        assert!(w.len() as f64 <= 1.5 * opt as f64, "{start:?}: {} vs {opt}", w.len());
        assert_replays(&w, &start, &goal);
        let g = greedy(&p, &lc, &none).unwrap();
        assert!(!g.optimal && g.len() >= opt);
        assert_replays(&g, &start, &goal);
        let a = astar(&p, &lc, &none).unwrap();
        assert_eq!(a.len(), opt);
    }
}

#[test]
fn weighted_rejects_bad_weights() {
    let goal = Board::blank_last(Size::S3X3);
    let p = Problem::new(lcg_walk(&goal, 20, 7), goal.clone()).unwrap();
    let h = Manhattan::new(&goal);
    for w in [0.999, 0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(
            matches!(
                weighted_astar(&p, &h, w, &Limits::default()),
                Err(SearchError::NotApplicable(_))
            ),
            "{w}"
        );
    }
    // A huge finite weight is greedy in effect, not an overflow.
    let s = weighted_astar(&p, &h, 1e300, &Limits::default()).unwrap();
    assert_replays(&s, p.start(), &goal);
}

#[test]
fn astar_memory_limit_on_a_hard_4x4() {
    let (id, opt, start) = korf100().into_iter().find(|k| k.0 == 1).unwrap();
    let goal = Board::blank_first(Size::S4X4);
    let h = LinearConflict::new(&goal);
    let p = Problem::new(start, goal.clone()).unwrap();
    let limits = Limits { max_stored: Some(20_000), ..Limits::default() };
    let root_h = h.estimate(p.start().cells());
    for result in [astar(&p, &h, &limits), weighted_astar(&p, &h, 1.2, &limits), bfs(&p, &limits)] {
        match result {
            Err(SearchError::LimitReached { kind: LimitKind::Memory, lower_bound, stats }) => {
                assert!(lower_bound as usize <= opt, "Korf #{id}");
                assert!(stats.generated >= 20_000 && stats.expanded > 0);
                assert!(stats.thresholds.is_empty());
            }
            other => panic!("expected a memory limit, got {other:?}"),
        }
    }
    match astar(&p, &h, &limits) {
        Err(e @ SearchError::LimitReached { lower_bound, .. }) => {
            assert!(lower_bound >= root_h);
            assert!(e.to_string().contains("memory limit"), "{e}");
        }
        other => panic!("expected a memory limit, got {other:?}"),
    }
    let none_stored = Limits { max_stored: Some(0), ..Limits::default() };
    assert!(matches!(
        astar(&p, &h, &none_stored),
        Err(SearchError::LimitReached { kind: LimitKind::Memory, .. })
    ));
}

#[test]
fn stored_searches_respect_node_and_cancel_limits() {
    let start = Board::parse("8 7 6 5 4 3 2 1 0", None).unwrap();
    let goal = Board::blank_first(Size::S3X3);
    let p = Problem::new(start, goal.clone()).unwrap();
    let h = Manhattan::new(&goal);
    let limits = Limits { max_nodes: Some(100), ..Limits::default() };
    // Greedy needs only 44 nodes here, so it gets a tighter cap.
    let tight = Limits { max_nodes: Some(20), ..Limits::default() };
    for (result, cap) in
        [(astar(&p, &h, &limits), 100), (greedy(&p, &h, &tight), 20), (bfs(&p, &limits), 100)]
    {
        match result {
            Err(SearchError::LimitReached { kind: LimitKind::Nodes, lower_bound, stats }) => {
                assert!(lower_bound <= 28);
                assert_eq!(stats.generated, cap);
            }
            other => panic!("expected a node limit, got {other:?}"),
        }
    }
    let hard = Problem::new(korf100()[0].2.clone(), Board::blank_first(Size::S4X4)).unwrap();
    let cancelled = Limits {
        cancel: Some(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true))),
        ..Limits::default()
    };
    let lc = LinearConflict::new(hard.goal());
    assert!(matches!(
        astar(&hard, &lc, &cancelled),
        Err(SearchError::LimitReached { kind: LimitKind::Cancelled, .. })
    ));
}

#[test]
fn stored_searches_at_the_goal_and_with_a_wrong_heuristic() {
    let goal = Board::blank_last(Size::new(3, 4).unwrap());
    let p = Problem::new(goal.clone(), goal.clone()).unwrap();
    let h = Manhattan::new(&goal);
    let none = Limits::default();
    for s in [astar(&p, &h, &none), greedy(&p, &h, &none), bfs(&p, &none)] {
        let s = s.unwrap();
        assert!(s.is_empty());
        assert_eq!(s.stats.generated, 1);
    }
    let wrong = Manhattan::new(&Board::blank_last(Size::S4X4));
    assert!(matches!(astar(&p, &wrong, &none), Err(SearchError::NotApplicable(_))));
}

#[test]
fn large_boards_use_wider_keys() {
    // 5x5 packs into u128, 6x6 and 8x8 into boxed cells.
    for side in [5, 6, 8] {
        let size = Size::new(side, side).unwrap();
        let goal = Board::blank_last(size);
        let h = LinearConflict::new(&goal);
        for seed in 1..=3 {
            let start = lcg_walk(&goal, 10, seed);
            let p = Problem::new(start.clone(), goal.clone()).unwrap();
            let opt = ida(&p, &h, &Limits::default()).unwrap().len();
            let a = astar(&p, &h, &Limits::default()).unwrap();
            let b = bfs(&p, &Limits::default()).unwrap();
            assert_eq!((a.len(), b.len()), (opt, opt), "{start:?}");
            assert_replays(&a, &start, &goal);
            assert_replays(&b, &start, &goal);
        }
    }
}

#[test]
fn rectangles_match_bfs() {
    for (w, h, steps) in [(2, 3, 30), (3, 2, 30), (3, 4, 20), (4, 3, 20), (2, 5, 22), (5, 2, 22)] {
        let size = Size::new(w, h).unwrap();
        for goal in [Board::blank_last(size), Board::blank_first(size)] {
            let lc = LinearConflict::new(&goal);
            for seed in 1..=3 {
                let start = lcg_walk(&goal, steps, seed * 31 + w as u64);
                let p = Problem::new(start.clone(), goal.clone()).unwrap();
                let i = ida(&p, &lc, &Limits::default()).unwrap();
                let b = bfs(&p, &Limits::default()).unwrap();
                assert_eq!(i.len(), b.len(), "{start:?}");
                assert_replays(&i, &start, &goal);
                assert_replays(&b, &start, &goal);
            }
        }
    }
}

/// Solves a `k`-move walk with IDA* and linear conflict: at most `k` moves, same parity.
fn check_walk(size: Size, dirs: &[u8], max_k: usize) -> Result<(), TestCaseError> {
    let goal = Board::blank_last(size);
    let (start, k) = walk(&goal, dirs, max_k);
    let p = Problem::new(start.clone(), goal.clone()).unwrap();
    let s = ida(&p, &LinearConflict::new(&goal), &Limits::default()).unwrap();
    prop_assert!(s.len() <= k, "{start:?}: {} > {k}", s.len());
    prop_assert_eq!(s.len() % 2, k % 2);
    let (end, _) = replay(&start, &s.moves).unwrap();
    prop_assert_eq!(end, goal);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_walks_on_squares(dirs in proptest::collection::vec(0u8..4, 0..=90), big in any::<bool>()) {
        check_walk(if big { Size::S4X4 } else { Size::S3X3 }, &dirs, 30)?;
    }

    #[test]
    fn random_walks_on_rectangles(dirs in proptest::collection::vec(0u8..4, 0..=60), wide in any::<bool>()) {
        let size = if wide { Size::new(3, 4) } else { Size::new(2, 5) }.unwrap();
        check_walk(size, &dirs, 20)?;
    }
}

/// Manhattan distance on about half the boards and zero on the rest: admissible but not
/// consistent, so A* finds optimal paths only if it reopens nodes reached more cheaply.
struct Patchy(Manhattan);

impl Heuristic for Patchy {
    type State = u32;

    fn name(&self) -> &str {
        "patchy"
    }

    fn size(&self) -> Size {
        self.0.size()
    }

    fn init(&self, cells: &[u8]) -> u32 {
        let md = self.0.init(cells);
        if (cells[0] ^ cells[1] ^ cells[4]) & 1 == 0 { md } else { 0 }
    }

    fn h(&self, state: &u32) -> u32 {
        *state
    }

    fn step(&self, _: &u32, after: &[u8], _: u8, _: usize, _: usize) -> u32 {
        self.init(after)
    }
}

#[test]
fn astar_stays_optimal_with_an_inconsistent_heuristic() {
    let goal = Board::blank_last(Size::S3X3);
    let exact = Exact::new(&goal).unwrap();
    let patchy = Patchy(Manhattan::new(&goal));
    for (start, d) in sample_3x3(&exact, 2999) {
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let s = astar(&p, &patchy, &Limits::default()).unwrap();
        assert_eq!(s.len() as u32, d, "{start:?}");
        assert_replays(&s, &start, &goal);
        let w = weighted_astar(&p, &patchy, 2.0, &Limits::default()).unwrap();
        assert!(w.len() as u32 <= 2 * d, "{start:?}");
    }
}

#[test]
fn parallel_ida_gives_the_serial_moves() {
    let goal = Board::blank_first(Size::S4X4);
    let lc = LinearConflict::new(&goal);
    let mut instances = korf100();
    instances.sort_by_key(|(_, len, _)| *len);
    for (id, len, start) in instances.into_iter().take(6) {
        let p = Problem::new(start, goal.clone()).unwrap();
        let serial = ida(&p, &lc, &Limits::default()).unwrap();
        assert_eq!(serial.len(), len, "instance {id}");
        for threads in [2, 3, 4] {
            let par = ida(&p, &lc, &Limits { threads, ..Limits::default() }).unwrap();
            assert_eq!(par.moves, serial.moves, "instance {id}, {threads} threads");
        }
    }
}

#[test]
fn duplicate_path_pruning_generates_fewer_nodes() {
    let goal = Board::blank_first(Size::S4X4);
    let lc = LinearConflict::new(&goal);
    let mut instances = korf100();
    instances.sort_by_key(|&(id, len, _)| (len, id));
    let (mut pruned, mut plain) = (0, 0);
    for (id, len, start) in instances.into_iter().take(6) {
        let p = Problem::new(start, goal.clone()).unwrap();
        let with = ida(&p, &lc, &Limits::default()).unwrap();
        let without = ida::ida_with(&p, &lc, &Limits::default(), Some(Fsm::no_undo()), 0).unwrap();
        assert_eq!((with.len(), without.len()), (len, len), "instance {id}");
        assert_eq!(with.stats.thresholds, without.stats.thresholds, "instance {id}");
        pruned += with.stats.generated;
        plain += without.stats.generated;
    }
    assert!(pruned * 10 < plain * 9, "{pruned} nodes with pruning, {plain} without");
}

/// A 5x5 search that outgrows the short duplicate-path machine takes the long one for its later
/// iterations (`Fsm::for_search`) and stays optimal: the same length and bounds as the search
/// with the short machine throughout (each machine's soundness is tested in `moves/prune`), in
/// fewer nodes, which shows that the long machine served.
#[test]
fn a_search_that_switches_machines_stays_optimal() {
    let goal = Board::blank_last(Size::S5X5);
    // `fifteen random --size 5x5 --moves 80 --seed 12`: 60 moves, about a million nodes (the
    // walk of seed 10, 50 moves, fell to 255,000 nodes once large subtrees were split, too few
    // for the long machine to serve a whole iteration).
    let start =
        Board::parse("6 1 2 3 4 16 11 7 10 9 22 21 8 19 12 24 15 14 5 17 0 13 23 18 20", None)
            .unwrap();
    let lc = LinearConflict::new(&goal);
    let p = Problem::new(start, goal).unwrap();
    let switched = ida(&p, &lc, &Limits::default()).unwrap();
    let short = ida::ida_with(&p, &lc, &Limits::default(), Some(Fsm::get()), 0).unwrap();
    assert!(switched.stats.generated > 2 * (1 << 17), "{} nodes", switched.stats.generated);
    assert_eq!((switched.len(), short.len()), (60, 60));
    assert_eq!(switched.stats.thresholds, short.stats.thresholds);
    assert!(
        switched.stats.generated < short.stats.generated,
        "{} nodes switched, {} with the short machine",
        switched.stats.generated,
        short.stats.generated
    );
    assert!(replay(p.start(), &switched.moves).is_some_and(|(end, _)| &end == p.goal()));
}

/// An ordered split: each subtree goes by the least reach of the last iteration's subtrees
/// that it extends or that extend it; ties keep depth-first order, and a subtree that none
/// matches goes last.
#[test]
fn subtrees_are_ordered_by_the_last_iterations_reach() {
    use Dir::{Down as D, Left as L, Right as R, Up as U};
    let node = |moves: &[Dir]| ida::Node {
        cells: [0; crate::board::MAX_CELLS],
        blank: 0,
        g: moves.len() as u32,
        h: 0,
        fsm: 0,
        state: (),
        moves: moves.to_vec(),
    };
    let mut frontier =
        vec![node(&[U, L]), node(&[U, R]), node(&[L, U]), node(&[L, D]), node(&[R, U])];
    // The last split was shallower under U (one subtree), deeper under L U, and did not reach
    // R U (R D instead).
    let last = vec![
        (vec![U], 5),
        (vec![L, U, U], 7),
        (vec![L, U, R], 3),
        (vec![L, D], 2),
        (vec![R, D], 0),
    ];
    ida::order_subtrees(&mut frontier, &last);
    let order: Vec<Vec<Dir>> = frontier.into_iter().map(|n| n.moves).collect();
    assert_eq!(order, [vec![L, D], vec![L, U], vec![U, L], vec![U, R], vec![R, U]]);
}

/// On boards of 25 cells and more every iteration is split into ordered subtrees: the moves
/// are the same for any thread count, and the lengths are those that IDA* with Manhattan
/// distance proves (walks short enough for it).
#[test]
fn ordered_subtrees_give_the_same_moves_for_any_thread_count() {
    for (size, steps) in [(Size::S5X5, 70), (Size::new(6, 5).unwrap(), 60)] {
        let goal = Board::blank_last(size);
        let (lc, md) = (LinearConflict::new(&goal), Manhattan::new(&goal));
        for seed in 1..=4 {
            let start = lcg_walk(&goal, steps, seed);
            let p = Problem::new(start.clone(), goal.clone()).unwrap();
            let truth = ida(&p, &md, &Limits::default()).unwrap().len();
            let one = ida(&p, &lc, &Limits::default()).unwrap();
            assert_eq!(one.len(), truth, "{start:?}");
            assert_replays(&one, &start, &goal);
            for threads in [2, 3, 5] {
                let par = ida(&p, &lc, &Limits { threads, ..Limits::default() }).unwrap();
                assert_eq!(par.moves, one.moves, "{start:?}, {threads} threads");
                assert_eq!(par.stats.thresholds, one.stats.thresholds);
            }
        }
    }
}
