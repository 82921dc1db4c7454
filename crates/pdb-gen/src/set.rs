//! Building a whole set (one file per pattern) into a folder, with a progress bar on stderr when
//! it is a terminal. Both the `pdb-gen` binary and `fifteen`'s builds go through [`build_set`].
//!
//! When stderr is not a terminal (a log, a CI run, a test), nobody watches a bar: [`build_set`]
//! then prints nothing, and its callers say in one line when a build starts and in one when it
//! ends.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fifteen_core::pdb::{
    EntryEncoding, LoadMode, PdbError, PdbMeta, PdbTable, UNREACHABLE, ZeroIndex, pack_bit1,
    placements, write_pdb_file_as,
};
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
    /// How the tables store entries (see [`Preset::encoding`]).
    pub encoding: EntryEncoding,
}

impl From<&Preset> for SetSpec {
    fn from(p: &Preset) -> SetSpec {
        SetSpec {
            name: p.name.to_string(),
            preset: Some(p.name.to_string()),
            size: p.size(),
            goal: p.goal(),
            patterns: p.patterns.iter().map(|t| t.to_vec()).collect(),
            encoding: p.encoding,
        }
    }
}

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Progress {
    /// A bar on stderr while each table is built, if stderr is a terminal; else nothing.
    #[default]
    Auto,
    /// Nothing.
    Quiet,
}

impl SetSpec {
    /// The entries of all its tables.
    pub fn entries(&self) -> u64 {
        self.patterns
            .iter()
            .map(|p| match self.encoding {
                EntryEncoding::U8 => placements(self.size.cells(), p.len()),
                _ => ZeroIndex::shared(self.size, p.len()).map_or(0, |z| z.entries()),
            })
            .sum()
    }
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
    let bar = progress == Progress::Auto && std::io::stderr().is_terminal();
    for (i, tiles) in spec.patterns.iter().enumerate() {
        let path = out.join(file_name(&spec.name, i));
        let took = Instant::now();
        let label = format!("{}/{}", i + 1, spec.patterns.len());
        let entries = build_one(spec, tiles, threads, bar.then_some(label.as_str()))?;
        let meta = PdbMeta { generator: GENERATOR.to_string(), preset: spec.preset.clone() };
        // The largest entry, from the entries themselves: a table of bits keeps a histogram of
        // its bytes.
        let max = entries.iter().copied().filter(|&e| e != UNREACHABLE).max().unwrap_or(0);
        // A table of bits is the zero-aware table, bit 1 of each entry kept.
        let entries = match spec.encoding {
            EntryEncoding::ZeroAwareBits => pack_bit1(&entries),
            _ => entries,
        };
        write_pdb_file_as(&path, &spec.goal, tiles, spec.encoding, &meta, &entries)?;
        drop(entries);
        // Open the file as the solver does (which also maps it into 2 MiB pages, since the
        // writer dropped it from the page cache) and run the full check, so a file reported
        // written also loads.
        let table = PdbTable::open(&path, LoadMode::Mmap)?;
        table.verify()?;
        let bytes = std::fs::metadata(&path)
            .map_err(|source| PdbError::Io { path: path.clone(), source })?
            .len();
        written.push(Written { path, bytes, elapsed: took.elapsed(), max });
    }
    Ok(written)
}

/// Builds one pattern, with a bar labelled `bar` if given.
fn build_one(
    spec: &SetSpec,
    tiles: &[u8],
    threads: Option<usize>,
    bar: Option<&str>,
) -> Result<Vec<u8>, GenError> {
    let bar = bar.map(|label| {
        let bar = ProgressBar::new(1).with_prefix(label.to_string());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {prefix} [{elapsed_precise}] {bar:25} {percent:>3}% {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let report = |r: &LevelReport| {
        let Some(bar) = &bar else { return };
        // The bar shows the share of the space; the message the rest, kept short so the line
        // fits an 80-column terminal.
        let rate = r.reached as f64 / r.elapsed.as_secs_f64().max(1e-9);
        let eta = eta(r).map(|left| format!(", ETA {}s", left.as_secs())).unwrap_or_default();
        bar.set_length(r.space);
        bar.set_position(r.reached);
        bar.set_message(format!("depth {}, {:.1} M states/s{eta}", r.depth, rate / 1e6));
    };
    let zero_aware = spec.encoding != EntryEncoding::U8;
    let options = BuildOptions { threads, progress: Some(&report), zero_aware };
    // The spinner turns between levels on a thread of our own: indicatif's steady tick panics
    // when the system refuses it a thread, and without one the bar is only still.
    let done = std::sync::atomic::AtomicBool::new(false);
    let entries = std::thread::scope(|scope| {
        let ticker = bar.as_ref().and_then(|bar| {
            let done = &done;
            std::thread::Builder::new()
                .spawn_scoped(scope, move || {
                    while !done.load(std::sync::atomic::Ordering::Relaxed) {
                        bar.tick();
                        std::thread::park_timeout(Duration::from_millis(200));
                    }
                })
                .ok()
        });
        let entries = build_pattern(spec.size, &spec.goal, tiles, &options);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(ticker) = ticker {
            ticker.thread().unpark();
        }
        entries
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    entries
}

/// The time left to build a table, once the levels so far say something about it: when a
/// quarter of the states are reached and the build has run for a second. Before that the
/// frontier is still growing, so the rate so far is far below the rate to come (at depth 0 a
/// build of a fraction of a second showed an ETA of 929 s), and a short build needs no ETA.
pub(crate) fn eta(r: &LevelReport) -> Option<Duration> {
    let secs = r.elapsed.as_secs_f64();
    if secs < 1.0 || r.reached.saturating_mul(4) < r.space || r.reached >= r.space {
        return None;
    }
    let rate = r.reached as f64 / secs;
    Some(Duration::from_secs_f64((r.space - r.reached) as f64 / rate))
}
