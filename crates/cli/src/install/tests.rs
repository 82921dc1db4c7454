//! Artifact names and hashes.

use super::{installed_name, parse_hex};

#[test]
fn artifact_names() {
    assert_eq!(
        installed_name("fifteen-pdb-v2-4x4-6-6-3.p1.pdb.zst").ok().as_deref(),
        Some("4x4-6-6-3.p1.pdb")
    );
    assert_eq!(
        installed_name("fifteen-pdb-v2-4x4-7-8.p2.pdb.zst").ok().as_deref(),
        Some("4x4-7-8.p2.pdb")
    );
    for bad in [
        "4x4-6-6-3.p1.pdb.zst",
        "fifteen-pdb-v2-4x4-6-6-3.p1.pdb",
        "fifteen-pdb-vX-4x4-6-6-3.p1.pdb.zst",
        "fifteen-pdb-v2-.pdb.zst",
        "fifteen-pdb-v2-..pdb.zst",
        "fifteen-pdb-v2-a/b.pdb.zst",
        "fifteen-pdb-v2-4x4.txt.zst",
    ] {
        assert!(installed_name(bad).is_err(), "{bad}");
    }
    let e = installed_name("fifteen-pdb-v3-4x4-6-6-3.p1.pdb.zst").expect_err("another version");
    assert!(e.to_string().contains("format version 3"), "{e}");
    // Version 1 artifacts are refused with the way to get version 2.
    let e = installed_name("fifteen-pdb-v1-4x4-6-6-3.p1.pdb.zst").expect_err("version 1");
    let text = e.to_string();
    assert!(text.contains("format version 1 is no longer read"), "{text}");
    assert!(text.contains("fifteen pdb build") && text.contains("fifteen pdb install"), "{text}");
}

#[test]
fn hex_hashes() {
    let h = "00ff".repeat(16);
    assert_eq!(parse_hex(&h).map(|b| (b[0], b[1])), Some((0, 255)));
    assert!(parse_hex(&h[1..]).is_none());
    assert!(parse_hex(&"zz".repeat(32)).is_none());
    assert!(parse_hex(&"é".repeat(32)).is_none());
}
