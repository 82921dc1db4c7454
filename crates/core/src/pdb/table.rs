//! One loaded pattern-database table: its bytes (memory-mapped or read into memory), checked
//! once by [`Pdb::from_bytes`] and then read by index.

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::{Pdb, PdbError, PdbHeader};
use crate::board::{Board, Size};

/// How a table's bytes are held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LoadMode {
    /// Memory-mapped read-only: instant to open, pages come in on first use and are shared
    /// between processes.
    #[default]
    Mmap,
    /// Read into anonymous memory that the kernel may back with 2 MiB pages
    /// (`MADV_HUGEPAGE`): slower to open, fewer TLB misses on random lookups.
    Resident,
}

#[derive(Debug)]
enum Storage {
    Owned(Vec<u8>),
    /// A map of the file, or of anonymous memory filled from it (read-only either way).
    Mapped(Mmap),
}

/// A validated pattern-database table that owns its bytes.
#[derive(Debug)]
pub struct PdbTable {
    storage: Storage,
    offset: usize,
    header: PdbHeader,
    size: Size,
    goal: Board,
    path: Option<PathBuf>,
    mode: LoadMode,
}

impl PdbTable {
    /// A table from a whole file held in memory.
    pub fn from_vec(bytes: Vec<u8>) -> Result<PdbTable, PdbError> {
        PdbTable::new(Storage::Owned(bytes), None, LoadMode::Resident)
    }

    /// Opens the file at `path` in `mode`. Checks everything but the entries' checksum and
    /// histogram ([`PdbTable::verify`] does those).
    pub fn open(path: &Path, mode: LoadMode) -> Result<PdbTable, PdbError> {
        let io = |source| PdbError::Io { path: path.to_path_buf(), source };
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file",
            )));
        }
        // Mapping or reading a table can fail for want of memory or address space (a
        // `ulimit -v`, a container): say so, rather than blame the path.
        let bytes = meta.len();
        let load = |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::OutOfMemory => {
                PdbError::OutOfMemory { path: path.to_path_buf(), bytes }
            }
            _ => PdbError::Io { path: path.to_path_buf(), source: e },
        };
        let storage = match mode {
            // An anonymous map cannot be empty; an empty file is refused by the parser anyway.
            LoadMode::Resident if bytes == 0 => Storage::Owned(Vec::new()),
            LoadMode::Resident => Storage::Mapped(read_resident(path, bytes).map_err(load)?),
            LoadMode::Mmap => {
                let file = File::open(path).map_err(io)?;
                Storage::Mapped(map(&file).map_err(load)?)
            }
        };
        PdbTable::new(storage, Some(path.to_path_buf()), mode)
    }

    fn new(storage: Storage, path: Option<PathBuf>, mode: LoadMode) -> Result<PdbTable, PdbError> {
        let bytes: &[u8] = match &storage {
            Storage::Owned(v) => v,
            Storage::Mapped(m) => m,
        };
        let pdb = Pdb::from_bytes(bytes)?;
        let (header, size, goal) = (pdb.header().clone(), pdb.size(), pdb.goal());
        let offset = header.payload_offset as usize;
        Ok(PdbTable { storage, offset, header, size, goal, path, mode })
    }

    fn bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Owned(v) => v,
            Storage::Mapped(m) => m,
        }
    }

    /// The entries, one per placement in [`rank`](super::rank) order.
    #[inline]
    pub fn entries(&self) -> &[u8] {
        &self.bytes()[self.offset..]
    }

    /// The entry at `index`; indices come from [`rank`](super::rank) and are always in range.
    #[inline]
    pub fn get(&self, index: u64) -> u8 {
        self.entries()[index as usize]
    }

    /// Hints the processor to start loading entry `index` into the cache (nothing if out of
    /// range or not on x86-64).
    #[inline(always)]
    pub fn prefetch(&self, index: u64) {
        if let Some(entry) = self.entries().get(index as usize) {
            prefetch(entry);
        }
    }

    /// Recomputes the checksum and histogram of the entries.
    pub fn verify(&self) -> Result<(), PdbError> {
        Pdb::from_bytes(self.bytes())?.verify()
    }

    /// The header.
    pub fn header(&self) -> &PdbHeader {
        &self.header
    }

    /// The board size.
    pub fn size(&self) -> Size {
        self.size
    }

    /// The goal the table was built for.
    pub fn goal(&self) -> &Board {
        &self.goal
    }

    /// The pattern tiles in rank order.
    pub fn tiles(&self) -> &[u8] {
        &self.header.tiles
    }

    /// The file it came from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// How the bytes are held.
    pub fn mode(&self) -> LoadMode {
        self.mode
    }

    /// How many of the table's bytes the kernel maps with 2 MiB pages (`FilePmdMapped` for a
    /// memory-mapped file, `AnonHugePages` for [`LoadMode::Resident`]), read from
    /// `/proc/self/smaps`.
    ///
    /// Random lookups are faster in 2 MiB pages (a search 15-25%, see `map`), and whether the
    /// kernel used them depends on things outside our control (transparent huge pages off, the
    /// file already cached in small folios, a file system without large folios), so this tells
    /// a user why a solve is slow and a benchmark which random-lookup limit applies.
    ///
    /// The kernel reports 2 MiB pages per mapping, and it merges read-only anonymous maps that
    /// lie side by side into one (measured: the two large tables of 6-6-3 loaded resident), so
    /// a mapping that holds more than this table has its 2 MiB pages shared out in proportion to
    /// size: exact for a set whose tables fill the mapping, an estimate otherwise. `None` when
    /// not on Linux, for a table built from a `Vec` ([`PdbTable::from_vec`]), or if smaps
    /// cannot be read or parsed.
    pub fn huge_page_bytes(&self) -> Option<u64> {
        PdbTable::huge_page_bytes_of([self])
    }

    /// [`PdbTable::huge_page_bytes`] summed over `tables`, from one read of
    /// `/proc/self/smaps`: the kernel walks every page of every mapping to write that file
    /// (measured: 14 reads, one per table of the 5x5's default set, were 15% of an easy 5x5
    /// solve's time), so a set asks once. `None` if any table's share is unknown.
    pub fn huge_page_bytes_of<'a>(tables: impl IntoIterator<Item = &'a PdbTable>) -> Option<u64> {
        #[cfg(target_os = "linux")]
        {
            let tables: Vec<&PdbTable> = tables.into_iter().collect();
            if tables.iter().any(|t| matches!(t.storage, Storage::Owned(_))) {
                return None;
            }
            let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
            tables.iter().try_fold(0u64, |sum, table| {
                let (mapping, huge) = smaps_huge_bytes(&smaps, table.entries().as_ptr() as usize)?;
                let own = table.bytes().len() as u64;
                let share = u128::from(huge) * u128::from(own) / u128::from(mapping.max(1));
                sum.checked_add(u64::try_from(share).ok()?.min(own))
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = tables;
            None
        }
    }
}

/// The size of the mapping in `smaps` (the text of `/proc/PID/smaps`) that contains `addr`, and
/// its bytes mapped with 2 MiB pages (`FilePmdMapped:` plus `AnonHugePages:`). `None` if no
/// mapping contains it, if the mapping has neither field, or if a value does not parse.
// Elsewhere only the tests call it (not `expect`: with the tests it is used).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn smaps_huge_bytes(smaps: &str, addr: usize) -> Option<(u64, u64)> {
    let hex = |x| u64::from_str_radix(x, 16).ok();
    let mut lines = smaps.lines();
    // The mapping's header line: `start-end perms offset dev inode [path]`, in hex.
    let range = lines.by_ref().find_map(|line| {
        let (a, b) = line.split_whitespace().next()?.split_once('-')?;
        Some(hex(a)?..hex(b)?).filter(|r| r.contains(&(addr as u64)))
    })?;
    // Its fields, `Name: value [kB]`, up to the next header.
    let fields = lines.map_while(|line| line.split_once(':').filter(|(k, _)| !k.contains(' ')));
    let mut huge: Option<u64> = None;
    for (key, value) in fields {
        if key == "FilePmdMapped" || key == "AnonHugePages" {
            let kib: u64 = value.trim().strip_suffix("kB")?.trim_end().parse().ok()?;
            huge = Some(huge.unwrap_or(0).checked_add(kib.checked_mul(1024)?)?);
        }
    }
    Some((range.end - range.start, huge?))
}

/// Reads the file at `path` (of `len` bytes) into anonymous memory advised for huge pages.
fn read_resident(path: &Path, len: u64) -> std::io::Result<Mmap> {
    use std::io::Read;
    let len = usize::try_from(len).map_err(|_| std::io::Error::other("file too large"))?;
    let mut memory = crate::huge_pages::huge_page_memory(len)?;
    File::open(path)?.read_exact(&mut memory[..len])?;
    let memory = memory.make_read_only()?;
    Ok(memory)
}

/// A table's entries as a pointer and a length, for the search's lookups: reading an entry
/// through one of these is one load for the address instead of a chain through the table's
/// `Arc` and storage (measured: see `docs/performance.md`). It holds a reference to the
/// table, so the entries outlive it.
#[derive(Clone, Debug)]
pub(crate) struct Entries {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
    /// `None` for [`Entries::EMPTY`].
    _table: Option<std::sync::Arc<PdbTable>>,
}

// SAFETY: an `Entries` only reads the immutable bytes of a table it keeps alive, which `PdbTable`
// (which is `Send + Sync`) shares between threads too.
#[expect(unsafe_code)]
unsafe impl Send for Entries {}
// SAFETY: as for `Send`: shared reads of immutable bytes.
#[expect(unsafe_code)]
unsafe impl Sync for Entries {}

impl Entries {
    /// No entries: a placeholder for a slot without a table, where any read panics.
    pub(crate) const EMPTY: Entries =
        Entries { ptr: std::ptr::NonNull::dangling(), len: 0, _table: None };

    /// The entries of `table`.
    pub(crate) fn new(table: &std::sync::Arc<PdbTable>) -> Entries {
        let entries = table.entries();
        Entries {
            ptr: std::ptr::NonNull::from(entries).cast::<u8>(),
            len: entries.len(),
            _table: Some(std::sync::Arc::clone(table)),
        }
    }

    /// The entry at `index` (panics if out of range, like [`PdbTable::get`]).
    #[inline(always)]
    #[expect(unsafe_code)]
    pub(crate) fn get(&self, index: u64) -> u8 {
        let i = index as usize;
        assert!(i < self.len, "table index out of range");
        // SAFETY: `ptr` points to the `len` entries of the table held in `_table`, whose bytes
        // (a `Vec`'s buffer or a map) never move or change while it lives; `i < len` (so
        // `EMPTY`, with no table and `len` 0, is never read).
        unsafe { self.ptr.as_ptr().add(i).read() }
    }

    /// The address of entry 0: entry `i` is at this plus `i` (for [`prefetch_address`]).
    pub(crate) fn base(&self) -> usize {
        self.ptr.as_ptr().addr()
    }
}

/// Starts loading the cache line holding `byte` (public for the `lookups` benchmark, which
/// times prefetched reads as the searches issue them).
#[inline(always)]
pub fn prefetch(byte: &u8) {
    prefetch_address((byte as *const u8).addr());
}

/// Starts loading the cache line at `address`. Any address will do: a prefetch is only a hint,
/// so the searches compute the address of an entry without checking its index against the
/// table (measured: see `docs/performance.md`). Prefetching every child's entries before
/// reading any lets the misses overlap (see `search/ida.rs`).
#[inline(always)]
#[cfg_attr(target_arch = "x86_64", expect(unsafe_code))]
pub(crate) fn prefetch_address(address: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` never faults, whatever the address, and changes no memory; it
    // reads nothing the program sees, so the pointer needs no provenance. SSE is part of the
    // x86-64 baseline.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            std::ptr::without_provenance::<i8>(address),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// Maps `file` read-only, asking for 2 MiB pages, then populating the page tables at once.
///
/// - Populating is one batched kernel call instead of a minor fault for every 4 KiB page the
///   search touches (measured: Korf's 100 with 7-8 went from 1.1 s to 0.6 s of search in a fresh
///   process).
/// - `MADV_HUGEPAGE` before populating lets Linux (with large page-cache folios, as on ext4
///   since 6.x) read the file into 2 MiB folios and map them with 2 MiB entries, so that a
///   random lookup no longer costs a page-table walk: the search runs 15-25% faster, as
///   fast as with [`LoadMode::Resident`], without copying the file. It takes effect when the
///   pages are read from disk; pages already cached in small folios stay small, which is why the
///   writers drop what they wrote from the cache ([`uncache`]).
#[expect(unsafe_code)]
fn map(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: the map is read-only and we never create a mutable view of it. The remaining risk
    // is another process truncating or rewriting the file while it is mapped, which would raise
    // SIGBUS or change entries under us. Files are only ever published whole: pdb-gen and
    // `fifteen pdb install` write a temporary file, fsync it and rename it over the target, so
    // an existing file's inode is never modified in place.
    let lazy = unsafe { memmap2::MmapOptions::new().map(file) }?;
    #[cfg(target_os = "linux")]
    {
        // Only hints: without transparent huge pages the first changes nothing, and kernels
        // before 5.14 lack the second, so they get a populating map instead.
        let _ = lazy.advise(memmap2::Advice::HugePage);
        if lazy.advise(memmap2::Advice::PopulateRead).is_ok() {
            return Ok(lazy);
        }
    }
    drop(lazy);
    // SAFETY: as above.
    unsafe { memmap2::MmapOptions::new().populate().map(file) }
}

/// Drops a file that was just written and synced from the page cache (Linux; elsewhere
/// nothing). Written pages stay cached in small folios, so a database read back at once would
/// be mapped with 4 KiB pages; dropped, the next [`PdbTable::open`] reads it into 2 MiB folios
/// (see `map`). Costs one read of the file from disk.
pub fn uncache(file: &File) {
    #[cfg(target_os = "linux")]
    {
        let _ = rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::DontNeed);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

#[cfg(test)]
mod tests;
