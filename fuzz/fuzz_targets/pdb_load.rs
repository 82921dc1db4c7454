//! Fuzzes the pattern-database loader: `Pdb::from_bytes` then `verify`. Any bytes must give `Ok`
//! or a `PdbError`, never a panic or a large allocation (libFuzzer's `-rss_limit_mb` catches
//! those); a table that loads must have exactly one entry per placement.
#![no_main]

use fifteen_core::pdb::{Pdb, placements};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(pdb) = Pdb::from_bytes(data) {
        let n = pdb.size().cells();
        assert_eq!(pdb.entries().len() as u64, placements(n, pdb.tiles().len()));
        let _ = pdb.verify();
    }
});
