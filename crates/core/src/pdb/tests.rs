//! Tests of loading and of the database heuristic's views, on a 3x3 table built here by a plain
//! breadth-first search (an independent oracle, not pdb-gen).

use std::collections::VecDeque;
use std::sync::Arc;

use super::*;
use crate::{Board, Dir, Heuristic, Size};

/// Distances from `goal` of every 3x3 position, keyed by the placement of tiles 1..8.
pub(super) fn exact_table(goal: &Board) -> Vec<u8> {
    let n = 9;
    let mut table = vec![UNREACHABLE; placements(n, 8) as usize];
    let key = |b: &Board| {
        let pos = b.positions();
        rank(n, &pos[1..])
    };
    table[key(goal) as usize] = 0;
    let mut queue = VecDeque::from([goal.clone()]);
    while let Some(b) = queue.pop_front() {
        let d = table[key(&b) as usize];
        for dir in Dir::ALL {
            let mut c = b.clone();
            if c.apply(dir).is_some() && table[key(&c) as usize] == UNREACHABLE {
                table[key(&c) as usize] = d + 1;
                queue.push_back(c);
            }
        }
    }
    table
}

pub(super) fn table_for(goal: &Board, tiles: &[u8], entries: &[u8]) -> Arc<PdbTable> {
    let bytes = encode(goal, tiles, &PdbMeta::default(), entries).unwrap();
    Arc::new(PdbTable::from_vec(bytes).unwrap())
}

/// Every position of the 3x3 (both parities' reachable half), via a BFS from `goal`.
pub(super) fn all_positions(goal: &Board) -> Vec<(Board, u32)> {
    let table = exact_table(goal);
    let mut out = Vec::new();
    let mut cells = [0u8; 8];
    for i in 0..placements(9, 8) {
        if table[i as usize] == UNREACHABLE {
            continue;
        }
        unrank(9, i, &mut cells);
        let mut board = [0u8; 9];
        for (t, &c) in cells.iter().enumerate() {
            board[c as usize] = t as u8 + 1;
        }
        out.push((Board::from_cells(Size::S3X3, &board).unwrap(), table[i as usize] as u32));
    }
    out
}

#[test]
fn exact_table_through_every_view_is_exact() {
    let canonical = Board::blank_first(Size::S3X3);
    let table = table_for(&canonical, &[1, 2, 3, 4, 5, 6, 7, 8], &exact_table(&canonical));
    // The blank-last goal and a scrambled-corner goal are served through symmetries.
    let goals = [
        canonical.clone(),
        Board::blank_last(Size::S3X3),
        Board::parse("5 3 0 1 8 7 2 4 6", None).unwrap(),
    ];
    for goal in goals {
        let truth = all_positions(&goal);
        assert_eq!(truth.len(), 181_440);
        for reflect in [false, true] {
            let h = PdbHeuristic::new(&goal, vec![table.clone()], reflect, false, "t").unwrap();
            for (b, d) in truth.iter().step_by(7) {
                assert_eq!(h.estimate(b.cells()), *d, "goal {goal:?} board {b:?}");
            }
        }
    }
}

#[test]
fn centre_blank_goal_is_refused() {
    let canonical = Board::blank_first(Size::S3X3);
    let table = table_for(&canonical, &[1, 2, 3, 4, 5, 6, 7, 8], &exact_table(&canonical));
    let goal = Board::parse("1 2 3 4 0 5 6 7 8", None).unwrap();
    let err = PdbHeuristic::new(&goal, vec![table], true, false, "t").unwrap_err();
    assert!(matches!(err, PdbSetError::GoalNotCovered { blank: 4 }));
}

#[test]
fn incremental_steps_match_init() {
    let canonical = Board::blank_first(Size::S3X3);
    let table = table_for(&canonical, &[1, 2, 3, 4, 5, 6, 7, 8], &exact_table(&canonical));
    let goal = Board::blank_last(Size::S3X3);
    let PdbHeuristic::Small(h) = PdbHeuristic::new(&goal, vec![table], true, false, "t").unwrap()
    else {
        panic!("a 3x3 set with 2 lookups is small")
    };
    assert_eq!(h.lookups(), 2);
    check_steps(&h, &goal, 500);
}

/// A table of `tiles` for `goal` whose entries are all 1 but the goal placement's (0): the
/// values do not matter where only indices are compared.
pub(super) fn dummy_table(goal: &Board, tiles: &[u8]) -> Arc<PdbTable> {
    let n = goal.size().cells();
    let mut entries = vec![1u8; placements(n, tiles.len()) as usize];
    let pos = goal.positions();
    let goal_cells: Vec<u8> = tiles.iter().map(|&t| pos[t as usize]).collect();
    entries[rank(n, &goal_cells) as usize] = 0;
    table_for(goal, tiles, &entries)
}

/// A walk of `steps` pseudo-random moves from `goal`, checking after each that the stepped
/// state (indices updated without re-ranking) equals the state computed from scratch.
/// A state unrelated to the walk's (that of the board with its tiles reversed), for
/// [`Heuristic::step_into`] to overwrite.
pub(super) fn fresh_slot<H: Heuristic>(h: &H, cells: &[u8]) -> H::State {
    let mut other = cells.to_vec();
    other.reverse();
    h.init(&other)
}

/// Tries `steps` pseudo-random moves (xorshift from `seed`) from `goal`, calling `at` after
/// each one made with the board, the tile moved, where it went from and to, and the random word.
pub(super) fn walk(
    goal: &Board,
    steps: usize,
    seed: u64,
    mut at: impl FnMut(&Board, u8, usize, usize, u64),
) {
    let mut b = goal.clone();
    let mut x = seed;
    for _ in 0..steps {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let d = Dir::ALL[(x % 4) as usize];
        let blank = b.blank();
        let Some(to) = d.neighbor(b.size(), blank) else { continue };
        let tile = b.apply(d).unwrap();
        at(&b, tile, to, blank, x);
    }
}

pub(super) fn check_steps<H: Heuristic>(h: &H, goal: &Board, steps: usize)
where
    H::State: PartialEq + std::fmt::Debug,
{
    let mut s = h.init(goal.cells());
    walk(goal, steps, 0x9e37_79b9_7f4a_7c15, |b, tile, to, blank, x| {
        // The in-place step, into a slot holding another state, agrees with the copying one.
        let mut into = fresh_slot(h, b.cells());
        h.step_into(&s, &mut into, b.cells(), tile, to, blank);
        s = h.step(&s, b.cells(), tile, to, blank);
        assert_eq!(into, s);
        let mut fresh = h.init(b.cells());
        // Resolved after everything is prefetched (a beam's way), or in two halves with a room
        // (IDA*'s): the same estimate, or a part of it that exceeds the room.
        let (mut all, mut halves) = (s, s);
        h.prefetch_all(&mut all);
        let room = (x >> 8) as u32 % 40;
        let full = h.resolve(&mut s);
        assert_eq!(full, h.resolve(&mut fresh));
        assert_eq!(s, fresh);
        assert_eq!(h.resolve(&mut all), full);
        assert_eq!(all, s);
        match h.resolve_begin(&mut halves, room) {
            Some(part) => assert!(part > room && part <= full || part == full, "{part} {full}"),
            None => assert_eq!(h.resolve_rest(&mut halves), full),
        }
    });
}

/// Incremental index updates with several patterns, reflected and dual views, rectangles, and the
/// pair and large variants: patterns interleave on the cells a vertical move jumps over.
#[test]
fn incremental_steps_match_init_with_several_patterns() {
    let cases: [(usize, usize, &[&[u8]]); 7] = [
        (4, 4, &[&[1, 6, 11], &[2, 5, 12, 15], &[3, 8, 9, 14], &[4, 7, 10, 13]]),
        (4, 4, &[&[1, 6, 11], &[2, 5, 12, 15], &[3, 8, 9, 14]]),
        (4, 4, &[&[1, 6, 11, 4], &[2, 5, 12, 15]]),
        (4, 4, &[&[3, 8, 9, 14, 1], &[4, 7, 10, 13]]),
        // A rectangle has no reflection that keeps the blank's corner: one view, not a pair.
        (3, 4, &[&[1, 5, 9, 2], &[6, 10, 3, 7]]),
        (4, 3, &[&[1, 5, 9, 2], &[6, 10, 3, 7], &[11, 4, 8]]),
        (
            5,
            5,
            &[
                &[1, 7, 13, 19],
                &[2, 8, 14, 20],
                &[3, 9, 15, 21],
                &[4, 10, 16, 22],
                &[5, 11, 17, 23],
                &[6, 12, 18, 24],
            ],
        ),
    ];
    let (mut pairs, mut triples, mut fixed) = (0, 0, 0);
    for (w, h, patterns) in cases {
        let size = Size::new(w, h).unwrap();
        let canonical = Board::blank_first(size);
        let tables: Vec<_> = patterns.iter().map(|p| dummy_table(&canonical, p)).collect();
        for goal in [Board::blank_last(size), canonical.clone()] {
            for dual in [false, true] {
                match PdbHeuristic::new(&goal, tables.clone(), true, dual, "t").unwrap() {
                    PdbHeuristic::Pair(hp) => {
                        pairs += 1;
                        fixed += usize::from(hp.updates_through_fixed_tables());
                        check_steps(&hp, &goal, 3000);
                    }
                    PdbHeuristic::Triple(ht) => {
                        triples += 1;
                        fixed += usize::from(ht.updates_through_fixed_tables());
                        check_steps(&ht, &goal, 3000);
                    }
                    PdbHeuristic::Small(hs) => {
                        fixed += usize::from(hs.updates_through_fixed_tables());
                        check_steps(&hs, &goal, 3000);
                    }
                    PdbHeuristic::Large(hl) => {
                        assert!(!hl.updates_through_fixed_tables());
                        check_steps(&hl, &goal, 3000);
                    }
                    PdbHeuristic::Catalogue(_) | PdbHeuristic::CatalogueLarge(_) => {
                        panic!("disjoint patterns make no catalogue")
                    }
                }
            }
        }
    }
    // The square cases with two patterns and the one with three, each for two goals, with and
    // without dual lookups.
    assert_eq!((pairs, triples), (8, 4));
    // Every 4x4 case updates through the fixed tables (4 x 2 goals x 2), but the one with
    // four patterns and dual lookups (16 lookups: the large variant); the rectangles and 5x5
    // through the general ones.
    assert_eq!(fixed, 14);
}

#[test]
fn files_load_by_mmap_and_resident_and_sets_group() {
    let dir = std::env::temp_dir().join(format!("fifteen-pdb-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let canonical = Board::blank_first(Size::S3X3);
    let meta = PdbMeta { generator: "test".into(), preset: Some("3x3-8".into()) };
    let path = dir.join("3x3-8.pdb");
    write_pdb_file(&path, &canonical, &[1, 2, 3, 4, 5, 6, 7, 8], &meta, &exact_table(&canonical))
        .unwrap();
    std::fs::write(dir.join("junk.pdb"), b"this is not a pattern database at all").unwrap();
    for mode in [LoadMode::Mmap, LoadMode::Resident] {
        let t = PdbTable::open(&path, mode).unwrap();
        t.verify().unwrap();
        assert_eq!(t.mode(), mode);
        let scan = scan_dir(&dir, mode);
        assert_eq!(scan.sets.len(), 1);
        assert_eq!(scan.sets[0].name, "3x3-8");
        assert_eq!(scan.errors.len(), 1);
        assert!(matches!(scan.errors[0].1, PdbError::BadMagic { .. }));
        let set = best_set(&dir, &Board::blank_last(Size::S3X3), mode).unwrap();
        assert!(best_set(&dir, &Board::blank_last(Size::S4X4), mode).is_none());
        let h = set.heuristic(&Board::blank_last(Size::S3X3), true, true).unwrap();
        let b = Board::parse("8 6 7 2 5 4 3 0 1", None).unwrap();
        assert_eq!(h.estimate(b.cells()), 31);
    }
    // A directory where a file should be is refused, not mapped.
    std::fs::create_dir_all(dir.join("dir.pdb")).unwrap();
    assert!(matches!(
        PdbTable::open(&dir.join("dir.pdb"), LoadMode::Mmap),
        Err(PdbError::Io { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn empty_files_and_fifos_are_refused_without_blocking() {
    let dir = std::env::temp_dir().join(format!("fifteen-pdb-special-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.pdb");
    std::fs::write(&empty, b"").unwrap();
    for mode in [LoadMode::Mmap, LoadMode::Resident] {
        let err = PdbTable::open(&empty, mode).unwrap_err();
        assert!(matches!(err, PdbError::BufferTooSmall { found: 0, .. }), "{err}");
    }
    // Opening a FIFO for reading would block until a writer comes: it must be refused first.
    let fifo = dir.join("fifo.pdb");
    if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
        for mode in [LoadMode::Mmap, LoadMode::Resident] {
            let err = PdbTable::open(&fifo, mode).unwrap_err();
            assert!(err.to_string().contains("fifo.pdb"), "{err}");
        }
        let scan = scan_dir(&dir, LoadMode::Mmap);
        assert_eq!(scan.errors.len(), 2, "{:?}", scan.errors);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A pattern table as the generator builds it: a 0-1 breadth-first search over (placement of
/// `tiles`, blank cell) from `goal`, where a move costs 1 if it moves a pattern tile and 0
/// otherwise; the entry is the minimum over the blank's cells.
pub(super) fn pattern_costs(goal: &Board, tiles: &[u8]) -> Vec<u8> {
    let size = goal.size();
    let n = size.cells();
    let total = placements(n, tiles.len()) as usize;
    let mut dist = vec![u8::MAX; total * n];
    let start: Vec<u8> = tiles.iter().map(|&t| goal.position(t) as u8).collect();
    let start = rank(n, &start) as usize * n + goal.blank();
    dist[start] = 0;
    let mut queue = VecDeque::from([start]);
    let mut cells = vec![0u8; tiles.len()];
    while let Some(state) = queue.pop_front() {
        let (index, blank) = (state / n, state % n);
        let d = dist[state];
        unrank(n, index as u64, &mut cells);
        for dir in Dir::ALL {
            let Some(next) = dir.neighbor(size, blank) else { continue };
            let mut moved = cells.clone();
            let cost = match moved.iter().position(|&c| c as usize == next) {
                Some(i) => {
                    moved[i] = blank as u8;
                    1
                }
                None => 0,
            };
            let to = rank(n, &moved) as usize * n + next;
            if d + cost < dist[to] {
                dist[to] = d + cost;
                if cost == 0 {
                    queue.push_front(to);
                } else {
                    queue.push_back(to);
                }
            }
        }
    }
    dist
}

/// The ordinary table of `tiles`: the least cost over the blank's cells.
pub(super) fn pattern_table(goal: &Board, tiles: &[u8]) -> Vec<u8> {
    let n = goal.size().cells();
    let dist = pattern_costs(goal, tiles);
    (0..dist.len() / n).map(|i| *dist[i * n..(i + 1) * n].iter().min().unwrap()).collect()
}

/// The zero-aware table of `tiles`: the cost of each placement with the blank in each region
/// (any of its cells: moves inside a region are free).
pub(super) fn zero_pattern_table(goal: &Board, tiles: &[u8]) -> Vec<u8> {
    let size = goal.size();
    let n = size.cells();
    let z = ZeroIndex::new(size, tiles.len()).unwrap();
    let dist = pattern_costs(goal, tiles);
    let mut out = vec![UNREACHABLE; z.entries() as usize];
    let mut cells = vec![0u8; tiles.len()];
    for (state, &d) in dist.iter().enumerate() {
        if d == u8::MAX {
            continue;
        }
        unrank(n, (state / n) as u64, &mut cells);
        let blank = state % n;
        if cells.contains(&(blank as u8)) {
            continue;
        }
        let e = &mut out[z.index(&cells, blank) as usize];
        assert!(*e == UNREACHABLE || *e == d, "a region's cells agree");
        *e = d;
    }
    out
}

/// A zero-aware table of `tiles` for `goal`, loaded.
pub(super) fn zero_table_for(goal: &Board, tiles: &[u8]) -> Arc<PdbTable> {
    encoded(goal, tiles, EntryEncoding::ZeroAware, zero_pattern_table(goal, tiles))
}

/// The same table stored as bit 1 of each entry.
pub(super) fn zero_bits_table_for(goal: &Board, tiles: &[u8]) -> Arc<PdbTable> {
    let packed = pack_bit1(&zero_pattern_table(goal, tiles));
    encoded(goal, tiles, EntryEncoding::ZeroAwareBits, packed)
}

fn encoded(goal: &Board, tiles: &[u8], encoding: EntryEncoding, entries: Vec<u8>) -> Arc<PdbTable> {
    let mut bytes = encode_header_as(goal, tiles, encoding, &PdbMeta::default(), &entries).unwrap();
    bytes.extend_from_slice(&entries);
    Arc::new(PdbTable::from_vec(bytes).unwrap())
}

/// Goals served through symmetries: blank-first (the tables' own), blank-last, a scrambled one.
pub(super) fn corner_goals() -> [Board; 3] {
    [
        Board::blank_first(Size::S3X3),
        Board::blank_last(Size::S3X3),
        Board::parse("5 3 0 1 8 7 2 4 6", None).unwrap(),
    ]
}

#[test]
fn dual_lookup_through_exact_table_is_exact_at_corners() {
    let canonical = Board::blank_first(Size::S3X3);
    let table = table_for(&canonical, &[1, 2, 3, 4, 5, 6, 7, 8], &exact_table(&canonical));
    for goal in corner_goals() {
        let truth = all_positions(&goal);
        for reflect in [false, true] {
            let h = PdbHeuristic::new(&goal, vec![table.clone()], reflect, true, "t").unwrap();
            let mut corners = 0;
            for (b, d) in truth.iter().step_by(3) {
                let blank = b.blank();
                let dual = h.dual_estimate(b.cells());
                if [0, 2, 6, 8].contains(&blank) {
                    corners += 1;
                    assert_eq!(dual, Some(*d), "goal {goal:?} board {b:?}");
                } else {
                    assert_eq!(dual, None);
                }
                assert_eq!(h.estimate(b.cells()), *d);
            }
            assert!(corners > 10_000);
        }
    }
}

#[test]
fn dual_lookup_through_partitioned_tables_is_admissible() {
    let canonical = Board::blank_first(Size::S3X3);
    for (a, b) in [([1, 2, 3, 4], [5, 6, 7, 8]), ([1, 3, 5, 7], [2, 4, 6, 8])] {
        let tables = vec![
            table_for(&canonical, &a, &pattern_table(&canonical, &a)),
            table_for(&canonical, &b, &pattern_table(&canonical, &b)),
        ];
        for goal in corner_goals() {
            let truth = all_positions(&goal);
            for reflect in [false, true] {
                let plain = PdbHeuristic::new(&goal, tables.clone(), reflect, false, "t").unwrap();
                let dual = PdbHeuristic::new(&goal, tables.clone(), reflect, true, "t").unwrap();
                assert_eq!(dual.lookups(), 2 * plain.lookups());
                let (mut raised, mut corners) = (0, 0);
                for (board, d) in &truth {
                    let (hp, hd) = (plain.estimate(board.cells()), dual.estimate(board.cells()));
                    assert!(hd <= *d, "goal {goal:?} board {board:?}: {hd} > {d}");
                    assert!(hd >= hp);
                    if let Some(x) = dual.dual_estimate(board.cells()) {
                        assert!(x <= *d, "goal {goal:?} board {board:?}: dual {x} > {d}");
                        corners += 1;
                    }
                    raised += usize::from(hd > hp);
                }
                // Every reachable position has its blank on each cell equally often.
                assert_eq!(corners, 4 * truth.len() / 9);
                assert!(raised > 1000, "the dual lookups raise some estimates: {raised}");
            }
        }
    }
}

/// The pair variant's estimate reads the dual slots whether or not there are dual lookups:
/// without them those slots must stay zero through every step.
#[test]
fn without_dual_lookups_the_dual_slots_stay_zero() {
    for goal in corner_goals() {
        let h = partitioned_3x3(&goal, false);
        assert_eq!(h.lookups(), 4);
        let mut board = goal.clone();
        let mut state = h.init(board.cells());
        for i in 0..2000 {
            let d = Dir::ALL[(i * 7 + i / 3) % 4];
            let blank = board.blank();
            let Some(to) = d.neighbor(board.size(), blank) else { continue };
            let tile = board.apply(d).unwrap();
            state = h.step(&state, board.cells(), tile, to, blank);
            h.resolve(&mut state);
            assert!(h.slots_after_regular_clear(&state), "step {i}");
        }
    }
}

#[test]
fn incremental_steps_with_dual_lookups_match_init() {
    for goal in corner_goals() {
        let h = partitioned_3x3(&goal, true);
        assert_eq!(h.lookups(), 8);
        check_steps(&h, &goal, 2000);
    }
}

/// IDA* counts the table reads: with one pattern and two views (no duals), every generated
/// node but the root reads exactly its two entries, and dual views add reads.
#[test]
fn ida_counts_lookups() {
    let canonical = Board::blank_first(Size::S3X3);
    let table = table_for(&canonical, &[1, 2, 3, 4, 5, 6, 7, 8], &exact_table(&canonical));
    let goal = Board::blank_last(Size::S3X3);
    let start = Board::parse("8 6 7 2 5 4 3 0 1", None).unwrap();
    let problem = crate::Problem::new(start, goal.clone()).unwrap();
    let mut reads = Vec::new();
    for dual in [false, true] {
        let PdbHeuristic::Small(h) =
            PdbHeuristic::new(&goal, vec![table.clone()], true, dual, "t").unwrap()
        else {
            panic!("a 3x3 set is small")
        };
        let sol = crate::ida(&problem, &h, &crate::Limits::default()).unwrap();
        assert_eq!(sol.len(), 31);
        if !dual {
            assert_eq!(sol.stats.lookups, 2 * (sol.stats.generated - 1));
        }
        reads.push(sol.stats.lookups as f64 / sol.stats.generated as f64);
    }
    assert!(reads[1] > reads[0], "{reads:?}");
}

/// A 3x3 partitioned set (tiles 1-4 and 5-8) with reflected lookups, and dual ones if `dual`,
/// for `goal` (the pair variant): with dual lookups an inconsistent heuristic, so BPMX, sorting
/// and pruning all take part.
fn partitioned_3x3(goal: &Board, dual: bool) -> PdbLookup<16, 8, 2, 2> {
    let canonical = Board::blank_first(Size::S3X3);
    let tables: Vec<_> = [[1, 2, 3, 4], [5, 6, 7, 8]]
        .iter()
        .map(|t| table_for(&canonical, t, &pattern_table(&canonical, t)))
        .collect();
    let PdbHeuristic::Pair(h) = PdbHeuristic::new(goal, tables, true, dual, "t").unwrap() else {
        panic!("a 3x3 set of two patterns with reflection is a pair")
    };
    h
}

/// `ida_lanes` hands the problems of `problems` out as `next` is asked (only when `wait`, if
/// `lazy`: the lanes then run part-empty) and returns the answers in input order.
fn solve_in_lanes(
    h: &PdbLookup<16, 8, 2, 2>,
    lanes: usize,
    problems: &[crate::Problem],
    limits: &crate::Limits,
    lazy: bool,
) -> Vec<Result<crate::Solution, crate::SearchError>> {
    let mut out: Vec<Option<Result<_, _>>> = (0..problems.len()).map(|_| None).collect();
    let mut it = problems.iter().enumerate();
    crate::ida_lanes(
        h,
        lanes,
        |wait| {
            if lazy && !wait {
                return None;
            }
            it.next().map(|(i, p)| (i, p.clone(), limits.clone()))
        },
        |i, r| {
            assert!(out[i].is_none(), "problem {i} answered twice");
            out[i] = Some(r);
        },
    );
    out.into_iter().map(|r| r.expect("every problem is answered")).collect()
}

/// Interleaved lanes search each tree exactly as one-threaded IDA* does: the same moves, node
/// and lookup counts and thresholds, for any number of lanes, and the lengths are the true
/// distances (breadth-first search above).
#[test]
fn lanes_give_the_answers_of_one_search_at_a_time() {
    for goal in corner_goals() {
        let h = partitioned_3x3(&goal, true);
        let truth = all_positions(&goal);
        // Every 997th position: all distances from 0 to 31 are among them.
        let sample: Vec<_> = truth.iter().step_by(997).collect();
        let problems: Vec<_> = sample
            .iter()
            .map(|(b, _)| crate::Problem::new(b.clone(), goal.clone()).unwrap())
            .collect();
        let alone: Vec<_> = problems
            .iter()
            .map(|p| crate::ida(p, &h, &crate::Limits::default()).unwrap())
            .collect();
        for (s, (_, d)) in alone.iter().zip(&sample) {
            assert_eq!(s.len(), *d as usize);
        }
        for (lanes, lazy) in [(1, false), (2, false), (3, false), (7, false), (3, true)] {
            let t0 = std::time::Instant::now();
            let answers = solve_in_lanes(&h, lanes, &problems, &crate::Limits::default(), lazy);
            // Each position's time is its share of the thread's: together, no more than it.
            let wall = t0.elapsed();
            let shares: std::time::Duration =
                answers.iter().flatten().map(|s| s.stats.elapsed).sum();
            assert!(shares <= wall, "{shares:?} > {wall:?}");
            for (i, (a, s)) in answers.iter().zip(&alone).enumerate() {
                let a = a.as_ref().unwrap();
                assert_eq!(a.moves, s.moves, "{lanes} lanes, problem {i}");
                assert_eq!(a.tiles, s.tiles);
                assert!(a.optimal);
                assert_eq!(a.initial_h, s.initial_h);
                let (x, y) = (&a.stats, &s.stats);
                assert_eq!(
                    (x.generated, x.expanded, x.lookups, &x.thresholds),
                    (y.generated, y.expanded, y.lookups, &y.thresholds),
                    "{lanes} lanes, problem {i}"
                );
            }
        }
    }
}

/// A node limit stops a lane where it stops IDA* alone, with the same lower bound; the other
/// lanes go on; a cancelled run stops every lane; a problem of another size is refused.
#[test]
fn lanes_keep_each_problems_limits() {
    let goal = Board::blank_last(Size::S3X3);
    let h = partitioned_3x3(&goal, true);
    let hard = crate::Problem::new(Board::parse("8 6 7 2 5 4 3 0 1", None).unwrap(), goal.clone())
        .unwrap();
    let easy = crate::Problem::new(Board::parse("1 2 3 4 5 6 0 7 8", None).unwrap(), goal.clone())
        .unwrap();
    let limits = crate::Limits { max_nodes: Some(40), ..crate::Limits::default() };
    let alone = crate::ida(&hard, &h, &limits).unwrap_err();
    let crate::SearchError::LimitReached { kind, lower_bound, stats } = alone else {
        panic!("a node limit: {alone:?}")
    };
    assert_eq!(kind, crate::LimitKind::Nodes);
    let problems = [hard.clone(), easy.clone(), hard.clone()];
    let mut out = Vec::new();
    let mut it = problems.iter().enumerate();
    crate::ida_lanes(
        &h,
        3,
        |_| {
            it.next().map(|(i, p)| {
                let limits = if i == 1 { crate::Limits::default() } else { limits.clone() };
                (i, p.clone(), limits)
            })
        },
        |i, r| out.push((i, r)),
    );
    out.sort_by_key(|(i, _)| *i);
    for (i, r) in &out {
        match (i, r) {
            (1, Ok(s)) => assert_eq!(s.len(), 2),
            (_, Err(crate::SearchError::LimitReached { kind: k, lower_bound: b, stats: s })) => {
                assert_eq!((*k, *b, s.generated), (kind, lower_bound, stats.generated));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(out.len(), 3);

    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let cancelled = crate::Limits { cancel: Some(cancel), ..crate::Limits::default() };
    let answers = solve_in_lanes(&h, 2, &[hard.clone(), hard.clone()], &cancelled, false);
    for a in answers {
        assert!(
            matches!(
                a,
                Err(crate::SearchError::LimitReached { kind: crate::LimitKind::Cancelled, .. })
            ),
            "{a:?}"
        );
    }

    let big = crate::Problem::new(Board::blank_first(Size::S4X4), Board::blank_last(Size::S4X4));
    if let Ok(big) = big {
        let answers = solve_in_lanes(&h, 2, &[big, easy], &crate::Limits::default(), false);
        assert!(
            matches!(answers[0], Err(crate::SearchError::NotApplicable(_))),
            "{:?}",
            answers[0]
        );
        assert_eq!(answers[1].as_ref().map(|s| s.len()).ok(), Some(2));
    }
}

/// One position split into subtrees (over threads, or in lanes on one) gives the moves of one
/// thread searching depth-first (the first solution in that order), of the true length; a node
/// limit stops it.
#[test]
fn split_lanes_give_the_moves_of_one_thread() {
    for goal in corner_goals() {
        let h = partitioned_3x3(&goal, true);
        let truth = all_positions(&goal);
        for (board, d) in truth.iter().step_by(4999) {
            let problem = crate::Problem::new(board.clone(), goal.clone()).unwrap();
            let one = crate::ida(&problem, &h, &crate::Limits::default()).unwrap();
            assert_eq!(one.len(), *d as usize);
            for (threads, lanes) in [(1, 3), (2, 1), (2, 3), (3, 2), (4, 7)] {
                let limits = crate::Limits { threads, lanes, ..crate::Limits::default() };
                let split = crate::ida(&problem, &h, &limits).unwrap();
                assert_eq!(split.moves, one.moves, "{board:?}: {threads} threads, {lanes} lanes");
                assert_eq!(split.stats.thresholds, one.stats.thresholds);
            }
        }
    }
    let goal = Board::blank_last(Size::S3X3);
    let h = partitioned_3x3(&goal, true);
    let hard = crate::Problem::new(Board::parse("8 6 7 2 5 4 3 0 1", None).unwrap(), goal).unwrap();
    let limits =
        crate::Limits { threads: 2, lanes: 3, max_nodes: Some(40), ..crate::Limits::default() };
    match crate::ida(&hard, &h, &limits) {
        Err(crate::SearchError::LimitReached { kind, stats, .. }) => {
            assert_eq!(kind, crate::LimitKind::Nodes);
            assert!(stats.generated >= 40);
        }
        other => panic!("a node limit: {other:?}"),
    }
}

/// On the 5x5, where IDA* orders each iteration's subtrees by the last one's (`search/ida.rs`),
/// a database search gives the same moves and thresholds on one thread, over threads and in
/// lanes, of the length that IDA* with Manhattan distance proves.
#[test]
fn ordered_subtrees_in_lanes_give_the_moves_of_one_thread() {
    let canonical = Board::blank_first(Size::S5X5);
    let tables: Vec<_> = (0..8u8)
        .map(|k| {
            let tiles = [3 * k + 1, 3 * k + 2, 3 * k + 3];
            table_for(&canonical, &tiles, &pattern_table(&canonical, &tiles))
        })
        .collect();
    for goal in [canonical.clone(), Board::blank_last(Size::S5X5)] {
        let PdbHeuristic::Large(h) =
            PdbHeuristic::new(&goal, tables.clone(), true, false, "t").unwrap()
        else {
            panic!("eight patterns in two views on a 5x5 are the large variant")
        };
        let md = crate::Manhattan::new(&goal);
        for seed in 1..=3 {
            let mut start = goal.clone();
            walk(&goal, 160, seed * 7919, |b, _, _, _, _| start = b.clone());
            let problem = crate::Problem::new(start.clone(), goal.clone()).unwrap();
            let truth = crate::ida(&problem, &md, &crate::Limits::default()).unwrap();
            let one = crate::ida(&problem, &h, &crate::Limits::default()).unwrap();
            assert_eq!(one.len(), truth.len(), "{start:?}");
            for (threads, lanes) in [(1, 3), (2, 1), (2, 3), (3, 2)] {
                let limits = crate::Limits { threads, lanes, ..crate::Limits::default() };
                let split = crate::ida(&problem, &h, &limits).unwrap();
                assert_eq!(split.moves, one.moves, "{start:?}: {threads} threads, {lanes} lanes");
                assert_eq!(split.stats.thresholds, one.stats.thresholds);
            }
        }
    }
}

/// A beam's order with the conflicts and far tiles added ([`BeamOrder`]): along a walk on the
/// 3x3, the estimate is the database's and the rank is it plus the tiles that linear conflict
/// takes out of their lines and the far tiles' weight, both from the state carried move by
/// move and from the board afresh.
#[test]
fn conflict_ranking_adds_the_boards_conflicts_and_far_tiles_to_the_estimate() {
    use crate::heuristic::{BeamOrder, LinearConflict, Manhattan, far_sixteenths};
    const { assert!(<PdbLookup<16, 8, 2, 2> as Heuristic>::RANK_WITH_CONFLICTS) };
    const { assert!(!<LinearConflict as Heuristic>::RANK_WITH_CONFLICTS) };
    const { assert!(<LinearConflict as Heuristic>::RANK_FAR_TILES) };
    for goal in [Board::blank_last(Size::S3X3), Board::blank_first(Size::S3X3)] {
        let h = partitioned_3x3(&goal, false);
        let ranked = BeamOrder::<_, true>::new(&h, &goal);
        let (lc, md) = (LinearConflict::new(&goal), Manhattan::new(&goal));
        let mut s = ranked.init(goal.cells());
        let mut with_conflicts = 0;
        walk(&goal, 3000, 0x2545_f491_4f6c_dd1d, |b, tile, to, blank, _| {
            let mut into = ranked.init(goal.cells());
            ranked.step_into(&s, &mut into, b.cells(), tile, to, blank);
            s = ranked.step(&s, b.cells(), tile, to, blank);
            let estimate = h.estimate(b.cells());
            let conflicts = (lc.estimate(b.cells()) - md.estimate(b.cells())) / 2;
            let far = far_sixteenths(b, &goal) / 16;
            for state in [&mut s, &mut into] {
                assert_eq!(ranked.resolve(state), estimate, "{b:?}");
                assert_eq!(ranked.rank(state), estimate + conflicts + far, "{b:?}");
            }
            with_conflicts += usize::from(conflicts > 0);
        });
        assert!(with_conflicts > 100, "the walk met boards with conflicts");
    }
}

/// The beam ranks a database's boards through [`BeamOrder`]: a beam wider than any 3x3
/// layer is still a breadth-first search and finds shortest paths.
#[test]
fn a_wide_beam_on_databases_finds_shortest_paths() {
    let goal = Board::blank_last(Size::S3X3);
    let h = partitioned_3x3(&goal, false);
    let mut checked = 0;
    for (start, d) in all_positions(&goal).into_iter().step_by(4_999) {
        let p = crate::Problem::new(start.clone(), goal.clone()).unwrap();
        let sol = crate::beam_search(&p, &h, 30_000, &crate::Limits::default()).unwrap();
        assert_eq!(sol.len() as u32, d, "{start:?}");
        assert_eq!(crate::replay(&start, &sol.moves).unwrap().0, goal);
        checked += 1;
    }
    assert!(checked >= 30);
}
