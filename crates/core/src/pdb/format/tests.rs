//! Tests of the file format: a round trip, and each kind of damage giving its own error.

use super::*;
use crate::pdb::{placements, unrank};

/// A 2x3 table for tiles 1 and 2 (blank-first goal), filled by hand with the sum of taxicab
/// distances: valid as a file, whatever its values mean.
fn tiny() -> (Board, Vec<u8>, Vec<u8>) {
    let size = Size::new(3, 2).unwrap();
    let goal = Board::blank_first(size);
    let tiles = vec![1u8, 2];
    let n = size.cells();
    let mut cells = [0u8; 2];
    let entries = (0..placements(n, 2))
        .map(|i| {
            unrank(n, i, &mut cells);
            (size.distance(cells[0] as usize, 1) + size.distance(cells[1] as usize, 2)) as u8
        })
        .collect();
    (goal, tiles, entries)
}

fn meta() -> PdbMeta {
    PdbMeta { generator: "test".to_string(), preset: Some("tiny".to_string()) }
}

fn tiny_file() -> Vec<u8> {
    let (goal, tiles, entries) = tiny();
    encode(&goal, &tiles, &meta(), &entries).unwrap()
}

/// Replaces the header with `header` re-encoded and sealed with a valid header checksum, so
/// that the checks behind the checksum see it.
fn with_header(header: &PdbHeader, entries: &[u8]) -> Vec<u8> {
    let encoded = postcard::to_stdvec(header).unwrap();
    let mut out = seal(&encoded, align_up(PREFIX_LEN + encoded.len()));
    out.resize(header.payload_offset as usize, 0);
    reseal_header_checksum(&mut out);
    out.extend_from_slice(entries);
    out
}

#[test]
fn round_trip() {
    let (goal, tiles, entries) = tiny();
    let bytes = tiny_file();
    assert_eq!(bytes.len(), PAYLOAD_ALIGN + 30);
    let pdb = Pdb::from_bytes(&bytes).unwrap();
    pdb.verify().unwrap();
    assert_eq!(pdb.entries(), &entries[..]);
    assert_eq!(pdb.goal(), goal);
    assert_eq!(pdb.tiles(), &tiles[..]);
    assert_eq!(pdb.size(), Size::new(3, 2).unwrap());
    let h = pdb.header();
    assert_eq!(h.payload_offset, PAYLOAD_ALIGN as u64);
    assert_eq!(h.entry_count, 30);
    assert_eq!(h.histogram.iter().sum::<u64>() + h.unreachable, 30);
    assert_eq!(h.preset.as_deref(), Some("tiny"));
    assert_eq!(h.encoding, EntryEncoding::U8);
    assert_eq!(pdb.max_value() as usize, h.histogram.len() - 1);
}

#[test]
fn unreachable_entries_are_counted_apart() {
    let (goal, tiles, mut entries) = tiny();
    entries[3] = UNREACHABLE;
    let bytes = encode(&goal, &tiles, &meta(), &entries).unwrap();
    let pdb = Pdb::from_bytes(&bytes).unwrap();
    pdb.verify().unwrap();
    assert_eq!(pdb.header().unreachable, 1);
    assert!(pdb.header().histogram.len() < 10);
}

#[test]
fn truncated_file() {
    let bytes = tiny_file();
    for len in [0, 5, PREFIX_LEN + 3, 100, PAYLOAD_ALIGN, bytes.len() - 1] {
        let err = Pdb::from_bytes(&bytes[..len]).unwrap_err();
        assert!(matches!(err, PdbError::BufferTooSmall { .. }), "{len}: {err}");
    }
}

#[test]
fn trailing_bytes() {
    let mut bytes = tiny_file();
    bytes.push(0);
    let err = Pdb::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, PdbError::EntryCountMismatch { available: 31, .. }), "{err}");
}

#[test]
fn flipped_entry_fails_the_checksum() {
    let mut bytes = tiny_file();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    // The cheap checks pass: they never read the entries.
    let pdb = Pdb::from_bytes(&bytes).unwrap();
    let err = pdb.verify().unwrap_err();
    assert!(matches!(err, PdbError::ChecksumMismatch { .. }), "{err}");
}

#[test]
fn wrong_histogram() {
    let (_, _, entries) = tiny();
    let pdb_bytes = tiny_file();
    let mut header = Pdb::from_bytes(&pdb_bytes).unwrap().header().clone();
    header.histogram[0] += 1;
    let err = Pdb::from_bytes(&with_header(&header, &entries)).unwrap_err();
    assert!(matches!(err, PdbError::HistogramMismatch { .. }), "{err}");
    // Adds up, but does not match the entries: only `verify` sees it.
    header.histogram[1] -= 1;
    let bytes = with_header(&header, &entries);
    let err = Pdb::from_bytes(&bytes).unwrap().verify().unwrap_err();
    assert!(matches!(err, PdbError::HistogramMismatch { .. }), "{err}");
}

#[test]
fn wrong_version() {
    let mut bytes = tiny_file();
    bytes[10..14].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let err = Pdb::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, PdbError::VersionMismatch { expected: FORMAT_VERSION, .. }), "{err}");
    assert!(err.to_string().contains("fifteen pdb build"), "{err}");
}

/// Version 1 (no header checksum) is refused with a message that says how to get version 2.
#[test]
fn version_1_is_refused_with_the_way_out() {
    let mut bytes = tiny_file();
    bytes[10..14].copy_from_slice(&1u32.to_le_bytes());
    let err = Pdb::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, PdbError::OldVersion { expected: 2, found: 1 }), "{err}");
    let text = err.to_string();
    for hint in ["fifteen pdb build", "cargo xtask gen-pdb", "fifteen pdb install"] {
        assert!(text.contains(hint), "{text}");
    }
}

#[test]
fn bad_magic() {
    let mut bytes = tiny_file();
    bytes[0] = b'f';
    let err = Pdb::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, PdbError::BadMagic { .. }), "{err}");
}

#[test]
fn other_byte_order() {
    let mut bytes = tiny_file();
    bytes.swap(8, 9);
    let err = Pdb::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, PdbError::EndianMismatch { found: 0xFFFE }), "{err}");
}

#[test]
fn corrupt_header() {
    let mut bytes = tiny_file();
    // Claim a longer header: the checksum no longer matches; sealed anew, postcard finds the
    // zero padding where the header should end.
    bytes[14..18].copy_from_slice(&200u32.to_le_bytes());
    let err = Pdb::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, PdbError::HeaderChecksumMismatch { .. }), "{err}");
    reseal_header_checksum(&mut bytes);
    let err = Pdb::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, PdbError::HeaderCorrupt { .. }), "{err}");
    let mut bytes = tiny_file();
    bytes[14..18].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = Pdb::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, PdbError::HeaderCorrupt { .. }), "{err}");
}

#[test]
fn absurd_entry_count() {
    let (_, _, entries) = tiny();
    let mut header = Pdb::from_bytes(&tiny_file()).unwrap().header().clone();
    header.entry_count = u64::MAX;
    let err = Pdb::from_bytes(&with_header(&header, &entries)).unwrap_err();
    assert!(matches!(err, PdbError::EntryCountMismatch { header: u64::MAX, .. }), "{err}");
    // 40 tiles on 8x8: more placements than a u64 holds.
    let mut header = Pdb::from_bytes(&tiny_file()).unwrap().header().clone();
    header.width = 8;
    header.height = 8;
    header.goal = (0..64).collect();
    header.tiles = (1..=40).collect();
    let err = Pdb::from_bytes(&with_header(&header, &entries)).unwrap_err();
    assert!(matches!(err, PdbError::BadPattern { .. }), "{err}");
}

#[test]
fn misaligned_payload() {
    let (_, _, entries) = tiny();
    let mut header = Pdb::from_bytes(&tiny_file()).unwrap().header().clone();
    header.payload_offset = 2 * PAYLOAD_ALIGN as u64;
    let err = Pdb::from_bytes(&with_header(&header, &entries)).unwrap_err();
    assert!(matches!(err, PdbError::AlignmentMismatch { .. }), "{err}");
}

#[test]
fn bad_patterns() {
    let (_, _, entries) = tiny();
    let base = Pdb::from_bytes(&tiny_file()).unwrap().header().clone();
    let cases: [fn(&mut PdbHeader); 5] = [
        |h| h.tiles = vec![1, 1],
        |h| h.tiles = vec![0, 1],
        |h| h.tiles = vec![1, 6],
        |h| h.goal = vec![0, 1, 2, 3, 4, 4],
        |h| h.width = 9,
    ];
    for change in cases {
        let mut header = base.clone();
        change(&mut header);
        let err = Pdb::from_bytes(&with_header(&header, &entries)).unwrap_err();
        assert!(matches!(err, PdbError::BadPattern { .. }), "{header:?}: {err}");
    }
}

#[test]
fn encode_rejects_wrong_entry_count() {
    let (goal, tiles, entries) = tiny();
    let err = encode(&goal, &tiles, &meta(), &entries[1..]).unwrap_err();
    assert!(matches!(err, PdbError::EntryCountMismatch { .. }), "{err}");
}

#[test]
fn write_and_read_a_file() {
    let (goal, tiles, entries) = tiny();
    let dir = std::env::temp_dir().join(format!("fifteen-format-test-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tiny.pdb");
    write_pdb_file(&path, &goal, &tiles, &meta(), &entries).unwrap();
    let bytes = fs::read(&path).unwrap();
    Pdb::from_bytes(&bytes).unwrap().verify().unwrap();
    // Only the file itself is left: the temporary was renamed.
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
    let missing = dir.join("no-such-folder").join("x.pdb");
    let err = write_pdb_file(&missing, &goal, &tiles, &meta(), &entries).unwrap_err();
    assert!(matches!(err, PdbError::Io { .. }), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn zero_length_and_prefix_only() {
    let err = Pdb::from_bytes(&[]).unwrap_err();
    assert!(matches!(err, PdbError::BufferTooSmall { needed: 26, found: 0 }), "{err}");
    let bytes = tiny_file();
    let err = Pdb::from_bytes(&bytes[..26]).unwrap_err();
    assert!(matches!(err, PdbError::BufferTooSmall { .. }), "{err}");
    // Cut anywhere: always refused, never a panic.
    for len in 0..bytes.len() {
        assert!(Pdb::from_bytes(&bytes[..len]).is_err(), "cut at {len}");
    }
}

/// Every single-bit flip anywhere in the file is refused: by `from_bytes` before the entries
/// (the header checksum covers every byte there, text fields included), by `verify` in them.
#[test]
fn every_flipped_bit_is_caught() {
    let bytes = tiny_file();
    for at in 0..bytes.len() {
        for bit in 0..8 {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1 << bit;
            let refused = match Pdb::from_bytes(&damaged) {
                Err(_) => at < PAYLOAD_ALIGN,
                Ok(pdb) => at >= PAYLOAD_ALIGN && pdb.verify().is_err(),
            };
            assert!(refused, "byte {at} bit {bit} went unnoticed, or was caught late");
        }
    }
}

/// Every byte of the header flipped (all 8 bits) is refused at load with the error that names
/// what is wrong: the magic, the byte order, the version, or else the header checksum (the
/// header's length, the checksum itself, the header and its padding).
#[test]
fn every_header_byte_flipped_is_refused_by_name() {
    let bytes = tiny_file();
    for at in 0..PAYLOAD_ALIGN {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0xFF;
        let err = Pdb::from_bytes(&damaged).expect_err("a flipped header byte loads");
        let named = match at {
            0..8 => matches!(err, PdbError::BadMagic { .. }),
            8..10 => matches!(err, PdbError::EndianMismatch { .. }),
            10..14 => matches!(err, PdbError::VersionMismatch { .. }),
            // The header's length: over the limit, past the end of the file, or else a header
            // that does not hash to its checksum.
            14..18 => matches!(
                err,
                PdbError::HeaderCorrupt { .. }
                    | PdbError::BufferTooSmall { .. }
                    | PdbError::HeaderChecksumMismatch { .. }
            ),
            _ => matches!(err, PdbError::HeaderChecksumMismatch { .. }),
        };
        assert!(named, "byte {at}: {err}");
        assert!(err.to_string().contains("pattern database"), "byte {at}: {err}");
    }
}
