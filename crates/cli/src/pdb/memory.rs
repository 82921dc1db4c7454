//! Sets too large for the memory available, left out before they are opened.
//!
//! Opening a table maps it populated (or reads it), so a set larger than the memory the system
//! can give would be paged in and out on every lookup, or push everything else out: without
//! swap, a machine that crawls. So before a folder is scanned, the files of each set (named
//! `<set>.p<i>.pdb`) are summed and compared with the system's `MemAvailable`
//! (`/proc/meminfo`: free memory plus what the page cache can give back, which includes a set
//! already cached). A set that needs more is not opened; the caller says how much it needs and
//! goes on without it. Where the figure is unknown (no `/proc`), nothing is left out.
//! `FIFTEEN_MEMORY_AVAILABLE` (bytes) stands in for `MemAvailable`, so that tests can make
//! memory short.

use std::collections::BTreeMap;
use std::path::Path;

/// The bytes of memory available, if known.
pub(crate) fn available() -> Option<u64> {
    if let Some(v) = std::env::var_os("FIFTEEN_MEMORY_AVAILABLE") {
        return v.to_str().and_then(|v| v.trim().parse().ok());
    }
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    mem_available(&text)
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The set a file name belongs to: `5x5-6-6-6-6` for `5x5-6-6-6-6.p2.pdb`.
pub(super) fn set_name(path: &Path) -> Option<&str> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".pdb")?;
    Some(stem.rsplit_once(".p").map_or(stem, |(set, _)| set))
}

/// The sets in `dir` whose files together need more than `available` bytes, with what they
/// need.
pub(super) fn too_large(dir: &Path, available: u64) -> BTreeMap<String, u64> {
    let mut sizes: BTreeMap<String, u64> = BTreeMap::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok) {
        let path = entry.path();
        if let (Some(set), Ok(meta)) = (set_name(&path), entry.metadata())
            && meta.is_file()
        {
            *sizes.entry(set.to_string()).or_default() += meta.len();
        }
    }
    sizes.retain(|_, &mut bytes| bytes > available);
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_is_read_in_bytes() {
        let text = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   22000000 kB\n";
        assert_eq!(mem_available(text), Some(22_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn files_are_grouped_by_set() {
        assert_eq!(set_name(Path::new("/d/5x5-6-6-6-6.p2.pdb")), Some("5x5-6-6-6-6"));
        assert_eq!(set_name(Path::new("3x3-8.pdb")), Some("3x3-8"));
        assert_eq!(set_name(Path::new("notes.txt")), None);
    }
}
