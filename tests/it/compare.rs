//! `fifteen compare BOARD`.

use crate::support::fifteen;

/// The row of the table for `heuristic` and `algorithm`.
fn row<'a>(text: &'a str, heuristic: &str, algorithm: &str) -> Option<&'a str> {
    text.lines().find(|l| {
        let mut words = l.split_whitespace();
        words.next() == Some(heuristic) && words.next() == Some(algorithm)
    })
}

#[test]
fn small_board_table() {
    let run = fifteen(&["compare", "7 4 2 0 6 5 8 3 1", "--goal", "blank-first"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("heuristic"), "{}", run.stdout);
    for h in ["misplaced", "manhattan", "linear-conflict", "exact", "pdb"] {
        let r = row(&run.stdout, h, "ida").unwrap_or_else(|| panic!("{h} ida in\n{}", run.stdout));
        assert!(r.split_whitespace().nth(2) == Some("21"), "{r}");
    }
    assert!(row(&run.stdout, "none", "bfs").is_some(), "{}", run.stdout);
}

/// Needs the real A*, BFS, greedy and weighted A*.
#[test]
fn small_board_every_algorithm_runs() {
    let run = fifteen(&["compare", "7 4 2 0 6 5 8 3 1", "--goal", "blank-first"]);
    assert_eq!(run.code, 0, "{run:?}");
    for (h, a) in [("manhattan", "astar"), ("none", "bfs"), ("exact", "astar")] {
        let r = row(&run.stdout, h, a).unwrap_or_else(|| panic!("{h} {a} in\n{}", run.stdout));
        let cols: Vec<&str> = r.split_whitespace().collect();
        assert_eq!(cols[2..4], ["21", "yes"], "{r}");
    }
    let r = row(&run.stdout, "linear-conflict", "greedy").expect("a greedy row");
    assert!(r.split_whitespace().nth(2).and_then(|n| n.parse::<u32>().ok()).is_some(), "{r}");
}

#[test]
fn large_board_skips_and_limits() {
    // Korf's instance 55 (41 moves, blank-first goal): nothing finishes in 1000 nodes.
    let board = "13 8 14 3 9 1 0 7 15 5 4 10 12 2 6 11";
    let run = fifteen(&["compare", board, "--goal", "blank-first", "--limit-nodes", "1000"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(row(&run.stdout, "misplaced", "ida").is_none());
    assert!(row(&run.stdout, "exact", "ida").is_none());
    assert!(row(&run.stdout, "none", "bfs").is_none());
    let r = row(&run.stdout, "linear-conflict", "ida").expect("an ida row");
    assert!(r.contains("node limit reached"), "{r}");
    assert!(run.stdout.contains("skipped:"), "{}", run.stdout);
}

#[test]
fn unsolvable_exits_4() {
    let run = fifteen(&["compare", "2 1 3 4 5 6 7 8 0"]);
    assert_eq!(run.code, 4, "{run:?}");
    assert!(run.stdout.starts_with("no solution"), "{}", run.stdout);
}
