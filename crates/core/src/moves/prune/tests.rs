//! Tests of the pruning automaton: its strings, and by brute force on small boards that it keeps
//! a shortest path to every position.

use std::collections::HashMap;

use super::*;
use crate::board::Size;
use crate::moves::{MoveTable, NONE};

/// Feeds `moves` (letters in blank notation) to `fsm`; the number of moves accepted.
fn accepted(fsm: &Fsm, moves: &str) -> usize {
    let mut s = Fsm::START;
    for (i, c) in moves.chars().enumerate() {
        let d = "ULRD".find(c).unwrap();
        s = fsm.step(s, d);
        if s == PRUNE {
            return i;
        }
    }
    moves.len()
}

#[test]
fn no_undo_machine_forbids_exactly_the_undos() {
    let fsm = Fsm::no_undo();
    assert_eq!((fsm.states(), fsm.forbidden()), (5, 4));
    for undo in ["UD", "LR", "RL", "DU"] {
        assert_eq!(accepted(fsm, undo), 1);
        assert_eq!(accepted(fsm, &format!("UU{undo}")), if undo == "DU" { 2 } else { 3 });
    }
    assert_eq!(accepted(fsm, "ULDRULDRULDRULDR"), 16);
}

#[test]
fn shortest_forbidden_strings() {
    let short: Vec<_> = forbidden_strings(2, Fit::Cells).iter().map(|m| m.code).collect();
    // UD, LR, RL, DU.
    assert_eq!(short, [3, 6, 9, 12]);
    let fsm = Fsm::get();
    for d in ["UD", "LR", "RL", "DU"] {
        assert_eq!(accepted(fsm, d), 1);
    }
    // Twice round a 2x2 square moves the three tiles as once round the other way.
    assert!(accepted(fsm, "RDLURDLU") < 8);
    // Nothing straight is forbidden.
    assert_eq!(accepted(fsm, "RRRRRRRRRRRRRRRRRRRR"), 20);
    assert!(fsm.states() > 1000, "{} states", fsm.states());
}

#[test]
fn bounding_boxes_forbid_more_than_cells() {
    for len in 4..=8 {
        let cells = forbidden_strings(len, Fit::Cells);
        let boxes = forbidden_strings(len, Fit::Box);
        assert!(boxes.len() >= cells.len(), "{len}: {} < {}", boxes.len(), cells.len());
    }
}

/// The fewest moves to each position within `depth` moves of the start with the blank on
/// `start`, over the move strings `fsm` accepts.
fn distances(size: Size, start: usize, depth: usize, fsm: &Fsm) -> HashMap<u64, usize> {
    #[expect(clippy::too_many_arguments)]
    fn go(
        table: &MoveTable,
        fsm: &Fsm,
        cells: &mut Vec<u8>,
        blank: usize,
        state: u32,
        g: usize,
        depth: usize,
        out: &mut HashMap<u64, usize>,
    ) {
        let key = cells.iter().fold(0u64, |k, &c| k << 4 | c as u64);
        let best = out.entry(key).or_insert(g);
        *best = (*best).min(g);
        if g == depth {
            return;
        }
        for (d, &to) in table.of(blank).iter().enumerate() {
            let next = fsm.step(state, d);
            if to == NONE || next == PRUNE {
                continue;
            }
            let to = to as usize;
            cells.swap(blank, to);
            go(table, fsm, cells, to, next, g + 1, depth, out);
            cells.swap(blank, to);
        }
    }
    let table = MoveTable::new(size);
    let mut cells: Vec<u8> = (1..=size.cells() as u8).collect();
    cells[start] = 0;
    let mut out = HashMap::new();
    go(&table, fsm, &mut cells, start, Fsm::START, 0, depth, &mut out);
    out
}

/// Every position within `depth` moves is reached, at its true distance, by accepted strings,
/// from every start cell.
fn check_keeps_shortest_paths(size: Size, depth: usize, fsm: &Fsm) {
    assert!(size.cells() <= 16);
    for start in 0..size.cells() {
        // Undo-free strings reach every position at its distance (an undo is never shortest).
        let all = distances(size, start, depth, Fsm::no_undo());
        let kept = distances(size, start, depth, fsm);
        assert_eq!(all, kept, "{size} from cell {start}, depth {depth}");
    }
}

#[test]
fn machine_keeps_a_shortest_path_to_every_position_3x3() {
    for (len, fit) in [(6, Fit::Cells), (8, Fit::Box), (10, Fit::Cells)] {
        check_keeps_shortest_paths(Size::S3X3, 12, &Fsm::build(len, fit));
    }
    check_keeps_shortest_paths(Size::S3X3, 14, Fsm::get());
    check_keeps_shortest_paths(Size::S3X3, 18, Fsm::long());
}

#[test]
fn machine_keeps_a_shortest_path_to_every_position_4x4() {
    check_keeps_shortest_paths(Size::S4X4, 9, &Fsm::build(8, Fit::Cells));
    check_keeps_shortest_paths(Size::S4X4, 11, Fsm::get());
    check_keeps_shortest_paths(Size::S4X4, 14, Fsm::long());
}

#[test]
fn machine_keeps_a_shortest_path_on_rectangles() {
    for (w, h) in [(2, 3), (2, 5), (5, 2), (3, 5)] {
        check_keeps_shortest_paths(Size::new(w, h).unwrap(), 12, Fsm::get());
        check_keeps_shortest_paths(Size::new(w, h).unwrap(), 15, Fsm::long());
    }
}

/// Minimising merges states but keeps the strings: the minimised machine and the plain
/// Aho–Corasick one prune the same move at every step of every string of up to 10 moves.
#[test]
fn minimising_keeps_the_strings() {
    let patterns = forbidden_strings(10, Fit::Box);
    let plain = aho_corasick(&patterns);
    let small = minimise(plain.clone());
    assert!(small.len() < plain.len(), "{} states, {} before", small.len(), plain.len());
    let mut frontier = vec![(0u32, 0u32)];
    for _ in 0..10 {
        let mut next = Vec::new();
        for &(p, m) in &frontier {
            for d in 0..4 {
                let (p2, m2) = (plain[p as usize][d], small[m as usize][d]);
                assert_eq!(p2 == END, m2 == END, "from states {p} and {m}, move {d}");
                if p2 != END {
                    next.push((p2, m2));
                }
            }
        }
        next.sort_unstable();
        next.dedup();
        frontier = next;
    }
}

/// Number of move strings of `depth` moves from `cell` that `fsm` accepts and that stay on the
/// board of `table`, starting in automaton state `state`.
fn count(fsm: &Fsm, table: &MoveTable, cell: usize, state: u32, depth: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    for (d, &to) in table.of(cell).iter().enumerate() {
        let next = fsm.step(state, d);
        if to != NONE && next != PRUNE {
            n += count(fsm, table, to as usize, next, depth - 1);
        }
    }
    n
}

/// The long machine prunes more: fewer accepted strings of 16 moves from a 5x5's centre.
#[test]
fn long_machine_prunes_more() {
    let table = MoveTable::new(Size::new(5, 5).unwrap());
    let short = count(Fsm::get(), &table, 12, Fsm::START, 16);
    let long = count(Fsm::long(), &table, 12, Fsm::START, 16);
    assert!(long * 20 < short * 19, "{long} of {short}");
    assert!(std::ptr::eq(Fsm::for_cells(25), Fsm::long()));
    assert!(std::ptr::eq(Fsm::for_cells(16), Fsm::get()));
}

/// The machine prunes: fewer accepted strings of length 12 than undo-free ones on a 4x4.
#[test]
fn machine_prunes_paths() {
    let table = MoveTable::new(Size::S4X4);
    let all = count(Fsm::no_undo(), &table, 5, Fsm::START, 12);
    let kept = count(Fsm::get(), &table, 5, Fsm::START, 12);
    assert!(kept * 5 < all * 4, "{kept} of {all}");
}

/// The text of `forbidden.rs` for `strings`.
fn render_forbidden(strings: &[Moves]) -> String {
    let mut out = String::from(
        "//! Generated by the test `forbidden_table_is_current` (`prune/tests.rs`) from\n\
         //! `forbidden_strings(MAX_LEN, Fit::Box)`: the minimal forbidden strings, shortest first,\n\
         //! then in direction order. Do not edit; run the test to regenerate.\n\
         //!\n\
         //! Each entry is `Moves::pack`: moves two bits each (first move highest,\n\
         //! `U L R D` = 0..3) in bits 0..28, the length in bits 28..32.\n\n",
    );
    out += "pub(super) const FORBIDDEN: &[u32] = &[\n";
    for chunk in strings.chunks(8) {
        let line: Vec<String> = chunk.iter().map(|m| format!("0x{:08x},", m.pack())).collect();
        out += &format!("    {}\n", line.join(" "));
    }
    out += "];\n";
    out
}

/// The checked-in strings are what the enumeration gives; if not, the file is rewritten and the
/// test fails (run it again to see it pass, and commit the file).
#[test]
fn forbidden_table_is_current() {
    let strings = forbidden_strings(MAX_LEN, Fit::Box);
    assert!(strings.iter().all(|m| Moves::unpack(m.pack()) == *m));
    let want = render_forbidden(&strings);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/moves/prune/forbidden.rs");
    let have = std::fs::read_to_string(path).unwrap_or_default();
    if have != want {
        std::fs::write(path, &want).unwrap();
        panic!("{path} was stale and has been regenerated; run the tests again and commit it");
    }
}

/// Known answers for the shared machines; `--nocapture` prints their build times. (Before
/// minimising: 9 732 and 70 051 states.)
#[test]
fn shared_machine_sizes() {
    for (len, fsm, want) in
        [(SHORT_LEN, Fsm::get(), (2667, 8081)), (MAX_LEN, Fsm::long(), (19625, 56974))]
    {
        println!(
            "L = {len}: {} forbidden strings, {} states, built in {:?}",
            fsm.forbidden(),
            fsm.states(),
            fsm.build_time()
        );
        assert_eq!((fsm.forbidden(), fsm.states()), want, "L = {len}");
    }
}
