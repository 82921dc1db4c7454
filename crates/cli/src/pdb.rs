//! Pattern databases on the command line: where they are looked for, the first-use build, and
//! the `fifteen pdb` subcommands (`list`, `info`, `verify`, `build`; `install` is in `install`).
//!
//! A damaged database is never used. Small sets (6-6-3, 3x3) are fully verified every time they
//! are loaded. A large set (the 576 MB 7-8) is verified once, and a *stamp* is written next to
//! each of its files (`4x4-7-8.p1.pdb.verified`: the file's size and modification time, and the
//! header's checksum); a later load trusts a file whose stamp still matches and verifies again
//! (rewriting the stamp) when it does not. Files are only ever replaced by a rename, which gives a
//! new modification time, so a rebuilt or reinstalled file is always re-verified. The stamp does
//! not guard against a file modified in place while keeping its size and time: `fifteen pdb
//! verify` always does the full check.
//!
//! Builds and installs into a folder take an exclusive lock on `.fifteen.lock` in it (std's
//! `File::lock`, an advisory lock the system drops when the process dies, even by SIGKILL), so
//! two processes building the same set take turns: the second waits, then finds the set built.
//!
//! Where databases are looked for: if `--pdb-dir` is given, there only; else if
//! `FIFTEEN_PDB_DIR` is set, there only; else the workspace's `data/` (when running from a source
//! checkout) and the user's data directory, the strongest set found winning. A missing set is
//! built in the first of those places (`data/` if it exists, else the user's data directory).

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, UNIX_EPOCH};

use anyhow::Context;
use fifteen_core::pdb::{LoadMode, PdbError, PdbSet, PdbTable, scan_dir_except, serves_goal};
use fifteen_core::{AnyHeuristic, Board, Size};
use pdb_gen::{Progress, SetSpec, build_set, preset};

use crate::args::{MetricArg, PdbArgs, PdbCommand, PdbOpts};
use crate::{exit, install};

mod advice;
pub(crate) mod memory;

/// Sets that verify in milliseconds are checked in full every time they are loaded; larger ones
/// get the header checks at load and a full check with `fifteen pdb verify`.
const VERIFY_ON_LOAD_MAX_ENTRIES: u64 = 64 << 20;

/// A pattern-database problem: the exit code for database errors.
#[derive(Debug)]
pub(crate) struct DbError(pub(crate) String);

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DbError {}

/// The folders searched, in order, and the folder a missing set is built in.
pub(crate) fn search_dirs(opts: &PdbOpts) -> (Vec<PathBuf>, Option<PathBuf>) {
    if let Some(dir) = &opts.pdb_dir {
        return (vec![dir.clone()], Some(dir.clone()));
    }
    if let Some(dir) = std::env::var_os("FIFTEEN_PDB_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        return (vec![dir.clone()], Some(dir));
    }
    let mut dirs = Vec::new();
    if let Some(d) = workspace_data() {
        dirs.push(d);
    }
    if let Some(d) = user_data_dir() {
        dirs.push(d);
    }
    let build = dirs.first().cloned();
    (dirs, build)
}

/// `data/` of the source checkout this binary was built from, if it is still there.
fn workspace_data() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    dir.is_dir().then(|| dir.canonicalize().unwrap_or(dir))
}

/// The user's data directory for `fifteen` (for example `~/.local/share/fifteen`).
fn user_data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "fifteen").map(|d| d.data_dir().to_path_buf())
}

/// The preset built on first use for a board size, if any (cheap to build: seconds at most).
fn first_use_preset(size: Size) -> Option<&'static str> {
    match (size.width(), size.height()) {
        (4, 4) => Some("4x4-6-6-3"),
        (3, 3) => Some("3x3-8"),
        // Minutes with a progress bar (about 2 on 2 cores), for the anytime search's default.
        (6, 6) => Some("6x6-7x5"),
        (7, 7) => Some("7x7-12x4"),
        (8, 8) => Some("8x8-15x4-3"),
        _ => None,
    }
}

/// Says something once per process on stderr (the batch builds one heuristic per size).
fn note(text: &str) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::Relaxed) {
        eprintln!("{text}");
    }
}

/// How `set` is held: the load mode and, when the system tells, the share of its entries in
/// 2 MiB pages (`mmap, 97% in 2 MiB pages`). Random lookups are faster in 2 MiB pages, so this
/// answers "why is this solve slow?" and tells the benchmark which lookup limit applies.
fn residency(set: &PdbSet, mode: LoadMode) -> String {
    let mode = match mode {
        LoadMode::Mmap => "mmap",
        LoadMode::Resident => "resident",
    };
    let huge = PdbTable::huge_page_bytes_of(set.tables.iter().map(|t| &**t));
    let total: u64 = set.tables.iter().map(|t| t.entries().len() as u64).sum();
    match huge {
        Some(huge) if total > 0 => {
            // Rounded down, so that 100% means all of it; capped, as a 2 MiB page may also hold
            // a file's header.
            let percent = (u128::from(huge) * 100 / u128::from(total)).min(100);
            format!("{mode}, {percent}% in 2 MiB pages")
        }
        _ => mode.to_string(),
    }
}

/// The strongest set serving `goal` in `dirs` (the first folder's on a tie), warning about
/// damaged files on the way. Sets are checked strongest first and only until one passes, so a
/// start with 7-8 does not also hash the small sets beside it.
fn find_set(dirs: &[PathBuf], goal: &Board, mode: LoadMode) -> Option<(PdbSet, PathBuf)> {
    let mut candidates: Vec<(PdbSet, PathBuf)> = Vec::new();
    for dir in dirs {
        // Sets that cannot fit are not even opened (opening maps them whole).
        let big = memory::available().map(|a| (memory::too_large(dir, a), a)).unwrap_or_default();
        for (set, needed) in &big.0 {
            SHORT_OF_MEMORY.store(true, Ordering::Relaxed);
            warn_once(
                &dir.join(set),
                &format!(
                    "warning: not enough memory for the {set} set in {}: it needs {} MB and {} MB are available; going on without it",
                    dir.display(),
                    needed.div_ceil(1_000_000),
                    big.1 / 1_000_000
                ),
            );
        }
        let skip = |p: &Path| memory::set_name(p).is_some_and(|s| big.0.contains_key(s));
        let scan = scan_dir_except(dir, mode, skip);
        for (path, err) in &scan.errors {
            match err {
                PdbError::OutOfMemory { bytes, .. } => {
                    SHORT_OF_MEMORY.store(true, Ordering::Relaxed);
                    let (set, needed) = set_of(path);
                    let file = path.file_name().unwrap_or_default().to_string_lossy();
                    warn_once(
                        &dir.join(&set),
                        &format!(
                            "warning: not enough memory for the {set} set in {}: it needs {} MB, and the system refused the {} MB of {file} (a memory or address-space limit, such as `ulimit -v`); going on without it",
                            dir.display(),
                            needed.div_ceil(1_000_000),
                            bytes.div_ceil(1_000_000),
                        ),
                    );
                }
                _ => warn_once(
                    path,
                    &format!("warning: ignoring {}: {}", path.display(), chain(err)),
                ),
            }
        }
        candidates
            .extend(scan.sets.into_iter().filter(|s| s.serves(goal)).map(|s| (s, dir.clone())));
    }
    // Stable: on equal strength the earlier folder stays first.
    candidates.sort_by_key(|(set, _)| std::cmp::Reverse(set.strength()));
    for (set, dir) in candidates {
        let stamped = set.entries() > VERIFY_ON_LOAD_MAX_ENTRIES;
        if let Some((path, bad)) =
            set.tables.iter().find_map(|t| check(t, stamped).err().map(|e| (t.path(), e)))
        {
            let file = path.map_or_else(|| dir.display(), Path::display);
            warn_once(
                &dir.join(&set.name),
                &format!("warning: ignoring the {} set: {file}: {}", set.name, chain(&bad)),
            );
            continue;
        }
        return Some((set, dir));
    }
    None
}

/// Set when a set was skipped for want of memory, so that what follows says "instead".
static SHORT_OF_MEMORY: AtomicBool = AtomicBool::new(false);

/// Prints `text` on stderr unless a warning about `key` (a file, or a set in a folder) was
/// printed already: the first-use build looks through the same folders again.
fn warn_once(key: &Path, text: &str) {
    static SAID: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
    if SAID.lock().map_or(true, |mut said| said.insert(key.to_path_buf())) {
        eprintln!("{text}");
    }
}

/// The set a table file belongs to (`4x4-7-8` for `4x4-7-8.p2.pdb`) and the bytes of all its
/// files in that folder.
fn set_of(path: &Path) -> (String, u64) {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let stem = name.strip_suffix(".pdb").unwrap_or(name);
    let set = stem.rsplit_once(".p").map_or(stem, |(set, _)| set).to_string();
    let dir = path.parent().unwrap_or(Path::new("."));
    let bytes = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.strip_prefix(set.as_str()).is_some_and(|r| r.starts_with(".p") && r.ends_with(".pdb"))
        })
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    (set, bytes)
}

/// An error and its causes on one line (`PdbError::Io` keeps the system's reason as its source).
pub(crate) fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

/// The full check of a table, skipped if `stamped` and its stamp matches (then written anew).
pub(crate) fn check(table: &PdbTable, stamped: bool) -> Result<(), fifteen_core::pdb::PdbError> {
    let path = table.path().filter(|_| stamped);
    if let Some(path) = path
        && read_stamp(path).is_some_and(|s| Some(s) == stamp(path, table.header().checksum))
    {
        return Ok(());
    }
    if let Some(path) = path {
        eprintln!(
            "verifying {} ({:.0} MB; once, then a stamp next to it records it)",
            path.display(),
            table.entries().len() as f64 / 1e6
        );
    }
    table.verify()?;
    if let Some(path) = path {
        write_stamp(path, table.header().checksum);
    }
    Ok(())
}

/// The sidecar file that records a verified table: `<file>.verified`.
fn stamp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".verified");
    path.with_file_name(name)
}

/// What a stamp records of `path` now: size, modification time in nanoseconds, and the header's
/// checksum.
fn stamp(path: &Path, checksum: u64) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?.as_nanos();
    Some(format!(
        "fifteen verified v1 size {} mtime_ns {mtime} checksum {:#018x}\n",
        meta.len(),
        checksum
    ))
}

/// The stamp next to `path`, if it is there and small.
fn read_stamp(path: &Path) -> Option<String> {
    let text = std::fs::read(stamp_path(path)).ok().filter(|b| b.len() < 256)?;
    String::from_utf8(text).ok()
}

/// Records that `table` (at `path`) verified. Best effort: in a read-only folder the table is
/// simply verified again next time.
pub(crate) fn write_stamp(path: &Path, checksum: u64) {
    let Some(text) = stamp(path, checksum) else { return };
    let target = stamp_path(path);
    let tmp = target.with_extension(format!("verified.tmp-{}", std::process::id()));
    if std::fs::write(&tmp, text).is_err() || std::fs::rename(&tmp, &target).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// An exclusive lock on a database folder, held while building or installing into it.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: File,
}

impl DirLock {
    /// Locks `dir` (creating it if needed), waiting for another process that holds it.
    pub(crate) fn acquire(dir: &Path) -> anyhow::Result<DirLock> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join(".fifteen.lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot create the lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                eprintln!(
                    "waiting for another fifteen that is building or installing databases in {}",
                    dir.display()
                );
                file.lock().with_context(|| format!("cannot lock {}", path.display()))?;
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()));
            }
        }
        Ok(DirLock { _file: file })
    }
}

/// What looking for a database heuristic found.
pub(crate) enum Found {
    /// A set serving the goal (boxed: the database heuristic carries a few hundred bytes of
    /// per-view tables inline, the other variants a string).
    Heuristic(Box<AnyHeuristic>),
    /// None is present and building one failed (read-only or full folder, ...): the caller
    /// answers with another heuristic and says so.
    BuildFailed(String),
    /// None is present and none is built for this board or goal.
    Missing(String),
}

/// The database heuristic for `goal`: the strongest set found, else (unless `--no-pdb-build`)
/// a first-use build of the size's quick preset.
pub(crate) fn load(goal: &Board, opts: &PdbOpts) -> anyhow::Result<Found> {
    let (dirs, build_dir) = search_dirs(opts);
    let mode = opts.pdb_load.mode();
    let reflect = !opts.no_reflect;
    let dual = !opts.no_dual;
    if let Some((set, dir)) = find_set(&dirs, goal, mode) {
        let h = set.heuristic(goal, reflect, dual).map_err(|e| DbError(e.to_string()))?;
        let hint = if set.name == "4x4-6-6-3" && !SHORT_OF_MEMORY.load(Ordering::Relaxed) {
            "; `cargo xtask gen-pdb` builds the faster 7-8 set"
        } else {
            ""
        };
        note(&format!(
            "using pattern databases {} from {} ({}{hint})",
            set.name,
            dir.display(),
            residency(&set, mode)
        ));
        return Ok(Found::Heuristic(Box::new(AnyHeuristic::Pdb(h))));
    }
    let size = goal.size();
    let searched: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let missing = |why: &str| {
        let folders =
            if searched.is_empty() { "any folder".to_string() } else { searched.join(", ") };
        let goal = goal.to_line();
        Found::Missing(if SHORT_OF_MEMORY.load(Ordering::Relaxed) {
            format!(
                "no pattern database for {size} serving goal {goal} in {folders} fits in memory"
            )
        } else {
            format!("no pattern database for {size} serving goal {goal} in {folders}{why}")
        })
    };
    const CORNER: &str = "; databases serve goals with the blank in a corner: build one for this goal with `pdb-gen --goal`";
    let Some(p) = first_use_preset(size).and_then(preset) else {
        // A size whose default set is too large to build unasked: say which command builds it.
        return Ok(missing(&match pdb_gen::default_for(size) {
            Some(p) if serves_goal(&p.goal(), goal) => advice::missing_default(p, opts),
            Some(_) => CORNER.to_string(),
            None => {
                "; build one with `pdb-gen --preset NAME --out DIR` or `--size WxH --pattern ...`"
                    .to_string()
            }
        }));
    };
    if !serves_goal(&p.goal(), goal) {
        return Ok(missing(CORNER));
    }
    let Some(dir) = build_dir.filter(|_| !opts.no_pdb_build) else {
        return Ok(missing(&format!("; build it with `fifteen pdb build {}`", p.name)));
    };
    let _lock = match DirLock::acquire(&dir) {
        Ok(lock) => lock,
        Err(e) => {
            return Ok(Found::BuildFailed(format!(
                "cannot build the {} databases in {}: {e:#}",
                p.name,
                dir.display()
            )));
        }
    };
    // Another process may have built the set while this one waited for the lock.
    if let Some((set, _)) = find_set(std::slice::from_ref(&dir), goal, mode) {
        let h = set.heuristic(goal, reflect, dual).map_err(|e| DbError(e.to_string()))?;
        note(&format!(
            "using pattern databases {} from {} ({})",
            set.name,
            dir.display(),
            residency(&set, mode)
        ));
        return Ok(Found::Heuristic(Box::new(AnyHeuristic::Pdb(h))));
    }
    if SHORT_OF_MEMORY.load(Ordering::Relaxed) {
        eprintln!(
            "building the smaller {} set into {} instead (once, a few seconds)",
            p.name,
            dir.display()
        );
    } else {
        eprintln!(
            "no pattern database found; building the {} set into {} (once, {})",
            p.name,
            dir.display(),
            if size.cells() > 25 { "about two minutes" } else { "a few seconds" }
        );
    }
    if let Err(e) = build_set(&SetSpec::from(p), &dir, None, Progress::Auto) {
        return Ok(Found::BuildFailed(format!(
            "cannot build the {} databases in {}: {}",
            p.name,
            dir.display(),
            chain(&e)
        )));
    }
    match find_set(std::slice::from_ref(&dir), goal, mode) {
        Some((set, _)) => {
            let h = set.heuristic(goal, reflect, dual).map_err(|e| DbError(e.to_string()))?;
            let hint = if p.name == "4x4-6-6-3" && !SHORT_OF_MEMORY.load(Ordering::Relaxed) {
                "; `cargo xtask gen-pdb` builds the faster 7-8 set"
            } else {
                ""
            };
            note(&format!("built {} in {}{hint}", set.name, dir.display()));
            Ok(Found::Heuristic(Box::new(AnyHeuristic::Pdb(h))))
        }
        None => Ok(Found::BuildFailed(format!(
            "the {} databases just built in {} do not {}",
            p.name,
            dir.display(),
            if SHORT_OF_MEMORY.load(Ordering::Relaxed) { "fit in memory" } else { "load" }
        ))),
    }
}

/// Runs `fifteen pdb ...`.
pub(crate) fn run(args: &PdbArgs) -> anyhow::Result<u8> {
    match &args.command {
        PdbCommand::List(opts) => list(opts),
        PdbCommand::Info { file } => info(file),
        PdbCommand::Verify { files } => verify(files),
        PdbCommand::Build { metric: MetricArg::Mtm, opts, .. } => {
            crate::mtm::build(None, opts).unwrap_or_else(|| unreachable!("the default set"))
        }
        PdbCommand::Build { preset: Some(name), opts, .. }
            if let Some(built) = crate::mtm::build(Some(name), opts) =>
        {
            built
        }
        PdbCommand::Build { preset: name, size, opts, .. } => {
            build(name.as_deref(), size.as_deref(), opts)
        }
        PdbCommand::Install(a) => install::run(a),
    }
}

fn list(opts: &PdbOpts) -> anyhow::Result<u8> {
    let (dirs, build_dir) = search_dirs(opts);
    let mut out = std::io::stdout().lock();
    if dirs.is_empty() {
        writeln!(out, "no folder to search: pass --pdb-dir or set FIFTEEN_PDB_DIR")?;
    }
    let mut found = BTreeSet::new();
    for dir in &dirs {
        // As when solving, a set that cannot fit in memory is not opened (that maps it whole).
        let available = memory::available();
        let big = available.map(|a| memory::too_large(dir, a)).unwrap_or_default();
        let skip = |p: &Path| memory::set_name(p).is_some_and(|s| big.contains_key(s));
        let scan = scan_dir_except(dir, LoadMode::Mmap, skip);
        found.extend(scan.sets.iter().map(|s| s.name.clone()));
        let state = if !dir.exists() { " (missing)" } else { "" };
        writeln!(out, "{}{state}", dir.display())?;
        for (set, needed) in &big {
            writeln!(
                out,
                "  set {set:<14} not opened: it needs {} MB, and {} MB of memory are available",
                needed.div_ceil(1_000_000),
                available.unwrap_or_default() / 1_000_000
            )?;
        }
        for set in &scan.sets {
            let bytes: u64 = set.tables.iter().map(|t| t.entries().len() as u64).sum();
            writeln!(
                out,
                "  set {:<14} {} goal {}  {} table(s), {:.1} MB",
                set.name,
                set.size(),
                set.tables[0].goal().to_line(),
                set.tables.len(),
                bytes as f64 / 1e6
            )?;
            // In pattern order (`.p2` before `.p10`), whatever order the folder gave.
            let mut tables: Vec<_> = set.tables.iter().collect();
            tables.sort_by_key(|t| t.path().map(|p| (pattern_number(p), p.to_path_buf())));
            for t in tables {
                let path = t.path().map(|p| p.display().to_string()).unwrap_or_default();
                writeln!(out, "      {path}  tiles {:?}", t.tiles())?;
            }
        }
        for p in &scan.incomplete {
            writeln!(out, "  incomplete set: {}", p.display())?;
        }
        // The tables of a whole MTM set are checked with it, below.
        for (p, e) in scan.errors.iter().filter(|(p, _)| !crate::mtm::listed_with_mtm_set(p)) {
            writeln!(out, "  damaged: {}: {}", p.display(), chain(e))?;
        }
    }
    if let Some(dir) = build_dir {
        writeln!(out, "missing sets are built in {}", dir.display())?;
    }
    for line in advice::defaults(&found, opts) {
        writeln!(out, "{line}")?;
    }
    for line in crate::mtm::list_lines(opts) {
        writeln!(out, "{line}")?;
    }
    Ok(exit::OK)
}

/// The `i` of a table file `{set}.p{i}.pdb` (`u32::MAX` for another name).
fn pattern_number(path: &Path) -> u32 {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".pdb"))
        .and_then(|n| n.rsplit_once(".p"))
        .and_then(|(_, i)| i.parse().ok())
        .unwrap_or(u32::MAX)
}

fn open(file: &Path) -> anyhow::Result<PdbTable> {
    PdbTable::open(file, LoadMode::Mmap)
        .map_err(|e| DbError(chain(&e)))
        .with_context(|| format!("cannot use {}", file.display()))
}

fn info(file: &Path) -> anyhow::Result<u8> {
    let t = open(file)?;
    let h = t.header();
    let mut out = std::io::stdout().lock();
    writeln!(out, "file:        {}", file.display())?;
    writeln!(out, "board:       {}", t.size())?;
    writeln!(out, "goal:        {}", t.goal().to_line())?;
    writeln!(out, "tiles:       {:?}", h.tiles)?;
    writeln!(out, "preset:      {}", h.preset.as_deref().unwrap_or("(custom)"))?;
    writeln!(out, "encoding:    {:?}", h.encoding)?;
    writeln!(out, "entries:     {}", h.entry_count)?;
    writeln!(out, "offset:      {}", h.payload_offset)?;
    writeln!(out, "checksum:    {:#018x} (xxh3-64)", h.checksum)?;
    writeln!(out, "generator:   {}", h.generator)?;
    writeln!(out, "unreachable: {}", h.unreachable)?;
    writeln!(out, "histogram (value: entries):")?;
    let total = h.entry_count.max(1) as f64;
    for (v, &n) in h.histogram.iter().enumerate() {
        writeln!(out, "  {v:>3}: {n:>12}  {:6.3}%", 100.0 * n as f64 / total)?;
    }
    let mean: f64 = h.histogram.iter().enumerate().map(|(v, &n)| v as f64 * n as f64).sum::<f64>()
        / (h.entry_count - h.unreachable).max(1) as f64;
    writeln!(out, "mean value:  {mean:.3}")?;
    Ok(exit::OK)
}

fn verify(files: &[PathBuf]) -> anyhow::Result<u8> {
    let mut failed = 0;
    for file in files {
        // Through `PdbTable::open`, which refuses a folder or a FIFO (reading a FIFO would
        // block) and maps the file rather than reading it whole.
        let result = PdbTable::open(file, LoadMode::Mmap).and_then(|t| t.verify().map(|()| t));
        match result {
            Ok(table) => {
                // A full check passed: refresh the stamp of a file that has one.
                if stamp_path(file).is_file() {
                    write_stamp(file, table.header().checksum);
                }
                println!("{}: ok (checksum and histogram match)", file.display())
            }
            Err(e) => {
                failed += 1;
                println!("{}: FAILED: {}", file.display(), chain(&e));
            }
        }
    }
    Ok(if failed == 0 { exit::OK } else { exit::DATABASE })
}

fn build(name: Option<&str>, size: Option<&str>, opts: &PdbOpts) -> anyhow::Result<u8> {
    let p = match (name, size) {
        (_, Some(size)) => {
            let size: Size = size.parse().context("bad --size")?;
            pdb_gen::default_for(size).ok_or_else(|| {
                exit::Usage(format!(
                    "no default set for {size} boards (sizes with one: {})",
                    pdb_gen::default_sizes()
                ))
            })?
        }
        (name, None) => {
            let name = name.unwrap_or("4x4-6-6-3");
            preset(name).ok_or_else(|| {
                let mut names: Vec<&str> = pdb_gen::PRESETS.iter().map(|p| p.name).collect();
                names.extend([fifteen_core::mtm::COLOUR_PRESET, fifteen_core::mtm::SPLIT_PRESET]);
                exit::Usage(format!("unknown preset {name:?}; presets are {}", names.join(", ")))
            })?
        }
    };
    let (_, dir) = search_dirs(opts);
    let dir = dir.ok_or_else(|| DbError("no folder to build in: pass --pdb-dir".into()))?;
    let _lock = DirLock::acquire(&dir).map_err(|e| DbError(format!("{e:#}")))?;
    // One line on stderr when the build starts and one when it ends (a bar in between on a
    // terminal); what was written goes to stdout.
    eprintln!("building the {} set into {}", p.name, dir.display());
    let took = Instant::now();
    let written =
        build_set(&SetSpec::from(p), &dir, None, Progress::Auto).map_err(|e| DbError(chain(&e)))?;
    eprintln!("built the {} set in {} in {:.1?}", p.name, dir.display(), took.elapsed());
    for w in written {
        println!("wrote {} ({} bytes) in {:.1?}", w.path.display(), w.bytes, w.elapsed);
    }
    Ok(exit::OK)
}

#[cfg(test)]
mod tests;
