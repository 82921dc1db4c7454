//! Tests of the catalogue: its estimate is the maximum of its partitions' (each an independent
//! [`PdbHeuristic`]), admissible against exact 3x3 distances, updated incrementally, and IDA*
//! with it is optimal.

use std::sync::Arc;

use super::super::tests::{
    all_positions, check_steps, corner_goals, dummy_table, pattern_table, table_for, walk,
    zero_bits_table_for, zero_table_for,
};
use super::*;
use crate::pdb::PdbHeuristic;
use crate::{Limits, Problem, ida};

/// Six 4-tile 3x3 patterns whose exact covers are three partitions.
const PATTERNS_3X3: [[u8; 4]; 6] =
    [[1, 2, 3, 4], [5, 6, 7, 8], [1, 3, 5, 7], [2, 4, 6, 8], [1, 2, 5, 6], [3, 4, 7, 8]];

fn tables_3x3() -> Vec<Arc<PdbTable>> {
    let canonical = Board::blank_first(Size::S3X3);
    PATTERNS_3X3.iter().map(|p| table_for(&canonical, p, &pattern_table(&canonical, p))).collect()
}

#[test]
fn exact_covers_are_every_partition() {
    let masks: Vec<u64> =
        PATTERNS_3X3.iter().map(|p| p.iter().fold(0, |m, &t| m | 1 << t)).collect();
    let covers = exact_covers(9, &masks);
    assert_eq!(covers, vec![vec![0, 1], vec![2, 3], vec![4, 5]]);
    // A pattern that overlaps all others adds no partition; a missing tile leaves none.
    assert_eq!(exact_covers(9, &masks[..1]), Vec::<Vec<usize>>::new());
}

/// The catalogue's estimate equals the largest of its partitions' estimates, each computed by
/// the independent single-partition heuristic, and never exceeds the exact distance.
#[test]
fn estimate_is_the_maximum_of_the_partitions_and_admissible() {
    let tables = tables_3x3();
    for goal in corner_goals() {
        let truth = all_positions(&goal);
        for (reflect, dual) in [(false, false), (true, false), (true, true)] {
            let cat = Catalogue::<64>::new(&goal, tables.clone(), reflect, dual, "c").unwrap();
            assert_eq!(cat.partitions().len(), 3);
            let parts: Vec<PdbHeuristic> = cat
                .partitions()
                .iter()
                .map(|p| {
                    let t = p.iter().map(|&i| tables[i].clone()).collect();
                    PdbHeuristic::new(&goal, t, reflect, dual, "p").unwrap()
                })
                .collect();
            let mut raised = 0;
            for (b, d) in truth.iter().step_by(3) {
                let h = cat.estimate(b.cells());
                let each: Vec<u32> = parts.iter().map(|p| p.estimate(b.cells())).collect();
                assert_eq!(h, *each.iter().max().unwrap(), "goal {goal:?} board {b:?}");
                assert!(h <= *d, "goal {goal:?} board {b:?}: {h} > {d}");
                raised += usize::from(each[0] < h);
            }
            assert!(
                raised > 1000,
                "the other partitions raise the first one's estimates: {raised}"
            );
        }
    }
}

#[test]
fn incremental_steps_match_init() {
    let tables = tables_3x3();
    for goal in corner_goals() {
        for (reflect, dual) in [(false, false), (true, false), (true, true)] {
            let cat = Catalogue::<64>::new(&goal, tables.clone(), reflect, dual, "c").unwrap();
            check_steps(&cat, &goal, 3000);
            // The same with room for 32 slots: the 3x3's 12 (24 with duals) fit.
            let small = Catalogue::<32>::new(&goal, tables.clone(), reflect, dual, "c").unwrap();
            check_steps(&small, &goal, 3000);
        }
    }
    // Larger boards, where vertical moves jump over several pattern tiles of several slots.
    for (size, patterns) in [
        (
            Size::S4X4,
            vec![
                vec![1, 2, 3, 4, 5, 6, 7],
                vec![8, 9, 10, 11, 12, 13, 14, 15],
                vec![1, 2, 5, 6, 9, 10, 13],
                vec![3, 4, 7, 8, 11, 12, 14, 15],
            ],
        ),
        (
            Size::S5X5,
            vec![
                vec![1, 2, 5, 6, 7, 12],
                vec![3, 4, 8, 9, 13, 14],
                vec![10, 11, 15, 16, 20, 21],
                vec![17, 18, 19, 22, 23, 24],
                vec![1, 5, 6, 10, 11, 12],
                vec![2, 3, 4, 7, 8, 9],
                vec![13, 14, 18, 19, 23, 24],
                vec![15, 16, 17, 20, 21, 22],
            ],
        ),
        // Wider than 5: a vertical move passes more cells than the 5x5's fixed four.
        (Size::new(6, 6).expect("a 6x6"), {
            let chunks = |first: u8| {
                let mut out = vec![(1..first).collect::<Vec<u8>>()];
                out.extend((first..36).collect::<Vec<u8>>().chunks(3).map(<[u8]>::to_vec));
                out.retain(|p| !p.is_empty());
                out
            };
            let mut patterns = chunks(1);
            patterns.extend(chunks(3));
            patterns
        }),
    ] {
        let canonical = Board::blank_first(size);
        let tables: Vec<_> = patterns.iter().map(|p| dummy_table(&canonical, p)).collect();
        for goal in [canonical.clone(), Board::blank_last(size)] {
            for dual in [false, true] {
                let cat = Catalogue::<64>::new(&goal, tables.clone(), true, dual, "c").unwrap();
                assert!(cat.partitions().len() >= 2);
                check_steps(&cat, &goal, 4000);
            }
            // At least 4 tables in 2 views: more slots than 4.
            assert!(Catalogue::<4>::new(&goal, tables.clone(), true, false, "c").is_err());
        }
    }
}

/// IDA* with the catalogue finds the exact distance of sampled 3x3 positions.
#[test]
fn ida_with_the_catalogue_is_optimal() {
    let tables = tables_3x3();
    for goal in corner_goals() {
        let cat = Catalogue::<64>::new(&goal, tables.clone(), true, true, "c").unwrap();
        for (b, d) in all_positions(&goal).iter().step_by(997) {
            let problem = Problem::new(b.clone(), goal.clone()).unwrap();
            let sol = ida(&problem, &cat, &Limits::default()).unwrap();
            assert_eq!(sol.len() as u32, *d, "goal {goal:?} board {b:?}");
        }
    }
}

fn zero_tables_3x3() -> Vec<Arc<PdbTable>> {
    let canonical = Board::blank_first(Size::S3X3);
    PATTERNS_3X3.iter().map(|p| zero_table_for(&canonical, p)).collect()
}

/// Zero-aware tables: admissible against exact distances, never below the ordinary tables'
/// estimate, above it on many positions; their dual lookups too.
#[test]
fn zero_aware_tables_are_admissible_and_at_least_the_plain_ones() {
    let (plain, zero) = (tables_3x3(), zero_tables_3x3());
    for goal in corner_goals() {
        let truth = all_positions(&goal);
        for (reflect, dual) in [(false, false), (true, false), (true, true)] {
            // One partition alone (a zero-aware set is a catalogue of one partition), and all.
            for pick in [&[0usize, 1][..], &[0, 1, 2, 3, 4, 5]] {
                let take = |t: &[Arc<PdbTable>]| pick.iter().map(|&i| t[i].clone()).collect();
                let p = PdbHeuristic::new(&goal, take(&plain), reflect, dual, "p").unwrap();
                let z = PdbHeuristic::new(&goal, take(&zero), reflect, dual, "z").unwrap();
                assert!(matches!(z, PdbHeuristic::Catalogue(_)));
                let mut raised = 0;
                for (b, d) in &truth {
                    let (hp, hz) = (p.estimate(b.cells()), z.estimate(b.cells()));
                    assert!(hz <= *d, "goal {goal:?} board {b:?}: {hz} > {d}");
                    assert!(hz >= hp, "goal {goal:?} board {b:?}: {hz} < {hp}");
                    raised += usize::from(hz > hp);
                }
                assert!(raised > 1000, "zero-awareness raises estimates: {raised}");
            }
        }
    }
}

#[test]
fn zero_aware_steps_match_init_and_ida_is_optimal() {
    let zero = zero_tables_3x3();
    for goal in corner_goals() {
        for (reflect, dual) in [(false, false), (true, true)] {
            let cat = Catalogue::<32>::new(&goal, zero.clone(), reflect, dual, "z").unwrap();
            check_steps(&cat, &goal, 3000);
        }
        let cat = Catalogue::<64>::new(&goal, zero.clone(), true, true, "z").unwrap();
        for (b, d) in all_positions(&goal).iter().step_by(1499) {
            let problem = Problem::new(b.clone(), goal.clone()).unwrap();
            let sol = ida(&problem, &cat, &Limits::default()).unwrap();
            assert_eq!(sol.len() as u32, *d, "goal {goal:?} board {b:?}");
        }
    }
    // A larger board, where regions split more often (values do not matter here).
    let size = Size::new(4, 4).unwrap();
    let canonical = Board::blank_first(size);
    let tables: Vec<_> = [&[1u8, 2, 4, 5][..], &[3, 6, 7, 8, 9], &[10, 11, 12, 13, 14, 15]]
        .iter()
        .map(|p| zero_table_for(&canonical, p))
        .collect();
    for goal in [canonical.clone(), Board::blank_last(size)] {
        let cat = Catalogue::<64>::new(&goal, tables.clone(), true, true, "z").unwrap();
        check_steps(&cat, &goal, 4000);
    }
}

/// A beam ranks a catalogue's boards by its estimate plus linear conflict's tiles and the far
/// tiles' weight, as it does an additive set's: along a walk on the 3x3 with tables of bits,
/// from the state carried move by move; and a beam wider than any 3x3 layer still finds
/// shortest paths through that order.
#[test]
fn a_beam_ranks_a_catalogue_with_conflicts_and_far_tiles() {
    use crate::heuristic::{BeamOrder, LinearConflict, Manhattan, far_sixteenths};
    const { assert!(<Catalogue<32> as Heuristic>::RANK_WITH_CONFLICTS) };
    let canonical = Board::blank_first(Size::S3X3);
    let bits: Vec<_> = PATTERNS_3X3.iter().map(|p| zero_bits_table_for(&canonical, p)).collect();
    for goal in corner_goals() {
        let cat = Catalogue::<32>::new(&goal, bits.clone(), true, false, "b").unwrap();
        let ranked = BeamOrder::<_, true>::new(&cat, &goal);
        let (lc, md) = (LinearConflict::new(&goal), Manhattan::new(&goal));
        let mut s = ranked.init(goal.cells());
        let mut with_conflicts = 0;
        walk(&goal, 3000, 0x9e37_79b9_7f4a_7c15, |b, tile, to, blank, _| {
            s = ranked.step(&s, b.cells(), tile, to, blank);
            let estimate = cat.estimate(b.cells());
            let conflicts = (lc.estimate(b.cells()) - md.estimate(b.cells())) / 2;
            let far = far_sixteenths(b, &goal) / 16;
            assert_eq!(ranked.resolve(&mut s), estimate, "{b:?}");
            assert_eq!(ranked.rank(&s), estimate + conflicts + far, "{b:?}");
            with_conflicts += usize::from(conflicts > 0);
        });
        assert!(with_conflicts > 100, "the walk met boards with conflicts");
        for (start, d) in all_positions(&goal).into_iter().step_by(15_013) {
            let p = Problem::new(start.clone(), goal.clone()).unwrap();
            let sol = crate::beam_search(&p, &cat, 30_000, &Limits::default()).unwrap();
            assert_eq!(sol.len() as u32, d, "{start:?}");
            assert_eq!(crate::replay(&start, &sol.moves).unwrap().0, goal);
        }
    }
}

/// Disjoint zero-aware tables (one partition) are read as a catalogue too, whether their
/// entries are bytes or bits: the plain lookup knows neither encoding (tables of bits once
/// reached it and read past their end).
#[test]
fn one_partition_of_zero_aware_tables_is_a_catalogue() {
    let canonical = Board::blank_first(Size::S3X3);
    let part = [&PATTERNS_3X3[0][..], &PATTERNS_3X3[1][..]];
    let zero: Vec<_> = part.iter().map(|p| zero_table_for(&canonical, p)).collect();
    let bits: Vec<_> = part.iter().map(|p| zero_bits_table_for(&canonical, p)).collect();
    for goal in corner_goals() {
        let truth = all_positions(&goal);
        let z = PdbHeuristic::new(&goal, zero.clone(), true, false, "z").unwrap();
        let b = PdbHeuristic::new(&goal, bits.clone(), true, false, "b").unwrap();
        for h in [&z, &b] {
            assert!(matches!(h, PdbHeuristic::Catalogue(_)), "goal {goal:?}");
        }
        let mut raised = 0;
        for (board, d) in truth.iter().step_by(7) {
            let e = b.estimate(board.cells());
            assert_eq!(e, z.estimate(board.cells()), "{board:?}");
            assert!(e <= *d, "goal {goal:?} board {board:?}: {e} > {d}");
            raised += usize::from(e > 0);
        }
        assert!(raised > truth.len() / 8, "the tables are read: {raised}");
    }
}

/// Tables of bits give exactly the zero-aware tables' estimates: from scratch (a walk down the
/// table) and stepped (one more or one less than the parent's).
#[test]
fn tables_of_bits_give_the_zero_aware_estimates() {
    let canonical = Board::blank_first(Size::S3X3);
    let zero = zero_tables_3x3();
    let bits: Vec<_> = PATTERNS_3X3.iter().map(|p| zero_bits_table_for(&canonical, p)).collect();
    // A table of bits is an eighth of the size.
    assert_eq!(bits[0].entries().len(), zero[0].entries().len().div_ceil(8));
    for goal in corner_goals() {
        let truth = all_positions(&goal);
        let z = Catalogue::<32>::new(&goal, zero.clone(), true, false, "z").unwrap();
        let b = Catalogue::<32>::new(&goal, bits.clone(), true, false, "b").unwrap();
        for (board, _) in truth.iter().step_by(5) {
            assert_eq!(b.estimate(board.cells()), z.estimate(board.cells()), "{board:?}");
        }
        check_steps(&b, &goal, 3000);
        // Dual lookups have no parent entry to step from: a table of bits goes without them.
        let with_dual = Catalogue::<32>::new(&goal, bits.clone(), true, true, "b").unwrap();
        assert_eq!(with_dual.lookups(), b.lookups());
        for (board, d) in truth.iter().step_by(2003) {
            let problem = Problem::new(board.clone(), goal.clone()).unwrap();
            let sol = ida(&problem, &b, &Limits::default()).unwrap();
            assert_eq!(sol.len() as u32, *d, "goal {goal:?} board {board:?}");
        }
    }
}

/// A beam that leaves the children its catalogue's leading partition already ranks past the
/// last layer's cut unresolved keeps exactly the boards that resolving every child keeps: the
/// same paths and node counts, on 3x3 boards whose layers narrow beams cut, with tables of bits
/// (whose entries are read from the parent's, so a child stepped from a state left unresolved
/// would read wrong values).
#[test]
fn a_beam_resolving_in_parts_keeps_the_boards_of_a_beam_resolving_all() {
    use crate::heuristic::BeamOrder;
    use crate::search::Stats;
    use crate::search::beam::beam_ranked;
    const { assert!(<Catalogue<32> as Heuristic>::RESOLVES_IN_PARTS) };
    let canonical = Board::blank_first(Size::S3X3);
    let bits: Vec<_> = PATTERNS_3X3.iter().map(|p| zero_bits_table_for(&canonical, p)).collect();
    let (mut deferred, mut late) = (0, 0);
    for goal in corner_goals() {
        let cat = Catalogue::<32>::new(&goal, bits.clone(), true, false, "b").unwrap();
        let ranked = BeamOrder::<_, true>::new(&cat, &goal);
        for (start, d) in all_positions(&goal).into_iter().step_by(1_009) {
            let p = Problem::new(start.clone(), goal.clone()).unwrap();
            for (width, bound) in [(1, 200), (3, 200), (8, 200), (40, 200), (8, d + 1), (40, d + 3)]
            {
                let run = |parts| {
                    let mut stats = Stats::default();
                    let limits = Limits::default();
                    let r =
                        beam_ranked(&p, &ranked, width, None, bound, &limits, &mut stats, parts);
                    (r, stats.generated, stats.expanded)
                };
                let (whole, in_parts) = (run(false), run(true));
                assert_eq!(whole.0.deferred, 0);
                assert_eq!(
                    (&in_parts.0.found, in_parts.1, in_parts.2, in_parts.0.truncated),
                    (&whole.0.found, whole.1, whole.2, whole.0.truncated),
                    "{start:?}, width {width}, bound {bound}"
                );
                if let Some(path) = &in_parts.0.found {
                    assert_eq!(crate::replay(&start, path).unwrap().0, goal);
                }
                deferred += in_parts.0.deferred;
                late += in_parts.0.resolved_late;
            }
        }
    }
    assert!(late > 0 && deferred > late, "children deferred {deferred}, resolved late {late}");
}
