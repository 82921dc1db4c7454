//! Database builds when nobody watches: with stderr not a terminal (here a pipe), a build says
//! one line when it starts and one when it ends, and no progress lines or ETA in between.

use std::path::Path;

use crate::support::{Run, run_in, scratch_dir};

/// The 3x3 position every run here solves (two moves from the usual goal).
const BOARD: &str = "1 2 3 4 5 6 0 7 8";

/// Asserts that `run` built the 3x3-8 set into `dir` and that its stderr is exactly `lines`
/// lines, the first saying the build starts and the second that it ended, with no ETA.
fn assert_quiet_build(run: &Run, dir: &Path, lines: usize) {
    assert_eq!(run.code, 0, "{run:?}");
    assert!(dir.join("3x3-8.p1.pdb").is_file(), "the set was built: {run:?}");
    let stderr: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(stderr.len(), lines, "stderr:\n{}", run.stderr);
    assert!(stderr[0].contains("building the 3x3-8 set"), "{}", run.stderr);
    assert!(stderr[1].starts_with("built "), "{}", run.stderr);
    assert!(!run.stderr.contains("ETA") && !run.stderr.contains("depth"), "{}", run.stderr);
}

#[test]
fn compare_builds_in_two_lines() {
    let dir = scratch_dir("quiet-compare");
    let pdb_dir = dir.to_str().expect("a UTF-8 path");
    let run = run_in(&dir, &["compare", BOARD, "--pdb-dir", pdb_dir], "");
    assert_quiet_build(&run, &dir, 2);
    assert!(run.stdout.lines().any(|l| l.starts_with("pdb ")), "{}", run.stdout);
}

#[test]
fn first_use_build_of_solve_in_two_lines() {
    let dir = scratch_dir("quiet-solve");
    let run = run_in(&dir, &["solve", BOARD, "--heuristic", "pdb"], "");
    assert_quiet_build(&run, &dir, 2);
    assert!(run.stdout.starts_with("length: 2 (proven optimal)"), "{}", run.stdout);
}

#[test]
fn pdb_build_in_two_lines() {
    let dir = scratch_dir("quiet-pdb-build");
    let run = run_in(&dir, &["pdb", "build", "3x3-8"], "");
    assert_quiet_build(&run, &dir, 2);
    // What was written goes to stdout, one line a file.
    assert_eq!(run.stdout.lines().filter(|l| l.starts_with("wrote ")).count(), 1, "{run:?}");
}
