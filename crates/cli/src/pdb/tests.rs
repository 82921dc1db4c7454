//! Verification stamps, the folder lock, and the note on how a set is held.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use fifteen_core::pdb::{LoadMode, PdbMeta, PdbSet, PdbTable, encode, write_pdb_file};
use fifteen_core::{Board, Size};
use pdb_gen::{BuildOptions, build_pattern};

use super::{DirLock, check, pattern_number, residency, stamp_path};

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fifteen-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

#[test]
fn a_stamp_skips_the_check_until_the_file_changes() {
    let dir = scratch("stamp");
    let size = Size::new(3, 2).expect("a size");
    let goal = Board::blank_first(size);
    let entries = build_pattern(size, &goal, &[1, 2, 3], &BuildOptions::default()).expect("built");
    let path = dir.join("t.pdb");
    write_pdb_file(&path, &goal, &[1, 2, 3], &PdbMeta::default(), &entries).expect("written");
    let open = || PdbTable::open(&path, LoadMode::Resident).expect("loads");

    // First load: verified, and the stamp written.
    assert!(check(&open(), true).is_ok());
    assert!(stamp_path(&path).is_file());
    // Unstamped loads (small sets) never write one.
    std::fs::remove_file(stamp_path(&path)).expect("remove");
    assert!(check(&open(), false).is_ok());
    assert!(!stamp_path(&path).exists());
    assert!(check(&open(), true).is_ok());

    // Damage an entry in place, keeping the size and the modification time: the stamp still
    // matches and the table is trusted (the documented limit; `fifteen pdb verify` catches it).
    let mtime = std::fs::metadata(&path).and_then(|m| m.modified()).expect("mtime");
    let mut bytes = std::fs::read(&path).expect("read");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).expect("write");
    let file = std::fs::File::options().write(true).open(&path).expect("open");
    file.set_modified(mtime).expect("set mtime");
    drop(file);
    assert!(check(&open(), true).is_ok());
    assert!(check(&open(), false).is_err());
    // Any new modification time (a rebuild, an install, an edit) means a full check again.
    let file = std::fs::File::options().write(true).open(&path).expect("open");
    file.set_modified(SystemTime::now() + Duration::from_secs(5)).expect("set mtime");
    drop(file);
    let err = check(&open(), true).expect_err("damage found");
    assert!(err.to_string().contains("checksum mismatch"), "{err}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn the_folder_lock_is_exclusive_and_released_on_drop() {
    let dir = scratch("lock");
    let lock = DirLock::acquire(&dir).expect("locked");
    let other = std::fs::File::options()
        .write(true)
        .open(dir.join(".fifteen.lock"))
        .expect("the lock file");
    assert!(matches!(other.try_lock(), Err(std::fs::TryLockError::WouldBlock)));
    drop(lock);
    assert!(other.try_lock().is_ok());
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn the_note_gives_the_load_mode_and_the_share_in_huge_pages_when_known() {
    let size = Size::new(3, 2).expect("a size");
    let goal = Board::blank_first(size);
    let entries = build_pattern(size, &goal, &[1, 2, 3], &BuildOptions::default()).expect("built");
    // Tables in a `Vec` have no figure: the mode only.
    let bytes = encode(&goal, &[1, 2, 3], &PdbMeta::default(), &entries).expect("encoded");
    let table = PdbTable::from_vec(bytes).expect("loads");
    let set = PdbSet { name: "custom".into(), tables: vec![Arc::new(table)] };
    assert_eq!(residency(&set, LoadMode::Resident), "resident");
    // Opened from a file on Linux, the share is known (0% for so small a file).
    let dir = scratch("residency");
    let path = dir.join("t.pdb");
    write_pdb_file(&path, &goal, &[1, 2, 3], &PdbMeta::default(), &entries).expect("written");
    for (mode, name) in [(LoadMode::Mmap, "mmap"), (LoadMode::Resident, "resident")] {
        let table = PdbTable::open(&path, mode).expect("loads");
        let set = PdbSet { name: "custom".into(), tables: vec![Arc::new(table)] };
        let text = residency(&set, mode);
        if cfg!(target_os = "linux") {
            let share = text.strip_prefix(&format!("{name}, ")).expect(&text);
            let percent = share.strip_suffix("% in 2 MiB pages").expect(&text);
            assert!(percent.parse::<u8>().is_ok_and(|p| p <= 100), "{text}");
        } else {
            assert_eq!(text, name);
        }
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn tables_are_numbered_by_their_pattern_not_their_name() {
    use std::path::Path;
    let mut names = ["5x5-14x6-bits.p10.pdb", "5x5-14x6-bits.p2.pdb", "x/4x4-6-6-3.p1.pdb"];
    names.sort_by_key(|n| pattern_number(Path::new(n)));
    assert_eq!(names, ["x/4x4-6-6-3.p1.pdb", "5x5-14x6-bits.p2.pdb", "5x5-14x6-bits.p10.pdb"]);
    assert_eq!(pattern_number(Path::new("notes.txt")), u32::MAX);
    assert_eq!(pattern_number(Path::new("a.pb.pdb")), u32::MAX);
}
