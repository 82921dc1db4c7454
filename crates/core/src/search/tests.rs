//! Tests of the searches against published optimal lengths.

use super::*;
use crate::{Heuristic, LinearConflict, Manhattan, Misplaced, Size};

fn solve_len(start: &str, goal: Board) -> usize {
    let start = Board::parse(start, None).unwrap();
    let p = Problem::new(start.clone(), goal.clone()).unwrap();
    let a = ida(&p, &Manhattan::new(&goal), &Limits::default()).unwrap();
    let b = ida(&p, &LinearConflict::new(&goal), &Limits::default()).unwrap();
    let c = ida(&p, &Misplaced::new(&goal), &Limits::default()).unwrap();
    for s in [&a, &b, &c] {
        let (end, tiles) = replay(&start, &s.moves).unwrap();
        assert_eq!(end, goal);
        assert_eq!(tiles, s.tiles);
        assert!(s.optimal);
    }
    assert_eq!(a.len(), b.len());
    assert_eq!(a.len(), c.len());
    a.len()
}

#[test]
fn write_up_cases() {
    let last = Board::blank_last(Size::S3X3);
    let first = Board::blank_first(Size::S3X3);
    assert_eq!(solve_len("1 2 3 4 5 6 0 7 8", last.clone()), 2);
    assert_eq!(solve_len("1 0 2 4 6 3 7 5 8", last), 5);
    assert_eq!(solve_len("8 7 6 5 4 3 2 1 0", first.clone()), 28);
    assert_eq!(solve_len("7 4 2 0 6 5 8 3 1", first), 21);
}

#[test]
fn goal_is_zero_moves() {
    let goal = Board::blank_last(Size::new(3, 4).unwrap());
    let p = Problem::new(goal.clone(), goal.clone()).unwrap();
    let s = ida(&p, &Manhattan::new(&goal), &Limits::default()).unwrap();
    assert!(s.is_empty());
    assert_eq!(s.stats.generated, 1);
}

#[test]
fn node_limit_reports_lower_bound() {
    let start = Board::parse("8 7 6 5 4 3 2 1 0", None).unwrap();
    let goal = Board::blank_first(Size::S3X3);
    let p = Problem::new(start, goal.clone()).unwrap();
    let limits = Limits { max_nodes: Some(100), ..Limits::default() };
    match ida(&p, &Manhattan::new(&goal), &limits) {
        Err(SearchError::LimitReached { kind: LimitKind::Nodes, lower_bound, stats }) => {
            assert!(lower_bound <= 28);
            assert!(lower_bound >= Manhattan::new(&goal).estimate(p.start().cells()));
            assert_eq!(stats.generated, 100);
        }
        other => panic!("expected a node limit, got {other:?}"),
    }
}
