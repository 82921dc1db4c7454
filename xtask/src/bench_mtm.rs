//! `cargo xtask bench --mtm`: Korf's 100 in the multi-tile metric with the 4x4 MTM tables warm.
//!
//! Builds the tables that `--pdb-dir` lacks (`fifteen pdb build --metric mtm`, a no-op when the
//! set is there), reads the table files once (so that their pages are in the page cache), then
//! solves
//! `../shared/instances/korf100.txt` (goal blank-first) with `fifteen solve --input ...
//! --metric mtm --json --threads 1`, and prints per-position length, nodes and time, then the totals: search time summed
//! and the process's wall time, the slowest position, the mean length (slidy's mean optimal MTM
//! length over these positions is 32.06, an independent check) and nodes.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

/// Runs the MTM benchmark with the tables in `pdb_dir` (built first if missing).
pub(crate) fn run(root: &Path, fifteen: &Path, pdb_dir: &Path) -> anyhow::Result<()> {
    let korf = root.join("../shared/instances/korf100.txt");
    let pdb = pdb_dir.to_str().context("the database folder's path is not UTF-8")?;
    let t0 = Instant::now();
    let status = Command::new(fifteen)
        .args(["pdb", "build", "--metric", "mtm", "--pdb-dir", pdb])
        .status()
        .context("cannot run fifteen")?;
    if !status.success() {
        bail!("the MTM table build failed");
    }
    println!("MTM tables ready in {:.1} s", t0.elapsed().as_secs_f64());
    let solve = || -> anyhow::Result<(Vec<serde_json::Value>, f64)> {
        let t0 = Instant::now();
        let out = Command::new(fifteen)
            .args(["solve", "--input"])
            .arg(&korf)
            .args(["--goal", "blank-first", "--metric", "mtm", "--json", "--threads", "1"])
            .args(["--pdb-dir", pdb])
            .output()
            .context("cannot run fifteen")?;
        let wall = t0.elapsed().as_secs_f64();
        if !out.status.success() {
            bail!("fifteen failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        let rows = String::from_utf8(out.stdout)?
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<Vec<serde_json::Value>, _>>()?;
        Ok((rows, wall))
    };
    // Warm: the tables' pages into the page cache (a read, not a second run of the search).
    for entry in std::fs::read_dir(pdb_dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.starts_with("4x4-mtm.p") && name.ends_with(".pdb") {
            std::io::copy(&mut std::fs::File::open(&path)?, &mut std::io::sink())?;
        }
    }
    let (rows, wall) = solve()?;
    println!("\nKorf's 100 in MTM, one thread, tables warm:");
    println!("{:>4} {:>4} {:>5} {:>12} {:>10}", "id", "mtm", "stm", "generated", "ms");
    let (mut total_ms, mut worst, mut nodes, mut length, mut optimal) = (0.0, 0.0f64, 0u64, 0, 0);
    for r in &rows {
        let ms = r["time_ms"].as_f64().unwrap_or(0.0);
        let len = r["length"].as_u64().unwrap_or(0);
        let n = r["nodes"].as_u64().unwrap_or(0);
        println!(
            "{:>4} {:>4} {:>5} {:>12} {:>10.1}",
            r["id"].as_str().unwrap_or("-"),
            len,
            r["stm_length"].as_u64().unwrap_or(0),
            n,
            ms
        );
        total_ms += ms;
        worst = worst.max(ms);
        nodes += n;
        length += len;
        optimal += usize::from(r["optimal"] == true);
    }
    let count = rows.len().max(1);
    println!(
        "mtm korf100: {} positions, {optimal} proven optimal; search {:.3} s in total (process wall {wall:.3} s), slowest {:.3} s; mean length {:.2}; nodes {nodes} in total, {:.0} mean ({:.1} M nodes/s)",
        rows.len(),
        total_ms / 1e3,
        worst / 1e3,
        length as f64 / count as f64,
        nodes as f64 / count as f64,
        nodes as f64 / (total_ms / 1e3).max(1e-9) / 1e6,
    );
    Ok(())
}
