//! Tests of reading `fifteen`'s notes.

use super::huge_percent;

#[test]
fn the_huge_page_share_is_read_from_the_note() {
    let note = "using pattern databases 4x4-7-8 from /data (mmap, 97% in 2 MiB pages)\n";
    assert_eq!(huge_percent(note), Some(97));
    let hint = "warning: x\nusing pattern databases 4x4-6-6-3 from d (resident, 100% in 2 MiB pages; `cargo xtask gen-pdb` builds the faster 7-8 set)";
    assert_eq!(huge_percent(hint), Some(100));
    assert_eq!(huge_percent("using pattern databases 4x4-7-8 from data (mmap)"), None);
    assert_eq!(huge_percent(""), None);
}
