//! Running the binary and reading its answers.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use fifteen_core::{Board, Dir, Notation, replay};

/// What one run printed and returned.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs `fifteen ARGS`.
pub(crate) fn fifteen(args: &[&str]) -> Run {
    fifteen_with_stdin(args, "")
}

/// The database folder every run sees (as `FIFTEEN_PDB_DIR`) unless it passes `--pdb-dir`: a
/// scratch folder of this test process where the first 4x4 and 3x3 solves build the quick sets
/// (4x4-6-6-3, 3x3-8) through the binary's first-use path. Tests never see the checkout's
/// `data/` or the user's data directory.
pub(crate) fn pdb_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch_dir("pdb-shared");
        for (board, heuristic) in [
            ("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "--heuristic=default"),
            ("1 2 3 4 5 6 0 7 8", "--heuristic=pdb"),
        ] {
            let args: &[&str] = if heuristic.ends_with("default") {
                &["solve", board, "--goal", "blank-first"]
            } else {
                &["solve", board, heuristic]
            };
            let run = run_in(&dir, args, "");
            assert_eq!(run.code, 0, "first-use build: {run:?}");
            assert!(run.stderr.contains("no pattern database found; building"), "{run:?}");
        }
        dir
    })
}

/// A new empty folder for one test.
pub(crate) fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch folder");
    dir
}

/// Runs `fifteen ARGS` with `input` on stdin.
pub(crate) fn fifteen_with_stdin(args: &[&str], input: &str) -> Run {
    run_in(pdb_dir(), args, input)
}

/// Runs `fifteen ARGS` with `FIFTEEN_PDB_DIR=dir` and `input` on stdin.
pub(crate) fn run_in(dir: &Path, args: &[&str], input: &str) -> Run {
    let mut child = spawn_in(dir, args);
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("the binary finishes");
    Run {
        code: out.status.code().expect("an exit code"),
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
    }
}

/// Runs `fifteen ARGS` (with the shared database folder, and nothing on stdin) as if `bytes`
/// of memory were available (`FIFTEEN_MEMORY_AVAILABLE`).
pub(crate) fn fifteen_with_memory(args: &[&str], bytes: u64) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_fifteen"))
        .args(args)
        .env("FIFTEEN_PDB_DIR", pdb_dir())
        .env("FIFTEEN_MEMORY_AVAILABLE", bytes.to_string())
        .output()
        .expect("the binary runs");
    Run {
        code: out.status.code().expect("an exit code"),
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
    }
}

/// Runs `fifteen ARGS` (with the shared database folder, and nothing on stdin) under a
/// watchdog: `None` if it has not finished after `limit`, in which case it is killed.
pub(crate) fn run_with_watchdog(args: &[&str], limit: Duration) -> Option<Run> {
    let mut child = spawn_in(pdb_dir(), args);
    drop(child.stdin.take());
    // Read both pipes on their own threads so that a full pipe never stalls the child.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                pipe.read_to_string(&mut text).expect("utf-8 output");
            }
            text
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let t0 = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the binary") {
            break Some(status);
        }
        if t0.elapsed() > limit {
            child.kill().expect("kill the hung binary");
            child.wait().expect("reap the hung binary");
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (stdout.join().expect("stdout"), stderr.join().expect("stderr"));
    status.map(|s| Run { code: s.code().expect("an exit code"), stdout, stderr })
}

fn spawn_in(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fifteen"))
        .args(args)
        .env("FIFTEEN_PDB_DIR", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// The value after `key: ` on the first line starting with `key`.
pub(crate) fn field<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.split_once(": ").map(|(_, v)| v))
        .unwrap_or_else(|| panic!("no {key:?} in:\n{text}"))
}

/// The length printed by `solve`: `length: N (...)`.
pub(crate) fn length(text: &str) -> usize {
    let value = field(text, "length");
    value.split_whitespace().next().and_then(|n| n.parse().ok()).expect("a length")
}

/// Asserts that `letters` (in `notation`) take `board` to `goal` in `len` moves.
pub(crate) fn assert_replays(
    board: &str,
    goal: &Board,
    letters: &str,
    notation: Notation,
    len: usize,
) {
    let start = Board::parse(board, Some(goal.size())).expect("the board parses");
    let moves: Vec<Dir> =
        letters.chars().map(|c| Dir::from_letter(c, notation).expect("a move letter")).collect();
    assert_eq!(moves.len(), len, "moves {letters:?}");
    let (end, _) = replay(&start, &moves).expect("every move is legal");
    assert_eq!(&end, goal, "{letters:?} from {board}");
}

/// The path of a scratch file for one test.
pub(crate) fn temp_file(name: &str, contents: &str) -> std::path::PathBuf {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, contents).expect("write a scratch file");
    path
}
