//! Tests of reading the huge-page share of a table from smaps.

use super::*;
use crate::pdb::{PdbMeta, write_pdb_file};

/// Three mappings as Linux 6.x prints them (fields trimmed): a table file mapped with 2 MiB
/// entries, anonymous memory in huge pages, and a mapping from an older kernel without
/// `FilePmdMapped`.
const SMAPS: &str = "\
7f2a00000000-7f2a22800000 r--s 00000000 fe:00 1234                       /data/4x4-7-8.p1.pdb
Size:             565248 kB
KernelPageSize:        4 kB
Rss:              565248 kB
AnonHugePages:         0 kB
ShmemPmdMapped:        0 kB
FilePmdMapped:    563200 kB
THPeligible:           1
VmFlags: rd sh mr mw me ms hg
7f2a40000000-7f2a40600000 r--p 00000000 00:00 0 
Size:               6144 kB
AnonHugePages:      4096 kB
FilePmdMapped:         0 kB
VmFlags: rd mr mw me ac hg
7f2a50000000-7f2a50001000 r--p 00000000 fe:00 99                         /old/kernel
Size:                  4 kB
AnonHugePages:         0 kB
VmFlags: rd mr mw me
7f2a60000000-7f2a60001000 r--p 00000000 fe:00 98                         /no/fields
Size:                  4 kB
VmFlags: rd mr mw me
7f2a70000000-7f2a70001000 r--p 00000000 fe:00 97                         /bad/value
AnonHugePages:      many kB
";

#[test]
fn smaps_huge_bytes_reads_the_mapping_holding_the_address() {
    let check = |addr: usize, expect: Option<(u64, u64)>| {
        assert_eq!(smaps_huge_bytes(SMAPS, addr), expect, "{addr:#x}");
    };
    check(0x7f2a_0000_0000, Some((565_248 << 10, 563_200 << 10)));
    check(0x7f2a_2280_0000 - 1, Some((565_248 << 10, 563_200 << 10)));
    check(0x7f2a_4000_1000, Some((6144 << 10, 4096 << 10)));
    check(0x7f2a_5000_0000, Some((4096, 0)));
    // End addresses are exclusive; no mapping there, no fields, a bad value: unknown.
    check(0x7f2a_2280_0000, None);
    check(0x1000, None);
    check(0x7f2a_6000_0000, None);
    check(0x7f2a_7000_0000, None);
    assert_eq!(smaps_huge_bytes("", 0x1000), None);
    assert_eq!(smaps_huge_bytes("not smaps at all", 0x1000), None);
}

#[test]
fn tables_from_memory_have_no_huge_page_figure() {
    let goal = Board::blank_first(Size::S3X3);
    let bytes = crate::pdb::encode(&goal, &[1], &PdbMeta::default(), &[0; 9]).unwrap();
    assert_eq!(PdbTable::from_vec(bytes).unwrap().huge_page_bytes(), None);
}

#[cfg(all(target_os = "linux", not(miri)))]
#[test]
fn opened_tables_report_their_huge_pages() {
    let dir = std::env::temp_dir().join(format!("fifteen-pdb-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let goal = Board::blank_first(Size::S3X3);
    let path = dir.join("3x3-1.pdb");
    write_pdb_file(&path, &goal, &[1], &PdbMeta::default(), &[0; 9]).unwrap();
    let len = std::fs::metadata(&path).unwrap().len();
    for mode in [LoadMode::Mmap, LoadMode::Resident] {
        let table = PdbTable::open(&path, mode).unwrap();
        let huge = table.huge_page_bytes();
        assert!(huge.is_some_and(|h| h <= len), "{mode:?}: {huge:?} of {len}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
