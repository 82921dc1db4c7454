//! The `pdb-gen` command: builds pattern-database files, one per pattern, for a preset or for
//! patterns given on the command line. The search itself lives in the library.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use fifteen_core::pdb::{EntryEncoding, MAX_ZERO_CELLS, MAX_ZERO_TILES};
use fifteen_core::{Board, Size};
use pdb_gen::{PRESETS, Progress, SetSpec, Written, build_set, default_for, default_sizes, preset};

/// Build additive pattern databases for sliding-tile puzzles.
///
/// Each pattern is written to `{name}.p{i}.pdb` in `--out`, for example `4x4-6-6-3.p1.pdb`.
#[derive(Debug, Parser)]
#[command(name = "pdb-gen", version, after_help = presets_help())]
struct Args {
    /// Build a preset (repeatable); see the list below.
    #[arg(long, value_name = "NAME")]
    preset: Vec<String>,
    /// Board size of custom patterns, WxH; alone, the default set of that size.
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
    /// Build the custom patterns zero-aware: an entry per placement and region of the blank
    /// (larger, and stronger where pattern tiles wall the blank off).
    #[arg(long)]
    zero_aware: bool,
    /// With --zero-aware: store one bit per entry (an eighth of the size; the solver steps
    /// each entry from its parent's).
    #[arg(long, requires = "zero_aware")]
    bits: bool,
}

fn presets_help() -> String {
    let mut s = String::from("Presets (goal blank-first):\n");
    for p in PRESETS {
        s.push_str(&format!("  {:<14} {}\n", p.name, p.description));
    }
    s
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
    let start = Instant::now();
    let mut written = Vec::new();
    for job in &jobs {
        // One line when a set starts and one when it ends: a bar shows the rest on a terminal.
        eprintln!(
            "building the {} set into {} ({} tables, {} entries)",
            job.name,
            args.out.display(),
            job.patterns.len(),
            job.entries()
        );
        let took = Instant::now();
        let files = build_set(job, &args.out, args.threads, Progress::Auto)
            .with_context(|| format!("cannot build {}", job.name))?;
        let bytes = files.iter().map(|w| w.bytes).sum();
        eprintln!(
            "built the {} set: {} files, {}, read back and checked, in {:.1?}",
            job.name,
            files.len(),
            human(bytes),
            took.elapsed()
        );
        written.extend(files);
    }
    summary(&written, start.elapsed());
    if let Some(peak) = peak_rss() {
        println!("peak memory (VmHWM): {}", human(peak));
    }
    Ok(ExitCode::SUCCESS)
}

/// Peak resident set size of this process, from `/proc/self/status` (Linux only).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The jobs the arguments ask for: presets first, then the custom patterns.
fn jobs(args: &Args) -> anyhow::Result<Vec<SetSpec>> {
    let mut jobs = Vec::new();
    for name in &args.preset {
        let Some(p) = preset(name) else {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
            bail!("unknown preset {name:?}; presets are {}", names.join(", "));
        };
        jobs.push(SetSpec::from(p));
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
        let encoding = match (args.zero_aware, args.bits) {
            (false, _) => EntryEncoding::U8,
            (true, false) => EntryEncoding::ZeroAware,
            (true, true) => EntryEncoding::ZeroAwareBits,
        };
        // Refused before building: the solver could not read such tables.
        if args.zero_aware {
            if size.cells() > MAX_ZERO_CELLS {
                bail!(
                    "zero-aware tables serve boards of at most {MAX_ZERO_CELLS} cells, and {size} has {}; build the patterns without --zero-aware",
                    size.cells()
                );
            }
            if let Some(p) = patterns.iter().find(|p| p.len() > MAX_ZERO_TILES) {
                bail!(
                    "a zero-aware pattern has at most {MAX_ZERO_TILES} tiles, and {p:?} has {}",
                    p.len()
                );
            }
        }
        jobs.push(SetSpec { name, preset: None, size, goal, patterns, encoding });
    } else if args.name.is_some() || args.zero_aware {
        bail!("--name and --zero-aware go with --pattern");
    } else if let Some(size) = args.size {
        // A size alone: its default set.
        let p = default_for(size).with_context(|| {
            format!("no default set for {size} boards (sizes with one: {})", default_sizes())
        })?;
        jobs.push(SetSpec::from(p));
    }
    if jobs.is_empty() {
        bail!(
            "nothing to build: give --preset NAME, --size WxH (its default set), or --size WxH --pattern TILES (see --help)"
        );
    }
    Ok(jobs)
}

fn parse_tiles(text: &str) -> anyhow::Result<Vec<u8>> {
    text.split([',', ' '])
        .filter(|t| !t.is_empty())
        .map(|t| t.trim().parse::<u8>().with_context(|| format!("{t:?} is not a tile number")))
        .collect()
}

fn summary(written: &[Written], total: Duration) {
    let total_bytes: u64 = written.iter().map(|w| w.bytes).sum();
    println!("wrote {} file(s), {} in {:.1?}:", written.len(), human(total_bytes), total);
    for w in written {
        println!(
            "  {:<40} {:>10} {:>8.1?}  max entry {}",
            w.path.display().to_string(),
            human(w.bytes),
            w.elapsed,
            w.max
        );
    }
}

fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs_of(args: &[&str]) -> anyhow::Result<Vec<SetSpec>> {
        jobs(&Args::parse_from(std::iter::once("pdb-gen").chain(args.iter().copied())))
    }

    #[test]
    fn zero_aware_patterns_the_solver_cannot_read_are_refused_before_building() {
        let ok = jobs_of(&["--size", "3x3", "--pattern", "1,2,3,4", "--zero-aware"]).unwrap();
        assert_eq!(ok[0].encoding, EntryEncoding::ZeroAware);
        let big = jobs_of(&["--size", "6x6", "--pattern", "1,2,3,7,8", "--zero-aware"]);
        let err = big.unwrap_err().to_string();
        assert!(err.contains("at most 32 cells") && err.contains("36"), "{err}");
        // The same pattern, plain, is fine.
        assert!(jobs_of(&["--size", "6x6", "--pattern", "1,2,3,7,8"]).is_ok());
        let nine = "1,2,3,4,5,6,7,8,9";
        let err = jobs_of(&["--size", "5x5", "--pattern", nine, "--zero-aware", "--bits"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("at most 8 tiles"), "{err}");
    }
}
