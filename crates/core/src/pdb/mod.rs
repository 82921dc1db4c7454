//! Pattern databases: the ranking of pattern placements (shared by the generator and the
//! loader), the file format, loading, and the database-backed heuristic.

mod catalogue;
mod format;
mod heuristic;
mod lanes16;
mod rank;
mod set;
mod table;
mod zero;

pub use catalogue::{Catalogue, CatalogueState, MAX_ZERO_CELLS, MAX_ZERO_TILES, exact_covers};
pub use format::{
    ENDIANNESS_CHECK, EntryCheck, EntryEncoding, FORMAT_VERSION, MAGIC, PAYLOAD_ALIGN, PREFIX_LEN,
    Pdb, PdbError, PdbHeader, PdbMeta, UNREACHABLE, check_version, decode_header, encode,
    encode_header, encode_header_as, head_len, reseal_header_checksum, write_pdb_file,
    write_pdb_file_as,
};
pub(crate) use heuristic::symmetries;
pub use heuristic::{PdbHeuristic, PdbLookup, PdbState, serves_goal};
pub use rank::{placements, rank, rank_cells, unrank};
pub use set::{PdbSet, PdbSetError, Scan, best_set, scan_dir, scan_dir_except};
pub(crate) use table::prefetch_address;
pub use table::{LoadMode, PdbTable, prefetch, uncache};
pub use zero::{ZeroIndex, ZeroIndexTooLarge, pack_bit1};

#[cfg(test)]
mod tests;
