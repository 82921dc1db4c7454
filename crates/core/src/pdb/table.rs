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
    /// Read into anonymous memory: slower to open, then independent of the file.
    Resident,
}

#[derive(Debug)]
enum Storage {
    Owned(Vec<u8>),
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
}

impl PdbTable {
    /// A table from a whole file held in memory.
    pub fn from_vec(bytes: Vec<u8>) -> Result<PdbTable, PdbError> {
        PdbTable::new(Storage::Owned(bytes), None)
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
        let storage = match mode {
            LoadMode::Resident => Storage::Owned(std::fs::read(path).map_err(io)?),
            LoadMode::Mmap => {
                let file = File::open(path).map_err(io)?;
                Storage::Mapped(map(&file).map_err(io)?)
            }
        };
        PdbTable::new(storage, Some(path.to_path_buf()))
    }

    fn new(storage: Storage, path: Option<PathBuf>) -> Result<PdbTable, PdbError> {
        let bytes: &[u8] = match &storage {
            Storage::Owned(v) => v,
            Storage::Mapped(m) => m,
        };
        let pdb = Pdb::from_bytes(bytes)?;
        let (header, size, goal) = (pdb.header().clone(), pdb.size(), pdb.goal());
        let offset = header.payload_offset as usize;
        Ok(PdbTable { storage, offset, header, size, goal, path })
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

    /// Whether the bytes are memory-mapped.
    pub fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped(_))
    }
}

/// Maps `file` read-only.
#[expect(unsafe_code)]
fn map(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: the map is read-only and we never create a mutable view of it. The remaining risk
    // is another process truncating or rewriting the file while it is mapped, which would raise
    // SIGBUS or change entries under us. Files are only ever published whole: pdb-gen and
    // `fifteen pdb install` write a temporary file, fsync it and rename it over the target, so
    // an existing file's inode is never modified in place.
    unsafe { Mmap::map(file) }
}
