//! Tests of the bounded and anytime searches against exact distances (a breadth-first search
//! here, checked against the published 3x3 depth counts) and against each other.

use super::*;
use crate::board::{Board, Size};
use crate::heuristic::LinearConflict;
use crate::search::replay;
use crate::search::tests::{distances_3x3, reachable_3x3};

/// The published count of 3x3 positions at each distance (`8puzzle-depths.txt`).
fn published_depths() -> Vec<u64> {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/instances/8puzzle-depths.txt"
    ));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect()
}

fn check(near: &NearOptimal, start: &Board, goal: &Board, optimum: u32) {
    let (end, tiles) = replay(start, &near.solution.moves).unwrap();
    assert_eq!(&end, goal);
    assert_eq!(tiles, near.solution.tiles);
    assert!(near.lower_bound <= optimum, "{start:?}: bound {} > {optimum}", near.lower_bound);
    assert_eq!(
        near.solution.optimal,
        near.solution.len() == optimum as usize && near.lower_bound == optimum
    );
}

#[test]
fn bounded_is_within_its_factor_on_every_3x3_position() {
    let goal = Board::blank_last(Size::S3X3);
    let dist = distances_3x3(&goal);
    let mut histogram = vec![0u64; 32];
    for &d in dist.iter().filter(|&&d| d != u8::MAX) {
        histogram[d as usize] += 1;
    }
    assert_eq!(histogram, published_depths(), "the test's BFS matches the published counts");
    let h = LinearConflict::new(&goal);
    // Two threads, each every other rank.
    let (proven, answers) = std::thread::scope(|scope| {
        let parts: Vec<_> = (0..2)
            .map(|part| {
                let (dist, goal, h) = (&dist, &goal, &h);
                scope.spawn(move || {
                    let (mut proven, mut answers) = (0, 0);
                    for (r, start, d) in reachable_3x3(dist, part, 2) {
                        let p = Problem::new(start.clone(), goal.clone()).unwrap();
                        // Every position with F = 1.25; one in 13 also with 1.1 and 2.
                        let factors: &[f64] = if r % 13 == 0 { &[1.1, 1.25, 2.0] } else { &[1.25] };
                        for &f in factors {
                            let near = bounded(&p, h, f, &Limits::default()).unwrap();
                            check(&near, &start, goal, u32::from(d));
                            let len = near.solution.len();
                            assert!(len as f64 <= f * f64::from(d), "{start:?}: {len} > {f} x {d}");
                            assert_eq!(near.bound, Some(f));
                            proven += usize::from(near.solution.optimal);
                            answers += 1;
                        }
                    }
                    (proven, answers)
                })
            })
            .collect();
        parts.into_iter().map(|t| t.join().unwrap()).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    });
    // Not every answer is proven optimal: the test reaches the unproven ones' guarantee too.
    assert!(proven > 0 && proven < answers, "{proven} of {answers} proven optimal");
}

/// Korf's 100, with their optimal lengths.
const KORF100: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/instances/korf100.txt"));

/// The positions of a file of `../shared/instances` in Korf's format (goal blank-first), with
/// their optimal lengths.
fn korf_positions(text: &str) -> Vec<(Board, u32)> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let nums: Vec<u8> =
                line.split_whitespace().skip(1).map(|x| x.parse().unwrap()).collect();
            (Board::from_cells(Size::S4X4, &nums[1..]).unwrap(), u32::from(nums[0]))
        })
        .collect()
}

#[test]
fn bounded_answers_within_its_factor_when_weighted_astar_fills_memory() {
    // Weighted A* of F = 1.02 with linear conflict may store 20,000 nodes, too few for any of
    // these positions: the searches that store little take over (before them: a memory error).
    let goal = Board::blank_first(Size::S4X4);
    let h = LinearConflict::new(&goal);
    let limits = Limits { max_stored: Some(20_000), ..Limits::default() };
    for (start, optimum) in korf_positions(KORF100).into_iter().take(5) {
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let near = bounded(&p, &h, 1.02, &limits).unwrap();
        check(&near, &start, &goal, optimum);
        let len = near.solution.len();
        assert!(len as f64 <= 1.02 * f64::from(optimum), "{start:?}: {len} > 1.02 x {optimum}");
        assert!(len as f64 <= 1.02 * f64::from(near.lower_bound));
        assert_eq!(near.bound, Some(1.02));
    }
}

/// `bounded` with F = 1 and linear conflict on the first 80-move position (IDA* would run for
/// minutes), the caller's cancel set after 0.2 s and `limits`' other fields as given, with a
/// deadline 20 s away only as a backstop; checks the search ended on the cancel, well before
/// the backstop.
fn bounded_stops_on_the_callers_cancel(limits: Limits) {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/instances/hardest15.txt"
    ));
    let goal = Board::blank_first(Size::S4X4);
    let h = LinearConflict::new(&goal);
    let (start, optimum) = korf_positions(text)[0].clone();
    let p = Problem::new(start, goal.clone()).unwrap();
    let cancel = Arc::new(AtomicBool::new(false));
    let limits = Limits {
        cancel: Some(Arc::clone(&cancel)),
        deadline: Some(Instant::now() + Duration::from_secs(20)),
        ..limits
    };
    let t0 = Instant::now();
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(200));
            cancel.store(true, AtomicOrdering::Relaxed);
        });
        bounded(&p, &h, 1.0, &limits)
    });
    // Stopped by the cancel, not by the backstop (which would also report it, once set).
    assert!(t0.elapsed() < Duration::from_secs(10), "took {:?}", t0.elapsed());
    match result {
        Err(SearchError::LimitReached { kind: LimitKind::Cancelled, lower_bound, .. }) => {
            assert!(lower_bound <= optimum);
        }
        other => panic!("expected the caller's cancel, got {other:?}"),
    }
}

#[test]
fn bounded_after_memory_runs_out_still_stops_on_the_callers_cancel() {
    // Weighted A* fills its 20,000 nodes at once: the cancel must reach IDA* through the
    // watcher.
    bounded_stops_on_the_callers_cancel(Limits { max_stored: Some(20_000), ..Limits::default() });
}

#[test]
fn bounded_side_by_side_answers_within_its_factor() {
    // On two threads weighted A* and IDA* run side by side: with 20,000 nodes of memory
    // weighted A* fails and IDA* answers; with room (and a larger factor) either may.
    let goal = Board::blank_first(Size::S4X4);
    let h = LinearConflict::new(&goal);
    for (within, max_stored) in [(1.02, Some(20_000)), (1.3, None)] {
        let limits = Limits { max_stored, threads: 2, ..Limits::default() };
        for (start, optimum) in korf_positions(KORF100).into_iter().take(4) {
            let p = Problem::new(start.clone(), goal.clone()).unwrap();
            let near = bounded(&p, &h, within, &limits).unwrap();
            check(&near, &start, &goal, optimum);
            let len = near.solution.len() as f64;
            assert!(len <= within * f64::from(optimum), "{start:?}: {len} > {within} x {optimum}");
            assert!(len <= within * f64::from(near.lower_bound));
            assert_eq!(near.bound, Some(within));
        }
    }
}

#[test]
fn bounded_on_a_5x5_answers_within_its_factor_on_one_thread() {
    // Past the 4x4 the two searches share one thread's core. Walks of 40 moves from the goal,
    // whose optimum IDA* with Manhattan distance confirms.
    let goal = Board::blank_last(Size::new(5, 5).unwrap());
    let (md, lc) = (crate::heuristic::Manhattan::new(&goal), LinearConflict::new(&goal));
    for seed in 1..=4u64 {
        let mut start = goal.clone();
        let mut x = seed;
        for _ in 0..40 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            start.apply(Dir::ALL[(x >> 62) as usize]);
        }
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let optimum = crate::search::ida(&p, &md, &Limits::default()).unwrap().len() as u32;
        let limits = Limits { max_stored: Some(20_000), threads: 1, ..Limits::default() };
        let near = bounded(&p, &lc, 1.05, &limits).unwrap();
        check(&near, &start, &goal, optimum);
        let len = near.solution.len() as f64;
        assert!(len <= 1.05 * f64::from(optimum), "{start:?}: {len} > 1.05 x {optimum}");
    }
}

#[test]
fn bounded_side_by_side_stops_on_the_callers_cancel() {
    // On two threads the cancel must stop weighted A* (which could store a million nodes) and
    // IDA* beside it.
    bounded_stops_on_the_callers_cancel(Limits {
        max_stored: Some(1_000_000),
        threads: 2,
        ..Limits::default()
    });
}

#[test]
fn anytime_improves_and_bounds_hold_on_4x4() {
    // Korf's 100, first 6: known optimal lengths.
    let goal = Board::blank_first(Size::S4X4);
    let h = LinearConflict::new(&goal);
    for (start, optimum) in korf_positions(KORF100).into_iter().take(6) {
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let mut seen: Vec<Improvement> = Vec::new();
        let limits = Limits { max_stored: Some(300_000), ..Limits::default() };
        let near = anytime(&p, &h, &limits, &mut |i| seen.push(*i)).unwrap();
        check(&near, &start, &goal, optimum);
        assert!(!seen.is_empty());
        for pair in seen.windows(2) {
            assert!(pair[1].length < pair[0].length, "answers never get longer");
            assert!(pair[1].lower_bound >= pair[0].lower_bound);
        }
        for i in &seen {
            assert!(i.lower_bound <= optimum && i.length >= optimum as usize);
        }
        assert_eq!(seen.last().map(|i| i.length), Some(near.solution.len()));
    }
}

#[test]
fn limits_end_with_an_answer_or_a_lower_bound() {
    let goal = Board::blank_last(Size::new(6, 6).unwrap());
    let mut b = goal.clone();
    let mut x = 12345u64;
    for _ in 0..400 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        b.apply(Dir::ALL[(x >> 62) as usize]);
    }
    let p = Problem::new(b.clone(), goal.clone()).unwrap();
    let h = LinearConflict::new(&goal);
    let root = h.estimate(b.cells());
    // Too few nodes for any search to answer: the board solved edge by edge, said so, with the
    // heuristic's bound at least.
    let tiny = Limits { max_nodes: Some(50), ..Limits::default() };
    let mut seen = Vec::new();
    let near = anytime(&p, &h, &tiny, &mut |i| seen.push(*i)).unwrap();
    let (end, _) = replay(&b, &near.solution.moves).unwrap();
    assert_eq!(end, goal);
    assert!(near.lower_bound >= root && !near.solution.optimal);
    assert_eq!(seen.iter().map(|i| i.by).collect::<Vec<_>>(), [Method::Constructed]);
    assert_eq!(seen[0].length, near.solution.len());
    // A cancel is no limit to answer anyway: the error carries the bound.
    let cancel = Arc::new(AtomicBool::new(true));
    let cancelled = Limits { cancel: Some(cancel), ..Limits::default() };
    match anytime(&p, &h, &cancelled, &mut |_| {}) {
        Err(SearchError::LimitReached { kind: LimitKind::Cancelled, lower_bound, .. }) => {
            assert!(lower_bound >= root);
        }
        other => panic!("expected the cancel, got {other:?}"),
    }
    // Room for the first runs: an answer that replays, not claimed optimal.
    let some = Limits { max_stored: Some(200_000), ..Limits::default() };
    let near = anytime(&p, &h, &some, &mut |_| {}).unwrap();
    let (end, _) = replay(&b, &near.solution.moves).unwrap();
    assert_eq!(end, goal);
    assert!(near.lower_bound >= root && near.lower_bound as usize <= near.solution.len());
    assert!(bounded(&p, &h, 0.5, &some).is_err());
}

#[test]
fn cut_loops_removes_revisits() {
    let goal = Board::blank_last(Size::S3X3);
    let start = Board::parse("1 2 3 4 5 6 0 7 8", None).unwrap();
    // Right, Right reaches the goal; Up Down and Left Right pairs are loops.
    let moves = [Dir::Up, Dir::Down, Dir::Right, Dir::Left, Dir::Right, Dir::Right];
    let cut = super::super::shorten::cut_loops(&start, &moves);
    assert_eq!(cut, vec![Dir::Right, Dir::Right]);
    assert_eq!(replay(&start, &cut).unwrap().0, goal);
}

#[test]
fn with_a_deadline_ida_proves_3x3_answers_optimal() {
    // With time left after the beams (one thread), or beside them (two), IDA* finishes on the
    // 3x3: every answer is proven optimal and has the breadth-first length.
    let goal = Board::blank_last(Size::S3X3);
    let dist = distances_3x3(&goal);
    let h = LinearConflict::new(&goal);
    let mut checked = 0;
    for (r, start, d) in reachable_3x3(&dist, 0, 4_099) {
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let limits = Limits {
            deadline: Some(Instant::now() + Duration::from_secs(30)),
            threads: 1 + r % 2,
            ..Limits::default()
        };
        let mut seen: Vec<Improvement> = Vec::new();
        let near = anytime(&p, &h, &limits, &mut |i| seen.push(*i)).unwrap();
        check(&near, &start, &goal, u32::from(d));
        assert!(near.solution.optimal, "{start:?}: not proven within 30 s");
        assert_eq!(near.lower_bound, u32::from(d));
        for pair in seen.windows(2) {
            assert!(pair[1].length < pair[0].length, "answers never get longer");
        }
        checked += 1;
    }
    assert!(checked > 30);
}

#[test]
fn a_deadline_on_large_boards_gives_answers_whose_bounds_hold() {
    // 4x4 positions of Korf's 100 with a short deadline: whatever the beams and IDA* reach in
    // it, the lower bound is at most the known optimum and the answer at least it.
    let goal = Board::blank_first(Size::S4X4);
    let h = LinearConflict::new(&goal);
    for (start, optimum) in korf_positions(KORF100).into_iter().take(4) {
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let limits = Limits {
            deadline: Some(Instant::now() + Duration::from_millis(300)),
            ..Limits::default()
        };
        let mut seen: Vec<Improvement> = Vec::new();
        let near = anytime(&p, &h, &limits, &mut |i| seen.push(*i)).unwrap();
        check(&near, &start, &goal, optimum);
        for i in &seen {
            assert!(i.lower_bound <= optimum && i.length >= optimum as usize);
        }
        for pair in seen.windows(2) {
            assert!(pair[1].length < pair[0].length, "answers never get longer");
        }
    }
}

#[test]
fn the_next_width_fills_the_time_left_within_its_margins() {
    let kept = BEAM_MAX_KEPT;
    let next = |width, took, left, depth, kept| {
        next_width(width, took, left, depth, kept, Some(width)).map(|n| n.width)
    };
    // No deadline: 4 times wider, until the layers would not fit in the boards kept.
    assert_eq!(next(1024, 0.1, None, 120.0, kept), Some(4096));
    assert_eq!(next(1 << 18, 1.0, None, 200.0, 1_000_000_000), Some(1 << 20));
    let capped = next(1 << 18, 1.0, None, 200.0, kept).unwrap();
    assert!(capped > 1 << 18 && (capped as f64) * 200.0 * 1.25 <= kept as f64, "{capped}");
    assert_eq!(next(MAX_WIDTH, 0.1, None, 10.0, u64::MAX), None);
    // A short run with much time left: at most 4 times, within 60% of the time left.
    assert_eq!(next(256, 0.02, Some(9.0), 150.0, kept), Some(1024));
    assert!(!next_width(256, 0.02, Some(9.0), 150.0, kept, Some(256)).unwrap().last);
    // A short run where one 32 times wider would not fit: the last run, as wide as the whole
    // time left allows at linear growth, up to 16 times (and no more than 16 times the first run
    // long enough to time by), narrowing near the end.
    let last = next_width(256, 0.2, Some(1.0), 150.0, kept, Some(256)).unwrap();
    assert_eq!(last, NextRun { width: 1280, last: true });
    let last = next_width(1024, 0.05, Some(0.9), 150.0, kept, Some(1024)).unwrap();
    assert_eq!(last, NextRun { width: 16 * 1024, last: true });
    let last = next_width(4096, 0.1, Some(0.8), 150.0, kept, Some(1024)).unwrap();
    assert_eq!(last, NextRun { width: 4 * 4096, last: true });
    // Without a heuristic nearly exact near the goal: 4 times at most, within 60% of the time
    // left, and no narrowing.
    let plain = next_width(256, 0.2, Some(1.0), 150.0, kept, None).unwrap();
    assert!((767..=768).contains(&plain.width) && !plain.last, "{plain:?}");
    // A run long enough to time by: the width whose predicted time (growing as width^1.1) is
    // 75% of the time left, up to 16 times wider.
    let (took, left) = (0.6, 8.9);
    let w = next(16_384, took, Some(left), 150.0, kept).unwrap();
    let predicted = took * (w as f64 / 16_384.0).powf(1.1);
    assert!(w > 4 * 16_384 && w < 16 * 16_384, "{w}");
    assert!((predicted - 0.75 * left).abs() < 0.01, "{predicted}");
    assert_eq!(next(16_384, 0.3, Some(1000.0), 150.0, kept), Some(16 * 16_384));
    assert!(!next_width(16_384, 0.3, Some(1000.0), 150.0, kept, Some(16_384)).unwrap().last);
    // Nothing 1.2 times wider fits: the beams stop (and IDA* takes the rest).
    assert_eq!(next(65_536, 2.7, Some(3.0), 150.0, kept), None);
    assert_eq!(next(65_536, 0.1, Some(0.15), 150.0, kept), None);
}

#[test]
fn a_path_from_the_goal_turned_round_takes_the_start_to_the_goal() {
    let goal = Board::blank_last(Size::new(5, 4).unwrap());
    let mut x = 99u64;
    for len in [0, 1, 7, 60] {
        // A random walk from the goal: a path from the goal to its end.
        let (mut end, mut path) = (goal.clone(), Vec::new());
        while path.len() < len {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let d = Dir::ALL[(x >> 62) as usize];
            if end.apply(d).is_some() {
                path.push(d);
            }
        }
        let turned = turned_round(&path);
        assert_eq!(turned.len(), path.len());
        assert_eq!(replay(&end, &turned).unwrap().0, goal, "{len} moves");
    }
}

#[test]
fn two_threads_on_large_boards_search_from_both_ends_within_known_bounds() {
    // Walks on boards of 28 and 30 cells, their optima from IDA* (linear conflict); two threads: the
    // beams from the start and from the goal share their incumbent and their reports, from
    // two threads at once, and those must still only ever get shorter. Ranked from the start
    // by misplaced tiles (a poor order), the search from the goal (linear conflict towards the
    // start) must give some of the answers.
    let mut from_goal = 0;
    let walks = [(6, 5, 80), (5, 6, 80), (7, 4, 90)];
    for (i, (w, h, walk)) in walks.into_iter().enumerate() {
        let goal = Board::blank_last(Size::new(w, h).unwrap());
        let mut b = goal.clone();
        let mut x = 777 + i as u64;
        // A walk that never undoes its last move.
        let mut last: Option<Dir> = None;
        let mut made = 0;
        while made < walk {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let d = Dir::ALL[(x >> 33) as usize % 4];
            if Some(d.opposite()) != last && b.apply(d).is_some() {
                last = Some(d);
                made += 1;
            }
        }
        let p = Problem::new(b.clone(), goal.clone()).unwrap();
        let lc = LinearConflict::new(&goal);
        let optimum = crate::search::ida(&p, &lc, &Limits::default()).unwrap().len() as u32;
        for round in 0..4 {
            let limits = Limits {
                deadline: Some(Instant::now() + Duration::from_millis(150 + 50 * round)),
                threads: 2,
                ..Limits::default()
            };
            let mut seen: Vec<Improvement> = Vec::new();
            let near = match round % 2 {
                0 => anytime(&p, &LinearConflict::new(&goal), &limits, &mut |i| seen.push(*i)),
                _ => {
                    let misplaced = crate::heuristic::Misplaced::new(&goal);
                    let near = anytime(&p, &misplaced, &limits, &mut |i| seen.push(*i));
                    from_goal += seen.iter().filter(|i| i.from_goal).count();
                    near
                }
            }
            .unwrap();
            check(&near, &b, &goal, optimum);
            for i in &seen {
                assert!(i.lower_bound <= optimum && i.length >= optimum as usize);
            }
            for pair in seen.windows(2) {
                assert!(pair[1].length < pair[0].length, "answers never get longer: {seen:?}");
            }
            assert_eq!(seen.last().map(|i| i.length), Some(near.solution.len()));
        }
    }
    assert!(from_goal > 0, "no answer came from the goal");
}

#[test]
fn on_two_threads_an_easy_large_position_is_proven_optimal_before_the_deadline() {
    // An easy 6x5 position: IDA* proves the answer optimal within a second, and the search
    // returns then, not at the deadline a minute away. (Both directions prove it here, so this
    // does not tell which stopped the other.)
    let goal = Board::blank_last(Size::new(6, 5).unwrap());
    let mut b = goal.clone();
    for d in [Dir::Up, Dir::Up, Dir::Left, Dir::Left, Dir::Down, Dir::Left, Dir::Up, Dir::Up] {
        b.apply(d).unwrap();
    }
    let p = Problem::new(b.clone(), goal.clone()).unwrap();
    let lc = LinearConflict::new(&goal);
    let optimum = crate::search::ida(&p, &lc, &Limits::default()).unwrap().len() as u32;
    let t0 = Instant::now();
    let limits =
        Limits { deadline: Some(t0 + Duration::from_secs(60)), threads: 2, ..Limits::default() };
    let near = anytime(&p, &lc, &limits, &mut |_| {}).unwrap();
    check(&near, &b, &goal, optimum);
    assert!(near.solution.optimal);
    assert!(t0.elapsed() < Duration::from_secs(30), "took {:?}", t0.elapsed());
}
