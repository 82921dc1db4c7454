//! `cargo xtask bench --big`: the near-optimal answers on large boards, per size, against
//! DeepCubeA's published table (Agostinelli et al. 2019).
//!
//! For each size it draws positions with `fifteen random` (random walks of the length that
//! gives DeepCubeA's mean Manhattan distance, and with `--big-uniform` also uniformly random
//! ones), solves them as one batch on one thread (one core per position) with `--time-limit`,
//! and prints the mean and worst length, the mean proven lower bound, the mean and worst search
//! time, the mean Manhattan distance and the ratio of the mean length to it, the quantity that
//! carries over between position sets.
//!
//! With `--optimal` it also solves the same positions optimally (IDA* with the default tables,
//! two threads, no limit) and prints the optimal mean, the near-optimal mean over it and how
//! many answers were optimal: the 5x5 target is a mean within 1% of the optimal one.
//! `--optimal-timeout SECS` bounds each optimal solve; positions it leaves unsolved are left out
//! of both means and counted.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

/// (size, random-walk length, DeepCubeA's mean length over mean Manhattan distance).
const SIZES: &[(&str, u32, Option<f64>)] = &[
    ("5x5", 300, Some(1.371)),
    ("6x6", 330, Some(1.358)),
    ("7x7", 1550, Some(1.310)),
    ("8x8", 3000, None),
];

const USAGE: &str =
    "usage: cargo xtask bench --big [--count N] [--time-limit SECS] [--sizes 5x5,6x6,...]
       [--big-uniform] [--pdb-dir DIR] [--bin DIR] [--optimal] [--optimal-timeout SECS]

  --count N          positions per size (default 100)
  --time-limit SECS  the anytime search's limit per position (default 10)
  --sizes LIST       board sizes (default 6x6,7x7,8x8)
  --big-uniform      also uniformly random positions
  --pdb-dir DIR      databases to solve with
  --bin DIR          the folder of the `fifteen` binary (default: a release build)
  --optimal          also solve the positions optimally, for the gap to the optimal mean
  --optimal-timeout SECS  the same, each optimal solve limited to SECS";

/// Options of `bench --big`.
struct Options {
    count: u32,
    time_limit: String,
    sizes: Vec<String>,
    uniform: bool,
    pdb_dir: Option<String>,
    bin: Option<String>,
    optimal: bool,
    /// Seconds each optimal solve may take (a few 5x5 walks take hours).
    optimal_timeout: Option<String>,
}

pub(crate) fn run(root: &Path, args: &[String]) -> anyhow::Result<()> {
    let mut o = Options {
        count: 100,
        time_limit: "10".into(),
        sizes: vec!["6x6".into(), "7x7".into(), "8x8".into()],
        uniform: false,
        pdb_dir: None,
        bin: None,
        optimal: false,
        optimal_timeout: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--big" => {}
            "--count" => o.count = value()?.parse().context("--count: a number")?,
            "--time-limit" => o.time_limit = value()?.clone(),
            "--sizes" => o.sizes = value()?.split(',').map(str::to_string).collect(),
            "--big-uniform" => o.uniform = true,
            "--pdb-dir" => o.pdb_dir = Some(value()?.clone()),
            "--bin" => o.bin = Some(value()?.clone()),
            "--optimal" => o.optimal = true,
            "--optimal-timeout" => {
                o.optimal = true;
                o.optimal_timeout = Some(value()?.clone());
            }
            "--help" | "-h" => {
                eprintln!("{USAGE}");
                return Ok(());
            }
            other => bail!("bench --big: unknown argument {other:?}\n\n{USAGE}"),
        }
    }
    let fifteen = match &o.bin {
        Some(dir) => Path::new(dir).join("fifteen"),
        None => crate::release_build(root, &["fifteen-cli"])?.join("fifteen"),
    };
    println!(
        "{} positions per size and kind, --time-limit {} s, one thread (batch, --threads 1)",
        o.count, o.time_limit
    );
    println!(
        "| board | positions | mean length | worst | mean lower bound | mean time | worst time | mean Manhattan | length / Manhattan | DeepCubeA |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for size in &o.sizes {
        let Some(&(_, walk, dca)) = SIZES.iter().find(|(s, _, _)| s == size) else {
            bail!("bench --big: no walk length for {size}");
        };
        let mut kinds =
            vec![(format!("--moves {walk}"), vec!["--moves".to_string(), walk.to_string()])];
        if o.uniform {
            kinds.push(("uniform".into(), vec!["--uniform".into()]));
        }
        for (label, kind) in kinds {
            let mut random = Command::new(&fifteen);
            random.args(["random", "--size", size, "--count", &o.count.to_string(), "--seed", "1"]);
            random.args(&kind);
            let positions = output(&mut random)?;
            let file = root.join("target").join(format!("bench-big-{size}.txt"));
            std::fs::write(&file, &positions)?;
            let mut solve = Command::new(&fifteen);
            solve.args(["solve", "--json", "--threads", "1", "--time-limit", &o.time_limit]);
            solve.arg("--input").arg(&file);
            if let Some(d) = &o.pdb_dir {
                solve.args(["--pdb-dir", d]);
            }
            let text = output(&mut solve)?;
            let mut stats = Stats::default();
            let mut lengths = Vec::new();
            for line in text.lines() {
                let v: serde_json::Value = serde_json::from_str(line)?;
                let board = v["board"].as_str().context("board")?;
                stats.add(&v, manhattan(board, size)?);
                lengths.push(v["length"].as_u64());
            }
            stats.print(&format!("{size} ({label})"), dca);
            if o.optimal {
                optimal(&fifteen, &file, &o, &lengths)?;
            }
        }
    }
    Ok(())
}

/// Solves the positions of `file` optimally and prints how far `lengths` (the near-optimal
/// answers, in the same order) are from the optimal lengths.
fn optimal(
    fifteen: &Path,
    file: &Path,
    o: &Options,
    lengths: &[Option<u64>],
) -> anyhow::Result<()> {
    let mut solve = Command::new(fifteen);
    solve.args(["solve", "--json", "--threads", "2", "--algorithm", "ida"]);
    solve.arg("--input").arg(file);
    if let Some(d) = &o.pdb_dir {
        solve.args(["--pdb-dir", d]);
    }
    if let Some(t) = &o.optimal_timeout {
        solve.args(["--timeout", t]);
    }
    let text = output(&mut solve)?;
    let (mut n, mut opt_sum, mut near_sum, mut same, mut ms) = (0u64, 0u64, 0u64, 0u64, 0.0);
    let mut unsolved = 0;
    for (line, near) in text.lines().zip(lengths) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let (Some(opt), Some(near)) = (v["length"].as_u64(), near) else {
            unsolved += 1;
            continue;
        };
        if v["optimal"].as_bool() != Some(true) {
            bail!("bench --big --optimal: an answer not proven optimal: {line}");
        }
        if *near < opt {
            bail!(
                "bench --big --optimal: a near-optimal answer ({near}) below the optimum: {line}"
            );
        }
        n += 1;
        opt_sum += opt;
        near_sum += near;
        same += u64::from(*near == opt);
        ms += v["time_ms"].as_f64().unwrap_or(0.0);
    }
    let nf = n.max(1) as f64;
    println!(
        "|   optimal (IDA*, 2 threads) | {n} | {:.2} | near-optimal mean / optimal mean {:.4} | {same} of {n} optimal | {:.2} s mean | {unsolved} not solved within the timeout (left out) |",
        opt_sum as f64 / nf,
        near_sum as f64 / opt_sum.max(1) as f64,
        ms / nf / 1e3,
    );
    Ok(())
}

fn output(c: &mut Command) -> anyhow::Result<String> {
    let out = c.output().context("cannot run fifteen")?;
    // A batch exits with 1 when some positions failed: they are counted as unanswered.
    if !matches!(out.status.code(), Some(0 | 1)) {
        bail!("{c:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8(out.stdout)?)
}

/// The Manhattan distance of `board` (cells in row-major order) to the blank-last goal.
fn manhattan(board: &str, size: &str) -> anyhow::Result<u64> {
    let w: usize = size.split('x').next().context("size")?.parse()?;
    let mut sum = 0;
    for (cell, t) in board.split_whitespace().enumerate() {
        let t: usize = t.parse()?;
        if t != 0 {
            let goal = t - 1;
            sum += (cell / w).abs_diff(goal / w) + (cell % w).abs_diff(goal % w);
        }
    }
    Ok(sum as u64)
}

#[derive(Default)]
struct Stats {
    n: u64,
    failed: u64,
    len: u64,
    worst: u64,
    lower: u64,
    ms: f64,
    worst_ms: f64,
    manhattan: u64,
}

impl Stats {
    fn add(&mut self, v: &serde_json::Value, manhattan: u64) {
        self.n += 1;
        self.manhattan += manhattan;
        let ms = v["time_ms"].as_f64().unwrap_or(0.0);
        self.ms += ms;
        self.worst_ms = self.worst_ms.max(ms);
        match v["length"].as_u64() {
            Some(len) => {
                self.len += len;
                self.worst = self.worst.max(len);
                self.lower += v["lower_bound"].as_u64().unwrap_or(len);
            }
            None => self.failed += 1,
        }
    }

    fn print(&self, label: &str, dca: Option<f64>) {
        let solved = (self.n - self.failed).max(1) as f64;
        let n = self.n.max(1) as f64;
        let mean_len = self.len as f64 / solved;
        let mean_md = self.manhattan as f64 / n;
        let failed =
            if self.failed > 0 { format!(" ({} unanswered)", self.failed) } else { String::new() };
        println!(
            "| {label} | {}{failed} | {mean_len:.2} | {} | {:.2} | {:.2} s | {:.2} s | {mean_md:.1} | {:.3} | {} |",
            self.n,
            self.worst,
            self.lower as f64 / solved,
            self.ms / n / 1e3,
            self.worst_ms / 1e3,
            mean_len / mean_md,
            dca.map_or("-".to_string(), |r| format!("{r:.3}")),
        );
    }
}
