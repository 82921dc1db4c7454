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
    line_bfs(goal.cells().to_vec(), goal.size(), max_depth)
}

/// MTM distances from `start` (a label per cell, 0 the blank's) to every string of labels
/// reachable within `max_depth` line moves: a line move is the blank swapped along a row or
/// column, one cell at a time, every cell it stops on a new state.
fn line_bfs(start: Vec<u8>, size: Size, max_depth: u32) -> HashMap<Vec<u8>, u32> {
    let (w, h) = (size.width() as i32, size.height() as i32);
    let mut dist = HashMap::from([(start.clone(), 0u32)]);
    let mut frontier = vec![start];
    let mut depth = 0;
    while !frontier.is_empty() && depth < max_depth {
        let mut next = Vec::new();
        for s in &frontier {
            let blank = s.iter().position(|&c| c == 0).unwrap() as i32;
            for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                let (mut r, mut c, mut cur) = (blank / w, blank % w, s.clone());
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
    let h = MtmHeuristic::new(&goal, &[]);
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

/// Every string of `sizes[k]` copies of each class `k` on `n` cells (to sort into the colour
/// tables' rank order: an independent ranking to check theirs against).
fn all_strings(n: usize, sizes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut left = sizes.to_vec();
    let mut cur = Vec::new();
    fn rec(n: usize, left: &mut Vec<u8>, cur: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if cur.len() == n {
            out.push(cur.clone());
            return;
        }
        for k in 0..left.len() {
            if left[k] > 0 {
                left[k] -= 1;
                cur.push(k as u8);
                rec(n, left, cur, out);
                cur.pop();
                left[k] += 1;
            }
        }
    }
    rec(n, &mut left, &mut cur, &mut out);
    out
}

/// A 3x3 colouring (classes of 1, 2, 2 and 4 cells) with the blank on cell `e`.
fn colouring_3x3(e: usize) -> Colouring {
    Colouring::new(Size::S3X3, &[0, 1, 1, 2, 2, 3, 3, 3, 3]).unwrap().with_blank_at(e).unwrap()
}

/// Tables of `base` with the blank on each of `blanks`.
fn tables_of(base: &Colouring, blanks: &[usize]) -> Vec<Arc<ColourTable>> {
    blanks
        .iter()
        .map(|&e| {
            let c = base.with_blank_at(e).unwrap();
            let entries = build_colour_table(&c, &|_, _| {});
            Arc::new(ColourTable::from_entries(&c, entries).unwrap())
        })
        .collect()
}

#[test]
fn colour_tables_rank_lexicographically_and_hold_bfs_distances() {
    for e in [0, 1, 4] {
        let colouring = colouring_3x3(e);
        // Rank order: the other cells' classes lexicographically, then the blank's cell.
        let mut strings = all_strings(9, colouring.class_sizes());
        strings.sort_by_key(|s| {
            let blank = s.iter().position(|&c| c == 0).unwrap();
            (s.iter().filter(|&&c| c != 0).copied().collect::<Vec<u8>>(), blank)
        });
        assert_eq!(strings.len() as u64, colouring.states());
        let ranker = colouring.ranker();
        for (i, s) in strings.iter().enumerate() {
            assert_eq!(ranker.rank(s), i as u64, "{s:?}");
        }
        let dist = line_bfs(colouring.classes().to_vec(), colouring.size(), u32::MAX);
        assert_eq!(dist.len(), strings.len());
        let entries = build_colour_table(&colouring, &|_, _| {});
        for (s, e) in strings.iter().zip(&entries) {
            assert_eq!(u32::from(*e), dist[s], "{s:?}");
        }
    }
    // The default 4x4 colouring's ranks: the first and last strings, and the state count.
    let c = Colouring::default_4x4();
    assert_eq!(c.states(), 151_351_200);
    let r = c.ranker();
    let mut first = [0u8; 16];
    let mut at = 0;
    for (k, &n) in c.class_sizes().iter().enumerate() {
        first[at..at + n as usize].fill(k as u8);
        at += n as usize;
    }
    assert_eq!(r.rank(&first), 0);
    first.reverse();
    assert_eq!(r.rank(&first), c.states() - 1);
}

#[test]
fn colour_views_are_admissible_everywhere_on_the_3x3() {
    let base = colouring_3x3(0);
    let tables = tables_of(&base, &[0, 1, 4]);
    let edge_goal = {
        let mut cells: Vec<u8> = Board::blank_last(Size::S3X3).cells().to_vec();
        cells.swap(8, 5);
        Board::from_cells(Size::S3X3, &cells).unwrap()
    };
    for goal in [Board::blank_first(Size::S3X3), Board::blank_last(Size::S3X3), edge_goal] {
        let h = MtmHeuristic::new(&goal, &tables);
        assert_eq!(h.kind(), MtmHeuristicKind::Colour);
        let with_corner_only = MtmHeuristic::new(&goal, &tables[..1]);
        let dist = mtm_bfs(&goal, u32::MAX);
        let (mut exact, mut better) = (0, 0);
        for (i, (cells, &d)) in dist.iter().enumerate() {
            let start = Board::from_cells(Size::S3X3, cells).unwrap();
            let e = h.estimate(&start);
            assert!(e <= d, "inadmissible on {cells:?}: {e} > {d}");
            exact += usize::from(e == d);
            better += usize::from(e > with_corner_only.estimate(&start));
            // Every position of one goal, a sample of the others.
            if goal.blank() == 0 || i % 17 == 0 {
                assert_eq!(solve_checked(&start, &goal, &h), d as usize, "{cells:?}");
            }
        }
        assert!(exact > 10_000, "{exact}");
        // The edge and centre tables' duals raise some estimates.
        assert!(better > 1000, "{better}");
    }
}

/// A 4x4 colouring with classes of 1, 2, 4 and 9 cells (1.2 M states) that tests build in a
/// second.
fn small_4x4() -> Colouring {
    Colouring::new(Size::S4X4, &[0, 3, 3, 3, 3, 3, 3, 3, 2, 2, 3, 3, 2, 2, 1, 1]).unwrap()
}

#[test]
fn colour_tables_are_admissible_and_solve_near_the_4x4_goal() {
    let tables = tables_of(&small_4x4(), &DEFAULT_4X4_BLANKS);
    assert!(tables.iter().all(|t| t.states() == 16 * 105 * 715));
    assert_admissible_and_solving_near_the_goal(&tables, 6, 5, 200);
}

/// With `tables`, for both 4x4 goals: every position within `depth` MTM moves (a BFS written
/// here) gets an admissible estimate, and more than `least` of those at `depth` (the ones whose
/// first row's tiles sum to a multiple of `every`) are solved optimally.
fn assert_admissible_and_solving_near_the_goal(
    tables: &[Arc<ColourTable>],
    depth: u32,
    every: u8,
    least: usize,
) {
    for goal in [Board::blank_first(Size::S4X4), Board::blank_last(Size::S4X4)] {
        let h = MtmHeuristic::new(&goal, tables);
        assert_eq!(h.kind(), MtmHeuristicKind::Colour);
        let dist = mtm_bfs(&goal, depth);
        let mut solved = 0;
        for (cells, &d) in &dist {
            let start = Board::from_cells(Size::S4X4, cells).unwrap();
            assert!(h.estimate(&start) <= d);
            if d == depth && cells.iter().take(4).sum::<u8>() % every == 0 {
                assert_eq!(solve_checked(&start, &goal, &h), d as usize);
                solved += 1;
            }
        }
        assert!(solved > least, "{solved}");
    }
}

#[test]
fn colour_search_stops_at_its_limits_with_a_lower_bound() {
    let tables = tables_of(&small_4x4(), &DEFAULT_4X4_BLANKS);
    let goal = Board::blank_first(Size::S4X4);
    let h = MtmHeuristic::new(&goal, &tables);
    // Korf's #1: 33 MTM moves (found by an independent search written for this work too).
    let start = Board::parse("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", None).unwrap();
    let problem = Problem::new(start.clone(), goal.clone()).unwrap();
    let limits = Limits { max_nodes: Some(20_000), ..Limits::default() };
    match ida_mtm(&problem, &h, &limits) {
        Err(crate::search::SearchError::LimitReached { kind, lower_bound, stats }) => {
            assert_eq!(kind, crate::search::LimitKind::Nodes);
            assert!(lower_bound >= h.estimate(&start) && lower_bound <= 33, "{lower_bound}");
            assert!(stats.generated >= 20_000 && stats.generated < 40_000, "{stats:?}");
        }
        other => panic!("{other:?}"),
    }
    // The start is the goal: no moves.
    let p = Problem::new(goal.clone(), goal.clone()).unwrap();
    let s = ida_mtm(&p, &h, &Limits::default()).unwrap();
    assert!(s.moves.is_empty() && s.optimal);
}

#[test]
fn loaders_refuse_the_other_metric_and_older_layouts() {
    // A single-tile table (one byte per placement of tile 1) is refused as a colour table.
    let goal = Board::blank_last(Size::S3X3);
    let stm = encode(&goal, &[1], &PdbMeta::default(), &[0u8; 9]).unwrap();
    let table = Arc::new(PdbTable::from_vec(stm).unwrap());
    let err = ColourTable::from_table(table).unwrap_err();
    assert!(matches!(err, crate::pdb::PdbError::WrongMetric { expected: "mtm", .. }), "{err}");
    // A colour table is refused by the single-tile heuristic, and skipped by folder scans.
    let colouring = colouring_3x3(0);
    let entries = build_colour_table(&colouring, &|_, _| {});
    let dir = std::env::temp_dir().join(format!("fifteen-mtm-metric-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("3x3-mtm.p1.pdb");
    write_colour_table(&path, &colouring, &entries, "test").unwrap();
    let t = Arc::new(PdbTable::open(&path, crate::pdb::LoadMode::Resident).unwrap());
    let err = crate::pdb::PdbHeuristic::new(&goal, vec![t], false, false, "x").unwrap_err();
    assert!(err.to_string().contains("counts mtm moves"), "{err}");
    let scan = crate::pdb::scan_dir(&dir, crate::pdb::LoadMode::Resident);
    assert!(scan.sets.is_empty() && scan.errors.is_empty());
    let back = ColourTable::open(&path, crate::pdb::LoadMode::Resident).unwrap();
    assert_eq!(back.colouring(), &colouring);
    back.table().verify().unwrap();
    // A damaged entry opens (only the header is checked then) but fails the full check.
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let damaged = dir.join("damaged.pdb");
    std::fs::write(&damaged, bytes).unwrap();
    let t = ColourTable::open(&damaged, crate::pdb::LoadMode::Resident).unwrap();
    let err = t.table().verify().unwrap_err();
    assert!(matches!(err, crate::pdb::PdbError::ChecksumMismatch { .. }), "{err}");
    // The first layout (a blank-last goal, ranked otherwise) is refused, saying what to do.
    let old = dir.join("old.pdb");
    let tiles: Vec<u8> = (1..9).collect();
    crate::pdb::write_pdb_file_as(
        &old,
        &goal,
        &tiles,
        crate::pdb::EntryEncoding::MtmColour { class_ends: 1 << 7 },
        &PdbMeta::default(),
        &[0u8; 9],
    )
    .unwrap();
    let err = ColourTable::open(&old, crate::pdb::LoadMode::Resident).unwrap_err();
    assert!(err.to_string().contains("older version"), "{err}");
    assert!(err.to_string().contains("fifteen pdb build --metric mtm"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn colourings_are_checked() {
    let s = Size::S3X3;
    // No blank, two blanks, a gap in the classes, the wrong length.
    assert!(Colouring::new(s, &[1, 1, 1, 1, 2, 2, 2, 2, 2]).is_none());
    assert!(Colouring::new(s, &[0, 0, 1, 1, 2, 2, 2, 2, 2]).is_none());
    assert!(Colouring::new(s, &[0, 1, 1, 1, 3, 3, 3, 3, 3]).is_none());
    assert!(Colouring::new(s, &[0, 1, 1]).is_none());
    // Too many classes for the half tables of a 4x4 (8^8 entries).
    let many: Vec<u8> = (0..16).map(|c| (c % 8) as u8).collect();
    let mut many = many;
    many[8] = 1;
    assert!(Colouring::new(Size::S4X4, &many).is_none());
    // The default set: one colouring, the blank on a corner, an edge and a centre cell.
    let set = default_4x4_set();
    assert_eq!(set.iter().map(Colouring::blank).collect::<Vec<_>>(), DEFAULT_4X4_BLANKS);
    for c in &set {
        assert_eq!(c.class_sizes(), &[1, 2, 4, 5, 4]);
        assert_eq!(c.goal(), table_goal(Size::S4X4, c.blank()));
    }
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

/// Iterations split into subtrees (every one: `split_after` 0) on 1 to 4 threads: the moves are
/// the same for every count (the first subtree with a solution, in depth-first order, wins,
/// however the threads race), and as long as a BFS says. The 3x3's deepest positions have
/// optimal solutions in many subtrees, so that taking the one found first fails this.
#[test]
fn split_iterations_give_the_same_moves_for_any_thread_count() {
    let tables = tables_of(&colouring_3x3(0), &[0]);
    let goal = Board::blank_last(Size::S3X3);
    let h = MtmHeuristic::new(&goal, &tables);
    let views = h.colour_views().unwrap();
    let dist = mtm_bfs(&goal, u32::MAX);
    let mut deep: Vec<(&Vec<u8>, u32)> =
        dist.iter().filter(|(_, d)| **d >= 20).map(|(c, d)| (c, *d)).collect();
    deep.sort();
    for &(cells, d) in deep.iter().step_by(deep.len() / 40) {
        let start = Board::from_cells(Size::S3X3, cells).unwrap();
        let problem = Problem::new(start.clone(), goal.clone()).unwrap();
        let plain = super::ida::ida_colour(&problem, views, &Limits::default(), u64::MAX).unwrap();
        assert_eq!(lines(&plain.moves).len(), d as usize);
        let one = super::ida::ida_colour(&problem, views, &Limits::default(), 0).unwrap();
        assert_eq!(lines(&one.moves).len(), d as usize, "{start}");
        let (end, _) = crate::search::replay(&start, &one.moves).unwrap();
        assert_eq!(end, goal);
        for threads in [2, 3, 4] {
            let limits = Limits { threads, ..Limits::default() };
            let s = super::ida::ida_colour(&problem, views, &limits, 0).unwrap();
            assert_eq!(s.moves, one.moves, "{start}: {threads} threads");
            assert!(s.optimal);
        }
    }
}

/// A split search stops at its node limit, counted over all its threads, with a lower bound.
#[test]
fn split_search_stops_at_its_node_limit_with_a_lower_bound() {
    let tables = tables_of(&small_4x4(), &DEFAULT_4X4_BLANKS);
    let goal = Board::blank_first(Size::S4X4);
    let h = MtmHeuristic::new(&goal, &tables);
    // Korf's #1: 33 MTM moves (see `colour_search_stops_at_its_limits_with_a_lower_bound`).
    let start = Board::parse("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", None).unwrap();
    let problem = Problem::new(start.clone(), goal.clone()).unwrap();
    for threads in [1, 2] {
        let limits = Limits { max_nodes: Some(200_000), threads, ..Limits::default() };
        match super::ida::ida_colour(&problem, h.colour_views().unwrap(), &limits, 0) {
            Err(crate::search::SearchError::LimitReached { kind, lower_bound, stats }) => {
                assert_eq!(kind, crate::search::LimitKind::Nodes);
                assert!(lower_bound >= h.estimate(&start) && lower_bound <= 33, "{lower_bound}");
                assert!(stats.generated >= 200_000 && stats.generated < 300_000, "{stats:?}");
            }
            other => panic!("{other:?}"),
        }
    }
}

/// Line crossings never exceed the MTM distance: every position of the 3x3 (both goals) and of
/// the 2x4 and 4x2, and the 3x4 and 4x4 near their goals; and IDA* with crossings alone (the
/// estimate of boards past 16 cells) finds the BFS's lengths.
#[test]
fn crossings_are_admissible_and_guide_ida_to_optimal_answers() {
    let cases = [
        (Board::blank_last(Size::S3X3), u32::MAX),
        (Board::blank_first(Size::S3X3), u32::MAX),
        (Board::blank_last(Size::new(2, 4).unwrap()), u32::MAX),
        (Board::blank_first(Size::new(4, 2).unwrap()), u32::MAX),
        (Board::blank_last(Size::new(3, 4).unwrap()), 9),
        (Board::blank_first(Size::S4X4), 6),
    ];
    for (goal, depth) in cases {
        let x = Crossings::new(&goal);
        let h = MtmHeuristic::crossings_only(&goal);
        let dist = mtm_bfs(&goal, depth);
        for (i, (cells, &d)) in dist.iter().enumerate() {
            let e = x.estimate(cells);
            assert!(e <= d, "{:?} {cells:?}: {e} > {d}", goal.size());
            let start = Board::from_cells(goal.size(), cells).unwrap();
            if i % 211 == 0 && d <= 14 {
                assert_eq!(solve_checked(&start, &goal, &h), d as usize, "{cells:?}");
            }
        }
    }
}

/// Every position within `depth` lines of `start` reached by the paths the duplicate-path
/// machine allows (and the searches' axis rule), at the least depth it is reached; and the
/// number of such paths.
fn allowed_depths(start: &[u8], size: Size, depth: u32) -> (HashMap<Vec<u8>, u32>, u64) {
    struct Walk<'a> {
        fsm: &'a prune::LineFsm,
        size: Size,
        max: u32,
        seen: HashMap<Vec<u8>, u32>,
        paths: u64,
    }
    impl Walk<'_> {
        fn go(&mut self, cells: &mut Vec<u8>, blank: usize, g: u32, last: Option<Dir>, state: u32) {
            let best = self.seen.entry(cells.clone()).or_insert(g);
            *best = (*best).min(g);
            if g == self.max {
                return;
            }
            for d in Dir::ALL {
                if last.is_some_and(|l| (l as usize ^ d as usize) == 3 || l == d) {
                    continue;
                }
                let mut b = blank;
                let mut k = 0;
                let row = self.fsm.row(state).to_vec();
                while let Some(to) = d.neighbor(self.size, b) {
                    cells.swap(b, to);
                    b = to;
                    k += 1;
                    let next = u32::from(row[self.fsm.symbol(d as usize, k)]);
                    if next != prune::PRUNE {
                        self.paths += 1;
                        self.go(cells, b, g + 1, Some(d), next);
                    }
                }
                // Slide the line back.
                while b != blank {
                    let to = d.opposite().neighbor(self.size, b).unwrap();
                    cells.swap(b, to);
                    b = to;
                }
            }
        }
    }
    let mut walk = Walk {
        fsm: prune::LineFsm::for_size(size),
        size,
        max: depth,
        seen: HashMap::new(),
        paths: 0,
    };
    let blank = start.iter().position(|&c| c == 0).unwrap();
    walk.go(&mut start.to_vec(), blank, 0, None, prune::LineFsm::START);
    (walk.seen, walk.paths)
}

/// The duplicate-path machine keeps an optimal path to every position: walking only the paths
/// it allows from a start reaches each position within a depth at its MTM distance, which a
/// plain BFS gives; and it does cut paths (else the test would prove nothing).
#[test]
fn duplicate_line_pruning_keeps_an_optimal_path_to_every_position() {
    let centre = {
        let mut cells: Vec<u8> = Board::blank_first(Size::S4X4).cells().to_vec();
        cells.swap(0, 5);
        cells
    };
    let cases = [
        (Board::blank_first(Size::S4X4).cells().to_vec(), Size::S4X4, 11),
        (centre, Size::S4X4, 11),
        (Board::blank_last(Size::S3X3).cells().to_vec(), Size::S3X3, 16),
        (
            Board::blank_first(Size::new(3, 4).unwrap()).cells().to_vec(),
            Size::new(3, 4).unwrap(),
            12,
        ),
        (
            Board::blank_first(Size::new(2, 8).unwrap()).cells().to_vec(),
            Size::new(2, 8).unwrap(),
            12,
        ),
    ];
    for (start, size, depth) in cases {
        let bfs = line_bfs(start.clone(), size, depth);
        let (walked, paths) = allowed_depths(&start, size, depth);
        assert_eq!(walked.len(), bfs.len(), "{size:?}: positions reached");
        for (cells, d) in &bfs {
            assert_eq!(walked.get(cells), Some(d), "{size:?} {cells:?}");
        }
        // The machine cuts at least a tenth of the paths the axis rule alone allows.
        let unpruned = paths_without_machine(&start, size, depth);
        assert!(paths * 10 < unpruned * 9, "{size:?}: {paths} of {unpruned} paths");
    }
}

/// The number of paths [`allowed_depths`] would walk with the axis rule alone.
fn paths_without_machine(start: &[u8], size: Size, depth: u32) -> u64 {
    fn count(size: Size, blank: usize, g: u32, max: u32, last: Option<Dir>) -> u64 {
        if g == max {
            return 0;
        }
        let mut n = 0;
        for d in Dir::ALL {
            if last.is_some_and(|l| (l as usize ^ d as usize) == 3 || l == d) {
                continue;
            }
            let mut b = blank;
            while let Some(to) = d.neighbor(size, b) {
                b = to;
                n += 1 + count(size, b, g + 1, max, Some(d));
            }
        }
        n
    }
    let blank = start.iter().position(|&c| c == 0).unwrap();
    count(size, blank, 0, depth, None)
}

/// A 3x3 colouring with a split class: classes of 2, 1, 1 and 4 cells, the last two of the four
/// in a fifth class (six places among them), the blank on cell `e`.
fn split_3x3(e: usize) -> Colouring {
    Colouring::new(Size::S3X3, &[0, 1, 1, 2, 3, 4, 4, 5, 5]).unwrap().with_blank_at(e).unwrap()
}

#[test]
fn split_colour_tables_rank_every_state_once_and_hold_bfs_distances() {
    // Blank cell 8 lies in the subclass: its class goes to cell 0.
    for e in [0, 1, 4, 8] {
        let c = split_3x3(e);
        assert!(c.is_split());
        let strings = all_strings(9, c.class_sizes());
        assert_eq!(strings.len() as u64, c.states());
        assert_eq!(c.states(), 362_880 / (2 * 2 * 2));
        let mut seen = vec![false; strings.len()];
        for s in &strings {
            let r = c.rank(s) as usize;
            assert!(!std::mem::replace(&mut seen[r], true), "{s:?} ranked twice");
        }
        // The table holds the exact distances of the five-class abstraction.
        let dist = line_bfs(c.classes().to_vec(), c.size(), u32::MAX);
        assert_eq!(dist.len(), strings.len());
        let entries = build_colour_table(&c, &|_, _| {});
        for s in &strings {
            assert_eq!(u32::from(entries[c.rank(s) as usize]), dist[s], "{s:?}");
        }
    }
    // The finer 4x4 set: ten times the default's states, indices within 32 bits, and no blank
    // cell in the subclass (so every table keeps its dual views).
    let set = split_4x4_set();
    for c in &set {
        assert_eq!(c.states(), 1_513_512_000);
        assert_eq!(c.class_sizes(), &[1, 2, 4, 4, 3, 2]);
        assert_ne!(SPLIT_4X4[c.blank()], 5);
    }
}

#[test]
fn split_colour_views_are_admissible_and_at_least_the_merged_ones() {
    let split = tables_of(&split_3x3(0), &[0, 1, 4, 8]);
    let merged =
        tables_of(&Colouring::new(Size::S3X3, &[0, 1, 1, 2, 3, 4, 4, 4, 4]).unwrap(), &[0, 1, 4]);
    let edge_goal = {
        let mut cells: Vec<u8> = Board::blank_last(Size::S3X3).cells().to_vec();
        cells.swap(8, 5);
        Board::from_cells(Size::S3X3, &cells).unwrap()
    };
    for goal in [Board::blank_first(Size::S3X3), Board::blank_last(Size::S3X3), edge_goal] {
        // The tables with the blank outside the subclass, against the merged colouring's.
        let h = MtmHeuristic::new(&goal, &split[..3]);
        let hm = MtmHeuristic::new(&goal, &merged);
        // All four: the fourth table, its blank in the subclass, without dual views (and its
        // regular views take lookups from the others' duals, so no more than admissible).
        let h4 = MtmHeuristic::new(&goal, &split);
        let dist = mtm_bfs(&goal, u32::MAX);
        let mut finer = 0;
        for (i, (cells, &d)) in dist.iter().enumerate() {
            let start = Board::from_cells(Size::S3X3, cells).unwrap();
            let (e, em, e4) = (h.estimate(&start), hm.estimate(&start), h4.estimate(&start));
            assert!(e <= d && e4 <= d, "inadmissible on {cells:?}: {e}, {e4} > {d}");
            assert!(e >= em, "{cells:?}: {e} < {em}");
            finer += usize::from(e > em);
            if i % 23 == 0 {
                assert_eq!(solve_checked(&start, &goal, &h4), d as usize, "{cells:?}");
            }
        }
        assert!(finer > 1000, "{finer}");
    }
}

#[test]
fn split_colour_tables_are_admissible_and_solve_near_the_4x4_goal() {
    // Classes of 1, 10, 2, and 2 split in 1 and 1: 2.9 M states.
    let base =
        Colouring::new(Size::S4X4, &[0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 5, 4, 3, 3, 1]).unwrap();
    let tables = tables_of(&base, &DEFAULT_4X4_BLANKS);
    assert!(tables.iter().all(|t| t.states() == 2_882_880));
    assert_admissible_and_solving_near_the_goal(&tables, 5, 2, 100);
}
