//! `fifteen check BOARD`.

use crate::support::fifteen;

/// The estimate `check` prints for heuristic `name`.
fn estimate(text: &str, name: &str) -> Option<u32> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(name))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

#[test]
fn solvable_with_estimates() {
    let run = fifteen(&["check", "1 0 2 4 6 3 7 5 8"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("solvable: yes"), "{}", run.stdout);
    assert_eq!(estimate(&run.stdout, "misplaced"), Some(5));
    assert_eq!(estimate(&run.stdout, "manhattan"), Some(5));
    assert_eq!(estimate(&run.stdout, "linear-conflict"), Some(5));
    assert!(run.stdout.contains("pdb"), "{}", run.stdout);
}

/// Needs the real exact heuristic.
#[test]
fn exact_estimate_is_the_distance() {
    let run = fifteen(&["check", "7 4 2 0 6 5 8 3 1", "--goal", "blank-first"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(estimate(&run.stdout, "exact"), Some(21), "{}", run.stdout);
}

#[test]
fn unsolvable_says_why() {
    let run = fifteen(&["check", "2 1 3 4 5 6 7 8 0"]);
    assert_eq!(run.code, 4, "{run:?}");
    assert!(run.stdout.contains("solvable: no"), "{}", run.stdout);
    assert!(run.stdout.contains("odd"), "{}", run.stdout);
}

#[test]
fn large_boards_skip_exact() {
    let run = fifteen(&["check", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(estimate(&run.stdout, "manhattan"), Some(1));
    assert_eq!(estimate(&run.stdout, "exact"), None, "{}", run.stdout);
}
