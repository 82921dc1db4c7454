//! `cargo xtask`: project chores. `gen-pdb` builds the pattern databases into `data/`; `bench`
//! prints the benchmark figures; `load` load-tests `fifteen serve`.
//!
//! The project root is the parent of this crate's folder, and cargo is launched via `$CARGO`, so
//! the chores run with the toolchain that runs `cargo xtask`.
#![forbid(unsafe_code)]

mod bench;
mod bench24;
mod bench_mtm;
mod big;
mod dist;
mod load;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, bail};

/// The presets `gen-pdb` builds when none is named.
const DEFAULT_PRESETS: &[&str] = &["4x4-7-8", "4x4-6-6-3"];

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  gen-pdb [--preset NAME ... | --size WxH ...] [--out DIR]
      build pattern databases with `cargo run --release -p pdb-gen` (a preset, the default
      set of a board size, or by default 4x4-7-8 and 4x4-6-6-3; default folder: <root>/data)
  bench [--build] [--pdb-dir DIR] [--quick] [--hard] [--mtm]
      build times and memory (--build), Korf's 100 with 1 and 2 threads and each
      load mode, the hardest positions (--hard); --mtm: Korf's 100 in the multi-tile metric
  bench --24 [--instances ID,...] [--pdb-dir DIR] [--threads N] [--speedup ID]
      Korf's 24-puzzle instances (default: the ten shortest), one process each, against
      the published expansions (SZ, RA); see `cargo xtask bench --24 --help`
  bench --big [--count N] [--time-limit SECS] [--sizes 6x6,7x7,8x8] [--big-uniform]
        [--optimal | --optimal-timeout SECS] [--optima FILE]
        [--pdb-dir DIR] [--bin DIR]
      near-optimal answers on large boards (random walks like DeepCubeA's test sets, and
      uniformly random ones): lengths, lower bounds, times, ratio to Manhattan; --optimal
      also solves them optimally (the 5x5) and prints the gap to the optimal mean; the
      optima already known (data/reference/, or --optima FILE) are compared on every run
  load [--requests N] [--clients N] [--rounds N] [-- SERVE-ARGS...]
      load test of `fifteen serve` on loopback (default 2 rounds of 3000 requests from
      16 clients): latency percentiles, statuses and unexpected answers per kind, server
      memory after each round";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("gen-pdb") => gen_pdb(&args[1..]),
        Some("bench") if args.get(1).is_some_and(|a| a == "--24") => {
            bench24::run(&project_root(), &args[2..])
        }
        Some("bench") if args.iter().any(|a| a == "--big") => big::run(&project_root(), &args[1..]),
        Some("bench") => bench::run(&project_root(), &args[1..]),
        Some("dist") => dist::run(&project_root(), &args[1..]),
        Some("load") => load::run(&project_root(), &args[1..]),
        Some("help" | "--help" | "-h") | None => {
            eprintln!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown task {other:?}\n\n{USAGE}"),
    }
}

/// Builds `packages` in release and returns the folder of their binaries: `CARGO_TARGET_DIR`
/// (relative to the root) if set, else `target/`, then `release/`.
pub(crate) fn release_build(root: &Path, packages: &[&str]) -> anyhow::Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(&cargo);
    command.current_dir(root).args(["build", "--release"]);
    for p in packages {
        command.args(["-p", p]);
    }
    if !command.status().context("cannot run cargo")?.success() {
        bail!("the release build failed");
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |d| root.join(d));
    Ok(target.join("release"))
}

/// The workspace root: the parent of `xtask/`.
fn project_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

fn gen_pdb(args: &[String]) -> anyhow::Result<()> {
    let root = project_root();
    // Each job is the arguments of one pdb-gen run: a preset, or a size's default set.
    let mut jobs: Vec<[String; 2]> = Vec::new();
    let mut out = root.join("data");
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--preset" | "--size" => {
                let value = it.next().with_context(|| format!("{arg} needs a value"))?;
                jobs.push([arg.clone(), value.clone()]);
            }
            "--out" => {
                // pdb-gen runs in the project root, so pass it an absolute folder.
                let dir = it.next().context("--out needs a folder")?;
                out = std::env::current_dir().context("cannot read the current folder")?.join(dir);
            }
            other => bail!("gen-pdb: unknown argument {other:?}\n\n{USAGE}"),
        }
    }
    if jobs.is_empty() {
        jobs = DEFAULT_PRESETS.iter().map(|p| ["--preset".to_string(), p.to_string()]).collect();
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    for job in &jobs {
        let status = Command::new(&cargo)
            .current_dir(&root)
            .args(["run", "--release", "--package", "pdb-gen", "--"])
            .args(job)
            .arg("--out")
            .arg(&out)
            .status()
            .context("cannot run cargo")?;
        if !status.success() {
            bail!("pdb-gen failed for {} {} ({status})", job[0], job[1]);
        }
    }
    println!("pattern databases in {}:", out.display());
    let mut files: Vec<(String, u64)> = std::fs::read_dir(&out)
        .with_context(|| format!("cannot list {}", out.display()))?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let keep = name.ends_with(".pdb");
            keep.then(|| (name, e.metadata().map(|m| m.len()).unwrap_or(0)))
        })
        .collect();
    files.sort();
    for (name, bytes) in files {
        println!("  {name:<28} {:>12} bytes", bytes);
    }
    Ok(())
}
