//! Pattern databases end to end: the first-use build, `fifteen pdb`, damaged files, Korf's 100
//! with 6-6-3 (and with 7-8 under `FIFTEEN_SLOW_TESTS=1`), and the 6-6-3 against exact distances
//! near the goal.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use fifteen_core::pdb::{LoadMode, best_set};
use fifteen_core::{Board, Dir, Size};

use crate::support::{fifteen, pdb_dir, run_in, scratch_dir};

const DEPTHS15: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/instances/15puzzle-depths.txt"
));

fn korf100_path() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/instances/korf100.txt").to_string()
}

#[test]
fn first_use_build_made_the_quick_sets_and_list_shows_them() {
    let dir = pdb_dir();
    for name in ["4x4-6-6-3.p1.pdb", "4x4-6-6-3.p2.pdb", "4x4-6-6-3.p3.pdb", "3x3-8.p1.pdb"] {
        assert!(dir.join(name).is_file(), "{name} in {}", dir.display());
    }
    let run = fifteen(&["pdb", "list"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("set 4x4-6-6-3"), "{}", run.stdout);
    assert!(run.stdout.contains("set 3x3-8"), "{}", run.stdout);
    let run =
        fifteen(&["solve", "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "--goal", "blank-first", "-v"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("length: 57 (proven optimal)"), "{}", run.stdout);
    assert!(run.stdout.contains("heuristic: pdb 4x4-6-6-3 +reflect"), "{}", run.stdout);
    assert!(run.stderr.contains("cargo xtask gen-pdb"), "{}", run.stderr);
}

#[test]
fn info_and_verify() {
    let file = pdb_dir().join("4x4-6-6-3.p2.pdb");
    let file = file.to_str().expect("utf-8 path");
    let run = fifteen(&["pdb", "info", file]);
    assert_eq!(run.code, 0, "{run:?}");
    for text in [
        "board:       4x4",
        "tiles:       [4, 5, 8, 9, 12, 13]",
        "entries:     5765760",
        "histogram",
    ] {
        assert!(run.stdout.contains(text), "{text:?} in {}", run.stdout);
    }
    let run = fifteen(&["pdb", "verify", file]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("ok"), "{}", run.stdout);
}

/// A copy of the shared 6-6-3 set in a new folder, with `damage` applied to pattern 1's file.
fn damaged_set(name: &str, damage: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let dir = scratch_dir(name);
    for i in 1..=3 {
        let file = format!("4x4-6-6-3.p{i}.pdb");
        std::fs::copy(pdb_dir().join(&file), dir.join(&file)).expect("copy a table");
    }
    let path = dir.join("4x4-6-6-3.p1.pdb");
    let mut bytes = std::fs::read(&path).expect("read");
    damage(&mut bytes);
    std::fs::write(&path, bytes).expect("write");
    dir
}

/// Solving with `--heuristic pdb` from `dir` must refuse the damaged file by name, say why, and
/// exit with the database code; `pdb verify` must fail on it too.
fn assert_refused(dir: &Path, why: &str) {
    let board = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3";
    let args = ["solve", board, "--goal", "blank-first", "--heuristic", "pdb", "--no-pdb-build"];
    let run = run_in(dir, &args, "");
    assert_eq!(run.code, 6, "{why}: {run:?}");
    assert!(run.stderr.contains("4x4-6-6-3.p1.pdb"), "{why}: {}", run.stderr);
    assert!(run.stderr.contains(why), "{why}: {}", run.stderr);
    assert!(run.stderr.contains("no pattern database for 4x4"), "{}", run.stderr);
    let file = dir.join("4x4-6-6-3.p1.pdb");
    let run = run_in(dir, &["pdb", "verify", file.to_str().expect("utf-8")], "");
    assert_eq!(run.code, 6, "{why}: {run:?}");
    assert!(run.stdout.contains("FAILED"), "{}", run.stdout);
    // Without --no-pdb-build the solver rebuilds the set over the damaged file and answers.
    let run = run_in(dir, &["solve", board, "--goal", "blank-first"], "");
    assert_eq!(run.code, 0, "{why}: {run:?}");
    assert!(run.stdout.starts_with("length: 57"), "{}", run.stdout);
    let run = run_in(dir, &["pdb", "verify", file.to_str().expect("utf-8")], "");
    assert_eq!(run.code, 0, "rebuilt: {run:?}");
}

#[test]
fn damaged_files_are_refused_each_with_its_own_error() {
    let truncated = damaged_set("pdb-truncated", |b| b.truncate(b.len() - 100));
    assert_refused(&truncated, "truncated");
    let flipped = damaged_set("pdb-flipped", |b| {
        let last = b.len() - 1;
        b[last] ^= 0x01;
    });
    assert_refused(&flipped, "checksum mismatch");
    let version = damaged_set("pdb-version", |b| b[10] = b[10].wrapping_add(1));
    assert_refused(&version, "format version");
    let magic = damaged_set("pdb-magic", |b| b[0] = b'X');
    assert_refused(&magic, "not a pattern database");
}

#[test]
fn wrong_board_or_goal_is_not_used() {
    // Only the 3x3 set: a 4x4 asks for databases it does not have.
    let dir = scratch_dir("pdb-wrong-board");
    std::fs::copy(pdb_dir().join("3x3-8.p1.pdb"), dir.join("3x3-8.p1.pdb")).expect("copy");
    let board = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3";
    let args = ["solve", board, "--goal", "blank-first", "--heuristic", "pdb", "--no-pdb-build"];
    let run = run_in(&dir, &args, "");
    assert_eq!(run.code, 6, "{run:?}");
    assert!(run.stderr.contains("no pattern database for 4x4"), "{}", run.stderr);
    // A goal with the blank in the middle is served by no blank-first set.
    let args = ["solve", "1 2 3 4 5 6 7 0 8", "--goal", "1 2 3 4 0 5 6 7 8", "--heuristic", "pdb"];
    let run = run_in(&dir, &args, "");
    assert_eq!(run.code, 6, "{run:?}");
    assert!(run.stderr.contains("blank in a corner"), "{}", run.stderr);
    // The default heuristic falls back and says so.
    let run = run_in(&dir, &["solve", "1 2 3 4 5 6 7 0 8", "--goal", "1 2 3 4 0 5 6 7 8"], "");
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn explicit_missing_database_is_a_database_error() {
    let dir = scratch_dir("pdb-empty");
    let args = ["solve", "1 2 3 4 5 6 0 7 8", "--heuristic", "pdb", "--no-pdb-build"];
    let run = run_in(&dir, &args, "");
    assert_eq!(run.code, 6, "{run:?}");
    assert!(run.stderr.contains("fifteen pdb build 3x3-8"), "{}", run.stderr);
}

/// Korf's 100 through the binary's batch mode with the default heuristic (6-6-3 here): every
/// length must equal the published optimum (a different proven length fails the line).
#[test]
fn korf100_with_6_6_3_matches_published_lengths() {
    let run = fifteen(&["solve", "--input", &korf100_path(), "--goal", "blank-first"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        run.stdout.lines().filter(|l| l.contains("as expected")).count(),
        100,
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("100 solved, 0 failed"), "{}", run.stderr);
}

/// Every 10th of Korf's 100 with dual lookups (on by default; with 6-6-3, 12 lookups per
/// position), and `--no-dual`: the published lengths, through the options' wiring.
#[test]
fn dual_lookups_keep_korf_lengths() {
    let (_, len, board) = &korf100()[0];
    let run = fifteen(&["solve", board, "--goal", "blank-first", "--no-dual", "-v"]);
    assert!(run.stdout.starts_with(&format!("length: {len} (proven optimal)")), "{run:?}");
    assert!(!run.stdout.contains("+dual"), "{}", run.stdout);
    for (id, len, board) in korf100().into_iter().step_by(10) {
        let run = fifteen(&["solve", &board, "--goal", "blank-first", "-v"]);
        assert_eq!(run.code, 0, "{id}: {run:?}");
        assert!(
            run.stdout.starts_with(&format!("length: {len} (proven optimal)")),
            "{id}: {run:?}"
        );
        assert!(run.stdout.contains("heuristic: pdb 4x4-6-6-3 +reflect +dual"), "{}", run.stdout);
    }
}

/// All of Korf's 100 with the 7-8 set (built here if missing: about two minutes).
#[test]
fn korf100_with_7_8_when_slow_tests_are_on() {
    if std::env::var_os("FIFTEEN_SLOW_TESTS").is_none_or(|v| v != "1") {
        return;
    }
    let dir = scratch_dir("pdb-7-8");
    for i in 1..=3 {
        let file = format!("4x4-6-6-3.p{i}.pdb");
        std::fs::copy(pdb_dir().join(&file), dir.join(&file)).expect("copy a table");
    }
    let run = run_in(&dir, &["pdb", "build", "4x4-7-8"], "");
    assert_eq!(run.code, 0, "{run:?}");
    let args = ["solve", "--input", &korf100_path(), "--goal", "blank-first", "-v"];
    let run = run_in(&dir, &args, "");
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("using pattern databases 4x4-7-8"), "{}", run.stderr);
    assert!(run.stderr.contains("100 solved, 0 failed"), "{}", run.stderr);
    same_moves_for_any_thread_count(&dir, 5);
    same_answers_for_any_lane_count(&dir, 1);
}

/// Packs a 4x4 board into 64 bits.
fn pack(cells: &[u8]) -> u64 {
    cells.iter().fold(0, |acc, &t| acc << 4 | t as u64)
}

/// Breadth-first search from the goal to depth 20: the number of positions at each depth must
/// equal the published counts, and the 6-6-3 estimate (with reflected and dual lookups, for both
/// corner goals) must never exceed the true distance.
#[test]
fn near_goal_counts_match_and_6_6_3_is_admissible() {
    const MAX_DEPTH: usize = 20;
    let published: Vec<u64> = DEPTHS15
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("d count"))
        .collect();
    for goal in [Board::blank_first(Size::S4X4), Board::blank_last(Size::S4X4)] {
        let set = best_set(pdb_dir(), &goal, LoadMode::Mmap).expect("the 6-6-3 set");
        let h = set.heuristic(&goal, true, true).expect("a heuristic");
        let mut seen: HashSet<u64> = HashSet::from([pack(goal.cells())]);
        let mut frontier = vec![goal.clone()];
        for (depth, &count) in published.iter().enumerate().take(MAX_DEPTH + 1) {
            assert_eq!(frontier.len() as u64, count, "positions at depth {depth}");
            for b in &frontier {
                let e = h.estimate(b.cells());
                assert!(e as usize <= depth, "{b:?}: estimate {e} > distance {depth}");
            }
            if depth == MAX_DEPTH {
                break;
            }
            let mut next = Vec::new();
            for b in &frontier {
                for d in Dir::ALL {
                    let mut c = b.clone();
                    if c.apply(d).is_some() && seen.insert(pack(c.cells())) {
                        next.push(c);
                    }
                }
            }
            frontier = next;
        }
    }
}

/// Korf's positions as (id, optimal length, board) from the shared file.
fn korf100() -> Vec<(String, usize, String)> {
    let text = std::fs::read_to_string(korf100_path()).expect("korf100.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            (t[0].to_string(), t[1].parse().expect("a length"), t[2..].join(" "))
        })
        .collect()
}

/// The moves line of a `solve` answer.
fn moves_of(run: &crate::support::Run) -> String {
    assert_eq!(run.code, 0, "{run:?}");
    run.stdout.lines().find(|l| l.starts_with("moves")).expect("a moves line").to_string()
}

/// Every 10th of Korf's 100 in `dir`: one thread, two and three threads (with and without
/// lanes), and resident tables, all give the same moves, of the published length.
fn same_moves_for_any_thread_count(dir: &Path, step: usize) {
    for (id, len, board) in korf100().into_iter().step_by(step) {
        let base = ["solve", board.as_str(), "--goal", "blank-first", "--heuristic", "pdb"];
        let one = run_in(dir, &[&base[..], &["--threads", "1"]].concat(), "");
        assert!(
            one.stdout.starts_with(&format!("length: {len} (proven optimal)")),
            "{id}: {one:?}"
        );
        let want = moves_of(&one);
        let extras = [
            &["--threads", "2"][..],
            &["--threads", "3"],
            &["--threads", "2", "--lanes", "1"],
            &["--threads", "3", "--lanes", "5"],
            &["--pdb-load", "resident"],
        ];
        for extra in extras {
            let run = run_in(dir, &[&base[..], extra].concat(), "");
            assert_eq!(moves_of(&run), want, "instance {id} with {extra:?}");
        }
    }
}

#[test]
fn parallel_search_and_load_modes_give_the_same_moves() {
    same_moves_for_any_thread_count(pdb_dir(), 10);
}

/// A batch of every `step`-th of Korf's 100 in `dir`, with lines that need no search or
/// another heuristic mixed in (a bad line, an unsolvable position, a 3x3 position): one
/// position at a time, and interleaved in lanes on one and two threads, give the same records
/// but for the times, and the published lengths.
fn same_answers_for_any_lane_count(dir: &Path, step: usize) {
    let mut lines = Vec::new();
    for (i, (id, len, board)) in korf100().into_iter().step_by(step).enumerate() {
        lines.push(format!("{id} {len} {board}"));
        match i {
            1 => lines.push("not a board".into()),
            3 => lines.push("1 2 3 4 5 6 0 7 8".into()),
            5 => {
                // Two tiles exchanged: the other parity, unsolvable.
                let mut cells: Vec<&str> = board.split_whitespace().collect();
                let tiles: Vec<usize> = (0..16).filter(|&c| cells[c] != "0").take(2).collect();
                cells.swap(tiles[0], tiles[1]);
                lines.push(cells.join(" "));
            }
            _ => {}
        }
    }
    let input = lines.join("\n");
    let records = |extra: &[&str]| {
        let args = [&["solve", "--input", "-", "--goal", "blank-first", "--json"][..], extra];
        let run = run_in(dir, &args.concat(), &input);
        assert_eq!(run.code, 1, "two lines fail: {run:?}");
        let mut out: Vec<serde_json::Value> =
            run.stdout.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
        for r in &mut out {
            r.as_object_mut().expect("an object").remove("time_ms");
        }
        out
    };
    let alone = records(&["--threads", "1", "--lanes", "1"]);
    assert_eq!(alone.len(), lines.len());
    let solved: Vec<_> = alone.iter().filter(|r| r["status"] == "solved").collect();
    assert_eq!(solved.len(), lines.len() - 2);
    for r in solved.iter().filter(|r| r["size"] == "4x4") {
        assert_eq!(r["length"], r["expected"], "{r}");
        assert_eq!(r["optimal"], true);
    }
    for extra in [&["--threads", "1"][..], &["--threads", "1", "--lanes", "5"], &["--threads", "2"]]
    {
        assert_eq!(records(extra), alone, "with {extra:?}");
    }
}

#[test]
fn batch_lanes_give_the_same_answers() {
    same_answers_for_any_lane_count(pdb_dir(), 9);
}

/// `pdb build --size WxH` builds the default set of that size (the 3x3's, exact distances), and
/// names the sizes that have one when asked for another.
#[test]
fn build_by_size_builds_that_sizes_default_set() {
    let dir = scratch_dir("build-by-size");
    let d = dir.to_str().expect("utf-8 path");
    let run = run_in(&dir, &["pdb", "build", "--size", "3x3", "--pdb-dir", d], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(dir.join("3x3-8.p1.pdb").is_file(), "{run:?}");
    let run =
        run_in(&dir, &["solve", "8 6 7 2 5 4 3 0 1", "--heuristic", "pdb", "--pdb-dir", d], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("length: 31 (proven optimal)"), "{}", run.stdout);
    let run = run_in(&dir, &["pdb", "build", "--size", "3x2", "--pdb-dir", d], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("no default set for 3x2 boards"), "{}", run.stderr);
    assert!(run.stderr.contains("3x3, 4x4"), "{}", run.stderr);
}
