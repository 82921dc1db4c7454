//! Running the binary and reading its answers.

use std::io::Write;
use std::process::{Command, Stdio};

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

/// Runs `fifteen ARGS` with `input` on stdin.
pub(crate) fn fifteen_with_stdin(args: &[&str], input: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fifteen"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("the binary finishes");
    Run {
        code: out.status.code().expect("an exit code"),
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
    }
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
