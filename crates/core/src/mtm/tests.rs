use std::collections::HashMap;
use std::sync::Arc;

use super::*;
use crate::board::{Board, Size};
use crate::moves::{Dir, Notation};
use crate::pdb::{PdbMeta, PdbTable, encode};
use crate::search::{Limits, Problem};

/// MTM distances from `goal` to every reachable position, by a plain BFS written here (boards
/// as byte vectors, a line move as repeated swaps), independent of the crate's searches.
fn mtm_bfs(goal: &Board, max_depth: u32) -> HashMap<Vec<u8>, u32> {
    let size = goal.size();
    let (w, h) = (size.width() as i32, size.height() as i32);
    let mut dist = HashMap::new();
    dist.insert(goal.cells().to_vec(), 0u32);
    let mut frontier = vec![goal.cells().to_vec()];
    let mut depth = 0;
    while !frontier.is_empty() && depth < max_depth {
        let mut next = Vec::new();
        for cells in &frontier {
            let blank = cells.iter().position(|&t| t == 0).unwrap() as i32;
            for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                let mut cur = cells.clone();
                let (mut r, mut c) = (blank / w, blank % w);
                loop {
                    let (nr, nc) = (r + dr, c + dc);
                    if nr < 0 || nr >= h || nc < 0 || nc >= w {
                        break;
                    }
                    cur.swap((r * w + c) as usize, (nr * w + nc) as usize);
                    (r, c) = (nr, nc);
                    if !dist.contains_key(&cur) {
                        dist.insert(cur.clone(), depth + 1);
                        next.push(cur.clone());
                    }
                }
            }
        }
        frontier = next;
        depth += 1;
    }
    dist
}

/// Solves with IDA* and checks the answer replays to the goal in exactly its MTM length.
fn solve_checked(start: &Board, goal: &Board, h: &MtmHeuristic) -> usize {
    let problem = Problem::new(start.clone(), goal.clone()).unwrap();
    let s = ida_mtm(&problem, h, &Limits::default()).unwrap();
    let (end, _) = crate::search::replay(start, &s.moves).unwrap();
    assert_eq!(&end, goal);
    let ls = lines(&s.moves);
    // Replaying the lines as written (formatted, parsed back) reaches the goal too.
    let text = format_lines(&ls, Notation::Tile);
    let parsed = parse_lines(&text, Notation::Tile, start.size()).unwrap();
    assert_eq!(parsed, ls);
    let (end, _) = replay_lines(start, &parsed, Notation::Tile).unwrap();
    assert_eq!(&end, goal);
    ls.len()
}

#[test]
fn exhaustive_3x3_matches_an_mtm_bfs() {
    let goal = Board::blank_last(Size::S3X3);
    let dist = mtm_bfs(&goal, u32::MAX);
    assert_eq!(dist.len(), 181_440);
    // The 3x3's God's number in the multi-tile metric is 24 (published; e.g. the speedsolving
    // wiki's table of God's numbers).
    let max = *dist.values().max().unwrap();
    assert_eq!(max, 24);
    let h = MtmHeuristic::new(&goal, None);
    assert_eq!(h.kind(), MtmHeuristicKind::WalkingDistance);
    for (cells, &d) in &dist {
        let start = Board::from_cells(Size::S3X3, cells).unwrap();
        assert!(h.estimate(&start) <= d, "inadmissible on {cells:?}");
        assert_eq!(solve_checked(&start, &goal, &h), d as usize, "{cells:?}");
    }
}

#[test]
fn bfs_mtm_agrees_with_the_test_bfs() {
    let goal = Board::blank_first(Size::S3X3);
    let dist = mtm_bfs(&goal, u32::MAX);
    for (cells, &d) in dist.iter().step_by(997) {
        let start = Board::from_cells(Size::S3X3, cells).unwrap();
        let p = Problem::new(start.clone(), goal.clone()).unwrap();
        let s = bfs_mtm(&p, &Limits::default()).unwrap();
        assert_eq!(lines(&s.moves).len(), d as usize);
        assert_eq!(crate::search::replay(&start, &s.moves).unwrap().0, goal);
    }
}

/// A coarse 4x4 colouring (about 0.5 M states) that tests can build in a second.
fn small_4x4() -> Colouring {
    Colouring::new(Size::S4X4, &[1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0]).unwrap()
}

#[test]
fn colour_table_is_admissible_and_solves_near_goal_4x4() {
    let colouring = small_4x4();
    let entries = build_colour_table(&colouring, &|_, _| {});
    assert_eq!(entries.len() as u64, colouring.states());
    // With a class of two tiles or more, every state of the abstraction is reachable.
    assert!(entries.iter().all(|&e| e != crate::pdb::UNREACHABLE));
    let table = Arc::new(ColourTable::from_entries(&colouring, entries).unwrap());
    for goal in [Board::blank_last(Size::S4X4), Board::blank_first(Size::S4X4)] {
        let h = MtmHeuristic::new(&goal, Some(table.clone()));
        assert_eq!(h.kind(), MtmHeuristicKind::Colour);
        let dist = mtm_bfs(&goal, 5);
        let mut solved = 0;
        for (cells, &d) in &dist {
            let start = Board::from_cells(Size::S4X4, cells).unwrap();
            assert!(h.estimate(&start) <= d);
            if d == 5 || cells.iter().sum::<u8>() % 7 == 0 {
                assert_eq!(solve_checked(&start, &goal, &h), d as usize);
                solved += 1;
            }
        }
        assert!(solved > 200, "{solved}");
    }
}

#[test]
fn colour_table_on_3x3_is_admissible_everywhere() {
    let colouring = Colouring::new(Size::S3X3, &[1, 1, 2, 2, 3, 3, 3, 3, 0]).unwrap();
    let entries = build_colour_table(&colouring, &|_, _| {});
    let table = Arc::new(ColourTable::from_entries(&colouring, entries).unwrap());
    for goal in [Board::blank_last(Size::S3X3), Board::blank_first(Size::S3X3)] {
        let h = MtmHeuristic::new(&goal, Some(table.clone()));
        let mut equal = 0;
        for (cells, d) in mtm_bfs(&goal, u32::MAX) {
            let e = h.estimate(&Board::from_cells(Size::S3X3, &cells).unwrap());
            assert!(e <= d);
            equal += usize::from(e == d);
        }
        assert!(equal > 1000);
    }
}

#[test]
fn loaders_refuse_the_other_metric() {
    // A single-tile table (one byte per placement of tile 1) is refused as a colour table.
    let goal = Board::blank_last(Size::S3X3);
    let stm = encode(&goal, &[1], &PdbMeta::default(), &[0u8; 9]).unwrap();
    let table = Arc::new(PdbTable::from_vec(stm).unwrap());
    let err = ColourTable::from_table(table).unwrap_err();
    assert!(matches!(err, crate::pdb::PdbError::WrongMetric { expected: "mtm", .. }), "{err}");
    // A colour table is refused by the single-tile heuristic, and skipped by folder scans.
    let colouring = Colouring::new(Size::S3X3, &[1, 1, 1, 1, 2, 2, 2, 2, 0]).unwrap();
    let entries = build_colour_table(&colouring, &|_, _| {});
    let dir = std::env::temp_dir().join(format!("fifteen-mtm-metric-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    write_colour_table(&dir, &colouring, &entries, "test").unwrap();
    let t =
        Arc::new(PdbTable::open(&dir.join(COLOUR_FILE), crate::pdb::LoadMode::Resident).unwrap());
    let err = crate::pdb::PdbHeuristic::new(&goal, vec![t], false, false, "x").unwrap_err();
    assert!(err.to_string().contains("counts mtm moves"), "{err}");
    let scan = crate::pdb::scan_dir(&dir, crate::pdb::LoadMode::Resident);
    assert!(scan.sets.is_empty() && scan.errors.is_empty());
    assert!(ColourTable::open(&dir, crate::pdb::LoadMode::Resident).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn notation_round_trips_and_errors() {
    let s = Size::S4X4;
    let ls = parse_lines("R3D2LU", Notation::Tile, s).unwrap();
    assert_eq!(format_lines(&ls, Notation::Tile), "R3D2LU");
    assert_eq!(parse_lines("R3 D2 L U", Notation::Tile, s).unwrap(), ls);
    assert_eq!(expand(&ls).len(), 7);
    // Written out, each letter is a line of one; grouping the steps gives the lines back.
    let out = parse_lines("RRRDDLU", Notation::Tile, s).unwrap();
    assert_eq!(out.len(), 7);
    assert_eq!(lines(&expand(&out)), ls);
    // Blank notation is the opposite letter.
    assert_eq!(format_lines(&ls, Notation::Blank), "L3U2RD");
    assert_eq!(parse_lines("L3U2RD", Notation::Blank, s).unwrap(), ls);
    assert_eq!(ls[0], Line { dir: Dir::Left, count: 3 });

    let err = |t: &str| parse_lines(t, Notation::Tile, s).unwrap_err();
    assert!(matches!(err("R4"), LineError::CountTooLarge { index: 1, max: 3, .. }));
    assert!(matches!(err("UR0"), LineError::ZeroCount { index: 2, .. }));
    assert!(matches!(err("UDX"), LineError::UnknownLetter { index: 3, found: 'X' }));
    assert!(matches!(err("2R"), LineError::CountWithoutLetter { index: 1, .. }));
    assert!(matches!(err("R99999999999999999999"), LineError::CountTooLarge { .. }));
    let wide = Size::new(5, 3).unwrap();
    assert!(parse_lines("L4", Notation::Tile, wide).is_ok());
    assert!(matches!(
        parse_lines("U3", Notation::Tile, wide).unwrap_err(),
        LineError::CountTooLarge { max: 2, .. }
    ));

    // A count that runs off the board from where it is played.
    let goal = Board::blank_last(s);
    let ok = parse_lines("D2", Notation::Tile, s).unwrap();
    assert!(replay_lines(&goal, &ok, Notation::Tile).is_ok());
    let bad = parse_lines("D2 R3 U3", Notation::Tile, s).unwrap();
    match replay_lines(&goal, &bad, Notation::Tile).unwrap_err() {
        LineError::OffBoard { index, room, before, .. } => {
            assert_eq!((index, room, before), (3, 2, 2));
        }
        e => panic!("{e}"),
    }
}

#[test]
fn walking_distance_is_admissible_near_the_4x4_goal() {
    let goal = Board::blank_first(Size::S4X4);
    let wd = WalkingDistance::new(&goal).unwrap();
    assert_eq!(wd.states(), (24_964, 24_964));
    for (cells, d) in mtm_bfs(&goal, 6) {
        assert!(wd.estimate(&Board::from_cells(Size::S4X4, &cells).unwrap()) <= d);
    }
}
