//! Tests of loading and of the database heuristic's views, on a 3x3 table built here by a plain
//! breadth-first search (an independent oracle, not pdb-gen).

use std::collections::VecDeque;
use std::sync::Arc;

use super::*;
use crate::{Board, Dir, Heuristic, Size};

/// Distances from `goal` of every 3x3 position, keyed by the placement of tiles 1..8.
fn exact_table(goal: &Board) -> Vec<u8> {
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

fn table_for(goal: &Board, tiles: &[u8], entries: &[u8]) -> Arc<PdbTable> {
    let bytes = encode(goal, tiles, &PdbMeta::default(), entries).unwrap();
    Arc::new(PdbTable::from_vec(bytes).unwrap())
}

/// Every position of the 3x3 (both parities' reachable half), via a BFS from `goal`.
fn all_positions(goal: &Board) -> Vec<(Board, u32)> {
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
            let h = PdbHeuristic::new(&goal, vec![table.clone()], reflect, "t").unwrap();
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
    let err = PdbHeuristic::new(&goal, vec![table], true, "t").unwrap_err();
    assert!(matches!(err, PdbSetError::GoalNotCovered { blank: 4 }));
}

#[test]
fn incremental_steps_match_init() {
    let canonical = Board::blank_first(Size::S3X3);
    let table = table_for(&canonical, &[1, 2, 3, 4, 5, 6, 7, 8], &exact_table(&canonical));
    let goal = Board::blank_last(Size::S3X3);
    let PdbHeuristic::Small(h) = PdbHeuristic::new(&goal, vec![table], true, "t").unwrap() else {
        panic!("a 3x3 set with 2 lookups is small")
    };
    assert_eq!(h.lookups(), 2);
    let mut b = goal.clone();
    let mut s = h.init(b.cells());
    for i in 0..500usize {
        let d = Dir::ALL[(i * 7 + i / 3) % 4];
        let blank = b.blank();
        let Some(to) = d.neighbor(b.size(), blank) else { continue };
        let tile = b.apply(d).unwrap();
        s = h.step(&s, b.cells(), tile, to, blank);
        let mut fresh = h.init(b.cells());
        assert_eq!(h.resolve(&mut s), h.resolve(&mut fresh));
        assert_eq!(s, fresh);
    }
}

/// A table of `tiles` for `goal` whose entries are all 1 but the goal placement's (0): the
/// values do not matter where only indices are compared.
fn dummy_table(goal: &Board, tiles: &[u8]) -> Arc<PdbTable> {
    let n = goal.size().cells();
    let mut entries = vec![1u8; placements(n, tiles.len()) as usize];
    let pos = goal.positions();
    let goal_cells: Vec<u8> = tiles.iter().map(|&t| pos[t as usize]).collect();
    entries[rank(n, &goal_cells) as usize] = 0;
    table_for(goal, tiles, &entries)
}

/// A walk of `steps` pseudo-random moves from `goal`, checking after each that the stepped
/// state (indices updated without re-ranking) equals the state computed from scratch.
fn check_steps<H: Heuristic>(h: &H, goal: &Board, steps: usize)
where
    H::State: PartialEq + std::fmt::Debug,
{
    let mut b = goal.clone();
    let mut s = h.init(b.cells());
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..steps {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let d = Dir::ALL[(x % 4) as usize];
        let blank = b.blank();
        let Some(to) = d.neighbor(b.size(), blank) else { continue };
        let tile = b.apply(d).unwrap();
        s = h.step(&s, b.cells(), tile, to, blank);
        let mut fresh = h.init(b.cells());
        assert_eq!(h.resolve(&mut s), h.resolve(&mut fresh));
        assert_eq!(s, fresh);
    }
}

/// Incremental index updates with several patterns, reflected views, rectangles, and the large
/// variant: patterns interleave on the cells a vertical move jumps over.
#[test]
fn incremental_steps_match_init_with_several_patterns() {
    let cases: [(usize, usize, &[&[u8]]); 3] = [
        (4, 4, &[&[1, 6, 11], &[2, 5, 12, 15], &[3, 8, 9, 14], &[4, 7, 10, 13]]),
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
    for (w, h, patterns) in cases {
        let size = Size::new(w, h).unwrap();
        let canonical = Board::blank_first(size);
        let tables: Vec<_> = patterns.iter().map(|p| dummy_table(&canonical, p)).collect();
        for goal in [Board::blank_last(size), canonical.clone()] {
            match PdbHeuristic::new(&goal, tables.clone(), true, "t").unwrap() {
                PdbHeuristic::Small(hs) => check_steps(&hs, &goal, 3000),
                PdbHeuristic::Large(hl) => check_steps(&hl, &goal, 3000),
            }
        }
    }
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
        let h = set.heuristic(&Board::blank_last(Size::S3X3), true).unwrap();
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
