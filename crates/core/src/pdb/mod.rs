//! Pattern databases: the ranking of pattern placements (shared by the generator and the
//! loader), the file format, loading, and the database-backed heuristic.

mod format;
mod rank;

pub use format::{
    ENDIANNESS_CHECK, EntryEncoding, FORMAT_VERSION, MAGIC, PAYLOAD_ALIGN, Pdb, PdbError,
    PdbHeader, PdbMeta, UNREACHABLE, encode, encode_header, write_pdb_file,
};
pub use rank::{placements, rank, unrank};
