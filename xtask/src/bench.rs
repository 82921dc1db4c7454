//! `cargo xtask bench`: the figures the issues ask for, from release builds.
//!
//! - database builds: wall time and peak memory of `pdb-gen` for 6-6-3 and 7-8 (`--build`);
//! - Korf's 100 (and the hardest positions) with the strongest databases present: per-position
//!   length, nodes generated and time, and totals with 1 and 2 threads, each load mode, and
//!   positions interleaved (`--lanes 3`, the default) or one at a time per thread;
//! - the solver's lookups per second on one core against the machine's random-lookup limit (the
//!   median of `--rounds` runs of Korf's 100), and what a prefetched random lookup adds to a
//!   core busy with other work.
//!
//! It drives the real binaries (`fifteen solve --input ... --json`) so the figures are what a
//! user gets.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

const USAGE: &str =
    "usage: cargo xtask bench [--build] [--pdb-dir DIR] [--quick] [--hard] [--rounds N]

  --build       also time the 6-6-3 and 7-8 builds (into a temporary folder)
  --pdb-dir DIR databases to solve with (default: <root>/data)
  --quick       one configuration only (2 threads, mmap)
  --rounds N    runs of Korf's 100 per one-thread configuration, for the median lookup rate
                (default 5: one run takes about 0.15 s, and the machine's noise is about 10%)
  --hard        also solve each of ../shared/instances/hardest15.txt in its own process,
                its search split over 2 threads
  --mtm         only Korf's 100 in the multi-tile metric (the 4x4 MTM tables in --pdb-dir,
                built there first if missing), one thread, the tables warm; with --hard also
                the 80-move positions and the 16 that need 43 MTM moves (minutes)
  --split       with --mtm: build the finer set 4x4-mtm-split in --pdb-dir too (5 x 1.5 GB,
                about 20 minutes once), which the searches then use

The 24-puzzle and large-board benchmarks: `cargo xtask bench --24 --help` and
`cargo xtask bench --big --help`.";

struct Options {
    build: bool,
    pdb_dir: PathBuf,
    quick: bool,
    hard: bool,
    rounds: usize,
    mtm: bool,
    split: bool,
}

/// Runs the benchmarks.
pub(crate) fn run(root: &Path, args: &[String]) -> anyhow::Result<()> {
    let mut opts = Options {
        build: false,
        pdb_dir: root.join("data"),
        quick: false,
        hard: false,
        rounds: 5,
        mtm: false,
        split: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--build" => opts.build = true,
            "--quick" => opts.quick = true,
            "--hard" => opts.hard = true,
            "--mtm" => opts.mtm = true,
            "--split" => opts.split = true,
            "--rounds" => {
                let n = it.next().context("--rounds needs a count")?;
                opts.rounds =
                    n.parse().ok().filter(|&n| n > 0).context("--rounds: a count from 1")?;
            }
            "--pdb-dir" => {
                let dir = it.next().context("--pdb-dir needs a folder")?;
                opts.pdb_dir = std::env::current_dir()?.join(dir);
            }
            "--help" | "-h" => {
                eprintln!("{USAGE}");
                return Ok(());
            }
            other => bail!("bench: unknown argument {other:?}\n\n{USAGE}"),
        }
    }
    let bin = crate::release_build(root, &["fifteen-cli", "pdb-gen"])?;
    machine();
    if opts.mtm {
        return crate::bench_mtm::run(
            root,
            &bin.join("fifteen"),
            &opts.pdb_dir,
            opts.hard,
            opts.split,
        );
    }
    if opts.build {
        builds(&bin.join("pdb-gen"))?;
    }
    let fifteen = bin.join("fifteen");
    let korf = root.join("../shared/instances/korf100.txt");
    // (threads, load mode, lanes per thread): the default, 3 lanes, and one position at a time.
    let configs: &[(usize, &str, usize)] = if opts.quick {
        &[(2, "mmap", 3)]
    } else {
        &[
            (1, "mmap", 3),
            (1, "mmap", 1),
            (2, "mmap", 3),
            (2, "mmap", 1),
            (1, "resident", 3),
            (1, "resident", 1),
            (2, "resident", 3),
        ]
    };
    // Warm the page cache so that the first configuration is not charged for disk reads.
    solve_file(&fifteen, &korf, &opts.pdb_dir, (2, "mmap", 3))?;
    let limits = lookup_limits(root)?;
    let mut first = true;
    for &config in configs {
        let (threads, load, lanes) = config;
        // One-thread runs are repeated: their lookup rates are the ratio's figures, and one
        // run of Korf's 100 is short enough for the machine's noise to show.
        let rounds = if threads == 1 { opts.rounds } else { 1 };
        let runs = (0..rounds)
            .map(|_| solve_file(&fifteen, &korf, &opts.pdb_dir, config))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let (run, rates) = median_run(runs).context("no run")?;
        // Which limit applies depends on whether the kernel gave the tables 2 MiB pages, which
        // the load mode alone does not decide (transparent huge pages off, small page-cache
        // folios): the share comes from the solver's own note.
        let huge = match run.huge_percent {
            Some(p) => format!("tables in 2 MiB pages: {p}%"),
            None => "tables in 2 MiB pages: unknown".to_string(),
        };
        if threads == 1 {
            let label = format!("threads 1, lanes {lanes}, --pdb-load {load}, {huge}");
            rate(&run, &limits, &label, &rates);
        }
        if first {
            println!(
                "\nKorf's 100, {} (threads {threads}, lanes {lanes}, --pdb-load {load}):",
                run.heuristic
            );
            println!("{:>4} {:>4} {:>12} {:>10}", "id", "len", "generated", "ms");
            for r in &run.rows {
                println!("{:>4} {:>4} {:>12} {:>10.2}", r.id, r.length, r.nodes, r.ms);
            }
            first = false;
        }
        run.summary(&format!("korf100 threads={threads} lanes={lanes} load={load} ({huge})"), 1);
    }
    if opts.hard {
        // One process per position, its search split over both threads: what a user who
        // wants one hard position solved waits for (the process wall includes loading).
        let hard = root.join("../shared/instances/hardest15.txt");
        let run = solve_each(&fifteen, &hard, &opts.pdb_dir, 2, "mmap")?;
        println!("\nhardest positions, {} (one process each, threads 2):", run.run.heuristic);
        println!(
            "{:>4} {:>4} {:>12} {:>10} {:>10}",
            "id", "len", "generated", "search ms", "wall ms"
        );
        for (r, wall) in run.run.rows.iter().zip(&run.walls) {
            println!(
                "{:>4} {:>4} {:>12} {:>10.1} {:>10.1}",
                r.id,
                r.length,
                r.nodes,
                r.ms,
                wall * 1e3
            );
        }
        run.run.summary("hardest threads=2 (within each position) load=mmap", 2);
        let worst = run.walls.iter().copied().fold(0.0, f64::max);
        println!("hardest: slowest process wall {:.3} s", worst);
        // The same positions as one batch on one thread: the solver's rate on long searches.
        for lanes in [3, 1] {
            let run = solve_file(&fifteen, &hard, &opts.pdb_dir, (1, "mmap", lanes))?;
            run.summary(&format!("hardest batch threads=1 lanes={lanes} load=mmap"), 1);
            let rates = [run.lookup_rate()];
            let label = format!("hardest batch, threads 1, lanes {lanes}, --pdb-load mmap");
            rate(&run, &limits, &label, &rates);
        }
    }
    Ok(())
}

/// The run of median search time among `runs`, and the lookup rates (M/s) of all of them,
/// slowest first.
fn median_run(mut runs: Vec<SolveRun>) -> Option<(SolveRun, Vec<f64>)> {
    runs.sort_by(|a, b| b.search_secs().total_cmp(&a.search_secs()));
    let rates = runs.iter().map(SolveRun::lookup_rate).collect();
    let middle = runs.len().checked_sub(1)?.div_ceil(2);
    Some((runs.swap_remove(middle), rates))
}

/// Prints a one-thread run's lookup rate and its ratio to each measured limit; `rates` are
/// the lookup rates (M/s) of all the runs `run` is the median of, slowest first.
fn rate(run: &SolveRun, limits: &[(String, f64)], label: &str, rates: &[f64]) {
    if limits.is_empty() {
        return;
    }
    let nodes: u64 = run.rows.iter().map(|r| r.nodes).sum();
    let reads: u64 = run.rows.iter().map(|r| r.lookups).sum();
    let per_node = reads as f64 / nodes.max(1) as f64;
    let rate = run.lookup_rate();
    let ratios: Vec<String> = limits
        .iter()
        .map(|(pages, limit)| format!("{:.2} against the {pages} limit", rate / limit))
        .collect();
    let spread = match rates {
        [] | [_] => String::new(),
        [.., fastest] => format!(
            " (median of {} runs; slowest {:.1}, fastest {fastest:.1} M/s)",
            rates.len(),
            rates[0]
        ),
    };
    println!(
        "lookups, {label}: {rate:.1} M/s per core ({per_node:.2} per node, {:.1} M nodes/s), ratio {}{spread}",
        nodes as f64 / run.search_secs().max(1e-9) / 1e6,
        ratios.join(", ")
    );
}

/// The machine's random-lookup limit (M lookups/s, one core) per page size, from the
/// `lookups` benchmark of fifteen-core.
fn lookup_limits(root: &Path) -> anyhow::Result<Vec<(String, f64)>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["bench", "-q", "-p", "fifteen-core", "--bench", "lookups"])
        .output()
        .context("cannot run the lookups benchmark")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (limits, among) = parse_lookups(&text);
    for (pages, limit) in &limits {
        println!("random-lookup limit, one core, {pages} pages: {limit:.1} M lookups/s");
    }
    // What a prefetched lookup adds to a core busy with other work: the part of the limit's
    // time per lookup that a search cannot hide behind its own work.
    for a in &among {
        println!(
            "random lookups prefetched {} at a time among work, 2 MiB pages: the work {:.1} ns per \
             lookup, with the lookups {:.1} ns (each adds {:.1} ns)",
            a.burst,
            a.work_ns,
            a.with_ns,
            a.with_ns - a.work_ns
        );
    }
    Ok(limits)
}

/// One `lookup-among-work` line of the `lookups` benchmark: time per lookup of rounds of
/// `burst` prefetched lookups among work, and of the work alone.
#[derive(Debug, PartialEq)]
struct Among {
    burst: usize,
    work_ns: f64,
    with_ns: f64,
}

/// The limits (page size, M lookups/s) and the `lookup-among-work` lines in the output of the
/// `lookups` benchmark; other lines (cargo's, malformed ones) are skipped.
fn parse_lookups(text: &str) -> (Vec<(String, f64)>, Vec<Among>) {
    let limits = text
        .lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("lookup-limit ")?.split_whitespace();
            Some((w.next()?.to_string(), w.next()?.parse().ok()?))
        })
        .collect();
    let among = text
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.strip_prefix("lookup-among-work ")?.split_whitespace().collect();
            let [burst, work, with] = w[..] else { return None };
            Some(Among {
                burst: burst.parse().ok()?,
                work_ns: work.parse().ok()?,
                with_ns: with.parse().ok()?,
            })
        })
        .collect();
    (limits, among)
}

/// Names the machine the figures come from.
fn machine() {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split_once(':').map_or(l, |(_, v)| v).trim().to_string())
        })
        .unwrap_or_else(|| "unknown cpu".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("machine: {cpu}, {cores} cores");
}

/// Times the 6-6-3 and 7-8 builds into a temporary folder; pdb-gen prints its peak memory.
fn builds(pdb_gen: &Path) -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!("fifteen-bench-{}", std::process::id()));
    for preset in ["4x4-6-6-3", "4x4-7-8"] {
        let t = Instant::now();
        let out = Command::new(pdb_gen)
            .args(["--preset", preset, "--out"])
            .arg(&dir)
            .output()
            .context("cannot run pdb-gen")?;
        if !out.status.success() {
            bail!("pdb-gen {preset} failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        let peak = stdout
            .lines()
            .find_map(|l| l.strip_prefix("peak memory (VmHWM): "))
            .unwrap_or("unknown");
        println!("build {preset}: {:.1} s wall, peak memory {peak}", t.elapsed().as_secs_f64());
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

struct Row {
    id: String,
    length: u64,
    expected: Option<u64>,
    optimal: bool,
    nodes: u64,
    /// Database reads, as the solver counts them.
    lookups: u64,
    ms: f64,
}

struct SolveRun {
    rows: Vec<Row>,
    wall: f64,
    heuristic: String,
    /// The share of the tables in 2 MiB pages, from `fifteen`'s note, when it says.
    huge_percent: Option<u8>,
}

impl SolveRun {
    /// The search time summed over the positions, in seconds.
    fn search_secs(&self) -> f64 {
        self.rows.iter().map(|r| r.ms).sum::<f64>() / 1e3
    }

    /// Table lookups per second of search, in millions.
    fn lookup_rate(&self) -> f64 {
        let reads: u64 = self.rows.iter().map(|r| r.lookups).sum();
        reads as f64 / self.search_secs().max(1e-9) / 1e6
    }

    /// Prints the totals; `split` is the number of threads each position's search ran on.
    fn summary(&self, label: &str, split: usize) {
        let n = self.rows.len().max(1) as f64;
        let nodes: u64 = self.rows.iter().map(|r| r.nodes).sum();
        let max = self.rows.iter().map(|r| r.nodes).max().unwrap_or(0);
        let ms: f64 = self.rows.iter().map(|r| r.ms).sum();
        let slowest = self.rows.iter().map(|r| r.ms).fold(0.0, f64::max);
        let wrong = self
            .rows
            .iter()
            .filter(|r| !r.optimal || r.expected.is_some_and(|e| e != r.length))
            .count();
        println!(
            "{label}: {} positions, wall {:.3} s, search {:.3} s, slowest {:.1} ms, nodes mean {:.0} max {max}, {:.1} M nodes/s per search thread, {wrong} not matching the published optimum",
            self.rows.len(),
            self.wall,
            ms / 1e3,
            slowest,
            nodes as f64 / n,
            nodes as f64 / (ms / 1e3).max(1e-9) / 1e6 / split as f64,
        );
    }
}

/// One process per position: the rows, and each process's wall time in seconds.
struct EachRun {
    run: SolveRun,
    walls: Vec<f64>,
}

/// Solves each position of `file` (lines `ID OPTLEN cells...`) in its own `fifteen solve`
/// process with `threads` search threads.
fn solve_each(
    fifteen: &Path,
    file: &Path,
    pdb_dir: &Path,
    threads: usize,
    load: &str,
) -> anyhow::Result<EachRun> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {file:?}"))?;
    let t = Instant::now();
    let mut rows = Vec::new();
    let mut walls = Vec::new();
    let mut heuristic = String::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (id, expected, cells) = match words.as_slice() {
            [id, len, cells @ ..] if cells.len() > 2 => {
                (*id, len.parse::<u64>().ok(), cells.join(" "))
            }
            _ => bail!("not an `ID OPTLEN cells...` line: {line}"),
        };
        let started = Instant::now();
        let out = Command::new(fifteen)
            .args(["solve", "--goal", "blank-first", "--heuristic", "pdb", "--no-pdb-build"])
            .args(["--json", "--threads", &threads.to_string(), "--pdb-load", load, "--pdb-dir"])
            .arg(pdb_dir)
            .arg(&cells)
            .output()
            .context("cannot run fifteen")?;
        walls.push(started.elapsed().as_secs_f64());
        let stdout = String::from_utf8_lossy(&out.stdout);
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).with_context(|| {
            format!("fifteen answered {id} with: {stdout}{}", String::from_utf8_lossy(&out.stderr))
        })?;
        heuristic = v["heuristic"].as_str().unwrap_or_default().to_string();
        let mut row = row(&v);
        row.id = id.to_string();
        row.expected = expected;
        rows.push(row);
    }
    let run = SolveRun { rows, wall: t.elapsed().as_secs_f64(), heuristic, huge_percent: None };
    Ok(EachRun { run, walls })
}

/// A result row from one JSON line of `fifteen solve --json`.
fn row(v: &serde_json::Value) -> Row {
    Row {
        id: v["id"].as_str().unwrap_or("?").to_string(),
        length: v["length"].as_u64().unwrap_or(0),
        expected: v["expected"].as_u64(),
        optimal: v["optimal"].as_bool().unwrap_or(false),
        nodes: v["nodes"].as_u64().unwrap_or(0),
        lookups: v["lookups"].as_u64().unwrap_or(0),
        ms: v["time_ms"].as_f64().unwrap_or(0.0),
    }
}

/// Solves every position of `file` in one batch run and reads the JSON lines back.
fn solve_file(
    fifteen: &Path,
    file: &Path,
    pdb_dir: &Path,
    (threads, load, lanes): (usize, &str, usize),
) -> anyhow::Result<SolveRun> {
    let t = Instant::now();
    let out = Command::new(fifteen)
        .args(["solve", "--goal", "blank-first", "--heuristic", "pdb", "--no-pdb-build", "--json"])
        .args(["--threads", &threads.to_string(), "--lanes", &lanes.to_string()])
        .args(["--pdb-load", load, "--input"])
        .arg(file)
        .arg("--pdb-dir")
        .arg(pdb_dir)
        .output()
        .context("cannot run fifteen")?;
    let wall = t.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        eprintln!(
            "fifteen solve ({threads} threads, {load}) exited with {}:\n{stderr}",
            out.status
        );
    } else {
        // The stderr is read for the note; warnings still reach the reader.
        for line in stderr.lines().filter(|l| l.starts_with("warning:") || l.starts_with("error")) {
            eprintln!("{line}");
        }
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut rows = Vec::new();
    let mut heuristic = String::new();
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).context("a JSON line")?;
        heuristic = v["heuristic"].as_str().unwrap_or_default().to_string();
        rows.push(row(&v));
    }
    if rows.is_empty() {
        bail!("fifteen solved nothing: {stderr}");
    }
    Ok(SolveRun { rows, wall, heuristic, huge_percent: huge_percent(&stderr) })
}

/// The share of the tables in 2 MiB pages from `fifteen`'s note on stderr (`using pattern
/// databases 4x4-7-8 from data (mmap, 97% in 2 MiB pages)`), if it gives one.
pub(crate) fn huge_percent(stderr: &str) -> Option<u8> {
    let note = stderr.lines().find(|l| l.starts_with("using pattern databases "))?;
    let before = note.split_once("% in 2 MiB pages")?.0;
    let digits = before.rsplit(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

#[cfg(test)]
mod tests;
