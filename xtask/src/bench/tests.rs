//! Tests of reading `fifteen`'s notes and the output of the `lookups` benchmark.

use super::{Among, huge_percent, parse_lookups};

#[test]
fn the_huge_page_share_is_read_from_the_note() {
    let note = "using pattern databases 4x4-7-8 from /data (mmap, 97% in 2 MiB pages)\n";
    assert_eq!(huge_percent(note), Some(97));
    let hint = "warning: x\nusing pattern databases 4x4-6-6-3 from d (resident, 100% in 2 MiB pages; `cargo xtask gen-pdb` builds the faster 7-8 set)";
    assert_eq!(huge_percent(hint), Some(100));
    assert_eq!(huge_percent("using pattern databases 4x4-7-8 from data (mmap)"), None);
    assert_eq!(huge_percent(""), None);
}

#[test]
fn the_lookups_benchmark_is_read_line_by_line() {
    let out = "lookup-limit 4KiB 90.0\nlookup-limit 2MiB 107.4\nnoise\n\
               lookup-among-work 4 18.1 22.0\nlookup-among-work 8 x 21.8\nlookup-limit 1GiB\n";
    let (limits, among) = parse_lookups(out);
    assert_eq!(limits, vec![("4KiB".to_string(), 90.0), ("2MiB".to_string(), 107.4)]);
    assert_eq!(among, vec![Among { burst: 4, work_ns: 18.1, with_ns: 22.0 }]);
    assert_eq!(parse_lookups(""), (vec![], vec![]));
}
