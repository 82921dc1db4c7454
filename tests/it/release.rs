//! Release artifacts: `cargo xtask dist` of the 6-6-3 set, `fifteen pdb install` into an empty
//! folder and a solve with it; install refusing each kind of bad artifact; the completions and
//! man page the dist ships.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use sha2::{Digest, Sha256};

use crate::support::{Run, fifteen, pdb_dir, run_in, scratch_dir};

const KORF1: &str = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3";

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// `fifteen ARGS` with every path argument given as `&Path`.
fn fifteen_in(dir: &Path, args: &[&str]) -> Run {
    run_in(dir, args, "")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Packs `files` of the shared 6-6-3 set (after `damage`) as artifacts with a manifest in a new
/// folder, as `cargo xtask dist` does.
fn artifacts(name: &str, damage: impl Fn(&str, &mut Vec<u8>)) -> PathBuf {
    let dir = scratch_dir(name);
    let mut sums = String::new();
    for i in 1..=3 {
        let file = format!("4x4-6-6-3.p{i}.pdb");
        let mut bytes = std::fs::read(pdb_dir().join(&file)).expect("a table");
        damage(&file, &mut bytes);
        let packed = zstd::encode_all(&bytes[..], 3).expect("compress");
        let artifact = format!("fifteen-pdb-v2-{file}.zst");
        sums.push_str(&format!("{}  {artifact}\n", sha256_hex(&packed)));
        std::fs::write(dir.join(&artifact), packed).expect("write");
    }
    std::fs::write(dir.join("SHA256SUMS"), sums).expect("write the manifest");
    dir
}

#[test]
fn dist_then_install_into_an_empty_folder_then_solve() {
    let out = scratch_dir("dist-out");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let status = Command::new(cargo)
        .current_dir(&root)
        .args(["run", "--quiet", "--package", "xtask", "--", "dist", "--no-binary"])
        .args(["--presets", "4x4-6-6-3", "--level", "9", "--pdb-dir", s(pdb_dir())])
        .args(["--out", s(&out)])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo xtask dist: {status}");
    let manifest = std::fs::read_to_string(out.join("SHA256SUMS")).expect("SHA256SUMS");
    assert_eq!(manifest.lines().count(), 3, "{manifest}");
    for i in 1..=3 {
        let name = format!("fifteen-pdb-v2-4x4-6-6-3.p{i}.pdb.zst");
        let bytes = std::fs::read(out.join(&name)).expect("an artifact");
        assert!(manifest.contains(&format!("{}  {name}", sha256_hex(&bytes))), "{manifest}");
    }

    let dir = scratch_dir("dist-install").join("data");
    let run = fifteen_in(&dir, &["pdb", "install", "--from", s(&out), "--pdb-dir", s(&dir)]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout.matches("verified").count(), 3, "{}", run.stdout);
    let args = ["solve", KORF1, "--goal", "blank-first", "--pdb-dir", s(&dir), "--no-pdb-build"];
    let run = fifteen_in(&dir, &args);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("length: 57 (proven optimal)"), "{}", run.stdout);
    assert!(run.stderr.contains("using pattern databases 4x4-6-6-3"), "{}", run.stderr);
    // The note says how the tables are held (and on Linux how much in 2 MiB pages).
    assert!(run.stderr.contains(" (mmap"), "{}", run.stderr);

    // Installing the same artifacts again (one by one this time) is harmless.
    let one = out.join("fifteen-pdb-v2-4x4-6-6-3.p2.pdb.zst");
    let run = fifteen_in(&dir, &["pdb", "install", s(&one), "--pdb-dir", s(&dir)]);
    assert_eq!(run.code, 0, "{run:?}");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("list")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.contains("install"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let run = fifteen_in(&dir, &args);
    assert_eq!(run.code, 0, "{run:?}");
}

/// Installing from `from` into a new folder must fail with the database code, name `file` and
/// say `why`, and leave no table in the folder.
fn assert_install_refused(extra: &[&str], from: &Path, file: &str, why: &str) {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let dir = scratch_dir(&format!("install-refused-{}", COUNT.fetch_add(1, Ordering::Relaxed)));
    let mut args = vec!["pdb", "install", "--pdb-dir", s(&dir)];
    args.extend_from_slice(extra);
    if extra.is_empty() {
        args.extend(["--from", s(from)]);
    }
    let run = fifteen_in(&dir, &args);
    assert_eq!(run.code, 6, "{why}: {run:?}");
    assert!(run.stderr.contains(file), "{file} in {}", run.stderr);
    assert!(run.stderr.contains(why), "{why} in {}", run.stderr);
    let tables = std::fs::read_dir(&dir)
        .expect("list")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("4x4-6-6-3.p1"))
        .count();
    assert_eq!(tables, 0, "{why}: a refused table was installed");
}

#[test]
fn install_refuses_bad_artifacts_naming_the_file() {
    // A byte changed after the manifest was written.
    let dir = artifacts("install-tampered", |_, _| {});
    let p1 = dir.join("fifteen-pdb-v2-4x4-6-6-3.p1.pdb.zst");
    let mut bytes = std::fs::read(&p1).expect("read");
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&p1, bytes).expect("write");
    assert_install_refused(&[], &dir, "p1.pdb.zst", "SHA-256 mismatch");

    // The manifest matches, but the table inside is damaged (one entry byte flipped).
    let dir = artifacts("install-damaged-table", |file, b| {
        if file.ends_with("p1.pdb") {
            let last = b.len() - 1;
            b[last] ^= 1;
        }
    });
    assert_install_refused(&[], &dir, "p1.pdb.zst", "checksum mismatch");

    // A table whose header is damaged.
    let dir = artifacts("install-damaged-header", |file, b| {
        if file.ends_with("p1.pdb") {
            b[20] ^= 0xff;
        }
    });
    assert_install_refused(&[], &dir, "p1.pdb.zst", "does not load");

    // Not zstd at all, with a matching --sha256.
    let dir = scratch_dir("install-not-zstd");
    let fake = dir.join("fifteen-pdb-v2-4x4-6-6-3.p1.pdb.zst");
    std::fs::write(&fake, b"hello, not a zstd frame").expect("write");
    let hash = sha256_hex(b"hello, not a zstd frame");
    assert_install_refused(&[s(&fake), "--sha256", &hash], &dir, "p1.pdb.zst", "decompress");
    // A wrong --sha256.
    let zeros = "0".repeat(64);
    assert_install_refused(&[s(&fake), "--sha256", &zeros], &dir, "p1.pdb.zst", "SHA-256");

    // No manifest next to it.
    let dir = artifacts("install-no-manifest", |_, _| {});
    std::fs::remove_file(dir.join("SHA256SUMS")).expect("remove");
    let p1 = dir.join("fifteen-pdb-v2-4x4-6-6-3.p1.pdb.zst");
    assert_install_refused(&[s(&p1)], &dir, "p1.pdb.zst", "SHA256SUMS");

    // Another format version in the name: a newer one, and version 1, whose refusal says how
    // to get version 2.
    let dir = artifacts("install-version", |_, _| {});
    let v3 = dir.join("fifteen-pdb-v3-4x4-6-6-3.p1.pdb.zst");
    std::fs::rename(dir.join("fifteen-pdb-v2-4x4-6-6-3.p1.pdb.zst"), &v3).expect("rename");
    assert_install_refused(&[s(&v3)], &dir, "v3-4x4-6-6-3.p1", "format version 3");
    let v1 = dir.join("fifteen-pdb-v1-4x4-6-6-3.p1.pdb.zst");
    std::fs::rename(&v3, &v1).expect("rename");
    assert_install_refused(&[s(&v1)], &dir, "v1-4x4-6-6-3.p1", "version 1 is no longer read");
    assert_install_refused(&[s(&v1)], &dir, "v1-4x4-6-6-3.p1", "fifteen pdb build");

    // A version 1 file inside a version 2 name: refused by its header, the same way.
    let dir = artifacts("install-v1-inside", |file, b| {
        if file.ends_with("p1.pdb") {
            b[10..14].copy_from_slice(&1u32.to_le_bytes());
        }
    });
    assert_install_refused(&[], &dir, "p1.pdb.zst", "version 1 is no longer read");

    // A 6-6-3 table renamed as a 7-8 table.
    let dir = artifacts("install-renamed", |_, _| {});
    let renamed = dir.join("fifteen-pdb-v2-4x4-7-8.p1.pdb.zst");
    let bytes = std::fs::read(dir.join("fifteen-pdb-v2-4x4-6-6-3.p1.pdb.zst")).expect("read");
    std::fs::write(&renamed, &bytes).expect("write");
    let hash = sha256_hex(&bytes);
    assert_install_refused(&[s(&renamed), "--sha256", &hash], &dir, "7-8.p1", "preset 4x4-6-6-3");

    // A folder or a FIFO named like an artifact is refused, not read (a FIFO would block).
    let dir = scratch_dir("install-not-a-file");
    let folder = dir.join("fifteen-pdb-v2-4x4-6-6-3.p1.pdb.zst");
    std::fs::create_dir(&folder).expect("mkdir");
    assert_install_refused(
        &[s(&folder), "--sha256", &zeros],
        &dir,
        "p1.pdb.zst",
        "not a regular file",
    );
    let fifo = dir.join("fifteen-pdb-v2-4x4-6-6-3.p2.pdb.zst");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    assert_install_refused(
        &[s(&fifo), "--sha256", &zeros],
        &dir,
        "p2.pdb.zst",
        "not a regular file",
    );
}

#[test]
fn completions_and_man_page_come_from_the_clap_command() {
    for (shell, text) in
        [("bash", "_fifteen()"), ("zsh", "#compdef fifteen"), ("fish", "complete -c fifteen")]
    {
        let run = fifteen(&["completions", shell]);
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stdout.contains(text), "{shell}: {}", run.stdout);
        assert!(run.stdout.contains("install"), "{shell}: no `pdb install`");
    }
    let run = fifteen(&["man"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains(".TH fifteen"), "{}", run.stdout);
    // Hidden from the help.
    let run = fifteen(&["--help"]);
    assert!(!run.stdout.contains("completions"), "{}", run.stdout);
}

/// `bytes` followed by `zeros` zero bytes, zstd-compressed, as an artifact named `name` with a
/// matching manifest in a new folder.
fn bomb(dir_name: &str, name: &str, bytes: &[u8], zeros: u64) -> PathBuf {
    use std::io::Read;
    let dir = scratch_dir(dir_name);
    let mut enc = zstd::Encoder::new(Vec::new(), 1).expect("an encoder");
    std::io::copy(&mut bytes.chain(std::io::repeat(0).take(zeros)), &mut enc).expect("compress");
    let packed = enc.finish().expect("compress");
    std::fs::write(dir.join(name), &packed).expect("write");
    std::fs::write(dir.join("SHA256SUMS"), format!("{}  {name}\n", sha256_hex(&packed)))
        .expect("write the manifest");
    dir
}

/// `fifteen pdb install --from from` into a new folder, with the address space limited to 256
/// MiB (`prlimit`): far less than the bombs decompress to, so that an install that holds or maps
/// what it decompresses fails on memory instead of refusing the artifact for what it is.
fn install_under_memory_limit(from: &Path, name: &str) -> (Run, PathBuf) {
    let dir = scratch_dir(name);
    let out = Command::new("prlimit")
        .arg(format!("--as={}", 256u64 << 20))
        .arg(env!("CARGO_BIN_EXE_fifteen"))
        .args(["pdb", "install", "--from", s(from), "--pdb-dir", s(&dir)])
        .output()
        .expect("prlimit runs (util-linux)");
    let run = Run {
        code: out.status.code().expect("an exit code"),
        stdout: String::from_utf8(out.stdout).expect("utf-8"),
        stderr: String::from_utf8(out.stderr).expect("utf-8"),
    };
    (run, dir)
}

/// Nothing but the lock file is left in `dir`: no table, no temporary file.
fn assert_nothing_left(dir: &Path) {
    let left: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n != ".fifteen.lock")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A decompression bomb (1.5 GB of zeros in a 46 KB artifact, with an honest manifest) is not a
/// database: refused from its first bytes, without decompressing the rest, under a memory limit
/// far below its size.
#[test]
fn a_decompression_bomb_is_refused_from_its_first_bytes() {
    let name = "fifteen-pdb-v2-4x4-6-6-3.p2.pdb.zst";
    let from = bomb("bomb-zeros", name, &[], 1_500_000_000);
    let (run, dir) = install_under_memory_limit(&from, "bomb-zeros-into");
    assert_eq!(run.code, 6, "{run:?}");
    assert!(run.stderr.contains(name), "{}", run.stderr);
    assert!(run.stderr.contains("not a pattern database"), "{}", run.stderr);
    assert_nothing_left(&dir);
}

/// A genuine table followed by 1.5 GB of zeros: the header is real, so the entries are copied,
/// but not one byte more than the header declares is written before the artifact is refused.
#[test]
fn a_real_header_over_a_bomb_is_cut_at_the_declared_size() {
    let name = "fifteen-pdb-v2-4x4-6-6-3.p2.pdb.zst";
    let table = std::fs::read(pdb_dir().join("4x4-6-6-3.p2.pdb")).expect("a table");
    let from = bomb("bomb-tail", name, &table, 1_500_000_000);
    let (run, dir) = install_under_memory_limit(&from, "bomb-tail-into");
    assert_eq!(run.code, 6, "{run:?}");
    assert!(run.stderr.contains("more bytes than the"), "{}", run.stderr);
    assert_nothing_left(&dir);
    // The same table without the tail installs under the same limit.
    let from = bomb("bomb-none", name, &table, 0);
    let (run, dir) = install_under_memory_limit(&from, "bomb-none-into");
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(std::fs::read(dir.join("4x4-6-6-3.p2.pdb")).expect("installed"), table);
}

/// The release workflow's note sends users to the README's install section: every file it names
/// exists, and every `README.md#anchor` is a heading of the README (GitHub's slug of it).
#[test]
fn the_release_note_points_at_what_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let workflow = std::fs::read_to_string(root.join(".github/workflows/release.yml"))
        .expect("the release workflow");
    let note = workflow.split("--notes").nth(1).expect("the workflow sets a release note");
    let note = note.split('"').nth(1).expect("the note is quoted");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let slugs: Vec<String> = readme
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|h| {
            h.trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
                .map(|c| if c == ' ' { '-' } else { c })
                .collect()
        })
        .collect();
    let mut links = 0;
    for word in note.split_whitespace() {
        let word = word.trim_end_matches(['.', ',', ')']);
        // A link into the repository (`.../blob/REF/PATH`) or a bare path.
        let target = match word.split_once("/blob/") {
            Some((_, rest)) => rest.split_once('/').map_or("", |(_, path)| path),
            None => word,
        };
        let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
        if !path.ends_with(".md") {
            continue;
        }
        links += 1;
        assert!(root.join(path).is_file(), "the release note names {path}, which is missing");
        if !anchor.is_empty() {
            assert_eq!(path, "README.md", "{word}");
            assert!(slugs.iter().any(|s| s == anchor), "no README heading for #{anchor}");
        }
    }
    assert!(links > 0, "the release note links no install instructions: {note}");
}
