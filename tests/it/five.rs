//! The 5x5 through the binary: the default heuristic finds a 5x5 set by itself, says which
//! command builds the default set when there is none, reports progress and the proven lower
//! bound of a search it stops, and refuses damaged or wrong 5x5 tables by name. The set used is
//! a small one (six 4-tile patterns, about a second to build), built here; lengths are checked
//! against IDA* with Manhattan distance run in the test, or against Korf's published ones.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use fifteen_core::{Board, Dir, Limits, Manhattan, Problem, Size, ida};
use pdb_gen::{Progress, SetSpec, build_set};

use crate::support::{fifteen_with_memory, run_in, scratch_dir};

/// Six 4-tile patterns covering tiles 1-24 of the blank-first goal.
const PATTERNS: [[u8; 4]; 6] = [
    [1, 2, 5, 6],
    [3, 4, 8, 9],
    [7, 12, 13, 14],
    [10, 11, 15, 16],
    [17, 18, 22, 23],
    [19, 20, 21, 24],
];

/// The name of the small set's files.
const SMALL: &str = "5x5-test-4x6";

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A folder holding the small 5x5 set, built once per test process.
fn small_set() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch_dir("five-small");
        let spec = SetSpec {
            name: SMALL.into(),
            preset: Some(SMALL.into()),
            size: Size::S5X5,
            goal: Board::blank_first(Size::S5X5),
            patterns: PATTERNS.iter().map(|p| p.to_vec()).collect(),
            encoding: fifteen_core::pdb::EntryEncoding::U8,
        };
        build_set(&spec, &dir, Some(2), Progress::Quiet).expect("the small 5x5 set builds");
        dir
    })
}

/// A copy of the small set in a new folder.
fn copy_of_small_set(name: &str) -> PathBuf {
    let dir = scratch_dir(name);
    for i in 1..=PATTERNS.len() {
        let file = format!("{SMALL}.p{i}.pdb");
        std::fs::copy(small_set().join(&file), dir.join(&file)).expect("copy a table");
    }
    dir
}

/// A random walk of `len` moves from `goal` (seeded), and its optimal length by IDA* with
/// Manhattan distance.
fn walk(goal: &Board, len: usize, seed: u64) -> (String, usize) {
    let mut seed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut board = goal.clone();
    let (mut moves, mut last) = (0, None);
    while moves < len {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let d = Dir::ALL[(seed % 4) as usize];
        // No move undoes the one before.
        if last != Some(d.opposite()) && board.apply(d).is_some() {
            (moves, last) = (moves + 1, Some(d));
        }
    }
    let problem = Problem::new(board.clone(), goal.clone()).expect("solvable");
    let truth = ida(&problem, &Manhattan::new(goal), &Limits::default()).expect("solved");
    // Walks wander back; these seeds give positions far enough from the goal to need a search.
    assert!(truth.len() >= len / 3, "a walk of {len} moves is {} from the goal", truth.len());
    (board.to_line(), truth.len())
}

fn json(run: &crate::support::Run) -> serde_json::Value {
    serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {run:?}"))
}

#[test]
fn without_a_set_solve_names_the_command_and_what_it_costs() {
    let dir = scratch_dir("five-none");
    let (board, optimal) = walk(&Board::blank_first(Size::S5X5), 30, 7);
    let args = ["solve", &board, "--goal", "blank-first", "--pdb-dir", s(&dir), "--json"];
    let run = run_in(&dir, &args, "");
    assert_eq!(run.code, 0, "{run:?}");
    let v = json(&run);
    assert_eq!(v["length"], optimal);
    assert_eq!(v["heuristic"], "linear-conflict");
    let command = format!("`fifteen pdb build --size 5x5 --pdb-dir {}`", s(&dir));
    assert!(run.stderr.contains(&command), "names the command: {}", run.stderr);
    assert!(run.stderr.contains("5x5-14x6-bits set (about"), "{}", run.stderr);
    assert!(run.stderr.contains("317 MB"), "{}", run.stderr);
    assert!(run.stderr.contains("using linear-conflict"), "{}", run.stderr);
    // Nothing was built unasked.
    assert_eq!(std::fs::read_dir(&dir).expect("list").count(), 0);
    // Asked for by name, the databases are a database error with the same advice.
    let args = ["solve", &board, "--goal", "blank-first", "--pdb-dir", s(&dir), "--heuristic=pdb"];
    let run = run_in(&dir, &args, "");
    assert_eq!(run.code, 6, "{run:?}");
    assert!(run.stderr.contains(&command), "{}", run.stderr);
    // `pdb list` says the default set is missing and how to build it.
    let run = run_in(&dir, &["pdb", "list", "--pdb-dir", s(&dir)], "");
    assert_eq!(run.code, 0, "{run:?}");
    let line = run.stdout.lines().find(|l| l.contains("5x5-14x6-bits")).expect("a 5x5 line");
    assert!(line.contains("missing") && line.contains(&command), "{}", run.stdout);
}

#[test]
fn solve_uses_a_5x5_set_it_finds_and_any_thread_count_gives_the_same_moves() {
    let dir = small_set();
    for (goal_name, goal) in [
        ("blank-first", Board::blank_first(Size::S5X5)),
        ("blank-last", Board::blank_last(Size::S5X5)),
    ] {
        for (len, seed) in [(40, 11), (60, 12)] {
            let (board, optimal) = walk(&goal, len, seed);
            let mut moves = None;
            for threads in ["1", "2"] {
                let args = ["solve", &board, "--goal", goal_name, "--json", "--threads", threads];
                let run = run_in(dir, &args, "");
                assert_eq!(run.code, 0, "{run:?}");
                let v = json(&run);
                assert_eq!(v["length"], optimal, "{board}");
                assert_eq!(v["optimal"], true);
                assert!(
                    v["heuristic"].as_str().is_some_and(|h| h.starts_with("pdb 5x5-test")),
                    "{v}"
                );
                assert!(run.stderr.contains(&format!("using pattern databases {SMALL}")));
                let m = v["moves"].as_str().expect("moves").to_string();
                assert_eq!(
                    *moves.get_or_insert_with(|| m.clone()),
                    m,
                    "{board}: {threads} threads"
                );
            }
        }
    }
    let run = run_in(dir, &["pdb", "list"], "");
    assert!(run.stdout.contains(&format!("set {SMALL}")), "{}", run.stdout);
}

/// Korf's 24-puzzle #25 (81 moves), far too hard for the small set: a search stopped by a time
/// limit or by Ctrl-C says the lower bound it proved, which can be no more than 81.
fn korf25() -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/instances/korf24.txt"),
    )
    .expect("korf24.txt");
    let line = text.lines().find(|l| l.starts_with("25 81 ")).expect("instance 25");
    line.split_whitespace().skip(2).collect::<Vec<_>>().join(" ")
}

/// The lower bound in `text` (`... the optimal length is at least N`).
fn lower_bound(text: &str) -> u32 {
    let (_, n) = text.rsplit_once("at least ").unwrap_or_else(|| panic!("a bound in {text}"));
    n.split_whitespace().next().and_then(|n| n.parse().ok()).expect("a number")
}

#[test]
fn a_stopped_search_reports_progress_and_its_lower_bound() {
    let board = korf25();
    let dir = small_set();
    let args = ["solve", &board, "--goal", "blank-first", "--timeout", "1.5", "--progress", "0.5"];
    let run = run_in(dir, &args, "");
    assert_eq!(run.code, 5, "{run:?}");
    let progress: Vec<&str> =
        run.stderr.lines().filter(|l| l.starts_with("search: bound")).collect();
    assert!(!progress.is_empty(), "a progress line: {}", run.stderr);
    assert!(progress[0].contains("nodes/s"), "{}", run.stderr);
    let bound = lower_bound(&run.stderr);
    assert!((40..=81).contains(&bound) && bound % 2 == 1, "{bound}: {}", run.stderr);
    // Once, above the first progress line: how to stop, or answer sooner.
    let note = run.stderr.find("note: an optimal answer can take long");
    let first = run.stderr.find("search: bound");
    assert!(note.is_some() && note < first, "{}", run.stderr);
    assert_eq!(run.stderr.matches("note: an optimal answer").count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("--time-limit SECS"), "{}", run.stderr);
    // The anytime search is not the optimal one: no such note.
    let args =
        ["solve", &board, "--goal", "blank-first", "--time-limit", "1.5", "--progress", "0.5"];
    let run = run_in(dir, &args, "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stderr.contains("note: an optimal answer"), "{}", run.stderr);

    // Ctrl-C (SIGINT) once the progress shows: the bound, and the exit code for interrupts.
    let mut child = Command::new(env!("CARGO_BIN_EXE_fifteen"))
        .args(["solve", &board, "--goal", "blank-first", "--progress", "0.3", "--pdb-dir", s(dir)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut text = String::new();
    while !text.contains("search: bound") {
        let before = text.len();
        stderr.read_line(&mut text).expect("read stderr");
        assert!(text.len() > before, "stderr ended before any progress: {text}");
    }
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().expect("kill").success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("read stderr");
    let status = child.wait().expect("it ends");
    assert_eq!(status.code(), Some(130), "{text}{rest}");
    let said = rest.lines().find(|l| l.starts_with("interrupted after")).expect("a bound line");
    let bound = lower_bound(said);
    assert!((40..=81).contains(&bound) && bound % 2 == 1, "{said}");
}

#[test]
fn damaged_or_wrong_5x5_tables_get_named_errors() {
    let (board, optimal) = walk(&Board::blank_first(Size::S5X5), 30, 21);
    let pdb = ["--goal", "blank-first", "--heuristic", "pdb"];
    for (name, why, damage) in [
        (
            "five-truncated",
            "truncated",
            (|b: &mut Vec<u8>| b.truncate(b.len() - 100)) as fn(&mut Vec<u8>),
        ),
        ("five-flipped", "checksum mismatch", |b| {
            let last = b.len() - 1;
            b[last] ^= 1;
        }),
        ("five-version", "format version", |b| b[10] = b[10].wrapping_add(1)),
    ] {
        let dir = copy_of_small_set(name);
        let file = dir.join(format!("{SMALL}.p3.pdb"));
        let mut bytes = std::fs::read(&file).expect("read");
        damage(&mut bytes);
        std::fs::write(&file, bytes).expect("write");
        let run = run_in(&dir, &[&["solve", board.as_str()][..], &pdb[..]].concat(), "");
        assert_eq!(run.code, 6, "{why}: {run:?}");
        assert!(run.stderr.contains(&format!("{SMALL}.p3.pdb")), "{why}: {}", run.stderr);
        assert!(run.stderr.contains(why), "{why}: {}", run.stderr);
        assert!(run.stderr.contains("no pattern database for 5x5"), "{}", run.stderr);
        let run = run_in(&dir, &["pdb", "verify", s(&file)], "");
        assert_eq!(run.code, 6, "{why}: {run:?}");
        // The default heuristic warns, goes on with linear conflict, and answers optimally.
        let args = ["solve", board.as_str(), "--goal", "blank-first", "--json"];
        let run = run_in(&dir, &args, "");
        assert_eq!(run.code, 0, "{why}: {run:?}");
        assert_eq!(json(&run)["length"], optimal);
        assert!(run.stderr.contains(why), "{why}: {}", run.stderr);
    }
    // A set for another board: a 5x5 finds no database.
    let dir = scratch_dir("five-other-board");
    let spec = SetSpec {
        name: "3x3-test".into(),
        preset: None,
        size: Size::S3X3,
        goal: Board::blank_first(Size::S3X3),
        patterns: vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8]],
        encoding: fifteen_core::pdb::EntryEncoding::U8,
    };
    build_set(&spec, &dir, Some(1), Progress::Quiet).expect("a 3x3 set");
    let run = run_in(&dir, &[&["solve", board.as_str()][..], &pdb[..]].concat(), "");
    assert_eq!(run.code, 6, "{run:?}");
    assert!(run.stderr.contains("no pattern database for 5x5"), "{}", run.stderr);
    // A goal with the blank in the middle is served by no set built for a corner.
    let mut middle: Vec<String> = (1..=24).map(|t: u32| t.to_string()).collect();
    middle.insert(12, "0".into());
    let middle = middle.join(" ");
    let args = ["solve", middle.as_str(), "--goal", middle.as_str(), "--heuristic", "pdb"];
    let run = run_in(small_set(), &args, "");
    assert_eq!(run.code, 6, "{run:?}");
    assert!(run.stderr.contains("blank in a corner"), "{}", run.stderr);
}

#[test]
fn a_batch_shows_the_progress_of_a_long_position() {
    let dir = scratch_dir("five-batch");
    let input = dir.join("positions.txt");
    let (easy, optimal) = walk(&Board::blank_first(Size::S5X5), 20, 31);
    std::fs::write(&input, format!("{easy}\n{}\n", korf25())).expect("write the input");
    let args = [
        "solve",
        "--input",
        s(&input),
        "--goal",
        "blank-first",
        "--timeout",
        "1.5",
        "--progress",
        "0.4",
        "--json",
        "--pdb-dir",
        s(small_set()),
    ];
    let run = run_in(small_set(), &args, "");
    assert_eq!(run.code, 1, "the long position hits its limit: {run:?}");
    let lines: Vec<serde_json::Value> =
        run.stdout.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!(lines[0]["length"], optimal);
    assert_eq!(lines[1]["status"], "limit");
    assert!(run.stderr.contains("line 2: search: bound"), "{}", run.stderr);
    assert!(!run.stderr.contains("line 1: search"), "{}", run.stderr);
}

#[test]
fn a_set_larger_than_the_memory_available_is_left_out_and_named() {
    let (board, optimal) = walk(&Board::blank_first(Size::S5X5), 30, 41);
    let run = fifteen_with_memory(
        &["solve", &board, "--goal", "blank-first", "--json", "--pdb-dir", s(small_set())],
        1_000_000,
    );
    let stderr = &run.stderr;
    assert_eq!(run.code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("JSON");
    assert_eq!(v["length"], optimal);
    assert_eq!(v["heuristic"], "linear-conflict");
    assert!(stderr.contains(&format!("not enough memory for the {SMALL} set")), "{stderr}");
    assert!(stderr.contains("it needs 2 MB and 1 MB are available"), "{stderr}");
    assert_eq!(stderr.matches("not enough memory").count(), 1, "said once: {stderr}");
    let run = fifteen_with_memory(&["pdb", "list", "--pdb-dir", s(small_set())], 1_000_000);
    let stdout = &run.stdout;
    let line = format!("set {SMALL}   not opened: it needs 2 MB, and 1 MB of memory are available");
    assert!(stdout.contains(&line), "{stdout}");
}

/// The default 5x5 set, built here by `fifteen pdb build --size 5x5` (about 11 minutes and
/// 317 MB), solves Korf's 24-puzzle #40 and #25 to their published lengths, #40 with the same
/// moves on one thread and on two.
#[test]
fn korf24_with_the_default_set_when_slow_tests_are_on() {
    if std::env::var_os("FIFTEEN_SLOW_TESTS").is_none_or(|v| v != "1") {
        return;
    }
    let dir = scratch_dir("five-default");
    let run = run_in(&dir, &["pdb", "build", "--size", "5x5"], "");
    assert_eq!(run.code, 0, "{run:?}");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/instances/korf24.txt"),
    )
    .expect("korf24.txt");
    let input = dir.join("korf24-quick.txt");
    let lines: Vec<&str> =
        text.lines().filter(|l| l.starts_with("40 82 ") || l.starts_with("25 81 ")).collect();
    assert_eq!(lines.len(), 2);
    std::fs::write(&input, lines.join("\n")).expect("write the input");
    let args = ["solve", "--input", s(&input), "--goal", "blank-first", "--threads", "2"];
    let run = run_in(&dir, &args, "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("using pattern databases 5x5-14x6-bits"), "{}", run.stderr);
    assert!(run.stderr.contains("2 solved, 0 failed"), "{}", run.stderr);
    let forty = lines.iter().find(|l| l.starts_with("40 ")).expect("instance 40");
    let board: String = forty.split_whitespace().skip(2).collect::<Vec<_>>().join(" ");
    let mut moves = None;
    for threads in ["1", "2"] {
        let args = ["solve", &board, "--goal", "blank-first", "--json", "--threads", threads];
        let run = run_in(&dir, &args, "");
        let v = json(&run);
        assert_eq!(v["length"], 82, "{run:?}");
        let m = v["moves"].as_str().expect("moves").to_string();
        assert_eq!(*moves.get_or_insert_with(|| m.clone()), m, "{threads} threads");
    }
}
