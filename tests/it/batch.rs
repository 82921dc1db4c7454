//! `fifteen solve --input FILE`.

use serde_json::Value;

use std::time::Duration;

use crate::support::{fifteen, fifteen_with_stdin, run_with_watchdog, temp_file};

const KORF100: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/instances/korf100.txt");

/// Korf's lines (`ID OPTLEN cells`) for the given instance ids, in that order.
fn korf_lines(ids: &[u64]) -> Vec<String> {
    let text = std::fs::read_to_string(KORF100).expect("korf100.txt is in ../shared/instances");
    ids.iter()
        .map(|id| {
            text.lines()
                .find(|l| l.split_whitespace().next().and_then(|t| t.parse().ok()) == Some(*id))
                .unwrap_or_else(|| panic!("instance {id}"))
                .to_string()
        })
        .collect()
}

#[test]
fn a_bad_line_fails_alone_and_order_is_kept() {
    // The three easiest instances (41, 42 and 42 moves).
    let korf = korf_lines(&[55, 42, 79]);
    let input =
        format!("# a few of Korf's instances\n{}\n\n1 2 x 4\n{}\n{}\n", korf[0], korf[1], korf[2]);
    let path = temp_file("batch-bad-line.txt", &input);
    let path = path.to_str().expect("utf-8 path");
    let run = fifteen(&["solve", "--input", path, "--goal", "blank-first", "--threads", "2"]);
    assert_eq!(run.code, 1, "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", run.stdout);
    assert!(
        lines[0].starts_with("line 2 (id 55): 41 moves, proven optimal, as expected"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("line 4: error: "), "{}", lines[1]);
    assert!(lines[1].contains("\"x\""), "{}", lines[1]);
    assert!(lines[2].starts_with("line 5 (id 42): 42 moves"), "{}", lines[2]);
    assert!(lines[3].starts_with("line 6 (id 79): 42 moves"), "{}", lines[3]);
    assert!(run.stderr.contains("4 positions: 3 solved, 1 failed"), "{}", run.stderr);
    assert!(run.stderr.contains("failed lines: 4"), "{}", run.stderr);
}

#[test]
fn json_lines_in_order_with_ids_and_expected_lengths() {
    let korf = korf_lines(&[55, 42]);
    let input = format!("{}\n{}\nnot a board\n", korf[0], korf[1]);
    let path = temp_file("batch-json.txt", &input);
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("batch-json.out");
    let run = fifteen(&[
        "solve",
        "-i",
        path.to_str().expect("utf-8"),
        "-o",
        out.to_str().expect("utf-8"),
        "--goal",
        "blank-first",
        "--json",
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.is_empty());
    let written = std::fs::read_to_string(&out).expect("the output file");
    let records: Vec<Value> =
        written.lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    assert_eq!(records.len(), 3);
    assert_eq!(records[0]["id"], "55");
    assert_eq!(records[0]["expected"], 41);
    assert_eq!(records[0]["length"], 41);
    assert_eq!(records[0]["status"], "solved");
    assert_eq!(records[1]["id"], "42");
    assert_eq!(records[1]["line"], 2);
    assert_eq!(records[2]["line"], 3);
    assert_eq!(records[2]["status"], "error");
    assert!(records[2]["error"].as_str().is_some_and(|e| e.contains("not a tile number")));
}

#[test]
fn stdin_ids_and_a_wrong_expected_length() {
    // An id, then a 3x3 board; then id and a wrong optimal length; then an unsolvable board.
    let input = "7 1 2 3 4 5 6 0 7 8\n8 3 1 2 3 4 5 6 0 7 8\n";
    let run = fifteen_with_stdin(&["solve", "--input", "-"], input);
    assert_eq!(run.code, 1, "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "line 1 (id 7): 2 moves, proven optimal: LL");
    assert!(lines[1].contains("(id 8): 2 moves, proven optimal, but 3 expected"), "{}", lines[1]);
    let all_good = fifteen_with_stdin(&["solve", "-i", "-"], "1 2 3 4 5 6 0 7 8\n# done\n");
    assert_eq!(all_good.code, 0, "{all_good:?}");
    let unsolvable = fifteen_with_stdin(&["solve", "-i", "-"], "2 1 3 4 5 6 7 8 0\n");
    assert_eq!(unsolvable.code, 1);
    assert!(unsolvable.stdout.contains("line 1: no solution"), "{}", unsolvable.stdout);
}

#[test]
fn a_missing_file_is_bad_input() {
    let run = fifteen(&["solve", "--input", "/nonexistent/positions.txt"]);
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("cannot read /nonexistent/positions.txt"), "{}", run.stderr);
}

/// A batch must never hang, whatever the lanes and threads. The input mixes hard positions
/// (about half a second each with 6-6-3) among many easy ones, so that the easy ones fill the
/// window of positions in flight while a hard one is still searched in one worker's lanes: the
/// printer then waits for that worker, the reader for the printer, and the other worker finds no
/// work. A worker that blocked while holding the job queue (as batches once did) stalled the one
/// with the hard position, and every run here hung. The watchdog is far above a normal run's
/// time (about a second) so that a loaded machine does not make it flaky.
#[test]
fn batches_of_uneven_positions_never_hang() {
    let hard = korf_lines(&[60, 82, 88]);
    let easy = fifteen(&[
        "random",
        "--goal",
        "blank-first",
        "--moves",
        "12",
        "--count",
        "240",
        "--seed",
        "15",
    ]);
    assert_eq!(easy.code, 0, "{easy:?}");
    let easy: Vec<&str> = easy.stdout.lines().collect();
    let mut input = String::new();
    for (i, chunk) in easy.chunks(80).enumerate() {
        input.push_str(&hard[i]);
        input.push('\n');
        for line in chunk {
            input.push_str(line);
            input.push('\n');
        }
    }
    let path = temp_file("batch-uneven.txt", &input);
    let path = path.to_str().expect("utf-8 path");
    for (threads, lanes) in [("2", "3"), ("2", "2"), ("3", "4"), ("2", "3")] {
        let args = [
            "solve",
            "--input",
            path,
            "--goal",
            "blank-first",
            "--json",
            "--threads",
            threads,
            "--lanes",
            lanes,
        ];
        let run = run_with_watchdog(&args, Duration::from_secs(120))
            .unwrap_or_else(|| panic!("the batch hung with --threads {threads} --lanes {lanes}"));
        assert_eq!(run.code, 0, "{}", run.stderr);
        let records: Vec<Value> =
            run.stdout.lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
        assert_eq!(records.len(), 243);
        for (i, r) in records.iter().enumerate() {
            assert_eq!(r["line"], i + 1, "answers in input order");
            assert_eq!(r["status"], "solved", "{r}");
        }
        let lengths: Vec<&Value> = records.iter().filter_map(|r| r.get("expected")).collect();
        assert_eq!(lengths.len(), 3, "the three hard positions carry their optimal lengths");
    }
}
