//! `cargo xtask bench --mtm [--hard]`: Korf's 100 in the multi-tile metric with the 4x4 MTM
//! tables warm.
//!
//! Builds the tables that `--pdb-dir` lacks (`fifteen pdb build --metric mtm`, a no-op when the
//! set is there; with `--split` also `fifteen pdb build 4x4-mtm-split`, the finer set that the
//! searches then prefer), reads the table files once (so that their pages are in the page cache), then
//! solves `../shared/instances/korf100.txt` (goal blank-first) with `fifteen solve --input ...
//! --metric mtm --json --threads 1`, and prints per-position length, nodes and time, then the
//! totals: search time summed and the process's wall time, the slowest position, the mean
//! length (slidy's mean optimal MTM length over these positions is 32.06, an independent check)
//! and nodes. With `--hard`, the same for `../shared/instances/hardest15.txt` (the positions of
//! 80 single-tile moves) and for the 16 positions that need 43 MTM moves, the most any 4x4
//! position needs ([`ANTIPODES`]); every length of those must be 43.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

/// The 16 antipodes of the 4x4 in the multi-tile metric, goal `1 2 ... 15 0`: the positions
/// that need 43 MTM moves, found by a complete breadth-first search (Bruce Norskog and Morley
/// Davidson, "The Fifteen Puzzle can be solved in 43 'moves'", cubeman.org forum, 2010-12-08).
const ANTIPODES: &str = "\
A01 1 5 9 13 2 6 10 14 3 7 11 15 4 8 12 0
A02 0 12 8 4 15 11 7 3 14 10 6 2 13 9 5 1
A03 12 5 9 0 15 6 10 13 1 7 11 14 2 3 4 8
A04 15 12 1 5 2 6 10 9 3 7 11 13 0 4 8 14
A05 0 12 8 1 15 11 7 5 14 10 6 9 2 3 4 13
A06 0 12 8 5 15 11 7 9 14 10 6 13 1 2 3 4
A07 0 12 5 9 15 6 10 13 1 7 11 14 2 3 4 8
A08 0 12 1 5 15 6 10 9 2 7 11 13 3 4 8 14
A09 15 12 7 1 14 10 0 5 2 6 11 9 3 4 8 13
A10 12 8 5 9 15 7 6 13 10 0 11 14 1 2 3 4
A11 12 8 9 0 15 11 7 13 14 10 6 4 5 1 2 3
A12 15 12 8 2 14 11 7 1 3 10 6 5 0 4 13 9
A13 0 8 5 9 12 7 6 13 15 11 10 14 1 3 2 4
A14 0 15 12 1 14 10 11 9 2 6 7 5 3 4 8 13
A15 0 12 8 9 15 11 7 13 14 10 6 4 5 1 2 3
A16 0 12 8 2 15 11 7 1 14 10 6 5 3 4 13 9
";

/// Runs the MTM benchmark with the tables in `pdb_dir` (built first if missing).
pub(crate) fn run(
    root: &Path,
    fifteen: &Path,
    pdb_dir: &Path,
    hard: bool,
    split: bool,
) -> anyhow::Result<()> {
    let instances = root.join("../shared/instances");
    let pdb = pdb_dir.to_str().context("the database folder's path is not UTF-8")?;
    let t0 = Instant::now();
    let mut builds = vec![&["--metric", "mtm"][..]];
    if split {
        builds.push(&["4x4-mtm-split"][..]);
    }
    for set in builds {
        let status = Command::new(fifteen)
            .args(["pdb", "build"])
            .args(set)
            .args(["--pdb-dir", pdb])
            .status()
            .context("cannot run fifteen")?;
        if !status.success() {
            bail!("the MTM table build failed");
        }
    }
    println!("MTM tables ready in {:.1} s", t0.elapsed().as_secs_f64());
    // Warm: the tables' pages into the page cache (a read, not a second run of the search).
    // The searches use the finer set when the folder holds it.
    let prefix = if split { "4x4-mtm-split.p" } else { "4x4-mtm.p" };
    for entry in std::fs::read_dir(pdb_dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.starts_with(prefix) && name.ends_with(".pdb") {
            std::io::copy(&mut std::fs::File::open(&path)?, &mut std::io::sink())?;
        }
    }
    let korf = instances.join("korf100.txt");
    solve(fifteen, pdb, &korf, "blank-first", "korf100", None)?;
    if hard {
        let hardest = instances.join("hardest15.txt");
        solve(fifteen, pdb, &hardest, "blank-first", "hardest15", None)?;
        let file = std::env::temp_dir().join(format!("mtm-antipodes-{}.txt", std::process::id()));
        std::fs::write(&file, ANTIPODES)?;
        let result = solve(fifteen, pdb, &file, "blank-last", "antipodes", Some(43));
        let _ = std::fs::remove_file(&file);
        result?;
        // One position at a time, the search split over both threads.
        solve_each(fifteen, pdb, ANTIPODES, "blank-last", "antipodes", 2, Some(43))?;
    }
    Ok(())
}

/// Solves the positions of `file` for `goal` in one process (one thread) and prints each and
/// the totals; every length must be `expected` if given.
fn solve(
    fifteen: &Path,
    pdb: &str,
    file: &Path,
    goal: &str,
    label: &str,
    expected: Option<u64>,
) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let out = Command::new(fifteen)
        .args(["solve", "--input"])
        .arg(file)
        .args(["--goal", goal, "--metric", "mtm", "--json", "--threads", "1"])
        .args(["--pdb-dir", pdb])
        .output()
        .context("cannot run fifteen")?;
    let wall = t0.elapsed().as_secs_f64();
    if !out.status.success() {
        bail!("fifteen failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    // Which set the search used (the finer one when the folder holds it).
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(line) = stderr.lines().find(|l| l.contains("MTM tables")) {
        println!("\n{line}");
    }
    let rows = String::from_utf8(out.stdout)?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<Vec<serde_json::Value>, _>>()?;
    report(&rows, label, "one thread", wall, expected)
}

/// Solves each position of `positions` (lines of an id and 16 cells) alone, one process each,
/// with its search split over `threads` threads, and prints each and the totals.
fn solve_each(
    fifteen: &Path,
    pdb: &str,
    positions: &str,
    goal: &str,
    label: &str,
    threads: usize,
    expected: Option<u64>,
) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let mut rows = Vec::new();
    for line in positions.lines() {
        let mut words = line.split_whitespace();
        let id = words.next().unwrap_or("-");
        let out = Command::new(fifteen)
            .arg("solve")
            .args(words)
            .args(["--goal", goal, "--metric", "mtm", "--json", "--threads"])
            .arg(threads.to_string())
            .args(["--pdb-dir", pdb])
            .output()
            .context("cannot run fifteen")?;
        if !out.status.success() {
            bail!("fifteen failed on {id}: {}", String::from_utf8_lossy(&out.stderr));
        }
        let mut row: serde_json::Value = serde_json::from_slice(&out.stdout)?;
        row["id"] = id.into();
        rows.push(row);
    }
    let wall = t0.elapsed().as_secs_f64();
    report(&rows, label, &format!("each alone on {threads} threads"), wall, expected)
}

/// Prints the rows of one run and their totals; every length must be `expected` if given.
fn report(
    rows: &[serde_json::Value],
    label: &str,
    how: &str,
    wall: f64,
    expected: Option<u64>,
) -> anyhow::Result<()> {
    println!("\n{label} in MTM, {how}, tables warm:");
    println!("{:>4} {:>4} {:>5} {:>12} {:>10}", "id", "mtm", "stm", "generated", "ms");
    let (mut total_ms, mut worst, mut nodes, mut length, mut optimal) = (0.0, 0.0f64, 0u64, 0, 0);
    for r in rows {
        let ms = r["time_ms"].as_f64().unwrap_or(0.0);
        let len = r["length"].as_u64().unwrap_or(0);
        let n = r["nodes"].as_u64().unwrap_or(0);
        let id = r["id"].as_str().unwrap_or("-");
        println!(
            "{id:>4} {len:>4} {:>5} {n:>12} {ms:>10.1}",
            r["stm_length"].as_u64().unwrap_or(0)
        );
        if expected.is_some_and(|e| e != len) {
            bail!("{label} {id}: {len} MTM moves, not the published {expected:?}");
        }
        total_ms += ms;
        worst = worst.max(ms);
        nodes += n;
        length += len;
        optimal += usize::from(r["optimal"] == true);
    }
    let count = rows.len().max(1);
    println!(
        "mtm {label}: {} positions, {optimal} proven optimal; search {:.3} s in total (process wall {wall:.3} s), slowest {:.3} s; mean length {:.2}; nodes {nodes} in total, {:.0} mean ({:.1} M nodes/s)",
        rows.len(),
        total_ms / 1e3,
        worst / 1e3,
        length as f64 / count as f64,
        nodes as f64 / count as f64,
        nodes as f64 / (total_ms / 1e3).max(1e-9) / 1e6,
    );
    Ok(())
}
