//! `--metric mtm`: answers in line moves on every command, and bad line moves refused.

use std::collections::HashMap;

use fifteen_core::mtm::{Metric, lines, parse_lines, replay_lines};
use fifteen_core::{Board, Notation, Size};

use crate::support::{fifteen, run_in, scratch_dir, temp_file};

/// MTM distances from `goal` up to `max_depth`, by a BFS written here.
fn mtm_distances(goal: &Board, max_depth: u32) -> HashMap<Vec<u8>, u32> {
    let (w, h) = (goal.size().width() as i32, goal.size().height() as i32);
    let mut dist = HashMap::from([(goal.cells().to_vec(), 0)]);
    let mut frontier = vec![goal.cells().to_vec()];
    for depth in 0..max_depth {
        let mut next = Vec::new();
        for cells in &frontier {
            let blank = cells.iter().position(|&t| t == 0).unwrap() as i32;
            for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                let (mut r, mut c, mut cur) = (blank / w, blank % w, cells.clone());
                while (0..h).contains(&(r + dr)) && (0..w).contains(&(c + dc)) {
                    cur.swap((r * w + c) as usize, ((r + dr) * w + c + dc) as usize);
                    (r, c) = (r + dr, c + dc);
                    if !dist.contains_key(&cur) {
                        dist.insert(cur.clone(), depth + 1);
                        next.push(cur.clone());
                    }
                }
            }
        }
        frontier = next;
    }
    dist
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.lines().next().expect("a line")).expect("JSON")
}

/// Checks that `moves` (MTM tile notation) take `board` to `goal` in exactly `len` lines.
fn assert_mtm_replays(board: &Board, goal: &Board, moves: &str, len: usize) {
    let ls = parse_lines(moves, Notation::Tile, board.size()).expect("the moves parse");
    assert_eq!(ls.len(), len, "{moves}");
    let (end, _) = replay_lines(board, &ls, Notation::Tile).expect("the moves replay");
    assert_eq!(&end, goal);
}

#[test]
fn solve_mtm_is_optimal_on_3x3_positions_and_replays() {
    let goal = Board::blank_last(Size::S3X3);
    let dist = mtm_distances(&goal, u32::MAX);
    for (cells, &d) in dist.iter().filter(|(_, d)| **d >= 20).take(6) {
        let board = Board::from_cells(Size::S3X3, cells).unwrap();
        let run = fifteen(&["solve", &board.to_line(), "--metric", "mtm", "--json"]);
        assert_eq!(run.code, 0, "{run:?}");
        let v = json(&run.stdout);
        assert_eq!(v["metric"], "mtm");
        assert_eq!(v["optimal"], true);
        assert_eq!(v["length"].as_u64(), Some(u64::from(d)), "{run:?}");
        let moves = v["moves"].as_str().unwrap();
        assert_mtm_replays(&board, &goal, moves, d as usize);
        let stm = v["stm_length"].as_u64().unwrap() as usize;
        assert!(stm >= d as usize);
        // verify agrees, in both forms.
        let run = fifteen(&["verify", &board.to_line(), moves, "--metric", "mtm"]);
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stdout.contains(&format!("reaches the goal: {d} MTM moves ({stm} single")));
    }
    // Text form, and BFS in the metric.
    let (cells, &d) = dist.iter().find(|(_, d)| **d == 12).unwrap();
    let board = Board::from_cells(Size::S3X3, cells).unwrap().to_line();
    for algorithm in ["ida", "bfs"] {
        let run = fifteen(&["solve", &board, "--metric", "mtm", "--algorithm", algorithm]);
        assert_eq!(run.code, 0, "{run:?}");
        assert!(
            run.stdout.starts_with(&format!("length: {d} MTM moves (proven optimal;")),
            "{run:?}"
        );
    }
}

#[test]
fn solve_mtm_near_the_4x4_goal_matches_a_bfs() {
    let goal = Board::blank_first(Size::S4X4);
    let dist = mtm_distances(&goal, 4);
    let dir = scratch_dir("mtm-near");
    for (cells, _) in dist.iter().filter(|(_, d)| **d == 4).take(5) {
        let board = Board::from_cells(Size::S4X4, cells).unwrap();
        let run = run_in(
            &dir,
            &[
                "solve",
                &board.to_line(),
                "--goal",
                "blank-first",
                "--metric",
                "mtm",
                "--no-pdb-build",
                "--json",
            ],
            "",
        );
        assert_eq!(run.code, 0, "{run:?}");
        let v = json(&run.stdout);
        assert_eq!(v["length"].as_u64(), Some(4), "{run:?}");
        assert_eq!(v["optimal"], true);
        assert_mtm_replays(&board, &goal, v["moves"].as_str().unwrap(), 4);
    }
    // Without the table no folder gets one: the note says how to build it.
    assert!(!dir.join("4x4-mtm.p1.pdb").exists());
}

#[test]
fn mtm_on_a_5x5_is_an_upper_bound_with_a_proven_lower_bound() {
    let run = fifteen(&["random", "--size", "5x5", "--moves", "40", "--seed", "7"]);
    let board_text = run.stdout.trim().to_string();
    let run =
        fifteen(&["solve", &board_text, "--metric", "mtm", "--json", "--max-nodes", "50000000"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = json(&run.stdout);
    assert_eq!(v["optimal"], false);
    let len = v["length"].as_u64().unwrap();
    let bound = v["lower_bound"].as_u64().unwrap();
    assert!(bound >= 1 && bound <= len, "{run:?}");
    let board = Board::parse(&board_text, None).unwrap();
    assert_mtm_replays(
        &board,
        &Board::blank_last(board.size()),
        v["moves"].as_str().unwrap(),
        len as usize,
    );
    // The text form says so.
    let run = fifteen(&["solve", &board_text, "--metric", "mtm"]);
    assert!(run.stdout.contains("not proven optimal"), "{run:?}");
    assert!(run.stdout.contains(&format!("at least {bound} MTM moves")), "{run:?}");
}

#[test]
fn verify_refuses_bad_line_moves_with_their_index() {
    let goal = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0";
    for (moves, index, what) in [
        ("R4", 1, "at most 3 tiles"),
        ("D R0", 2, "zero tiles"),
        ("D R X", 3, "not one of the letters"),
        ("D2 R3 U3", 3, "only 2 tile(s) can slide"),
    ] {
        let run = fifteen(&["verify", goal, moves, "--metric", "mtm"]);
        assert_eq!(run.code, 3, "{moves}: {run:?}");
        assert!(run.stderr.contains(&format!("move {index} ")), "{moves}: {run:?}");
        assert!(run.stderr.contains(what), "{moves}: {run:?}");
    }
    // The same lines written out, and spaced: one MTM move each way.
    let start = "1 2 3 4 5 6 7 8 9 10 11 12 0 13 14 15";
    for moves in ["L3", "LLL", "L 3"] {
        let run = fifteen(&["verify", start, moves, "--metric", "mtm"]);
        assert_eq!(run.code, 0, "{moves}: {run:?}");
        assert!(run.stdout.contains("reaches the goal: 1 MTM moves (3 single-tile moves)"));
    }
}

#[test]
fn batch_and_compare_count_in_mtm() {
    let goal = Board::blank_last(Size::S3X3);
    let dist = mtm_distances(&goal, u32::MAX);
    let picked: Vec<(&Vec<u8>, &u32)> = dist.iter().filter(|(_, d)| **d == 15).take(3).collect();
    let text: String = picked
        .iter()
        .map(|(c, _)| Board::from_cells(Size::S3X3, c).unwrap().to_line() + "\n")
        .collect();
    let file = temp_file("mtm-batch.txt", &text);
    let run = fifteen(&["solve", "--input", file.to_str().unwrap(), "--metric", "mtm", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    for line in run.stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["metric"], "mtm");
        assert_eq!(v["length"].as_u64(), Some(15), "{line}");
        let moves = Metric::Mtm.length(&fifteen_core::mtm::expand(
            &parse_lines(v["moves"].as_str().unwrap(), Notation::Tile, Size::S3X3).unwrap(),
        ));
        assert_eq!(moves, 15);
    }
    let board = Board::from_cells(Size::S3X3, picked[0].0).unwrap().to_line();
    let run = fifteen(&["compare", &board, "--metric", "mtm"]);
    assert_eq!(run.code, 0, "{run:?}");
    let optimal: Vec<&str> = run.stdout.lines().filter(|l| l.contains(" yes")).collect();
    assert_eq!(optimal.len(), 2, "{run:?}");
    assert!(optimal.iter().all(|l| l.split_whitespace().any(|w| w == "15")), "{run:?}");
    let _ = lines(&[]);
}
