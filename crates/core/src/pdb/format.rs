//! The pattern-database file format: one file per pattern, written by `pdb-gen` and read by the
//! solver. Modelled on regex-automata's `wire.rs`: parsing is cheap (it never touches the
//! entries), so a file can be memory-mapped and used at once, and every failed check has its own
//! [`PdbError`] variant.
//!
//! # Layout
//!
//! All integers of the fixed prefix are little-endian.
//!
//! | offset | size | content |
//! |-------:|-----:|---------|
//! | 0 | 8 | [`MAGIC`], `b"FIFTEEN\0"` |
//! | 8 | 2 | `0xFEFF` ([`ENDIANNESS_CHECK`]) |
//! | 10 | 4 | [`FORMAT_VERSION`] |
//! | 14 | 4 | header length `L` in bytes |
//! | 18 | `L` | the [`PdbHeader`], encoded with postcard |
//! | 18 + `L` | .. | zero padding up to the next multiple of [`PAYLOAD_ALIGN`] (4096) |
//! | `payload_offset` | `entry_count` | the entries, one `u8` per placement, in [`rank`] order |
//!
//! `payload_offset` is the header end rounded up to a page, so a memory-mapped file has its
//! entries page-aligned. Nothing follows the entries.
//!
//! An entry is the least number of moves of pattern tiles that brings the pattern tiles from the
//! placement to their goal cells, the blank moving freely through cells no pattern tile holds;
//! [`UNREACHABLE`] marks placements that no position reaches (only when the pattern holds every
//! tile, where half of the placements have the wrong parity).
//!
//! [`rank`]: super::rank

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::board::{Board, MAX_CELLS, Size};

/// The first 8 bytes of every pattern-database file.
pub const MAGIC: [u8; 8] = *b"FIFTEEN\0";

/// Written as a little-endian `u16` after the magic; reads back as `0xFFFE` on a file written
/// with the other byte order.
pub const ENDIANNESS_CHECK: u16 = 0xFEFF;

/// The version of the layout and of [`PdbHeader`]; bump it on any change to either.
pub const FORMAT_VERSION: u32 = 1;

/// The entries start at a multiple of this (a page), so they can be memory-mapped aligned.
pub const PAYLOAD_ALIGN: usize = 4096;

/// The entry value of a placement that no position reaches.
pub const UNREACHABLE: u8 = u8::MAX;

/// Magic, endianness check, version and header length.
const PREFIX_LEN: usize = 8 + 2 + 4 + 4;

/// A header longer than this is corrupt (real headers are under 200 bytes).
const MAX_HEADER_LEN: usize = 1 << 16;

/// How the entries are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum EntryEncoding {
    /// One byte per placement: the distance, or [`UNREACHABLE`].
    U8,
}

/// The header of a pattern-database file: what the table is and how to check it.
///
/// [`Pdb::from_bytes`] checks every field against the others before handing it out, so the
/// accessors of [`Pdb`] can be trusted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PdbHeader {
    /// Board width in columns.
    pub width: u8,
    /// Board height in rows.
    pub height: u8,
    /// The goal, row-major, `0` for the blank.
    pub goal: Vec<u8>,
    /// The pattern tiles in pattern order: entry `rank(n, cells)` is for the placement where
    /// tile `tiles[i]` is on `cells[i]`.
    pub tiles: Vec<u8>,
    /// How entries are stored.
    pub encoding: EntryEncoding,
    /// Number of entries: `placements(width * height, tiles.len())`.
    pub entry_count: u64,
    /// Byte offset of the first entry in the file, a multiple of [`PAYLOAD_ALIGN`].
    pub payload_offset: u64,
    /// xxh3-64 of the entries.
    pub checksum: u64,
    /// `histogram[v]` is the number of entries equal to `v`, for `v` up to the largest value
    /// other than [`UNREACHABLE`].
    pub histogram: Vec<u64>,
    /// Number of entries equal to [`UNREACHABLE`].
    pub unreachable: u64,
    /// Name and version of the program that wrote the file.
    pub generator: String,
    /// The preset the table belongs to (for example `4x4-6-6-3`), if any.
    pub preset: Option<String>,
}

impl PdbHeader {
    /// The largest entry other than [`UNREACHABLE`] (0 for an empty histogram).
    pub fn max_value(&self) -> u8 {
        self.histogram.len().saturating_sub(1) as u8
    }
}

/// What the writer records besides the table itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdbMeta {
    /// Name and version of the generator, for example `pdb-gen 0.0.0`.
    pub generator: String,
    /// The preset name, if the table belongs to one.
    pub preset: Option<String>,
}

/// Why bytes are not a usable pattern database. Each check has its own variant, and each message
/// says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PdbError {
    /// The file does not start with [`MAGIC`].
    #[error(
        "not a pattern database: the file starts with {found:?}, not \"FIFTEEN\\0\"; check the path points at a .pdb file written by pdb-gen"
    )]
    BadMagic {
        /// The first 8 bytes found.
        found: [u8; 8],
    },
    /// The endianness check does not read as `0xFEFF`.
    #[error(
        "endianness check reads {found:#06x}, expected 0xfeff: the file was written with the other byte order or is damaged; regenerate it with `cargo xtask gen-pdb`"
    )]
    EndianMismatch {
        /// The value read.
        found: u16,
    },
    /// The file was written by another version of the format.
    #[error(
        "pattern database format version {found}, but this program reads version {expected}; regenerate the databases with `cargo xtask gen-pdb`"
    )]
    VersionMismatch {
        /// The version this build reads.
        expected: u32,
        /// The version in the file.
        found: u32,
    },
    /// The buffer ends before what the header promises.
    #[error(
        "pattern database is truncated: it needs {needed} bytes but has {found}; the file was cut short, regenerate it with `cargo xtask gen-pdb`"
    )]
    BufferTooSmall {
        /// Bytes needed.
        needed: u64,
        /// Bytes present.
        found: u64,
    },
    /// The header does not decode, or the padding after it is not zero.
    #[error(
        "pattern database header is corrupt ({reason}); regenerate the file with `cargo xtask gen-pdb`"
    )]
    HeaderCorrupt {
        /// What went wrong, for example postcard's error text.
        reason: String,
    },
    /// The payload offset is not the page-aligned end of the header.
    #[error(
        "pattern database payload offset is {found} but must be {expected} (the header end rounded up to {PAYLOAD_ALIGN} bytes); regenerate the file with `cargo xtask gen-pdb`"
    )]
    AlignmentMismatch {
        /// Where the entries must start.
        expected: u64,
        /// Where the header says they start.
        found: u64,
    },
    /// The header's entry count, the pattern's number of placements and the bytes present
    /// disagree.
    #[error(
        "pattern database entry count mismatch: the header says {header}, the pattern has {placements} placements and the file holds {available} entry bytes; regenerate it with `cargo xtask gen-pdb`"
    )]
    EntryCountMismatch {
        /// The count in the header.
        header: u64,
        /// `placements(n, k)` of the board and pattern.
        placements: u64,
        /// Bytes after the payload offset.
        available: u64,
    },
    /// The board size, goal or pattern tiles are invalid.
    #[error(
        "pattern database has an invalid pattern: {reason}; regenerate it with `cargo xtask gen-pdb` or pass a valid pattern to pdb-gen"
    )]
    BadPattern {
        /// What is wrong.
        reason: String,
    },
    /// The histogram does not add up to the entry count, or does not match the entries.
    #[error(
        "pattern database histogram mismatch: {reason}; the file is damaged, regenerate it with `cargo xtask gen-pdb`"
    )]
    HistogramMismatch {
        /// What is wrong.
        reason: String,
    },
    /// The entries do not hash to the header's checksum.
    #[error(
        "pattern database checksum mismatch: the header says {expected:#018x} but the entries hash to {found:#018x}; the file is damaged, regenerate it with `cargo xtask gen-pdb`"
    )]
    ChecksumMismatch {
        /// The checksum in the header.
        expected: u64,
        /// The checksum of the entries.
        found: u64,
    },
    /// Reading or writing a file failed.
    #[error("cannot read or write pattern database {path}; check the path and its permissions")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// A parsed pattern database borrowing its entries from a byte buffer (a `Vec`, a memory map, or
/// an embedded slice).
///
/// ```
/// use fifteen_core::pdb::{Pdb, PdbMeta, encode, placements};
/// use fifteen_core::{Board, Size};
/// let size = Size::new(3, 2).unwrap();
/// let goal = Board::blank_first(size);
/// // A one-tile pattern: tile 1 is `distance(cell, 1)` moves from home.
/// let entries: Vec<u8> = (0..6).map(|cell| size.distance(cell, 1) as u8).collect();
/// let bytes = encode(&goal, &[1], &PdbMeta::default(), &entries).unwrap();
/// let pdb = Pdb::from_bytes(&bytes).unwrap();
/// pdb.verify().unwrap();
/// assert_eq!(pdb.entries().len() as u64, placements(6, 1));
/// assert_eq!(pdb.tiles(), &[1]);
/// assert_eq!(pdb.header().histogram, vec![1, 3, 2]);
/// ```
#[derive(Clone, Debug)]
pub struct Pdb<'a> {
    header: PdbHeader,
    size: Size,
    goal: Board,
    entries: &'a [u8],
}

impl<'a> Pdb<'a> {
    /// Parses a pattern-database file held in `bytes`: the only parser.
    ///
    /// Checks the magic, byte order, version, header, board, goal and pattern, that the entry
    /// count is the pattern's number of placements, that the entries start at the page-aligned
    /// end of the header and fill the rest of the buffer exactly, and that the histogram adds up.
    /// It does not read the entries; [`Pdb::verify`] does.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Pdb<'a>, PdbError> {
        let found = bytes.len() as u64;
        if bytes.len() < PREFIX_LEN {
            return Err(PdbError::BufferTooSmall { needed: PREFIX_LEN as u64, found });
        }
        let mut magic = [0u8; 8];
        magic.copy_from_slice(&bytes[0..8]);
        if magic != MAGIC {
            return Err(PdbError::BadMagic { found: magic });
        }
        let endian = u16::from_le_bytes([bytes[8], bytes[9]]);
        if endian != ENDIANNESS_CHECK {
            return Err(PdbError::EndianMismatch { found: endian });
        }
        let version = read_u32(bytes, 10);
        if version != FORMAT_VERSION {
            return Err(PdbError::VersionMismatch { expected: FORMAT_VERSION, found: version });
        }
        let header_len = read_u32(bytes, 14) as usize;
        if header_len > MAX_HEADER_LEN {
            return Err(PdbError::HeaderCorrupt {
                reason: format!("header length {header_len} exceeds {MAX_HEADER_LEN}"),
            });
        }
        let header_end = PREFIX_LEN + header_len;
        if bytes.len() < header_end {
            return Err(PdbError::BufferTooSmall { needed: header_end as u64, found });
        }
        let header: PdbHeader = match postcard::take_from_bytes(&bytes[PREFIX_LEN..header_end]) {
            Ok((header, [])) => header,
            Ok((_, rest)) => {
                return Err(PdbError::HeaderCorrupt {
                    reason: format!("{} unused bytes after the header", rest.len()),
                });
            }
            Err(e) => return Err(PdbError::HeaderCorrupt { reason: e.to_string() }),
        };
        let (size, goal) = check_pattern(header.width, header.height, &header.goal, &header.tiles)?;
        let placements = checked_placements(size.cells(), header.tiles.len())?;
        let EntryEncoding::U8 = header.encoding;

        let expected_offset = align_up(header_end) as u64;
        if header.payload_offset != expected_offset {
            return Err(PdbError::AlignmentMismatch {
                expected: expected_offset,
                found: header.payload_offset,
            });
        }
        // The offset is at most MAX_HEADER_LEN + a page, so it fits a usize.
        let offset = expected_offset as usize;
        if bytes.len() < offset {
            return Err(PdbError::BufferTooSmall { needed: expected_offset, found });
        }
        if bytes[header_end..offset].iter().any(|&b| b != 0) {
            return Err(PdbError::HeaderCorrupt {
                reason: "the padding after the header is not zero".to_string(),
            });
        }
        let available = found - expected_offset;
        if header.entry_count != placements {
            return Err(PdbError::EntryCountMismatch {
                header: header.entry_count,
                placements,
                available,
            });
        }
        if available < placements {
            let needed = expected_offset.saturating_add(placements);
            return Err(PdbError::BufferTooSmall { needed, found });
        }
        if available > placements {
            return Err(PdbError::EntryCountMismatch {
                header: header.entry_count,
                placements,
                available,
            });
        }
        check_histogram_sum(&header)?;
        let entries = &bytes[offset..];
        Ok(Pdb { header, size, goal, entries })
    }

    /// The header.
    pub fn header(&self) -> &PdbHeader {
        &self.header
    }

    /// The entries, one per placement, indexed by `rank(size.cells(), cells)`.
    pub fn entries(&self) -> &'a [u8] {
        self.entries
    }

    /// The board size.
    pub fn size(&self) -> Size {
        self.size
    }

    /// The goal the distances lead to.
    pub fn goal(&self) -> Board {
        self.goal.clone()
    }

    /// The pattern tiles, in pattern (rank) order.
    pub fn tiles(&self) -> &[u8] {
        &self.header.tiles
    }

    /// The largest entry other than [`UNREACHABLE`] (0 for an empty histogram).
    pub fn max_value(&self) -> u8 {
        self.header.max_value()
    }

    /// The full check: recomputes the checksum and the histogram of the entries, and checks
    /// that the goal placement is the one entry at distance 0. Reads every entry, so it costs
    /// about a second per gigabyte.
    pub fn verify(&self) -> Result<(), PdbError> {
        let found = xxhash_rust::xxh3::xxh3_64(self.entries);
        if found != self.header.checksum {
            return Err(PdbError::ChecksumMismatch { expected: self.header.checksum, found });
        }
        let (histogram, unreachable) = histogram(self.entries);
        if histogram != self.header.histogram || unreachable != self.header.unreachable {
            return Err(PdbError::HistogramMismatch {
                reason: format!(
                    "the header has {:?} (+{} unreachable) but the entries give {:?} (+{} unreachable)",
                    self.header.histogram, self.header.unreachable, histogram, unreachable
                ),
            });
        }
        // The checksum covers the entries, not the header: a header damaged into another valid
        // pattern or goal would pass it, and give wrong (inadmissible) estimates. The pattern
        // tiles on their goal cells is the only placement at distance 0, so a damaged tile or
        // goal moves that placement to an entry that is not 0.
        let positions = self.goal.positions();
        let home: Vec<u8> = self.header.tiles.iter().map(|&t| positions[t as usize]).collect();
        let at = super::rank(self.size.cells(), &home);
        let zero = self.entries.get(at as usize).copied();
        if zero != Some(0) || self.header.histogram.first() != Some(&1) {
            return Err(PdbError::HeaderCorrupt {
                reason: format!(
                    "the goal placement of tiles {:?} has entry {zero:?}, not the one 0: the header's tiles or goal do not match the entries",
                    self.header.tiles
                ),
            });
        }
        Ok(())
    }
}

/// The file prefix, header and padding for `entries`: the bytes that precede the entries in the
/// file (their length is the payload offset). Computes the checksum and histogram itself.
pub fn encode_header(
    goal: &Board,
    tiles: &[u8],
    meta: &PdbMeta,
    entries: &[u8],
) -> Result<Vec<u8>, PdbError> {
    let size = goal.size();
    check_pattern(size.width() as u8, size.height() as u8, goal.cells(), tiles)?;
    let placements = checked_placements(size.cells(), tiles.len())?;
    if entries.len() as u64 != placements {
        return Err(PdbError::EntryCountMismatch {
            header: placements,
            placements,
            available: entries.len() as u64,
        });
    }
    let (histogram, unreachable) = histogram(entries);
    let mut header = PdbHeader {
        width: size.width() as u8,
        height: size.height() as u8,
        goal: goal.cells().to_vec(),
        tiles: tiles.to_vec(),
        encoding: EntryEncoding::U8,
        entry_count: placements,
        payload_offset: PAYLOAD_ALIGN as u64,
        checksum: xxhash_rust::xxh3::xxh3_64(entries),
        histogram,
        unreachable,
        generator: meta.generator.clone(),
        preset: meta.preset.clone(),
    };
    // postcard writes varints, so the header length depends on the offset it records: repeat
    // until the offset is the aligned end of the header (twice at most in practice).
    loop {
        let encoded = postcard::to_stdvec(&header)
            .map_err(|e| PdbError::HeaderCorrupt { reason: e.to_string() })?;
        if encoded.len() > MAX_HEADER_LEN {
            return Err(PdbError::HeaderCorrupt {
                reason: format!("header of {} bytes exceeds {MAX_HEADER_LEN}", encoded.len()),
            });
        }
        let offset = align_up(PREFIX_LEN + encoded.len());
        if offset as u64 != header.payload_offset {
            header.payload_offset = offset as u64;
            continue;
        }
        let mut out = Vec::with_capacity(offset);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&ENDIANNESS_CHECK.to_le_bytes());
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(encoded.len() as u32).to_le_bytes());
        out.extend_from_slice(&encoded);
        out.resize(offset, 0);
        return Ok(out);
    }
}

/// A whole pattern-database file in memory: [`encode_header`] followed by the entries.
pub fn encode(
    goal: &Board,
    tiles: &[u8],
    meta: &PdbMeta,
    entries: &[u8],
) -> Result<Vec<u8>, PdbError> {
    let mut out = encode_header(goal, tiles, meta, entries)?;
    out.extend_from_slice(entries);
    Ok(out)
}

/// Writes a pattern-database file to `path` without ever leaving a partial file there: writes a
/// temporary file in the same folder, fsyncs it, renames it over `path`, then fsyncs the folder.
/// An interrupted run leaves at most a `.{name}.tmp-{pid}` file, which never loads as `path`.
pub fn write_pdb_file(
    path: &Path,
    goal: &Board,
    tiles: &[u8],
    meta: &PdbMeta,
    entries: &[u8],
) -> Result<(), PdbError> {
    let head = encode_header(goal, tiles, meta, entries)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&tmp).map_err(io(&tmp))?;
        file.write_all(&head).map_err(io(&tmp))?;
        file.write_all(entries).map_err(io(&tmp))?;
        file.sync_all().map_err(io(&tmp))?;
        super::table::uncache(&file);
        drop(file);
        fs::rename(&tmp, path).map_err(io(path))
    })();
    if result.is_err() {
        // Best effort: the temporary name never loads, so a leftover is only clutter.
        let _ = fs::remove_file(&tmp);
        return result;
    }
    // Persist the rename itself. Opening a folder fails on some platforms; the data is safe.
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Wraps an I/O error with the file it concerns.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PdbError + '_ {
    move |source| PdbError::Io { path: path.to_path_buf(), source }
}

/// Counts of entries per value (up to the largest value other than [`UNREACHABLE`]) and the
/// number of [`UNREACHABLE`] entries.
fn histogram(entries: &[u8]) -> (Vec<u64>, u64) {
    let mut counts = [0u64; 256];
    for &e in entries {
        counts[e as usize] += 1;
    }
    let unreachable = counts[UNREACHABLE as usize];
    let len = counts[..UNREACHABLE as usize].iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
    (counts[..len].to_vec(), unreachable)
}

/// The histogram has at most one slot per non-[`UNREACHABLE`] value and adds up to the count.
fn check_histogram_sum(header: &PdbHeader) -> Result<(), PdbError> {
    if header.histogram.len() > UNREACHABLE as usize {
        return Err(PdbError::HistogramMismatch {
            reason: format!("{} slots, at most {} allowed", header.histogram.len(), UNREACHABLE),
        });
    }
    let sum = header
        .histogram
        .iter()
        .try_fold(header.unreachable, |acc, &c| acc.checked_add(c))
        .ok_or_else(|| PdbError::HistogramMismatch { reason: "the counts overflow".to_string() })?;
    if sum != header.entry_count {
        return Err(PdbError::HistogramMismatch {
            reason: format!(
                "the counts add up to {sum}, not the entry count {}",
                header.entry_count
            ),
        });
    }
    Ok(())
}

/// Checks the board size, the goal and the pattern tiles (in range, not the blank, distinct,
/// at least one).
fn check_pattern(
    width: u8,
    height: u8,
    goal: &[u8],
    tiles: &[u8],
) -> Result<(Size, Board), PdbError> {
    let bad = |reason: String| PdbError::BadPattern { reason };
    let size = Size::new(width as usize, height as usize).map_err(|e| bad(e.to_string()))?;
    let goal = Board::from_cells(size, goal).map_err(|e| bad(format!("goal: {e}")))?;
    let n = size.cells();
    if tiles.is_empty() {
        return Err(bad("the pattern has no tiles".to_string()));
    }
    let mut seen = [false; MAX_CELLS];
    for &t in tiles {
        if t == 0 {
            return Err(bad("the blank (0) cannot be a pattern tile".to_string()));
        }
        if t as usize >= n {
            return Err(bad(format!(
                "tile {t} is out of range for a {size} board (1 to {})",
                n - 1
            )));
        }
        if std::mem::replace(&mut seen[t as usize], true) {
            return Err(bad(format!("tile {t} appears twice in the pattern")));
        }
    }
    Ok((size, goal))
}

/// `placements(n, k)` with overflow reported as a bad pattern.
fn checked_placements(n: usize, k: usize) -> Result<u64, PdbError> {
    let mut total = 1u64;
    for i in 0..k {
        total = total.checked_mul((n - i) as u64).ok_or_else(|| PdbError::BadPattern {
            reason: format!("{k} tiles on {n} cells have more placements than fit in 64 bits"),
        })?;
    }
    Ok(total)
}

/// `offset` rounded up to a multiple of [`PAYLOAD_ALIGN`] (no overflow: offsets are small).
fn align_up(offset: usize) -> usize {
    offset.div_ceil(PAYLOAD_ALIGN) * PAYLOAD_ALIGN
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

#[cfg(test)]
mod tests;
