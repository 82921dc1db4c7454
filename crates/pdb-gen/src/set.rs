//! Building a whole set (one file per pattern) into a folder, with progress on stderr. Both the
//! `pdb-gen` binary and `fifteen`'s first-use build go through [`build_set`].

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fifteen_core::pdb::{LoadMode, PdbError, PdbMeta, PdbTable, placements, write_pdb_file};
use fifteen_core::{Board, Size};
use indicatif::{ProgressBar, ProgressStyle};

use crate::{BuildOptions, GENERATOR, GenError, LevelReport, Preset, build_pattern, file_name};

/// What to build: a name (the file prefix), the board, the goal and the patterns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetSpec {
    /// File prefix, for example `4x4-6-6-3`.
    pub name: String,
    /// The preset recorded in each header, if the set is one.
    pub preset: Option<String>,
    /// Board size.
    pub size: Size,
    /// The goal the tables lead to.
    pub goal: Board,
    /// The patterns, each in rank order.
    pub patterns: Vec<Vec<u8>>,
}

impl From<&Preset> for SetSpec {
    fn from(p: &Preset) -> SetSpec {
        SetSpec {
            name: p.name.to_string(),
            preset: Some(p.name.to_string()),
            size: p.size(),
            goal: p.goal(),
            patterns: p.patterns.iter().map(|t| t.to_vec()).collect(),
        }
    }
}

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Progress {
    /// A bar on stderr if it is a terminal, else one log line per BFS level.
    #[default]
    Auto,
    /// Nothing.
    Quiet,
}

/// One file written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Where.
    pub path: PathBuf,
    /// File size in bytes.
    pub bytes: u64,
    /// Build and write time.
    pub elapsed: Duration,
    /// The largest entry.
    pub max: u8,
}

/// Builds every pattern of `spec` and writes each to `out/{name}.p{i}.pdb` (temp file, fsync,
/// rename: an interrupted build leaves nothing that loads), then reads each file back and
/// verifies it. Creates `out` if needed.
pub fn build_set(
    spec: &SetSpec,
    out: &Path,
    threads: Option<usize>,
    progress: Progress,
) -> Result<Vec<Written>, GenError> {
    std::fs::create_dir_all(out)
        .map_err(|source| fifteen_core::pdb::PdbError::Io { path: out.to_path_buf(), source })?;
    let mut written = Vec::new();
    for (i, tiles) in spec.patterns.iter().enumerate() {
        let path = out.join(file_name(&spec.name, i));
        let took = Instant::now();
        if progress == Progress::Auto {
            eprintln!(
                "building {} (pattern {tiles:?} on {}, {} entries)",
                path.display(),
                spec.size,
                placements(spec.size.cells(), tiles.len())
            );
        }
        let entries = build_one(spec, tiles, threads, progress)?;
        let meta = PdbMeta { generator: GENERATOR.to_string(), preset: spec.preset.clone() };
        write_pdb_file(&path, &spec.goal, tiles, &meta, &entries)?;
        drop(entries);
        // Open the file as the solver does (which also maps it into 2 MiB pages, since the
        // writer dropped it from the page cache) and run the full check, so a file reported
        // written also loads.
        let table = PdbTable::open(&path, LoadMode::Mmap)?;
        table.verify()?;
        let max = table.header().max_value();
        let bytes = std::fs::metadata(&path)
            .map_err(|source| PdbError::Io { path: path.clone(), source })?
            .len();
        written.push(Written { path, bytes, elapsed: took.elapsed(), max });
    }
    Ok(written)
}

/// Builds one pattern, with a bar on a terminal and log lines otherwise.
fn build_one(
    spec: &SetSpec,
    tiles: &[u8],
    threads: Option<usize>,
    progress: Progress,
) -> Result<Vec<u8>, GenError> {
    let show = progress == Progress::Auto;
    let bar = (show && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new(1);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {percent:>3}% {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    let report = |r: &LevelReport| {
        if !show {
            return;
        }
        match &bar {
            Some(bar) => {
                // The bar shows the share of the space; the message the rest, kept short so
                // the line fits an 80-column terminal.
                let secs = r.elapsed.as_secs_f64().max(1e-9);
                let rate = r.reached as f64 / secs;
                let left = r.space.saturating_sub(r.reached) as f64 / rate.max(1.0);
                bar.set_length(r.space);
                bar.set_position(r.reached);
                bar.set_message(format!(
                    "depth {}, {:.1} M states/s, ETA {left:.0}s",
                    r.depth,
                    rate / 1e6
                ));
            }
            None => eprintln!("  {}", level_line(r)),
        }
    };
    let options = BuildOptions { threads, progress: Some(&report) };
    let entries = build_pattern(spec.size, &spec.goal, tiles, &options);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    entries
}

/// One progress line: depth, states, share of the space, rate and ETA.
pub fn level_line(r: &LevelReport) -> String {
    let secs = r.elapsed.as_secs_f64().max(1e-9);
    let rate = r.reached as f64 / secs;
    let left = r.space.saturating_sub(r.reached) as f64 / rate.max(1.0);
    format!(
        "{secs:6.1}s depth {:>3}: {:>12} states, {:>12} reached ({:5.1}% of {}), {:.1} M states/s, ETA {left:.0}s{}",
        r.depth,
        r.frontier,
        r.reached,
        100.0 * r.reached as f64 / r.space.max(1) as f64,
        r.space,
        rate / 1e6,
        if r.pull { " (pull)" } else { "" }
    )
}
