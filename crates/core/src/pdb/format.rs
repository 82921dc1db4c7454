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
//! | 18 | 8 | xxh3-64 of every byte before the entries except these 8 (the header checksum) |
//! | 26 | `L` | the [`PdbHeader`], encoded with postcard |
//! | 26 + `L` | .. | zero padding up to the next multiple of [`PAYLOAD_ALIGN`] (4096) |
//! | `payload_offset` | `entry_count` | the entries, one `u8` per placement, in [`rank`] order |
//!
//! `payload_offset` is the header end rounded up to a page, so a memory-mapped file has its
//! entries page-aligned. Nothing follows the entries.
//!
//! Two checksums cover every byte. The header checksum covers the prefix, the header and the
//! padding, and [`Pdb::from_bytes`] checks it before it decodes anything, so a damaged header
//! (a text field included) is refused at load, at the cost of hashing a few kilobytes. The
//! header's own `checksum` field covers the entries; only [`Pdb::verify`] reads them, since
//! hashing a large table takes about a second per gigabyte. Version 1 had no header checksum
//! and is refused with [`PdbError::OldVersion`].
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
pub const FORMAT_VERSION: u32 = 2;

/// The entries start at a multiple of this (a page), so they can be memory-mapped aligned.
pub const PAYLOAD_ALIGN: usize = 4096;

/// The entry value of a placement that no position reaches.
pub const UNREACHABLE: u8 = u8::MAX;

/// Where the header checksum sits: after the magic, endianness check, version and header length.
const CHECKSUM_AT: usize = 8 + 2 + 4 + 4;

/// The fixed prefix of every file: magic, endianness check, version, header length and header
/// checksum.
pub const PREFIX_LEN: usize = CHECKSUM_AT + 8;

/// A header longer than this is corrupt (real headers are under 200 bytes).
const MAX_HEADER_LEN: usize = 1 << 16;

/// How the entries are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum EntryEncoding {
    /// One byte per placement: the distance, or [`UNREACHABLE`].
    U8,
    /// One byte per state of a coloured abstraction in the multi-tile metric (`mtm::ColourTable`):
    /// `tiles` lists every tile, class by class, and bit `i` of `class_ends` is set when
    /// `tiles[i]` is the last of its class; an entry is an MTM distance. Loaders of single-tile
    /// tables refuse it, and the MTM loader refuses [`EntryEncoding::U8`].
    MtmColour {
        /// Where each class ends in `tiles`.
        class_ends: u64,
    },
    /// One byte per (placement, blank region) of a zero-aware table, in [`ZeroIndex`] order:
    /// the least number of pattern-tile moves to the goal placement with the blank in the goal
    /// blank's region, the blank moving freely inside its region. Single-tile metric.
    ///
    /// [`ZeroIndex`]: super::ZeroIndex
    ZeroAware,
    /// A zero-aware table stored as bit 1 of each entry, 8 entries a byte (entry `i` in bit
    /// `i % 8` of byte `i / 8`): every move of a pattern tile changes a zero-aware entry by
    /// exactly one, so a search that knows the parent's entry needs one bit to tell the child's
    /// (Clausecker & Reinefeld's 1-bit tables). The entry count is the number of bytes.
    ZeroAwareBits,
}

impl EntryEncoding {
    /// The metric the entries count moves in: `"stm"` or `"mtm"`.
    pub const fn metric(self) -> &'static str {
        match self {
            EntryEncoding::U8 | EntryEncoding::ZeroAware | EntryEncoding::ZeroAwareBits => "stm",
            EntryEncoding::MtmColour { .. } => "mtm",
        }
    }
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
    /// The table counts moves in another metric than the one asked for.
    #[error(
        "this pattern database counts {found} moves, but {expected} moves were asked for; use it with --metric {found}, or build the {expected} tables (`fifteen pdb build`{hint})"
    )]
    WrongMetric {
        /// The metric asked for (`stm` or `mtm`).
        expected: &'static str,
        /// The table's metric.
        found: &'static str,
        /// How to build the other metric's tables (` --metric mtm`, or nothing).
        hint: &'static str,
    },
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
        "pattern database endianness check reads {found:#06x}, expected 0xfeff: the file was written with the other byte order or is damaged; rebuild the set with `fifteen pdb build PRESET` or reinstall it"
    )]
    EndianMismatch {
        /// The value read.
        found: u16,
    },
    /// The file was written by an older version of the format, which this build no longer reads.
    #[error(
        "pattern database format version {found} is no longer read (this program reads version {expected}, whose header is checksummed); rebuild the set with `fifteen pdb build PRESET` (or `cargo xtask gen-pdb`), or reinstall the v{expected} artifacts of this release with `fifteen pdb install`"
    )]
    OldVersion {
        /// The version this build reads.
        expected: u32,
        /// The version in the file.
        found: u32,
    },
    /// The file was written by a newer (or unknown) version of the format.
    #[error(
        "pattern database format version {found}, but this program reads version {expected}; use the fifteen release that wrote it, or rebuild the set with `fifteen pdb build PRESET` (or `cargo xtask gen-pdb`)"
    )]
    VersionMismatch {
        /// The version this build reads.
        expected: u32,
        /// The version in the file.
        found: u32,
    },
    /// The buffer ends before what the header promises.
    #[error(
        "pattern database is truncated: it needs {needed} bytes but has {found}; the file was cut short or its header is damaged, rebuild the set with `fifteen pdb build PRESET` or reinstall it"
    )]
    BufferTooSmall {
        /// Bytes needed.
        needed: u64,
        /// Bytes present.
        found: u64,
    },
    /// The bytes before the entries do not hash to the header checksum.
    #[error(
        "pattern database header checksum mismatch: the file says {expected:#018x} but its header hashes to {found:#018x}; the header is damaged, rebuild the set with `fifteen pdb build PRESET` (or `cargo xtask gen-pdb`) or reinstall it"
    )]
    HeaderChecksumMismatch {
        /// The checksum in the file.
        expected: u64,
        /// The checksum of the bytes.
        found: u64,
    },
    /// The header does not decode, or the padding after it is not zero.
    #[error(
        "pattern database header is corrupt ({reason}); rebuild the set with `fifteen pdb build PRESET` or reinstall it"
    )]
    HeaderCorrupt {
        /// What went wrong, for example postcard's error text.
        reason: String,
    },
    /// The payload offset is not the page-aligned end of the header.
    #[error(
        "pattern database payload offset is {found} but must be {expected} (the header end rounded up to {PAYLOAD_ALIGN} bytes); rebuild the set with `fifteen pdb build PRESET` or reinstall it"
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
        "pattern database entry count mismatch: the header says {header}, the pattern has {placements} placements and the file holds {available} entry bytes; rebuild the set with `fifteen pdb build PRESET` or reinstall it"
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
        "pattern database has an invalid pattern: {reason}; rebuild the set with `fifteen pdb build PRESET` or pass a valid pattern to pdb-gen"
    )]
    BadPattern {
        /// What is wrong.
        reason: String,
    },
    /// The histogram does not add up to the entry count, or does not match the entries.
    #[error(
        "pattern database histogram mismatch: {reason}; the file is damaged, rebuild the set with `fifteen pdb build PRESET` or reinstall it"
    )]
    HistogramMismatch {
        /// What is wrong.
        reason: String,
    },
    /// The entries do not hash to the header's checksum.
    #[error(
        "pattern database checksum mismatch: the header says {expected:#018x} but the entries hash to {found:#018x}; the file is damaged, rebuild the set with `fifteen pdb build PRESET` or reinstall it"
    )]
    ChecksumMismatch {
        /// The checksum in the header.
        expected: u64,
        /// The checksum of the entries.
        found: u64,
    },
    /// The system refused the memory (or address space) to map or read a table.
    #[error(
        "not enough memory to load pattern database {path} ({} MB): the system refused the memory or address space for it",
        bytes.div_ceil(1_000_000)
    )]
    OutOfMemory {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
    },
    /// Reading or writing a file failed (the cause says why: a missing file, permissions, ...).
    #[error("cannot read or write pattern database {path}")]
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
    /// Checks the prefix ([`head_len`]), then the header ([`decode_header`]: its checksum,
    /// board, goal, pattern, entry count, alignment and histogram sum), then that the entries
    /// fill the rest of the buffer exactly. It does not read the entries; [`Pdb::verify`] does.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Pdb<'a>, PdbError> {
        let found = bytes.len() as u64;
        let offset = head_len(bytes)?;
        if bytes.len() < offset {
            return Err(PdbError::BufferTooSmall { needed: offset as u64, found });
        }
        let available = found - offset as u64;
        let (header, size, goal) = decode(&bytes[..offset]).map_err(|e| match e {
            // The header alone cannot say how many entry bytes follow it; the buffer can.
            PdbError::EntryCountMismatch { header, placements, .. } => {
                PdbError::EntryCountMismatch { header, placements, available }
            }
            e => e,
        })?;
        let placements = header.entry_count;
        if available < placements {
            let needed = (offset as u64).saturating_add(placements);
            return Err(PdbError::BufferTooSmall { needed, found });
        }
        if available > placements {
            return Err(PdbError::EntryCountMismatch {
                header: header.entry_count,
                placements,
                available,
            });
        }
        Ok(Pdb { header, size, goal, entries: &bytes[offset..] })
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
        let mut check = EntryCheck::new(&self.header)?;
        check.update(self.entries);
        check.finish()
    }
}

/// The full check of a table's entries fed in pieces, as they are read from a stream: the
/// checksum, the histogram, and the goal placement being the one entry at 0. [`Pdb::verify`] is
/// this over the whole slice; `fifteen pdb install` feeds it while decompressing, so it never
/// maps or re-reads the file.
pub struct EntryCheck<'h> {
    header: &'h PdbHeader,
    hasher: xxhash_rust::xxh3::Xxh3,
    counts: Box<[u64; 256]>,
    /// Entries seen so far.
    seen: u64,
    /// The goal placement's index, and its entry once seen.
    home: u64,
    home_entry: Option<u8>,
}

impl std::fmt::Debug for EntryCheck<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryCheck").field("seen", &self.seen).field("home", &self.home).finish()
    }
}

impl<'h> EntryCheck<'h> {
    /// A check of the entries `header` describes (a header that [`decode_header`] accepted).
    pub fn new(header: &'h PdbHeader) -> Result<EntryCheck<'h>, PdbError> {
        let (size, goal) = check_pattern(header.width, header.height, &header.goal, &header.tiles)?;
        let positions = goal.positions();
        let home: Vec<u8> = header.tiles.iter().map(|&t| positions[t as usize]).collect();
        Ok(EntryCheck {
            header,
            hasher: xxhash_rust::xxh3::Xxh3::new(),
            counts: Box::new([0; 256]),
            seen: 0,
            home: match header.encoding {
                EntryEncoding::MtmColour { class_ends } => {
                    crate::mtm::goal_rank(&goal, &header.tiles, class_ends)
                        .map_err(|reason| PdbError::BadPattern { reason })?
                }
                EntryEncoding::ZeroAware => super::ZeroIndex::shared(size, home.len())
                    .map_err(|e| PdbError::BadPattern { reason: e.to_string() })?
                    .index(&home, goal.blank())
                    .into(),
                _ => super::rank(size.cells(), &home),
            },
            home_entry: None,
        })
    }

    /// The next entries, in order.
    pub fn update(&mut self, entries: &[u8]) {
        self.hasher.update(entries);
        for &e in entries {
            self.counts[e as usize] += 1;
        }
        if let Some(i) = self.home.checked_sub(self.seen)
            && let Some(&e) = entries.get(i as usize)
        {
            self.home_entry = Some(e);
        }
        self.seen += entries.len() as u64;
    }

    /// Whether the entries fed match the header.
    pub fn finish(self) -> Result<(), PdbError> {
        let header = self.header;
        if self.seen != header.entry_count {
            return Err(PdbError::BufferTooSmall { needed: header.entry_count, found: self.seen });
        }
        let found = self.hasher.digest();
        if found != header.checksum {
            return Err(PdbError::ChecksumMismatch { expected: header.checksum, found });
        }
        let (histogram, unreachable) = histogram_of(&self.counts);
        if histogram != header.histogram || unreachable != header.unreachable {
            return Err(PdbError::HistogramMismatch {
                reason: format!(
                    "the header has {:?} (+{} unreachable) but the entries give {:?} (+{} unreachable)",
                    header.histogram, header.unreachable, histogram, unreachable
                ),
            });
        }
        // The header checksum already refuses a damaged header; this also catches a header that
        // was written for other entries (a bug in a writer): the pattern tiles on their goal
        // cells (with the blank in the goal blank's region, for a zero-aware table) is the only
        // state at distance 0, so a wrong tile or goal moves that state to an entry that is not 0.
        // A table of bits has no entry that is 0 alone: its checksums are its check.
        if header.encoding == EntryEncoding::ZeroAwareBits {
            return Ok(());
        }
        let zero = self.home_entry;
        if zero != Some(0) || header.histogram.first() != Some(&1) {
            return Err(PdbError::HeaderCorrupt {
                reason: format!(
                    "the goal placement of tiles {:?} has entry {zero:?}, not the one 0: the header's tiles or goal do not match the entries",
                    header.tiles
                ),
            });
        }
        Ok(())
    }
}

/// The number of bytes before the entries (the payload offset), read from the first
/// [`PREFIX_LEN`] bytes of a file after checking its magic, byte order, version and header length.
/// A reader of a stream takes this many bytes next and hands them to [`decode_header`].
pub fn head_len(prefix: &[u8]) -> Result<usize, PdbError> {
    if prefix.len() < PREFIX_LEN {
        let (needed, found) = (PREFIX_LEN as u64, prefix.len() as u64);
        return Err(PdbError::BufferTooSmall { needed, found });
    }
    let magic: [u8; 8] = read_array(prefix, 0);
    if magic != MAGIC {
        return Err(PdbError::BadMagic { found: magic });
    }
    let endian = u16::from_le_bytes(read_array(prefix, 8));
    if endian != ENDIANNESS_CHECK {
        return Err(PdbError::EndianMismatch { found: endian });
    }
    check_version(read_u32(prefix, 10))?;
    let header_len = read_u32(prefix, 14) as usize;
    if header_len > MAX_HEADER_LEN {
        return Err(PdbError::HeaderCorrupt {
            reason: format!("header length {header_len} exceeds {MAX_HEADER_LEN}"),
        });
    }
    Ok(align_up(PREFIX_LEN + header_len))
}

/// Whether this build reads format version `found`: [`PdbError::OldVersion`] for an older one
/// (the message says how to rebuild or reinstall), [`PdbError::VersionMismatch`] for another.
pub fn check_version(found: u32) -> Result<(), PdbError> {
    match found {
        FORMAT_VERSION => Ok(()),
        1..FORMAT_VERSION => Err(PdbError::OldVersion { expected: FORMAT_VERSION, found }),
        _ => Err(PdbError::VersionMismatch { expected: FORMAT_VERSION, found }),
    }
}

/// Decodes and checks the header from `head`, the bytes before the entries (exactly
/// [`head_len`] of them): the header checksum, then the board, goal, pattern, entry count,
/// alignment and histogram sum. The entry count it returns is the pattern's number of
/// placements, so a reader knows how many bytes the entries take before it reads them.
pub fn decode_header(head: &[u8]) -> Result<PdbHeader, PdbError> {
    let offset = head_len(head)?;
    if head.len() != offset {
        return Err(PdbError::BufferTooSmall { needed: offset as u64, found: head.len() as u64 });
    }
    decode(head).map(|(header, _, _)| header)
}

/// [`decode_header`] on `head` of the right length, also giving the checked size and goal.
fn decode(head: &[u8]) -> Result<(PdbHeader, Size, Board), PdbError> {
    let stored = u64::from_le_bytes(read_array(head, CHECKSUM_AT));
    let computed = header_checksum(head);
    if stored != computed {
        return Err(PdbError::HeaderChecksumMismatch { expected: stored, found: computed });
    }
    let header_end = PREFIX_LEN + read_u32(head, 14) as usize;
    let header: PdbHeader = match postcard::take_from_bytes(&head[PREFIX_LEN..header_end]) {
        Ok((header, [])) => header,
        Ok((_, rest)) => {
            return Err(PdbError::HeaderCorrupt {
                reason: format!("{} unused bytes after the header", rest.len()),
            });
        }
        Err(e) => return Err(PdbError::HeaderCorrupt { reason: e.to_string() }),
    };
    let (size, goal) = check_pattern(header.width, header.height, &header.goal, &header.tiles)?;
    let placements = entry_count(size, &header.tiles, header.encoding)?;
    let offset = head.len() as u64;
    if header.payload_offset != offset {
        return Err(PdbError::AlignmentMismatch { expected: offset, found: header.payload_offset });
    }
    if head[header_end..].iter().any(|&b| b != 0) {
        return Err(PdbError::HeaderCorrupt {
            reason: "the padding after the header is not zero".to_string(),
        });
    }
    if header.entry_count != placements {
        return Err(PdbError::EntryCountMismatch {
            header: header.entry_count,
            placements,
            available: 0,
        });
    }
    check_histogram_sum(&header)?;
    Ok((header, size, goal))
}

/// The file prefix, header and padding for `entries`: the bytes that precede the entries in the
/// file (their length is the payload offset). Computes the checksum and histogram itself.
pub fn encode_header(
    goal: &Board,
    tiles: &[u8],
    meta: &PdbMeta,
    entries: &[u8],
) -> Result<Vec<u8>, PdbError> {
    encode_header_as(goal, tiles, EntryEncoding::U8, meta, entries)
}

/// [`encode_header`] for entries stored as `encoding`.
pub fn encode_header_as(
    goal: &Board,
    tiles: &[u8],
    encoding: EntryEncoding,
    meta: &PdbMeta,
    entries: &[u8],
) -> Result<Vec<u8>, PdbError> {
    let size = goal.size();
    check_pattern(size.width() as u8, size.height() as u8, goal.cells(), tiles)?;
    let placements = entry_count(size, tiles, encoding)?;
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
        encoding,
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
        return Ok(seal(&encoded, offset));
    }
}

/// The bytes before the entries for an encoded header: the prefix with the header checksum, the
/// header, and zero padding up to `offset`.
fn seal(encoded: &[u8], offset: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(offset);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&ENDIANNESS_CHECK.to_le_bytes());
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(encoded.len() as u32).to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(encoded);
    out.resize(offset, 0);
    let sum = header_checksum(&out);
    out[CHECKSUM_AT..PREFIX_LEN].copy_from_slice(&sum.to_le_bytes());
    out
}

/// The header checksum of `head`, the bytes before the entries: xxh3-64 of all of them but the
/// checksum's own 8 bytes. `head` holds at least [`PREFIX_LEN`] bytes.
fn header_checksum(head: &[u8]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&head[..CHECKSUM_AT]);
    hasher.update(&head[PREFIX_LEN..]);
    hasher.digest()
}

/// Writes the right header checksum into `bytes`, a file or its first bytes, where the prefix
/// and the declared header length allow it, so that a fuzzer's mutations of the header reach the
/// decoder behind the checksum. Nothing else should need it: writers seal their headers.
#[doc(hidden)]
pub fn reseal_header_checksum(bytes: &mut [u8]) {
    if bytes.len() < PREFIX_LEN {
        return;
    }
    let header_len = read_u32(bytes, 14) as usize;
    if header_len > MAX_HEADER_LEN {
        return;
    }
    let end = align_up(PREFIX_LEN + header_len).min(bytes.len());
    let sum = header_checksum(&bytes[..end]);
    bytes[CHECKSUM_AT..PREFIX_LEN].copy_from_slice(&sum.to_le_bytes());
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
    write_pdb_file_as(path, goal, tiles, EntryEncoding::U8, meta, entries)
}

/// [`write_pdb_file`] for entries stored as `encoding`.
pub fn write_pdb_file_as(
    path: &Path,
    goal: &Board,
    tiles: &[u8],
    encoding: EntryEncoding,
    meta: &PdbMeta,
    entries: &[u8],
) -> Result<(), PdbError> {
    let head = encode_header_as(goal, tiles, encoding, meta, entries)?;
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
    histogram_of(&counts)
}

/// [`histogram`] from the counts of each byte value.
fn histogram_of(counts: &[u64; 256]) -> (Vec<u64>, u64) {
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

/// The number of entries of a table of `tiles` on `n` cells stored as `encoding`.
fn entry_count(size: Size, tiles: &[u8], encoding: EntryEncoding) -> Result<u64, PdbError> {
    let n = size.cells();
    match encoding {
        EntryEncoding::U8 => checked_placements(n, tiles.len()),
        EntryEncoding::ZeroAware => super::ZeroIndex::shared(size, tiles.len())
            .map(|z| z.entries())
            .map_err(|e| PdbError::BadPattern { reason: e.to_string() }),
        EntryEncoding::ZeroAwareBits => super::ZeroIndex::shared(size, tiles.len())
            .map(|z| z.entries().div_ceil(8))
            .map_err(|e| PdbError::BadPattern { reason: e.to_string() }),
        EntryEncoding::MtmColour { class_ends } => {
            let sizes = crate::mtm::class_sizes(tiles.len(), class_ends).ok_or_else(|| {
                PdbError::BadPattern { reason: "the colour classes do not cover the tiles".into() }
            })?;
            if tiles.len() + 1 != n {
                return Err(PdbError::BadPattern {
                    reason: "a colour table must list every tile".to_string(),
                });
            }
            Ok(crate::mtm::multinomial(n, &sizes))
        }
    }
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
    u32::from_le_bytes(read_array(bytes, at))
}

/// `N` bytes at `at`; the caller has checked the length.
fn read_array<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&bytes[at..at + N]);
    out
}

#[cfg(test)]
mod tests;
