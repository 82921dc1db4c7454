//! Limits and bad input: `--max-nodes` and `--timeout` for every algorithm, over-long batch lines,
//! and Ctrl-C during a batch.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{fifteen, temp_file};

/// Korf's instance 1: 57 moves to the blank-first goal; Manhattan distance 41.
const KORF1: &str = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3";

const KORF100: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/instances/korf100.txt");

#[test]
fn every_algorithm_stops_at_a_limit_with_exit_5_and_a_sound_lower_bound() {
    for algorithm in ["ida", "astar", "bfs", "greedy", "weighted"] {
        for limit in [["--max-nodes", "200"], ["--timeout", "0.001"]] {
            let args = [
                "solve",
                KORF1,
                "--goal",
                "blank-first",
                "--heuristic",
                "manhattan",
                "--algorithm",
                algorithm,
                limit[0],
                limit[1],
                "--json",
            ];
            let run = fifteen(&args);
            let record: Value = serde_json::from_str(run.stdout.trim()).expect("one JSON line");
            // The clock is read every 64 Ki nodes: greedy search may finish before it is ever
            // read, and that is an answer too.
            if run.code == 0 && limit[0] == "--timeout" {
                let nodes = record["nodes"].as_u64().expect("a node count");
                assert!(nodes < 1 << 16, "{algorithm}: {nodes} nodes and no time limit");
                continue;
            }
            assert_eq!(run.code, 5, "{algorithm} {limit:?}: {run:?}");
            assert_eq!(record["status"], "limit", "{algorithm}: {record}");
            let bound = record["lower_bound"].as_u64().expect("a lower bound");
            // Proven: never above the optimum (57); BFS, which ignores the heuristic, may prove
            // less than the Manhattan distance.
            assert!(bound <= 57, "{algorithm} {limit:?}: lower bound {bound} > 57");
            if algorithm != "bfs" {
                assert!(bound >= 41, "{algorithm} {limit:?}: lower bound {bound} < h = 41");
            }
            assert!(run.stderr.contains("at least"), "{algorithm}: {}", run.stderr);
        }
    }
}

#[test]
fn an_over_long_batch_line_fails_alone_without_being_read_whole() {
    // 8 MB on one line between two good ones.
    let long = "1 ".repeat(4 << 20);
    let input = format!("1 2 3 4 5 6 0 7 8\n{long}\n1 0 2 4 6 3 7 5 8\n");
    let path = temp_file("batch-long-line.txt", &input);
    let run = fifteen(&["solve", "--input", path.to_str().expect("utf-8"), "--threads", "2"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(lines[0].starts_with("line 1: 2 moves"), "{}", lines[0]);
    assert!(lines[1].contains("line 2 is 8388608 bytes long, over the limit"), "{}", lines[1]);
    assert!(lines[2].starts_with("line 3: 5 moves"), "{}", lines[2]);
    // Not UTF-8: that line fails, the others are answered.
    let mut bytes = b"1 2 3 4 5 6 0 7 8\n\xff\xfe 1 2\n".to_vec();
    bytes.extend_from_slice(b"1 0 2 4 6 3 7 5 8\n");
    let path = temp_file("batch-not-utf8.txt", "");
    std::fs::write(&path, bytes).expect("write");
    let run = fifteen(&["solve", "--input", path.to_str().expect("utf-8"), "--json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let records: Vec<Value> =
        run.stdout.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!(records.len(), 3);
    assert_eq!(records[1]["status"], "error");
    assert!(
        records[1]["error"].as_str().is_some_and(|e| e.contains("not UTF-8")),
        "{}",
        records[1]
    );
    assert_eq!(records[2]["length"], 5);
}

#[test]
fn a_batch_larger_than_the_window_keeps_order() {
    // Far more lines than positions in flight (64 at most here), with a slow one first.
    let mut input = String::from("8 7 6 5 4 3 2 1 0\n"); // 30 moves to blank-last
    for i in 0..3000 {
        input.push_str(if i % 2 == 0 { "1 2 3 4 5 6 0 7 8\n" } else { "1 0 2 4 6 3 7 5 8\n" });
    }
    let path = temp_file("batch-window.txt", &input);
    let args = ["solve", "--input", path.to_str().expect("utf-8"), "--threads", "2"];
    let run = fifteen(&[&args[..], &["--heuristic", "manhattan"]].concat());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3001);
    assert!(lines[0].starts_with("line 1: 30 moves"), "{}", lines[0]);
    for (i, line) in lines.iter().enumerate().skip(1) {
        let want = if i % 2 == 1 { "2 moves" } else { "5 moves" };
        assert!(line.starts_with(&format!("line {}: {want}", i + 1)), "{line}");
    }
    assert!(run.stderr.contains("3001 positions: 3001 solved"), "{}", run.stderr);
}

#[test]
fn ctrl_c_during_a_batch_prints_what_was_solved_and_exits_130() {
    // Manhattan on Korf's instances takes seconds to minutes each.
    let mut child = Command::new(env!("CARGO_BIN_EXE_fifteen"))
        .args(["solve", "--input", KORF100, "--goal", "blank-first", "--heuristic", "manhattan"])
        .args(["--threads", "2"])
        .env("FIFTEEN_PDB_DIR", crate::support::pdb_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    assert!(sent.is_ok_and(|s| s.success()), "kill -INT");
    let t0 = Instant::now();
    let status = child.wait().expect("it exits");
    let waited = t0.elapsed();
    let mut stdout = String::new();
    let mut stderr = String::new();
    child.stdout.take().expect("stdout").read_to_string(&mut stdout).expect("read");
    child.stderr.take().expect("stderr").read_to_string(&mut stderr).expect("read");
    assert_eq!(status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(waited < Duration::from_secs(5), "took {waited:?} to stop");
    assert!(stderr.contains("interrupted; solved so far"), "{stderr}");
    let solved = stdout.lines().count();
    assert!(stderr.contains(&format!("{solved} positions: {solved} solved")), "{stdout}\n{stderr}");
    // What was printed is a prefix of the input, in order, each as expected.
    for (i, line) in stdout.lines().enumerate() {
        assert!(line.contains("as expected"), "{line}");
        assert!(line.starts_with(&format!("line {}", i + 19)), "{line}");
    }
}
