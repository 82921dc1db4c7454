//! `fifteen solve BOARD`.

use fifteen_core::{Board, Notation, Size};
use serde_json::Value;

use crate::support::{assert_replays, field, fifteen, length};

/// The write-up's cases: board, goal, optimal length.
const CASES: [(&str, &str, usize); 4] = [
    ("1 2 3 4 5 6 0 7 8", "blank-last", 2),
    ("1 0 2 4 6 3 7 5 8", "blank-last", 5),
    ("8 7 6 5 4 3 2 1 0", "blank-first", 28),
    ("7 4 2 0 6 5 8 3 1", "blank-first", 21),
];

fn goal_board(goal: &str) -> Board {
    Board::parse_goal(goal, Size::S3X3).expect("a goal")
}

#[test]
fn write_up_cases_are_solved_optimally_and_replay() {
    for (board, goal, expected) in CASES {
        let run = fifteen(&["solve", board, "--goal", goal]);
        assert_eq!(run.code, 0, "{board}: {}", run.stderr);
        assert_eq!(length(&run.stdout), expected, "{board}");
        assert!(run.stdout.contains("(proven optimal)"), "{}", run.stdout);
        let moves = field(&run.stdout, "moves");
        assert_replays(board, &goal_board(goal), moves, Notation::Tile, expected);
        let tiles = field(&run.stdout, "tiles");
        assert_eq!(tiles.split_whitespace().count(), expected);
        // The binary agrees with itself.
        let check = fifteen(&["verify", board, moves, "--goal", goal]);
        assert_eq!(check.code, 0, "{}", check.stdout);
    }
}

#[test]
fn blank_notation_is_the_reverse_letter() {
    let run = fifteen(&["solve", "1 0 2 4 6 3 7 5 8"]);
    assert_eq!(field(&run.stdout, "moves"), "LURUL");
    let run = fifteen(&["solve", "1 0 2 4 6 3 7 5 8", "--notation", "blank"]);
    assert_eq!(run.code, 0);
    let moves = field(&run.stdout, "moves");
    assert_eq!(moves, "RDLDR");
    assert_replays("1 0 2 4 6 3 7 5 8", &goal_board("blank-last"), moves, Notation::Blank, 5);
    assert_eq!(field(&run.stdout, "tiles"), "2 3 6 5 8");
}

#[test]
fn every_pasted_form_parses() {
    let forms = [
        "1 0 2 4 6 3 7 5 8",
        "1,0,2,4,6,3,7,5,8",
        "< 1, 0, 2, 4, 6, 3, 7, 5, 8 >",
        "[1 0 2] [4 6 3] [7 5 8]",
        "[[1, 0, 2], [4, 6, 3], [7, 5, 8]]",
        "1 0 2\n4 6 3\n7 5 8",
        "1 _ 2 / 4 6 3 / 7 5 8",
        "1 _ 2/4 6 3/7 5 8",
        "  1 0 2\n\n  4 6 3\n  7 5 8\n",
    ];
    for form in forms {
        let run = fifteen(&["solve", form]);
        assert_eq!(run.code, 0, "{form:?}: {}", run.stderr);
        assert_eq!(length(&run.stdout), 5, "{form:?}");
    }
    // Unquoted numbers are joined into one board.
    let mut args = vec!["solve"];
    args.extend("1 0 2 4 6 3 7 5 8".split(' '));
    let run = fifteen(&args);
    assert_eq!(length(&run.stdout), 5, "{}", run.stderr);
    // A board that is not square needs rows or --size.
    let run = fifteen(&["solve", "--size", "3x2", "1 2 3 4 0 5"]);
    assert_eq!(length(&run.stdout), 1, "{}", run.stderr);
    let run = fifteen(&["solve", "1 2 3 / 4 0 5"]);
    assert_eq!(length(&run.stdout), 1, "{}", run.stderr);
}

#[test]
fn goal_can_be_any_arrangement() {
    let run = fifteen(&["solve", "1 2 3 4 5 6 7 8 0", "--goal", "1 2 3 4 5 6 0 7 8"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(length(&run.stdout), 2);
}

#[test]
fn json_has_the_documented_fields() {
    let run = fifteen(&["solve", "7 4 2 0 6 5 8 3 1", "--goal", "blank-first", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one object per line");
    let v: Value = serde_json::from_str(lines[0]).expect("JSON");
    for key in [
        "board",
        "goal",
        "length",
        "optimal",
        "moves",
        "tiles",
        "nodes",
        "expanded",
        "time_ms",
        "heuristic",
        "algorithm",
        "status",
        "notation",
        "size",
    ] {
        assert!(v.get(key).is_some(), "no {key} in {v}");
    }
    assert_eq!(v["board"], "7 4 2 0 6 5 8 3 1");
    assert_eq!(v["goal"], "0 1 2 3 4 5 6 7 8");
    assert_eq!(v["length"], 21);
    assert_eq!(v["optimal"], true);
    assert_eq!(v["status"], "solved");
    assert_eq!(v["heuristic"], "linear-conflict");
    assert_eq!(v["algorithm"], "ida");
    assert_eq!(v["tiles"].as_array().map(Vec::len), Some(21));
    assert!(v["nodes"].as_u64().is_some_and(|n| n >= v["expanded"].as_u64().unwrap_or(0)));
    let moves = v["moves"].as_str().expect("moves");
    assert_replays("7 4 2 0 6 5 8 3 1", &goal_board("blank-first"), moves, Notation::Tile, 21);
}

#[test]
fn boards_prints_every_step() {
    let run = fifteen(&["solve", "1 2 3 4 5 6 0 7 8", "--boards"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut blocks = run.stdout.split("\n\n");
    let first = blocks.next().expect("a first block");
    let (count, grid) = first.split_once('\n').expect("count then grid");
    assert_eq!(count, "2");
    assert_eq!(grid, "1 2 3\n4 5 6\n0 7 8");
    let rest: Vec<&str> = blocks.collect();
    assert_eq!(rest, ["1 2 3\n4 5 6\n7 0 8", "1 2 3\n4 5 6\n7 8 0\n"]);
    assert!(run.stderr.contains("proven optimal"), "{}", run.stderr);
}

#[test]
fn stats_reports_nodes_thresholds_and_time() {
    let run = fifteen(&["solve", "8 7 6 5 4 3 2 1 0", "--goal", "blank-first", "--stats"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for key in ["nodes expanded", "nodes generated", "thresholds", "time", "heuristic"] {
        field(&run.stdout, key);
    }
    let thresholds = field(&run.stdout, "thresholds");
    assert_eq!(thresholds.split_whitespace().last(), Some("28"));
    let short = fifteen(&["solve", "1 2 3 4 5 6 0 7 8", "-v"]);
    field(&short.stdout, "nodes generated");
}

#[test]
fn every_admissible_heuristic_gives_the_optimal_length() {
    for h in ["misplaced", "manhattan", "linear-conflict", "exact"] {
        let run =
            fifteen(&["solve", "7 4 2 0 6 5 8 3 1", "--goal", "blank-first", "--heuristic", h]);
        assert_eq!(run.code, 0, "{h}: {}", run.stderr);
        assert_eq!(length(&run.stdout), 21, "{h}");
    }
}

/// Needs the real A* and BFS.
#[test]
fn astar_and_bfs_are_optimal() {
    for algorithm in ["astar", "bfs"] {
        for (board, goal, expected) in CASES {
            let run = fifteen(&["solve", board, "--goal", goal, "--algorithm", algorithm]);
            assert_eq!(run.code, 0, "{algorithm} {board}: {}", run.stderr);
            assert_eq!(length(&run.stdout), expected, "{algorithm} {board}");
            assert!(run.stdout.contains("(proven optimal)"));
            let moves = field(&run.stdout, "moves");
            assert_replays(board, &goal_board(goal), moves, Notation::Tile, expected);
        }
    }
}

/// Needs the real greedy and weighted A*.
#[test]
fn greedy_and_weighted_solve_without_claiming_optimality() {
    let (board, goal, optimum) = CASES[2];
    for args in [&["--algorithm", "greedy"][..], &["--algorithm", "weighted", "--weight", "1.5"]] {
        let mut all = vec!["solve", board, "--goal", goal];
        all.extend_from_slice(args);
        let run = fifteen(&all);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        let len = length(&run.stdout);
        assert!(len >= optimum, "{args:?}");
        if args.contains(&"weighted") {
            assert!(len as f64 <= 1.5 * optimum as f64, "{len}");
        }
        let moves = field(&run.stdout, "moves");
        assert_replays(board, &goal_board(goal), moves, Notation::Tile, len);
    }
}

/// Needs the real beam search: an answer that replays, labelled with its width, never
/// shorter than the optimum; a width of 0 is a usage error, a beam too narrow to arrive a limit.
#[test]
fn beam_solves_without_claiming_optimality_and_refuses_a_zero_width() {
    let (board, goal, optimum) = CASES[2];
    let run = fifteen(&["solve", board, "--goal", goal, "--algorithm", "beam", "--width", "16"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let len = length(&run.stdout);
    assert!(len >= optimum, "{len}");
    let moves = field(&run.stdout, "moves");
    assert_replays(board, &goal_board(goal), moves, Notation::Tile, len);
    if len > optimum {
        assert!(
            run.stdout.contains("not proven optimal: beam search of width 16"),
            "{}",
            run.stdout
        );
    }
    let run = fifteen(&["solve", board, "--goal", goal, "--algorithm", "beam", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(run.stdout.trim()).expect("JSON");
    assert_eq!(v["algorithm"], "beam(4096)");
    assert_eq!(v["length"], optimum as u64, "a beam of 4,096 is wide enough here");
    let run = fifteen(&["solve", board, "--algorithm", "beam", "--width", "0"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("width"), "{}", run.stderr);
    // A beam of one board on a 7x7 wanders past its depth cap: the limit's exit code.
    let seven = "8 43 29 24 13 18 17 44 19 40 9 46 42 5 2 11 10 15 20 41 28 33 23 48 0 21 12 7 47 35 14 4 30 36 6 16 31 38 34 1 25 22 26 32 37 45 27 39 3";
    let run = fifteen(&["solve", seven, "--algorithm", "beam", "--width", "1"]);
    assert_eq!(run.code, 5, "{run:?}");
    assert!(run.stderr.contains("depth cap"), "{}", run.stderr);
}

#[test]
fn already_solved_is_zero_moves() {
    let run = fifteen(&["solve", "1 2 3 4 5 6 7 8 0"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(length(&run.stdout), 0);
}

#[test]
fn unsolvable_exits_4_with_the_reason() {
    let run = fifteen(&["solve", "2 1 3 4 5 6 7 8 0"]);
    assert_eq!(run.code, 4, "{run:?}");
    assert_eq!(run.stdout.lines().count(), 1);
    assert!(run.stdout.starts_with("no solution"), "{}", run.stdout);
    assert!(run.stdout.contains("parit"), "{}", run.stdout);
    // Even a 4x4 is answered at once, whatever the heuristic.
    let run = fifteen(&["solve", "2 1 3 4 5 6 7 8 9 10 11 12 13 14 15 0", "--json"]);
    assert_eq!(run.code, 4);
    let v: Value = serde_json::from_str(run.stdout.trim()).expect("JSON");
    assert_eq!(v["status"], "unsolvable");
}

#[test]
fn malformed_boards_exit_3_naming_the_problem() {
    let cases: [(&[&str], &str); 7] = [
        (&["--size", "3x3", "1 2 3 4 5 6 7 8"], "wrong count"),
        (&["1 2 3 4 5 6 7 8"], "not a square"),
        (&["1 1 3 4 5 6 7 8 0"], "tile 1 is repeated"),
        (&["1 x 3 4 5 6 7 8 0"], "\"x\""),
        (&["1 2 3 4 5 6 7 8 9"], "out of range"),
        (&["--size", "9x9", "1 2 3 4 5 6 7 8 0"], "out of range"),
        (&["--size", "three", "1 2 3 4 5 6 7 8 0"], "not of the form WxH"),
    ];
    for (args, message) in cases {
        let mut all = vec!["solve"];
        all.extend_from_slice(args);
        let run = fifteen(&all);
        assert_eq!(run.code, 3, "{args:?}: {run:?}");
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.trim_end().ends_with('.'), "{}", run.stderr);
    }
    let run = fifteen(&["solve", "1 2 3 4 5 6 7 8 0", "--goal", "1 2 3"]);
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("bad goal"), "{}", run.stderr);
}

#[test]
fn usage_errors_exit_2() {
    let run = fifteen(&["solve", "1 2 3 4 5 6 0 7 8", "--weight", "0.5"]);
    assert_eq!(run.code, 2, "{run:?}");
    let run = fifteen(&["solve"]);
    assert_eq!(run.code, 2, "{run:?}");
    let run = fifteen(&["solve", "1 2 3 4 5 6 0 7 8", "--output", "x"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("only with --input"), "{}", run.stderr);
    let run = fifteen(&["solve", "--heuristic", "exact", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("at most 9 cells"), "{}", run.stderr);
}

#[test]
fn limits_exit_5() {
    // Korf's instance 1 (57 moves, blank-first goal) needs millions of nodes.
    let hard = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3";
    let lc = ["--heuristic", "linear-conflict"];
    let run = fifteen(
        &[&["solve", hard, "--goal", "blank-first", "--max-nodes", "1000"][..], &lc].concat(),
    );
    assert_eq!(run.code, 5, "{run:?}");
    assert!(run.stderr.contains("node limit"), "{}", run.stderr);
    assert!(run.stderr.contains("at least"), "{}", run.stderr);
    let run = fifteen(
        &[&["solve", hard, "--goal", "blank-first", "--timeout", "0.05"][..], &lc].concat(),
    );
    assert_eq!(run.code, 5, "{run:?}");
    assert!(run.stderr.contains("time limit"), "{}", run.stderr);
}

#[test]
fn help_documents_notation_exit_codes_and_json() {
    let run = fifteen(&["solve", "--help"]);
    assert_eq!(run.code, 0);
    for text in ["direction the moved tile slides", "Exit codes", "time_ms", "blank line"] {
        assert!(run.stdout.contains(text), "{text:?} not in --help");
    }
}
