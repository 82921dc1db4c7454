//! Beam search against exact distances: a beam wider than any layer is a breadth-first
//! search, so it must find shortest paths; narrow beams must answer with paths that replay,
//! honour the bound, and be the same from one run to the next.

use super::*;
use crate::board::{Board, Size};
use crate::heuristic::{LinearConflict, Manhattan};
use crate::search::replay;
use crate::search::tests::{distances_3x3, reachable_3x3};

/// A board `steps` random moves from `goal` (a fixed generator, so the test is repeatable).
fn walk(goal: &Board, steps: usize, seed: u64) -> Board {
    let mut b = goal.clone();
    let mut x = seed;
    for _ in 0..steps {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        b.apply(Dir::ALL[(x >> 62) as usize]);
    }
    b
}

#[test]
fn a_beam_wider_than_any_layer_finds_shortest_paths_on_3x3() {
    let goal = Board::blank_last(Size::S3X3);
    let dist = distances_3x3(&goal);
    // The largest 3x3 layer holds 24,047 positions; 181,440 are reachable in all.
    let h = Manhattan::new(&goal);
    let mut checked = 0;
    for (_, start, d) in reachable_3x3(&dist, 0, 7_919) {
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let mut stats = Stats::default();
        let run = beam(&p, &h, 30_000, None, u32::MAX, &Limits::default(), &mut stats);
        let path = run.found.expect("a breadth-first search finds every solvable position");
        assert_eq!(path.len(), usize::from(d), "{start:?}");
        assert_eq!(replay(&start, &path).unwrap().0, goal);
        // Bounded by the optimum and wider than any layer's candidates (at most three per
        // board), a beam drops nothing by rank, searches every board within the bound and
        // finds nothing: what lets the anytime search stop widening its beams.
        let mut bounded = Stats::default();
        let none = beam(&p, &h, 80_000, None, u32::from(d), &Limits::default(), &mut bounded);
        assert!(none.found.is_none() && none.stop.is_none() && !none.truncated, "{start:?}");
        checked += 1;
    }
    assert!(checked >= 20);
}

#[test]
fn narrow_beams_answer_with_paths_that_replay_and_honour_the_bound() {
    let goal = Board::blank_last(Size::new(5, 5).unwrap());
    let h = LinearConflict::new(&goal);
    let mut longer = 0;
    for seed in 1..=8u64 {
        let start = walk(&goal, 200, seed);
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let root = h.estimate(start.cells()) as usize;
        let mut stats = Stats::default();
        let run = beam(&p, &h, 32, None, u32::MAX, &Limits::default(), &mut stats);
        let path = run.found.expect("a beam of 32 answers a 5x5 walk");
        assert!(run.truncated, "a 5x5 walk's layers outgrow 32 boards");
        assert_eq!(replay(&start, &path).unwrap().0, goal);
        assert!(
            path.len() >= root && (path.len() - root).is_multiple_of(2),
            "parity and admissibility"
        );
        // The same run again gives the same path; a bound of its length gives a shorter one
        // or none.
        let mut again = Stats::default();
        let same = beam(&p, &h, 32, None, u32::MAX, &Limits::default(), &mut again);
        assert_eq!(same.found.as_deref(), Some(&path[..]));
        assert_eq!(again, stats);
        let bounded = beam(&p, &h, 32, None, path.len() as u32, &Limits::default(), &mut again);
        if let Some(shorter) = bounded.found {
            assert!(shorter.len() < path.len());
            assert_eq!(replay(&start, &shorter).unwrap().0, goal);
        }
        longer += usize::from(path.len() > root);
    }
    assert!(longer > 0, "a narrow beam does not always follow the estimate straight home");
}

#[test]
fn a_narrowing_beam_keeps_the_narrow_width_from_its_time_on() {
    // Narrowed from the start, a run is a run of the narrow width; narrowed never, one of its
    // own. Which walks the two widths answer differently shows the narrowing is applied.
    let goal = Board::blank_last(Size::new(5, 5).unwrap());
    let h = LinearConflict::new(&goal);
    let (now, later) = (Instant::now(), Instant::now() + std::time::Duration::from_secs(3600));
    let mut differ = 0;
    for seed in 1..=8u64 {
        let start = walk(&goal, 200, seed);
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let run = |width, narrow| {
            let mut stats = Stats::default();
            let r = beam(&p, &h, width, narrow, u32::MAX, &Limits::default(), &mut stats);
            (r.found.expect("a 5x5 walk is answered"), stats)
        };
        let (narrow, wide) = (run(8, None), run(256, None));
        assert_eq!(run(256, Some(Narrowing { at: now, width: 8 })), narrow);
        assert_eq!(run(256, Some(Narrowing { at: later, width: 8 })), wide);
        assert_eq!(replay(&start, &narrow.0).unwrap().0, goal);
        differ += usize::from(narrow.0 != wide.0);
    }
    assert!(differ > 0, "beams of 8 and 256 boards answer the same walks alike");
}

#[test]
fn limits_end_a_beam() {
    let goal = Board::blank_last(Size::new(7, 7).unwrap());
    let start = walk(&goal, 2_000, 7);
    let p = Problem::new(start, goal.clone()).unwrap();
    let h = LinearConflict::new(&goal);
    let mut stats = Stats::default();
    let nodes = Limits { max_nodes: Some(1_000), ..Limits::default() };
    let run = beam(&p, &h, 4_096, None, u32::MAX, &nodes, &mut stats);
    assert!(run.found.is_none());
    assert_eq!(run.stop, Some(LimitKind::Nodes));
    let memory = Limits { max_stored: Some(10_000), ..Limits::default() };
    let run = beam(&p, &h, 4_096, None, u32::MAX, &memory, &mut Stats::default());
    assert_eq!(run.stop, Some(LimitKind::Memory));
}

#[test]
fn beam_search_answers_at_least_the_bfs_length_and_claims_optimality_only_when_proven() {
    let goal = Board::blank_last(Size::S3X3);
    let dist = distances_3x3(&goal);
    let h = LinearConflict::new(&goal);
    let (mut exact, mut longer) = (0, 0);
    for (_, start, d) in reachable_3x3(&dist, 0, 1_009) {
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        for width in [1, 8, 30_000] {
            let sol = match beam_search(&p, &h, width, &Limits::default()) {
                Ok(sol) => sol,
                // Only a narrow beam may wander past its depth cap.
                Err(SearchError::LimitReached { kind: LimitKind::Depth, lower_bound, .. }) => {
                    assert!(width < 30_000 && lower_bound <= u32::from(d));
                    continue;
                }
                Err(e) => panic!("{start:?} width {width}: {e}"),
            };
            assert_eq!(replay(&start, &sol.moves).unwrap().0, goal);
            assert!(sol.len() >= usize::from(d), "{start:?} width {width}");
            assert_eq!(sol.optimal, sol.len() as u32 == sol.initial_h, "{start:?}");
            if width == 30_000 {
                // Wider than any 3x3 layer: a breadth-first search.
                assert_eq!(sol.len(), usize::from(d), "{start:?}");
            }
            exact += usize::from(sol.len() == usize::from(d));
            longer += usize::from(sol.len() > usize::from(d));
        }
    }
    assert!(exact > 100 && longer > 0, "{exact} exact, {longer} longer");
    let p = Problem::new(walk(&goal, 30, 1), goal.clone()).unwrap();
    assert!(matches!(
        beam_search(&p, &h, 0, &Limits::default()),
        Err(SearchError::NotApplicable(_))
    ));
}

#[test]
fn the_seen_set_keeps_every_hash_through_its_growth() {
    // From the smallest set, 100,000 hashes fill nine more tables, each twice the last (a slot
    // keeps only part of its hash, so a full table is kept and probed, not rehashed).
    let mut seen = Seen::new(0);
    let hash = |i: u64| (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    for i in 0..100_000 {
        assert!(seen.insert(hash(i)), "hash {i} inserted twice");
        assert!(!seen.insert(hash(i)), "hash {i} not found right after its insertion");
    }
    assert_eq!(seen.tables.len(), 10);
    assert_eq!(seen.len(), 100_000);
    assert!((0..100_000).all(|i| seen.contains(hash(i))));
    assert!((0..100_000).all(|i| !seen.insert(hash(i))), "a hash inserted again");
    // Hashes never inserted: a false match needs the same home and the same 32-bit tag.
    let strays = (100_000..200_000).filter(|&i| seen.contains(hash(i))).count();
    assert_eq!(strays, 0);
    // Hashes of 0 and of a zero tag are kept too (0 marks an empty slot).
    assert!(seen.insert(0) && seen.contains(0) && seen.insert(5) && seen.contains(5));
}

#[test]
fn the_recent_layers_set_finds_the_last_span_layers_and_forgets_older_ones() {
    let (span, width) = (4u32, 1_000usize);
    let mut seen = Seen::recent(span, width);
    let hash = |layer: u64, i: u64| (layer * 1_000_003 + i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for layer in 0..40u64 {
        for i in 0..width as u64 {
            assert!(seen.insert(hash(layer, i)), "layer {layer}, board {i} seen before");
        }
        // Every board of this layer and of the `span - 1` before it is found.
        for back in 0..u64::from(span).min(layer + 1) {
            let l = layer - back;
            assert!((0..width as u64).all(|i| seen.contains(hash(l, i))), "layer {l} at {layer}");
        }
        // Boards more than `2 span` layers old are forgotten.
        if layer >= 2 * u64::from(span) {
            let l = layer - 2 * u64::from(span);
            assert!((0..width as u64).all(|i| !seen.contains(hash(l, i))), "layer {l} at {layer}");
        }
        seen.next_layer();
    }
    // Its two tables never grew: `span` layers of `width` fill neither to half.
    assert_eq!(seen.tables.len(), 2);
}
