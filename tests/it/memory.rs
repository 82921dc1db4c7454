//! Scarce memory: a `ulimit -v` (here `prlimit --as`) that refuses a set's tables, or the threads
//! and memory a run needs. Every such run ends with an answer or a clear error, never a panic.

use std::path::Path;
use std::process::Command;

use fifteen_core::pdb::{PdbMeta, encode_header, placements};
use fifteen_core::{Board, Size};

use crate::support::{Run, pdb_dir, scratch_dir};

const KORF1: &str = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3";

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// `fifteen ARGS` with its address space limited to `kib` KiB (`prlimit`, from util-linux), with
/// `input` on stdin, and the stack of every thread it starts set to `thread_stack` bytes.
fn fifteen_limited(kib: u64, args: &[&str], input: &str, thread_stack: Option<u64>) -> Run {
    use std::io::Write;
    let mut command = Command::new("prlimit");
    if let Some(bytes) = thread_stack {
        command.env("RUST_MIN_STACK", bytes.to_string());
    }
    let mut child = command
        .arg(format!("--as={}", kib * 1024))
        .arg(env!("CARGO_BIN_EXE_fifteen"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("prlimit runs");
    // A run that fails early does not read its input.
    let _ = child.stdin.take().expect("stdin").write_all(input.as_bytes());
    let out = child.wait_with_output().expect("the binary finishes");
    Run {
        // A signal (an abort) has no code: -1 fails every assertion on codes below.
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Writes a table of `tiles` on the 4x4 (Korf's goal) whose entries are all zero, as a sparse
/// file: a valid header over 519 MB that takes no disk. It loads (the header is checked) but would
/// not verify, which does not matter here: the system refuses to map it first.
fn sparse_table(path: &Path, tiles: &[u8]) {
    let goal = Board::blank_first(Size::S4X4);
    let n = placements(16, tiles.len()) as usize;
    let entries = vec![0u8; n];
    let meta = PdbMeta { generator: "test".into(), preset: Some("4x4-7-8".into()) };
    let head = encode_header(&goal, tiles, &meta, &entries).expect("a header");
    std::fs::write(path, &head).expect("write the header");
    let file = std::fs::OpenOptions::new().write(true).open(path).expect("open");
    file.set_len((head.len() + n) as u64).expect("a sparse file");
}

/// A folder holding a 7-8 set too large for the limit (577 MB) beside the shared 6-6-3 set: the
/// solve says once what is short and by how much, uses 6-6-3, and answers optimally.
#[test]
fn a_set_too_large_for_the_memory_limit_is_named_once_and_a_smaller_one_used() {
    let dir = scratch_dir("memory-7-8");
    sparse_table(&dir.join("4x4-7-8.p1.pdb"), &[1, 2, 3, 4, 5, 6, 7]);
    sparse_table(&dir.join("4x4-7-8.p2.pdb"), &[8, 9, 10, 11, 12, 13, 14, 15]);
    for i in 1..=3 {
        let file = format!("4x4-6-6-3.p{i}.pdb");
        std::fs::copy(pdb_dir().join(&file), dir.join(&file)).expect("copy a table");
    }
    for load in ["mmap", "resident"] {
        let args = ["solve", KORF1, "--goal", "blank-first", "--pdb-dir", s(&dir)];
        let args = [&args[..], &["--pdb-load", load]].concat();
        let run = fifteen_limited(256 << 10, &args, "", None);
        assert_eq!(run.code, 0, "{load}: {run:?}");
        assert!(run.stdout.starts_with("length: 57 (proven optimal)"), "{}", run.stdout);
        let err = &run.stderr;
        assert_eq!(err.matches("not enough memory").count(), 1, "{load}: said once: {err}");
        assert!(err.contains("not enough memory for the 4x4-7-8 set"), "{err}");
        assert!(err.contains("it needs 577 MB"), "{load}: how much it needs: {err}");
        assert!(err.contains("using pattern databases 4x4-6-6-3"), "what it does: {err}");
        assert!(!err.contains("permissions"), "not a permissions problem: {err}");
    }
}

/// Threads the system refuses: every thread asks for a 512 MiB stack (`RUST_MIN_STACK`) under
/// a 256 MiB address-space limit, so no thread but the main one can start, while the main
/// thread's own allocations succeed. A solve on two threads answers on the main thread; a
/// first-use build that cannot start its workers falls back to linear conflict and answers; a
/// batch, which needs its reader and worker threads, fails with the exit code for scarce
/// resources and says what was short. Never a panic (starting a thread once panicked).
#[test]
fn threads_refused_by_the_system_never_panic() {
    let korf: String = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/instances/korf100.txt"
    ))
    .expect("korf100.txt")
    .lines()
    .filter(|l| !l.starts_with('#'))
    .take(3)
    .map(|l| format!("{l}\n"))
    .collect();
    let dir = pdb_dir();
    let empty = scratch_dir("memory-no-threads");
    let no_threads = |args: &[&str], input: &str| {
        let run = fifteen_limited(256 << 10, args, input, Some(512 << 20));
        assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
        run
    };
    let args = ["solve", KORF1, "--goal", "blank-first", "--threads", "2", "--pdb-dir", s(dir)];
    let run = no_threads(&args, "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("length: 57 (proven optimal)"), "{}", run.stdout);

    let args = ["solve", "8 7 6 5 4 3 2 1 0", "--heuristic", "pdb", "--pdb-dir", s(&empty)];
    let run = no_threads(&args, "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("length: 30 (proven optimal)"), "{}", run.stdout);
    assert!(run.stderr.contains("cannot build the 3x3-8 databases"), "{}", run.stderr);
    assert!(run.stderr.contains("using linear-conflict instead"), "{}", run.stderr);

    let args = ["solve", "-i", "-", "--goal", "blank-first", "--threads", "2", "--pdb-dir", s(dir)];
    let run = no_threads(&args, &korf);
    assert_eq!(run.code, 7, "{run:?}");
    assert!(run.stderr.contains("error: cannot start"), "{}", run.stderr);
}
