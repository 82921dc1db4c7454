//! The `pdb-gen` command: builds pattern-database files, one per pattern, for a preset or for
//! patterns given on the command line. The search itself lives in the library.
#![forbid(unsafe_code)]

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use fifteen_core::pdb::{Pdb, PdbMeta, write_pdb_file};
use fifteen_core::{Board, Size};
use indicatif::{ProgressBar, ProgressStyle};
use pdb_gen::{BuildOptions, GENERATOR, LevelReport, PRESETS, build_pattern, file_name, preset};

/// Build additive pattern databases for sliding-tile puzzles.
///
/// Each pattern is written to `{name}.p{i}.pdb` in `--out`, for example `4x4-6-6-3.p1.pdb`.
#[derive(Debug, Parser)]
#[command(name = "pdb-gen", version, after_help = presets_help())]
struct Args {
    /// Build a preset (repeatable); see the list below.
    #[arg(long, value_name = "NAME")]
    preset: Vec<String>,
    /// Board size of custom patterns, WxH.
    #[arg(long, value_name = "WxH")]
    size: Option<Size>,
    /// A custom pattern: tiles in pattern order, comma-separated (repeatable).
    #[arg(long, value_name = "TILES")]
    pattern: Vec<String>,
    /// Goal of custom patterns: `blank-first`, `blank-last` or the tiles row by row.
    #[arg(long, default_value = "blank-first")]
    goal: String,
    /// Name (file prefix) of the custom patterns; default `{W}x{H}-custom-{k1}-{k2}...`.
    #[arg(long)]
    name: Option<String>,
    /// Folder to write the files to (created if missing).
    #[arg(long, default_value = "data")]
    out: PathBuf,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
}

fn presets_help() -> String {
    let mut s = String::from("Presets (goal blank-first):\n");
    for p in PRESETS {
        s.push_str(&format!("  {:<14} {}\n", p.name, p.description));
    }
    s
}

/// One set of patterns to build and write.
struct Job {
    name: String,
    preset: Option<String>,
    size: Size,
    goal: Board,
    patterns: Vec<Vec<u8>>,
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("pdb-gen: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run() -> anyhow::Result<ExitCode> {
    let args = Args::parse();
    let jobs = jobs(&args)?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create output folder {}", args.out.display()))?;
    let start = Instant::now();
    let mut written = Vec::new();
    for job in &jobs {
        for (i, tiles) in job.patterns.iter().enumerate() {
            let path = args.out.join(file_name(&job.name, i));
            let took = Instant::now();
            eprintln!(
                "building {} (pattern {tiles:?} on {}, {} entries)",
                path.display(),
                job.size,
                fifteen_core::pdb::placements(job.size.cells(), tiles.len())
            );
            let entries = build_with_progress(job, tiles, args.threads)?;
            let meta = PdbMeta { generator: GENERATOR.to_string(), preset: job.preset.clone() };
            write_pdb_file(&path, &job.goal, tiles, &meta, &entries)
                .with_context(|| format!("cannot write {}", path.display()))?;
            drop(entries);
            let (bytes, max) = check_file(&path)?;
            eprintln!(
                "wrote {} ({bytes} bytes, max entry {max}, checked) in {:.1?}",
                path.display(),
                took.elapsed()
            );
            written.push((path, bytes, took.elapsed()));
        }
    }
    summary(&written, start.elapsed());
    Ok(ExitCode::SUCCESS)
}

/// Reads a written file back through the solver's parser and runs the full check, so a file that
/// is reported written also loads. Returns its size and largest entry.
fn check_file(path: &Path) -> anyhow::Result<(u64, u8)> {
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read back {}", path.display()))?;
    let pdb = Pdb::from_bytes(&bytes)
        .and_then(|pdb| pdb.verify().map(|()| pdb))
        .with_context(|| format!("{} does not read back", path.display()))?;
    Ok((bytes.len() as u64, pdb.max_value()))
}

/// The jobs the arguments ask for: presets first, then the custom patterns.
fn jobs(args: &Args) -> anyhow::Result<Vec<Job>> {
    let mut jobs = Vec::new();
    for name in &args.preset {
        let Some(p) = preset(name) else {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
            bail!("unknown preset {name:?}; presets are {}", names.join(", "));
        };
        jobs.push(Job {
            name: p.name.to_string(),
            preset: Some(p.name.to_string()),
            size: p.size(),
            goal: p.goal(),
            patterns: p.patterns.iter().map(|t| t.to_vec()).collect(),
        });
    }
    if !args.pattern.is_empty() {
        let size = args.size.context("--pattern needs --size WxH")?;
        let goal = Board::parse_goal(&args.goal, size)
            .with_context(|| format!("bad --goal {:?}", args.goal))?;
        let patterns = args
            .pattern
            .iter()
            .map(|text| parse_tiles(text).with_context(|| format!("bad --pattern {text:?}")))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let name = args.name.clone().unwrap_or_else(|| {
            let sizes: Vec<String> = patterns.iter().map(|p| p.len().to_string()).collect();
            format!("{size}-custom-{}", sizes.join("-"))
        });
        jobs.push(Job { name, preset: None, size, goal, patterns });
    } else if args.size.is_some() || args.name.is_some() {
        bail!("--size and --name go with --pattern");
    }
    if jobs.is_empty() {
        bail!("nothing to build: give --preset NAME or --size WxH --pattern TILES (see --help)");
    }
    Ok(jobs)
}

fn parse_tiles(text: &str) -> anyhow::Result<Vec<u8>> {
    text.split([',', ' '])
        .filter(|t| !t.is_empty())
        .map(|t| t.trim().parse::<u8>().with_context(|| format!("{t:?} is not a tile number")))
        .collect()
}

/// Builds one pattern, showing progress on a terminal and logging lines otherwise.
fn build_with_progress(job: &Job, tiles: &[u8], threads: Option<usize>) -> anyhow::Result<Vec<u8>> {
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(1);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {percent:>3}% {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    let report = |r: &LevelReport| {
        let secs = r.elapsed.as_secs_f64().max(1e-9);
        let rate = r.reached as f64 / secs;
        let left = r.space.saturating_sub(r.reached) as f64 / rate.max(1.0);
        let line = format!(
            "{:7.1}s depth {:>3}: {:>13} states, {:>13} reached ({:5.1}% of {}), {:.1} M states/s, ETA {:.0}s{}",
            secs,
            r.depth,
            r.frontier,
            r.reached,
            100.0 * r.reached as f64 / r.space.max(1) as f64,
            r.space,
            rate / 1e6,
            left,
            if r.pull { " (pull)" } else { "" }
        );
        match &bar {
            Some(bar) => {
                bar.set_length(r.space);
                bar.set_position(r.reached);
                bar.set_message(line);
            }
            None => eprintln!("  {line}"),
        }
    };
    let options = BuildOptions { threads, progress: Some(&report) };
    let entries = build_pattern(job.size, &job.goal, tiles, &options)
        .with_context(|| format!("cannot build pattern {tiles:?} of {}", job.name));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    entries
}

fn summary(written: &[(PathBuf, u64, Duration)], total: Duration) {
    let total_bytes: u64 = written.iter().map(|(_, b, _)| b).sum();
    println!("wrote {} file(s), {} in {:.1?}:", written.len(), human(total_bytes), total);
    for (path, bytes, took) in written {
        println!("  {:<40} {:>10} {:>8.1?}", display(path), human(*bytes), took);
    }
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}
