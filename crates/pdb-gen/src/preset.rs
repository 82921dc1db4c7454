//! The named partitions and the names of their files.
//!
//! All presets use Korf's goal: the blank on cell 0 and tile `p` on cell `p`
//! ([`Board::blank_first`]). A preset with patterns `P1, P2, ...` is written as one file per
//! pattern, `{name}.p1.pdb`, `{name}.p2.pdb`, ... in pattern order (see [`file_name`]).

use fifteen_core::pdb::EntryEncoding;
use fifteen_core::{Board, Size};

/// Clausecker & Reinefeld's "small" 5x5 catalogue: fourteen 6-tile patterns whose exact
/// covers of the 24 tiles are seven partitions (the 5x5-14x6 presets, in three encodings).
const SMALL_CATALOGUE: &[&[u8]] = &[
    &[1, 5, 6, 10, 11, 12],
    &[2, 3, 4, 7, 8, 9],
    &[13, 14, 18, 19, 23, 24],
    &[15, 16, 17, 20, 21, 22],
    &[1, 2, 5, 6, 10, 11],
    &[3, 4, 7, 8, 9, 12],
    &[13, 14, 15, 16, 17, 18],
    &[19, 20, 21, 22, 23, 24],
    &[1, 5, 6, 10, 15, 20],
    &[11, 12, 16, 17, 21, 22],
    &[3, 4, 9, 14, 19, 24],
    &[7, 8, 12, 13, 18, 23],
    &[11, 12, 13, 16, 17, 18],
    &[14, 19, 21, 22, 23, 24],
];

/// The five patterns Clausecker's "improved" 5x5 catalogue adds to the small one.
const IMPROVED_EXTRA: &[&[u8]] = &[
    &[2, 3, 7, 8, 13, 18],
    &[1, 2, 5, 6, 10, 15],
    &[3, 4, 7, 8, 9, 14],
    &[11, 16, 17, 20, 21, 22],
    &[12, 13, 18, 19, 23, 24],
];

/// Clausecker's "improved" 5x5 catalogue: the small one's fourteen patterns (in the same order,
/// so that their files match) then the five more, whose exact covers are twelve partitions.
const IMPROVED_CATALOGUE: [&[u8]; 19] = concat(SMALL_CATALOGUE, IMPROVED_EXTRA);

/// `a` then `b`, as an array of `N` (their lengths' sum).
const fn concat<const N: usize>(a: &[&'static [u8]], b: &[&'static [u8]]) -> [&'static [u8]; N] {
    assert!(a.len() + b.len() == N);
    let mut out: [&'static [u8]; N] = [&[]; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// A named partition of the tiles of one board size into patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// The name, also the prefix of its file names, for example `4x4-6-6-3`.
    pub name: &'static str,
    /// Board width.
    pub width: u8,
    /// Board height.
    pub height: u8,
    /// The patterns, each in pattern (rank) order; together they hold every tile once.
    pub patterns: &'static [&'static [u8]],
    /// One line for `--help` and listings.
    pub description: &'static str,
    /// How its tables store entries: [`EntryEncoding::U8`] (one byte per placement),
    /// [`EntryEncoding::ZeroAware`] (a byte per placement and blank region) or
    /// [`EntryEncoding::ZeroAwareBits`] (the same, one bit each).
    pub encoding: EntryEncoding,
}

impl Preset {
    /// The board size.
    pub fn size(&self) -> Size {
        match Size::new(self.width as usize, self.height as usize) {
            Ok(size) => size,
            // The table below holds only valid sizes; a test checks it.
            Err(_) => Size::S4X4,
        }
    }

    /// The goal the tables lead to: blank first.
    pub fn goal(&self) -> Board {
        Board::blank_first(self.size())
    }

    /// The file name of pattern `index` (0-based).
    pub fn file_name(&self, index: usize) -> String {
        file_name(self.name, index)
    }
}

/// Every preset, the default set (`4x4-7-8`, `4x4-6-6-3`) first.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "4x4-7-8",
        width: 4,
        height: 4,
        patterns: &[&[1, 2, 3, 4, 5, 6, 7], &[8, 9, 10, 11, 12, 13, 14, 15]],
        description: "15-puzzle, 7-8 partition (top half, bottom half): 58 MB + 519 MB",
        encoding: EntryEncoding::U8,
    },
    Preset {
        name: "4x4-6-6-3",
        width: 4,
        height: 4,
        patterns: &[&[1, 2, 3], &[4, 5, 8, 9, 12, 13], &[6, 7, 10, 11, 14, 15]],
        description: "15-puzzle, 6-6-3 partition: 3 kB + 2 x 5.8 MB",
        encoding: EntryEncoding::U8,
    },
    Preset {
        name: "3x3-8",
        width: 3,
        height: 3,
        patterns: &[&[1, 2, 3, 4, 5, 6, 7, 8]],
        description: "8-puzzle, all tiles in one pattern: exact distances, 363 kB",
        encoding: EntryEncoding::U8,
    },
    Preset {
        name: "5x5-6-6-6-6",
        width: 5,
        height: 5,
        patterns: &[
            &[1, 2, 5, 6, 7, 12],
            &[3, 4, 8, 9, 13, 14],
            &[10, 11, 15, 16, 20, 21],
            &[17, 18, 19, 22, 23, 24],
        ],
        description: "24-puzzle, Korf & Felner's 6-6-6-6 partition: 4 x 128 MB",
        encoding: EntryEncoding::U8,
    },
    Preset {
        name: "5x5-14x6",
        width: 5,
        height: 5,
        patterns: SMALL_CATALOGUE,
        description: "24-puzzle, a catalogue of fourteen 6-tile patterns (seven partitions, Clausecker & Reinefeld's \"small\"): 14 x 128 MB",
        encoding: EntryEncoding::U8,
    },
    Preset {
        name: "5x5-14x6-zero",
        width: 5,
        height: 5,
        patterns: SMALL_CATALOGUE,
        description: "24-puzzle, the same catalogue zero-aware (an entry per blank region): 14 x 181 MB",
        encoding: EntryEncoding::ZeroAware,
    },
    Preset {
        name: "5x5-14x6-bits",
        width: 5,
        height: 5,
        patterns: SMALL_CATALOGUE,
        description: "24-puzzle, the default: the zero-aware catalogue stored as one bit per entry: 14 x 22.6 MB",
        encoding: EntryEncoding::ZeroAwareBits,
    },
    Preset {
        name: "5x5-19x6-bits",
        width: 5,
        height: 5,
        patterns: &IMPROVED_CATALOGUE,
        description: "24-puzzle, Clausecker's \"improved\" catalogue (nineteen 6-tile patterns, twelve partitions), zero-aware, one bit per entry: 19 x 22.6 MB; a fifth fewer expansions than the default, slower per node",
        encoding: EntryEncoding::ZeroAwareBits,
    },
    Preset {
        name: "6x6-7x5",
        width: 6,
        height: 6,
        patterns: &[
            &[1, 2, 3, 7, 8],
            &[4, 5, 9, 10, 11],
            &[6, 12, 13, 18, 19],
            &[14, 15, 16, 20, 21],
            &[17, 22, 23, 28, 29],
            &[24, 25, 26, 30, 31],
            &[27, 32, 33, 34, 35],
        ],
        description: "35-puzzle, seven compact 5-tile patterns: 7 x 45 MB",
        encoding: EntryEncoding::U8,
    },
    Preset {
        name: "7x7-12x4",
        width: 7,
        height: 7,
        patterns: &[
            &[1, 2, 7, 8],
            &[3, 4, 9, 10],
            &[5, 6, 11, 12],
            &[13, 19, 20, 27],
            &[17, 18, 25, 26],
            &[15, 16, 23, 24],
            &[14, 21, 22, 28],
            &[29, 30, 35, 36],
            &[31, 32, 37, 38],
            &[33, 34, 39, 40],
            &[41, 46, 47, 48],
            &[42, 43, 44, 45],
        ],
        description: "48-puzzle, twelve 4-tile blocks: 12 x 5.1 MB",
        encoding: EntryEncoding::U8,
    },
    Preset {
        name: "8x8-15x4-3",
        width: 8,
        height: 8,
        patterns: &[
            &[1, 2, 8, 9],
            &[3, 4, 10, 11],
            &[5, 6, 12, 13],
            &[7, 14, 15, 23],
            &[21, 22, 30, 31],
            &[19, 20, 28, 29],
            &[17, 18, 26, 27],
            &[16, 24, 25, 32],
            &[33, 34, 40, 41],
            &[35, 36, 42, 43],
            &[37, 38, 44, 45],
            &[39, 46, 47, 55],
            &[53, 54, 62, 63],
            &[51, 52, 60, 61],
            &[49, 50, 58, 59],
            &[48, 56, 57],
        ],
        description: "63-puzzle, fifteen 4-tile blocks and one of 3: 15 x 15 MB + 0.25 MB",
        encoding: EntryEncoding::U8,
    },
];

/// The default set of each board size that has one, as (width, height, preset): what `fifteen
/// pdb build --size WxH`, `pdb-gen --size WxH` (without `--pattern`) and `cargo xtask gen-pdb
/// --size WxH` build.
pub const DEFAULTS: &[(u8, u8, &str)] = &[
    (3, 3, "3x3-8"),
    (4, 4, "4x4-7-8"),
    (5, 5, "5x5-14x6-bits"),
    (6, 6, "6x6-7x5"),
    (7, 7, "7x7-12x4"),
    (8, 8, "8x8-15x4-3"),
];

/// The default set of boards of `size`, if it has one ([`DEFAULTS`]).
///
/// ```
/// use fifteen_core::Size;
/// assert_eq!(pdb_gen::default_for(Size::S4X4).map(|p| p.name), Some("4x4-7-8"));
/// ```
pub fn default_for(size: Size) -> Option<&'static Preset> {
    DEFAULTS
        .iter()
        .find(|&&(w, h, _)| usize::from(w) == size.width() && usize::from(h) == size.height())
        .and_then(|&(_, _, name)| preset(name))
}

/// The sizes with a default set, for messages: `3x3, 4x4, 5x5`.
pub fn default_sizes() -> String {
    DEFAULTS.iter().map(|(w, h, _)| format!("{w}x{h}")).collect::<Vec<_>>().join(", ")
}

/// The preset called `name`, if any.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The file name of pattern `index` (0-based) of the set called `name`: `{name}.p{index+1}.pdb`,
/// for example `4x4-6-6-3.p2.pdb` for the pattern `4, 5, 8, 9, 12, 13`.
///
/// ```
/// assert_eq!(pdb_gen::file_name("4x4-7-8", 0), "4x4-7-8.p1.pdb");
/// ```
pub fn file_name(name: &str, index: usize) -> String {
    format!("{name}.p{}.pdb", index + 1)
}
