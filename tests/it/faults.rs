//! Faults around the database folder: files that are not databases, a build killed with
//! SIGKILL, two builds at once, and a folder nothing can be written to.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fifteen_core::pdb::{LoadMode, PdbTable};

use crate::support::{pdb_dir, run_in, scratch_dir};

const KORF1: &str = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3";

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A folder with the shared 6-6-3 set.
fn with_6_6_3(name: &str) -> std::path::PathBuf {
    let dir = scratch_dir(name);
    for i in 1..=3 {
        let file = format!("4x4-6-6-3.p{i}.pdb");
        std::fs::copy(pdb_dir().join(&file), dir.join(&file)).expect("copy a table");
    }
    dir
}

/// Every `.pdb` file in `dir` loads and verifies; returns how many there are.
fn all_tables_verify(dir: &Path) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).expect("list the folder") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|x| x == "pdb") {
            let table = PdbTable::open(&path, LoadMode::Resident)
                .unwrap_or_else(|e| panic!("{} does not load: {e}", path.display()));
            table.verify().unwrap_or_else(|e| panic!("{} does not verify: {e}", path.display()));
            n += 1;
        }
    }
    n
}

#[test]
fn special_files_named_pdb_are_skipped_with_a_warning_and_refused_by_name() {
    let dir = with_6_6_3("faults-special");
    std::fs::write(dir.join("zero.pdb"), b"").expect("write");
    std::fs::create_dir(dir.join("folder.pdb")).expect("mkdir");
    let fifo = dir.join("fifo.pdb");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    // An absurd header length.
    let mut bytes = std::fs::read(dir.join("4x4-6-6-3.p3.pdb")).expect("read");
    bytes[14..18].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(dir.join("absurd.pdb"), bytes).expect("write");

    let args = ["solve", KORF1, "--goal", "blank-first", "--no-pdb-build", "-v"];
    let run = run_in(&dir, &args, "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("heuristic: pdb 4x4-6-6-3"), "{}", run.stdout);
    for (file, why) in [
        ("zero.pdb", "truncated"),
        ("folder.pdb", "not a regular file"),
        ("fifo.pdb", "not a regular file"),
        ("absurd.pdb", "header length"),
    ] {
        assert!(
            run.stderr.lines().any(|l| l.contains(file) && l.contains(why)),
            "{file}: {why} in {}",
            run.stderr
        );
        let path = dir.join(file);
        for cmd in ["verify", "info"] {
            let run = run_in(&dir, &["pdb", cmd, s(&path)], "");
            assert_eq!(run.code, 6, "{cmd} {file}: {run:?}");
            assert!(format!("{}{}", run.stdout, run.stderr).contains(why), "{cmd} {file}: {run:?}");
        }
    }
}

#[test]
fn a_build_killed_with_sigkill_leaves_nothing_that_loads() {
    let dir = scratch_dir("faults-sigkill");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fifteen"))
        .args(["pdb", "build", "4x4-6-6-3", "--pdb-dir", s(&dir)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    // Kill it while it builds the second table: once the first is in place (off a terminal the
    // build prints no line per table), the second takes seconds.
    let first = dir.join("4x4-6-6-3.p1.pdb");
    let t0 = Instant::now();
    while !first.is_file() && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let tables = all_tables_verify(&dir);
    assert!(tables < 3, "the build finished before the kill ({tables} tables)");
    // The lock died with the process: the next solve builds the rest and answers.
    let args = ["solve", KORF1, "--goal", "blank-first", "--pdb-dir", s(&dir)];
    let run = run_in(&dir, &args, "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("length: 57 (proven optimal)"), "{}", run.stdout);
    assert_eq!(all_tables_verify(&dir), 3);
}

#[test]
fn two_first_use_builds_at_once_take_turns() {
    let dir = scratch_dir("faults-race");
    let start = || {
        Command::new(env!("CARGO_BIN_EXE_fifteen"))
            .args(["solve", KORF1, "--goal", "blank-first", "--pdb-dir", s(&dir), "-v"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs")
    };
    let t0 = Instant::now();
    let (a, b) = (start(), start());
    let (a, b) = (a.wait_with_output().expect("a"), b.wait_with_output().expect("b"));
    let text = |o: &std::process::Output| {
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (ta, tb) = (text(&a), text(&b));
    for (o, (out, err)) in [(&a, &ta), (&b, &tb)] {
        assert!(o.status.success(), "{out}\n{err}");
        assert!(out.starts_with("length: 57 (proven optimal)"), "{out}\n{err}");
        assert!(out.contains("heuristic: pdb 4x4-6-6-3"), "{out}");
    }
    // One built the set; the other waited for it and used it without building.
    let built = [&ta.1, &tb.1].iter().filter(|e| e.contains("building the 4x4-6-6-3 set")).count();
    assert_eq!(built, 1, "{}\n---\n{}\n({:?})", ta.1, tb.1, t0.elapsed());
    assert_eq!(all_tables_verify(&dir), 3);
}

#[test]
fn an_unwritable_folder_falls_back_to_linear_conflict_and_says_so() {
    // Tests run as root, where permission bits do not stop writes: a folder under a regular
    // file cannot be created by anyone.
    let base = scratch_dir("faults-readonly");
    let file = base.join("a-file");
    std::fs::write(&file, b"not a folder").expect("write");
    let dir = file.join("pdb");
    let args = ["solve", KORF1, "--goal", "blank-first", "--pdb-dir", s(&dir), "-v"];
    let run = run_in(&base, &args, "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("length: 57 (proven optimal)"), "{}", run.stdout);
    assert!(run.stdout.contains("heuristic: linear-conflict"), "{}", run.stdout);
    assert!(run.stderr.contains("cannot build the 4x4-6-6-3 databases"), "{}", run.stderr);
    assert!(run.stderr.contains("using linear-conflict instead"), "{}", run.stderr);
    // An explicit build there is a database error naming the folder.
    let run = run_in(&base, &["pdb", "build", "4x4-6-6-3", "--pdb-dir", s(&dir)], "");
    assert_eq!(run.code, 6, "{run:?}");
    assert!(run.stderr.contains("a-file/pdb"), "{}", run.stderr);
}
