//! Pattern databases: the ranking of pattern placements (shared by the generator and the
//! loader), the file format, loading, and the database-backed heuristic.

mod rank;

pub use rank::{placements, rank, unrank};
