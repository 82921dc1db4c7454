//! Pattern databases: the ranking of pattern placements (shared by the generator and the
//! loader), the file format, loading, and the database-backed heuristic.

mod format;
mod heuristic;
mod lanes16;
mod rank;
mod set;
mod table;

pub use format::{
    ENDIANNESS_CHECK, EntryEncoding, FORMAT_VERSION, MAGIC, PAYLOAD_ALIGN, Pdb, PdbError,
    PdbHeader, PdbMeta, UNREACHABLE, encode, encode_header, write_pdb_file,
};
pub use heuristic::{PdbHeuristic, PdbLookup, PdbState, serves_goal};
pub use rank::{placements, rank, rank_cells, unrank};
pub use set::{PdbSet, PdbSetError, Scan, best_set, scan_dir};
pub use table::{LoadMode, PdbTable, prefetch, uncache};

#[cfg(test)]
mod tests;
