//! Fuzzes the v2 header decoder behind its checksum: each input gets the right header checksum
//! written in (`reseal_header_checksum`), so that mutations reach `head_len`, `decode_header` and
//! `Pdb::from_bytes` instead of stopping at the checksum, which `pdb_load` exercises. Any bytes
//! must give `Ok` or a `PdbError`, never a panic or a large allocation; a header that decodes is
//! the one `from_bytes` sees, and declares exactly one entry per placement.
#![no_main]

use fifteen_core::pdb::{Pdb, decode_header, head_len, placements, reseal_header_checksum};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.to_vec();
    reseal_header_checksum(&mut bytes);
    let Ok(offset) = head_len(&bytes) else { return };
    if bytes.len() < offset {
        return;
    }
    let Ok(header) = decode_header(&bytes[..offset]) else { return };
    let n = usize::from(header.width) * usize::from(header.height);
    assert_eq!(header.entry_count, placements(n, header.tiles.len()));
    assert_eq!(header.payload_offset, offset as u64);
    if let Ok(pdb) = Pdb::from_bytes(&bytes) {
        assert_eq!(pdb.header(), &header);
        let _ = pdb.verify();
    }
});
