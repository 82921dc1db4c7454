//! The 24-puzzle (5x5) solved optimally with a small partition built here (six 4-tile
//! patterns, a second in all), checked against IDA* with Manhattan distance, which shares no
//! table with it: on random walks from two goals, with reflected and dual lookups, and with the
//! search split over threads and lanes.

use fifteen_core::pdb::{LoadMode, best_set};
use fifteen_core::{AnyHeuristic, Board, Dir, Limits, Manhattan, Problem, Size, ida, replay};

use crate::{Progress, SetSpec, build_set};

/// Six 4-tile patterns covering tiles 1-24 (blank-first goal: tile `t` on cell `t`).
const PATTERNS: [[u8; 4]; 6] = [
    [1, 2, 5, 6],
    [3, 4, 8, 9],
    [7, 12, 13, 14],
    [10, 11, 15, 16],
    [17, 18, 22, 23],
    [19, 20, 21, 24],
];

fn walk(goal: &Board, len: usize, seed: &mut u64) -> Board {
    let mut board = goal.clone();
    let (mut moves, mut last) = (0, None);
    while moves < len {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let d = Dir::ALL[(*seed % 4) as usize];
        // No move undoes the one before.
        if last != Some(d.opposite()) && board.apply(d).is_some() {
            (moves, last) = (moves + 1, Some(d));
        }
    }
    board
}

#[test]
fn five_by_five_with_a_small_partition_is_optimal() {
    let dir = std::env::temp_dir().join(format!("pdb-gen-five-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let size = Size::S5X5;
    let spec = SetSpec {
        name: "5x5-test-4x6".into(),
        preset: Some("5x5-test-4x6".into()),
        size,
        goal: Board::blank_first(size),
        patterns: PATTERNS.iter().map(|p| p.to_vec()).collect(),
        encoding: fifteen_core::pdb::EntryEncoding::U8,
    };
    build_set(&spec, &dir, Some(2), Progress::Quiet).expect("the small 5x5 set builds");
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut checked = 0;
    for goal in [Board::blank_first(size), Board::blank_last(size)] {
        let set = best_set(&dir, &goal, LoadMode::Mmap).expect("the set serves both goals");
        let h = AnyHeuristic::Pdb(set.heuristic(&goal, true, true).expect("a heuristic"));
        let manhattan = Manhattan::new(&goal);
        for len in [10, 20, 30, 40, 50] {
            let board = walk(&goal, len, &mut seed);
            let problem = Problem::new(board.clone(), goal.clone()).expect("solvable");
            let truth = ida(&problem, &manhattan, &Limits::default()).expect("Manhattan solves it");
            let one = h.solve(&problem, fifteen_core::Algorithm::Ida, &Limits::default());
            let one = one.expect("the databases solve it");
            assert_eq!(one.len(), truth.len(), "{board:?}: optimal length");
            assert!(one.optimal);
            assert!(one.initial_h as usize <= truth.len(), "{board:?}: admissible at the start");
            assert_eq!(replay(&board, &one.moves).map(|(b, _)| b), Some(goal.clone()));
            for (threads, lanes) in [(2, 1), (2, 3), (1, 3)] {
                let limits = Limits { threads, lanes, ..Limits::default() };
                let split = h.solve(&problem, fifteen_core::Algorithm::Ida, &limits);
                let split = split.expect("split searches solve it");
                assert_eq!(split.moves, one.moves, "{board:?}: {threads} threads, {lanes} lanes");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 10);
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// The small partition's patterns, and two more that make a second partition: tiles 1-4 and
/// 5, 6, 8, 9 instead of 1, 2, 5, 6 and 3, 4, 8, 9.
fn catalogue_patterns() -> Vec<Vec<u8>> {
    let mut patterns: Vec<Vec<u8>> = PATTERNS.iter().map(|p| p.to_vec()).collect();
    patterns.push(vec![1, 2, 3, 4]);
    patterns.push(vec![5, 6, 8, 9]);
    patterns
}

/// A small zero-aware catalogue (two partitions) built here, as a byte and as a bit per entry:
/// both solve random walks in the lengths IDA* with Manhattan distance finds, with the same
/// moves and node counts (a table of bits holds the same estimates), and never with more
/// nodes than the ordinary tables of the same patterns.
#[test]
fn five_by_five_zero_aware_catalogue_of_bits_is_optimal() {
    use fifteen_core::pdb::EntryEncoding;
    let size = Size::S5X5;
    let base = std::env::temp_dir().join(format!("pdb-gen-five-zero-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let dirs: Vec<_> = [EntryEncoding::U8, EntryEncoding::ZeroAware, EntryEncoding::ZeroAwareBits]
        .into_iter()
        .map(|encoding| {
            let dir = base.join(format!("{encoding:?}"));
            let spec = SetSpec {
                name: "5x5-test-cat".into(),
                preset: Some("5x5-test-cat".into()),
                size,
                goal: Board::blank_first(size),
                patterns: catalogue_patterns(),
                encoding,
            };
            build_set(&spec, &dir, Some(2), Progress::Quiet).expect("the catalogue builds");
            dir
        })
        .collect();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let goal = Board::blank_last(size);
    let heuristics: Vec<AnyHeuristic> = dirs
        .iter()
        .map(|dir| {
            let set = best_set(dir, &goal, LoadMode::Mmap).expect("the catalogue serves the goal");
            AnyHeuristic::Pdb(set.heuristic(&goal, true, false).expect("a heuristic"))
        })
        .collect();
    // Tables of bits read no dual views (a dual lookup has no parent's entry), so a heuristic
    // asked for them does not name them; the byte tables do read them.
    let named = |dir: &std::path::Path| {
        let set = best_set(dir, &goal, LoadMode::Mmap).expect("the catalogue serves the goal");
        set.heuristic(&goal, true, true).expect("a heuristic").name().to_string()
    };
    assert!(named(&dirs[2]).ends_with(" +reflect"), "{}", named(&dirs[2]));
    assert!(named(&dirs[1]).ends_with(" +reflect +dual"), "{}", named(&dirs[1]));
    let (mut plain_nodes, mut zero_nodes) = (0, 0);
    for len in [20, 30, 40, 50] {
        let board = walk(&goal, len, &mut seed);
        let problem = Problem::new(board.clone(), goal.clone()).expect("solvable");
        let truth = ida(&problem, &Manhattan::new(&goal), &Limits::default()).expect("solved");
        // One thread: node counts are exact (with more, the last iteration's count depends on
        // when the other threads hear of the answer).
        let answers: Vec<_> = heuristics
            .iter()
            .map(|h| {
                h.solve(&problem, fifteen_core::Algorithm::Ida, &Limits::default()).expect("solved")
            })
            .collect();
        let split = Limits { threads: 2, lanes: 3, ..Limits::default() };
        let parallel =
            heuristics[2].solve(&problem, fifteen_core::Algorithm::Ida, &split).expect("solved");
        assert_eq!(parallel.moves, answers[2].moves, "{board:?}: the same answer on 2 threads");
        for a in &answers {
            assert_eq!(a.len(), truth.len(), "{board:?}: optimal length");
            assert_eq!(replay(&board, &a.moves).map(|(b, _)| b), Some(goal.clone()));
        }
        let (plain, zero, bits) = (&answers[0], &answers[1], &answers[2]);
        assert_eq!(bits.moves, zero.moves, "{board:?}");
        assert_eq!(bits.stats.generated, zero.stats.generated, "{board:?}");
        assert!(zero.initial_h >= plain.initial_h, "{board:?}");
        plain_nodes += plain.stats.generated;
        zero_nodes += zero.stats.generated;
    }
    assert!(zero_nodes <= plain_nodes, "zero-aware {zero_nodes} vs plain {plain_nodes}");
    std::fs::remove_dir_all(&base).expect("clean up");
}
