//! Tests of the pruning automaton: its strings, and by brute force on small boards that it keeps
//! a shortest path to every position.

use std::collections::{HashMap, VecDeque};

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
    let plain = aho_corasick(&trie::encode(&patterns)).0;
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

/// Rows in 32 bits skip the number [`PRUNE`] and keep every transition.
#[test]
fn wide_rows_keep_the_machine() {
    let mut next = aho_corasick(FORBIDDEN).0;
    assert!(next.len() > PRUNE as usize);
    next.truncate(PRUNE as usize + 10);
    // Transitions beyond the kept states are redirected to states on both sides of PRUNE.
    for (s, row) in next.iter_mut().enumerate() {
        for t in row.iter_mut() {
            if *t != END && *t as usize >= PRUNE as usize + 10 {
                *t = (*t + s as u32) % (PRUNE + 10);
            }
        }
    }
    let fsm = Fsm { rows: Rows::new(next.clone()), forbidden: 0, build_time: Default::default() };
    assert_eq!(fsm.states(), next.len());
    let number = |s: u32| if s < PRUNE { s } else { s + 1 };
    for (s, row) in next.iter().enumerate() {
        for (d, &t) in row.iter().enumerate() {
            let want = if t == END { PRUNE } else { number(t) };
            assert_eq!(fsm.step(number(s as u32), d), want, "state {s}, move {d}");
        }
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

/// The trie form keeps the strings and their order.
#[test]
fn trie_round_trips() {
    for (len, fit) in [(2, Fit::Box), (8, Fit::Cells), (10, Fit::Box)] {
        let strings = forbidden_strings(len, fit);
        assert_eq!(trie::decode(&trie::encode(&strings), usize::MAX), strings, "{len} {fit:?}");
    }
}

/// The checked-in strings are what the enumeration gives: those of up to 14 moves always (a few
/// seconds), all of them with `FIFTEEN_SLOW_TESTS=1` (about 9 minutes and 8 GB of memory on 2
/// cores), and then, if they differ, the file is rewritten and the test fails (run it again to
/// see it pass, and commit the file).
#[test]
fn forbidden_table_is_current() {
    let slow = std::env::var_os("FIFTEEN_SLOW_TESTS").is_some_and(|v| v == "1");
    let len = if slow { MAX_LEN } else { 14 };
    let strings = forbidden_strings(len, Fit::Box);
    let mut have = trie::decode(FORBIDDEN, usize::MAX);
    let complete = have.iter().any(|m| usize::from(m.len) == MAX_LEN);
    have.retain(|m| usize::from(m.len) <= len);
    if have != strings || !complete {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/moves/prune/forbidden.trie");
        if slow {
            std::fs::write(path, trie::encode(&strings)).unwrap();
        }
        panic!("{path} is stale (regenerated if FIFTEEN_SLOW_TESTS=1; then commit it)");
    }
}

/// Known answers for the shared machines; `--nocapture` prints their build times. (The short
/// one has 9 732 states before minimising.)
#[test]
fn shared_machine_sizes() {
    for (len, fsm, want) in
        [(SHORT_LEN, Fsm::get(), (2667, 8081)), (LONG_LEN, Fsm::long(), (1086925, 3815369))]
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

/// A search takes the short machine until it has generated `LONG_AFTER` nodes on a large board,
/// whether or not the long one is built already (so its nodes do not depend on what ran before
/// it), and the short one always on small boards.
#[test]
fn searches_take_the_long_machine_by_their_count_alone() {
    let (short, long) = (Fsm::get(), Fsm::long());
    for generated in [1, LONG_AFTER / 2, LONG_AFTER - 1] {
        assert!(std::ptr::eq(Fsm::for_search(25, generated), short), "{generated} nodes");
    }
    for generated in [LONG_AFTER, 4 * LONG_AFTER] {
        assert!(std::ptr::eq(Fsm::for_search(25, generated), long), "{generated} nodes");
        assert!(std::ptr::eq(Fsm::for_search(64, generated), long), "{generated} nodes, 8x8");
        assert!(std::ptr::eq(Fsm::for_search(24, generated), short), "{generated} nodes, 24 cells");
    }
}

/// The Aho–Corasick automaton of `patterns` built as the textbook does (the strings inserted
/// one by one, then a queue for the failure links): the reference for [`aho_corasick`].
fn reference_aho_corasick(patterns: &[Moves]) -> Vec<[u32; 4]> {
    const NO: u32 = u32::MAX;
    let mut goto: Vec<[u32; 4]> = vec![[NO; 4]];
    let mut end = vec![false];
    for p in patterns {
        let mut s = 0;
        for i in 0..p.len as usize {
            let d = p.dir(i);
            if goto[s][d] == NO {
                goto[s][d] = goto.len() as u32;
                goto.push([NO; 4]);
                end.push(false);
            }
            s = goto[s][d] as usize;
        }
        end[s] = true;
    }
    // Breadth first: failure links, then missing edges follow them.
    let mut fail = vec![0u32; goto.len()];
    let mut order = Vec::with_capacity(goto.len());
    let mut queue = VecDeque::from([0usize]);
    while let Some(s) = queue.pop_front() {
        order.push(s);
        // Where the longest proper suffix goes (complete: it is shallower, so done already).
        let via_fail = if s == 0 { [0; 4] } else { goto[fail[s] as usize] };
        let mut row = goto[s];
        for (slot, via) in row.iter_mut().zip(via_fail) {
            if *slot == NO {
                *slot = via;
            } else {
                let t = *slot as usize;
                fail[t] = via;
                end[t] |= end[via as usize];
                queue.push_back(t);
            }
        }
        goto[s] = row;
    }
    // Number the states that are not pattern ends, in breadth-first order (the start first).
    let mut number = vec![NO; goto.len()];
    let mut kept = 0;
    for &s in &order {
        if !end[s] {
            number[s] = kept;
            kept += 1;
        }
    }
    order
        .iter()
        .filter(|&&s| !end[s])
        .map(|&s| goto[s].map(|t| if end[t as usize] { END } else { number[t as usize] }))
        .collect()
}

/// The machine built straight from a trie is the textbook one, for the checked-in strings cut
/// at several lengths.
#[test]
fn trie_machine_is_the_textbook_machine() {
    for len in [2, 9, 12, 14] {
        let strings = trie::decode(FORBIDDEN, len);
        let (rows, count) = aho_corasick(&trie::encode(&strings));
        assert_eq!(count, strings.len(), "{len}");
        assert!(rows == reference_aho_corasick(&strings), "{len}");
    }
}

/// The long machine prunes every checked-in string at its last move and not before.
#[test]
fn long_machine_prunes_each_string_at_its_end() {
    let fsm = Fsm::long();
    let mut seen = 0;
    for m in &trie::decode(FORBIDDEN, LONG_LEN) {
        let mut s = Fsm::START;
        for i in 0..usize::from(m.len) {
            s = fsm.step(s, m.dir(i));
            let last = i + 1 == usize::from(m.len);
            assert_eq!(s == PRUNE, last, "{m:?} at move {i}");
        }
        seen += 1;
    }
    assert_eq!(seen, fsm.forbidden());
}
