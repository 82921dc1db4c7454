//! `fifteen solve --within F` and `--time-limit SECS`, and the default on large boards: lengths
//! against known optima (Korf's 100 with the 6-6-3 set), proven lower bounds, replays, batches,
//! and a 6x6 board with a small database set built in the test.

use fifteen_core::{Board, Notation, Size};
use serde_json::Value;

use crate::support::{assert_replays, fifteen, fifteen_with_stdin, run_in, scratch_dir, temp_file};

const KORF100: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/instances/korf100.txt");

fn json_lines(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect()
}

/// Checks a solved record's moves replay, and that its lower bound is at most `optimum`.
fn check_record(r: &Value, goal: &Board, optimum: Option<u64>) -> (u64, u64) {
    assert_eq!(r["status"], "solved", "{r}");
    let len = r["length"].as_u64().expect("length");
    let lb = r["lower_bound"].as_u64().expect("lower_bound whenever not proven optimal");
    assert!(lb <= len, "{r}");
    if let Some(opt) = optimum {
        assert!(lb <= opt && opt <= len, "{r}");
        assert_eq!(r["optimal"].as_bool(), Some(lb == len), "{r}");
    }
    let board = r["board"].as_str().expect("board");
    assert_replays(board, goal, r["moves"].as_str().expect("moves"), Notation::Tile, len as usize);
    (len, lb)
}

/// Korf's instances with `--within 1.1` and the 6-6-3 set: each answer at most 1.1 times the
/// published optimum. A sample normally, all 100 with `FIFTEEN_SLOW_TESTS=1`.
#[test]
fn within_holds_on_korfs_instances() {
    let text = std::fs::read_to_string(KORF100).expect("korf100.txt is in ../shared/instances");
    let slow = std::env::var_os("FIFTEEN_SLOW_TESTS").is_some_and(|v| v == "1");
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .enumerate()
        .filter(|(i, _)| slow || i % 10 == 0)
        .map(|(_, l)| l)
        .collect();
    let input = temp_file("near-korf.txt", &lines.join("\n"));
    let run = fifteen(&[
        "solve",
        "--input",
        input.to_str().expect("path"),
        "--goal",
        "blank-first",
        "--within",
        "1.1",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let goal = Board::blank_first(Size::S4X4);
    let records = json_lines(&run.stdout);
    assert_eq!(records.len(), lines.len());
    for r in &records {
        assert!(r["heuristic"].as_str().is_some_and(|h| h.starts_with("pdb 4x4-6-6-3")), "{r}");
        assert_eq!(r["bound"].as_f64(), Some(1.1), "{r}");
        let opt = r["expected"].as_u64().expect("expected");
        let (len, _) = check_record(r, &goal, Some(opt));
        assert!(len as f64 <= 1.1 * opt as f64, "{r}");
    }
}

/// `--time-limit`: improvements on stderr never get longer, each with a gap, and the answer is
/// the last of them, labelled with its lower bound.
#[test]
fn time_limit_improves_and_labels_the_answer() {
    let board = fifteen(&["random", "--size", "6x6", "--moves", "150", "--seed", "5"]);
    let board = board.stdout.trim().to_string();
    let run = fifteen(&[
        "solve",
        &board,
        "--heuristic",
        "linear-conflict",
        "--time-limit",
        "2",
        "--max-stored",
        "300000",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let lengths: Vec<usize> = run
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("improved: "))
        .map(|l| {
            assert!(l.contains("at least") && (l.contains("gap at most") || l.contains("optimal")));
            l.split_whitespace().next().and_then(|n| n.parse().ok()).expect("a length")
        })
        .collect();
    assert!(!lengths.is_empty(), "{run:?}");
    assert!(lengths.windows(2).all(|w| w[1] < w[0]), "{lengths:?}");
    let len = crate::support::length(&run.stdout);
    assert_eq!(Some(&len), lengths.last());
    assert!(run.stdout.contains("(not proven optimal: at least "), "{}", run.stdout);
    let letters = crate::support::field(&run.stdout, "moves");
    assert_replays(
        &board,
        &Board::blank_last(Size::new(6, 6).unwrap()),
        letters,
        Notation::Tile,
        len,
    );
}

/// A time limit too short for any search still gets an answer on an 8x8 (before, an 8x8 walk
/// with `--time-limit 0.3` could end with none): the board solved edge by edge, said so on
/// stderr, not claimed optimal, with the proven lower bound, and replaying to the goal.
#[test]
fn a_time_limit_too_short_for_any_search_still_answers() {
    let board = fifteen(&["random", "--size", "8x8", "--moves", "3000", "--seed", "8"]);
    let board = board.stdout.trim().to_string();
    for threads in ["1", "2"] {
        let args = ["solve", &board, "--time-limit", "0.001", "--threads", threads, "--json"];
        let run = fifteen(&args);
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stderr.contains("solved edge by edge"), "{}", run.stderr);
        let r: Value = serde_json::from_str(run.stdout.trim()).expect("one JSON line");
        assert_eq!(r["optimal"].as_bool(), Some(false), "{r}");
        assert_eq!(r["algorithm"], "anytime", "{r}");
        // The estimate at the start is a proven bound: linear conflict's is at least Manhattan's.
        let (_, lb) = check_record(&r, &Board::blank_last(Size::new(8, 8).unwrap()), None);
        assert!(lb > 0, "{r}");
    }
}

/// Large boards default to the anytime search (for `--timeout`), never a silent greedy path;
/// in a batch on two threads each position gets it, with `lower_bound` in its record.
#[test]
fn large_boards_default_to_anytime_in_batches() {
    let mut positions = String::new();
    for (size, seed) in [("7x7", "1"), ("8x8", "2"), ("6x6", "3")] {
        let run = fifteen(&["random", "--size", size, "--moves", "60", "--seed", seed]);
        positions.push_str(&run.stdout);
    }
    let run = fifteen_with_stdin(
        &[
            "solve",
            "--input",
            "-",
            "--json",
            "--threads",
            "2",
            "--timeout",
            "5",
            "--max-stored",
            "200000",
            "--heuristic",
            "linear-conflict",
        ],
        &positions,
    );
    assert_eq!(run.code, 0, "{run:?}");
    let records = json_lines(&run.stdout);
    assert_eq!(records.len(), 3);
    for r in &records {
        assert_eq!(r["algorithm"], "anytime", "{r}");
        assert!(r.get("bound").is_none(), "{r}");
        let size: Size = r["size"].as_str().and_then(|s| s.parse().ok()).expect("size");
        check_record(r, &Board::blank_last(size), None);
    }
    // The text answer of a single position: the anytime search's improvements on stderr, and
    // the answer proven optimal (the last run can finish on a short walk) or labelled with its
    // lower bound.
    let one = positions.lines().next().expect("a position");
    let run = fifteen(&["solve", one, "--timeout", "5", "--heuristic", "linear-conflict"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("improved: "), "{run:?}");
    assert!(
        run.stdout.contains("(proven optimal)")
            || run.stdout.contains("not proven optimal: at least"),
        "{run:?}"
    );
}

/// A 6x6 board with a small database set built in the test (eleven 3-tile patterns and one of
/// 2): the default heuristic on 6x6 finds it, and `--within 2` holds its guarantee against
/// the lower bound it proves.
#[test]
fn six_by_six_with_a_small_database_set() {
    let dir = scratch_dir("near-6x6-pdb");
    let size = Size::new(6, 6).unwrap();
    let tiles: Vec<u8> = (1..36).collect();
    let patterns: Vec<Vec<u8>> = tiles.chunks(3).map(<[u8]>::to_vec).collect();
    let spec = pdb_gen::SetSpec {
        name: "6x6-test".into(),
        preset: None,
        size,
        goal: Board::blank_first(size),
        patterns,
        encoding: fifteen_core::pdb::EntryEncoding::U8,
    };
    pdb_gen::build_set(&spec, &dir, Some(1), pdb_gen::Progress::Quiet).expect("a small set builds");
    let board = fifteen(&["random", "--size", "6x6", "--moves", "120", "--seed", "8"]);
    let board = board.stdout.trim().to_string();
    let d = dir.to_str().expect("path");
    let run = run_in(&dir, &["solve", &board, "--pdb-dir", d, "--within", "2", "--json"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("using pattern databases"), "{run:?}");
    let r = &json_lines(&run.stdout)[0];
    assert!(r["heuristic"].as_str().is_some_and(|h| h.starts_with("pdb")), "{r}");
    assert_eq!(r["bound"].as_f64(), Some(2.0), "{r}");
    let (len, lb) = check_record(r, &Board::blank_last(size), None);
    assert!(len <= 2 * 120 && lb > 0, "{r}");
}
