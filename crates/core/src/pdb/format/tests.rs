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

/// Replaces the header with `header` re-encoded, keeping the prefix layout valid.
fn with_header(header: &PdbHeader, entries: &[u8]) -> Vec<u8> {
    let encoded = postcard::to_stdvec(header).unwrap();
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&ENDIANNESS_CHECK.to_le_bytes());
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(encoded.len() as u32).to_le_bytes());
    out.extend_from_slice(&encoded);
    out.resize(header.payload_offset as usize, 0);
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
    assert!(err.to_string().contains("cargo xtask gen-pdb"));
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
    // Claim a longer header: postcard finds the zero padding where the header should end.
    bytes[14..18].copy_from_slice(&200u32.to_le_bytes());
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
    assert!(matches!(err, PdbError::BufferTooSmall { needed: 18, found: 0 }), "{err}");
    let bytes = tiny_file();
    let err = Pdb::from_bytes(&bytes[..18]).unwrap_err();
    assert!(matches!(err, PdbError::BufferTooSmall { .. }), "{err}");
    // Cut anywhere: always refused, never a panic.
    for len in 0..bytes.len() {
        assert!(Pdb::from_bytes(&bytes[..len]).is_err(), "cut at {len}");
    }
}

/// Every single-bit flip anywhere in the file is refused by `from_bytes` or `verify`, except in
/// the generator and preset texts, which describe the file and change no entry or check.
#[test]
fn every_flipped_bit_is_caught() {
    let bytes = tiny_file();
    let original = Pdb::from_bytes(&bytes).unwrap().header().clone();
    for at in 0..bytes.len() {
        for bit in 0..8 {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1 << bit;
            let Ok(pdb) = Pdb::from_bytes(&damaged) else { continue };
            if pdb.verify().is_err() {
                continue;
            }
            let h = pdb.header();
            let same_checks = PdbHeader {
                generator: original.generator.clone(),
                preset: original.preset.clone(),
                ..h.clone()
            };
            assert_eq!(same_checks, original, "byte {at} bit {bit} went unnoticed");
            assert_eq!(pdb.entries(), &bytes[PAYLOAD_ALIGN..], "byte {at} bit {bit}");
        }
    }
}
