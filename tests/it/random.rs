//! `fifteen random`.

use fifteen_core::{Board, Size};

use crate::support::{fifteen, fifteen_with_stdin};

fn assert_solvable(lines: &str, size: Size, goal: &Board) {
    for line in lines.lines() {
        let board = Board::parse(line, None).expect("a random line parses back");
        assert_eq!(board.size(), size);
        assert!(board.solvability(goal).is_ok(), "{line}");
    }
}

#[test]
fn same_seed_same_output() {
    for mode in [&["--moves", "30"][..], &["--uniform"]] {
        let mut args = vec!["random", "--seed", "42", "--count", "5"];
        args.extend_from_slice(mode);
        let a = fifteen(&args);
        let b = fifteen(&args);
        assert_eq!(a.code, 0, "{a:?}");
        assert_eq!(a.stdout, b.stdout);
        assert_eq!(a.stdout.lines().count(), 5);
        args[2] = "43";
        assert_ne!(fifteen(&args).stdout, a.stdout, "{mode:?}");
        assert_solvable(&a.stdout, Size::S4X4, &Board::blank_last(Size::S4X4));
    }
}

#[test]
fn positions_are_solvable_for_every_size_and_goal() {
    for (size, s) in [(Size::S3X3, "3x3"), (Size::new(3, 4).expect("3x4"), "3x4")] {
        for goal in ["blank-last", "blank-first"] {
            let run =
                fifteen(&["random", "--size", s, "--goal", goal, "--uniform", "--count", "20"]);
            assert_eq!(run.code, 0, "{run:?}");
            let goal_board = Board::parse_goal(goal, size).expect("goal");
            assert_solvable(&run.stdout, size, &goal_board);
        }
    }
}

#[test]
fn a_short_walk_is_solved_within_its_length() {
    let run = fifteen(&["random", "--size", "4x4", "--moves", "12", "--count", "4", "--seed", "1"]);
    assert_eq!(run.code, 0);
    let solved = fifteen_with_stdin(&["solve", "-i", "-", "--json"], &run.stdout);
    assert_eq!(solved.code, 0, "{solved:?}");
    for line in solved.stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
        assert!(v["length"].as_u64().is_some_and(|n| n <= 12), "{v}");
    }
}

#[test]
fn bad_size_is_bad_input() {
    let run = fifteen(&["random", "--size", "1x9"]);
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("out of range"), "{}", run.stderr);
}
