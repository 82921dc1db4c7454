//! `fifteen verify BOARD MOVES`.

use crate::support::fifteen;

const BOARD: &str = "1 0 2 4 6 3 7 5 8";

#[test]
fn a_solution_reaches_the_goal() {
    for moves in ["LURUL", "L U R U L", "l,u,r,u,l"] {
        let run = fifteen(&["verify", BOARD, moves]);
        assert_eq!(run.code, 0, "{moves}: {run:?}");
        assert!(run.stdout.contains("reaches the goal: 5 moves"), "{}", run.stdout);
    }
    let run = fifteen(&["verify", BOARD, "RDLDR", "--notation", "blank"]);
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn a_short_list_does_not() {
    let run = fifteen(&["verify", BOARD, "LURU"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.contains("does not reach the goal"), "{}", run.stdout);
    assert!(run.stdout.contains("4 moves"), "{}", run.stdout);
}

#[test]
fn an_illegal_move_is_named() {
    // The blank is top middle: after L (tile 2 slides left) no tile can slide left again.
    let run = fifteen(&["verify", BOARD, "LL"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.contains("illegal move 2 (L)"), "{}", run.stdout);
}

#[test]
fn a_bad_letter_is_bad_input() {
    let run = fifteen(&["verify", BOARD, "LUX"]);
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("move 3 ('X')"), "{}", run.stderr);
}
