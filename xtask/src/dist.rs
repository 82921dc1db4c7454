//! `cargo xtask dist`: the release artifacts, in `target/dist/` by default.
//!
//! - `fifteen-<os>-<arch>`: the release binary (`cargo build --release -p fifteen-cli`);
//! - `fifteen.bash`, `_fifteen`, `fifteen.fish`, `fifteen.elv`, `_fifteen.ps1`: shell
//!   completions, and `fifteen.1`: the man page, both printed by the binary just built (its
//!   hidden `fifteen completions SHELL` and `fifteen man`, generated from its clap command);
//! - `fifteen-pdb-v<FORMAT_VERSION>-<file>.zst`: each database file of each preset, compressed
//!   with zstd (`fifteen-pdb-v2-4x4-6-6-3.p1.pdb.zst`...). One artifact per file, so `fifteen pdb
//!   install` needs no archive format, and the format version in the name lets it refuse a file
//!   of another version before decompressing it;
//! - `SHA256SUMS`: the SHA-256 of every artifact above, in `sha256sum` format.
//!
//! A preset missing from the database folder (`data/` by default) is built there first with
//! `cargo run --release -p pdb-gen`. Every database is fully verified before it is packed.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};
use fifteen_core::pdb::{FORMAT_VERSION, LoadMode, scan_dir};
use sha2::{Digest, Sha256};

/// The presets shipped when none is named: the default 4x4 sets and the default 5x5 set.
const DEFAULT_PRESETS: &[&str] = &["4x4-7-8", "4x4-6-6-3", "5x5-14x6-bits"];

/// zstd's level when none is given: 19 packs a 4x4 table to about a quarter of its size.
const DEFAULT_LEVEL: i32 = 19;

/// The zstd window of the artifacts, as a power of two (what level 19 uses on large files).
const WINDOW_LOG: u32 = 23;

/// The shells `fifteen completions` knows, with the file name each expects.
const SHELLS: &[(&str, &str)] = &[
    ("bash", "fifteen.bash"),
    ("zsh", "_fifteen"),
    ("fish", "fifteen.fish"),
    ("elvish", "fifteen.elv"),
    ("powershell", "_fifteen.ps1"),
];

pub(crate) const USAGE: &str =
    "  dist [--presets NAME,...] [--pdb-dir DIR] [--out DIR] [--level N] [--no-binary]
      release artifacts into <root>/target/dist (or --out): the release binary, shell
      completions, the man page, each database of the presets (default: 4x4-7-8,4x4-6-6-3,5x5-14x6-bits;
      built into --pdb-dir, default <root>/data, if missing) compressed with zstd -N
      (default 19), and SHA256SUMS";

/// What `dist` was asked to do.
#[derive(Debug)]
struct Options {
    presets: Vec<String>,
    pdb_dir: PathBuf,
    out: PathBuf,
    level: i32,
    binary: bool,
}

fn parse(root: &Path, args: &[String]) -> anyhow::Result<Options> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let mut o = Options {
        presets: DEFAULT_PRESETS.iter().map(|s| s.to_string()).collect(),
        pdb_dir: root.join("data"),
        out: root.join("target").join("dist"),
        level: DEFAULT_LEVEL,
        binary: true,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |what: &str| it.next().with_context(|| format!("{arg} needs {what}"));
        match arg.as_str() {
            "--presets" => {
                o.presets = value("a list of names")?
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect();
            }
            "--pdb-dir" => o.pdb_dir = cwd.join(value("a folder")?),
            "--out" => o.out = cwd.join(value("a folder")?),
            "--level" => {
                let text = value("a number")?;
                o.level =
                    text.parse().ok().filter(|l| (1..=22).contains(l)).with_context(|| {
                        format!("--level takes a zstd level from 1 to 22, not {text:?}")
                    })?;
            }
            "--no-binary" => o.binary = false,
            other => bail!("dist: unknown argument {other:?}\n\n{USAGE}"),
        }
    }
    Ok(o)
}

/// Runs `cargo xtask dist ARGS`.
pub(crate) fn run(root: &Path, args: &[String]) -> anyhow::Result<()> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        eprintln!("usage: cargo xtask dist ...\n\n{USAGE}");
        return Ok(());
    }
    let o = parse(root, args)?;
    std::fs::create_dir_all(&o.out)
        .with_context(|| format!("cannot create {}", o.out.display()))?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut artifacts: Vec<String> = Vec::new();

    if o.binary {
        let status = Command::new(&cargo)
            .current_dir(root)
            .args(["build", "--release", "--package", "fifteen-cli"])
            .status()
            .context("cannot run cargo")?;
        if !status.success() {
            bail!("cargo build --release -p fifteen-cli failed ({status})");
        }
        let exe = format!("fifteen{}", std::env::consts::EXE_SUFFIX);
        let built = root.join("target").join("release").join(&exe);
        let name = format!(
            "fifteen-{}-{}{}",
            std::env::consts::OS,
            std::env::consts::ARCH,
            std::env::consts::EXE_SUFFIX
        );
        let shipped = o.out.join(&name);
        std::fs::copy(&built, &shipped)
            .with_context(|| format!("cannot copy {} to {}", built.display(), shipped.display()))?;
        artifacts.push(name);
        for (shell, file) in SHELLS {
            write_output(&shipped, &["completions", shell], &o.out.join(file))?;
            artifacts.push(file.to_string());
        }
        write_output(&shipped, &["man"], &o.out.join("fifteen.1"))?;
        artifacts.push("fifteen.1".to_string());
    }

    for preset in &o.presets {
        for file in preset_files(root, &cargo, &o.pdb_dir, preset)? {
            let name =
                file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let artifact = format!("fifteen-pdb-v{FORMAT_VERSION}-{name}.zst");
            let t0 = Instant::now();
            let (raw, packed) = compress(&file, &o.out.join(&artifact), o.level)?;
            println!(
                "{artifact}: {raw} -> {packed} bytes ({:.1}%) in {:.1?}",
                100.0 * packed as f64 / raw.max(1) as f64,
                t0.elapsed()
            );
            artifacts.push(artifact);
        }
    }

    let mut sums = String::new();
    for name in &artifacts {
        sums.push_str(&format!("{}  {name}\n", sha256_hex(&o.out.join(name))?));
    }
    let manifest = o.out.join("SHA256SUMS");
    std::fs::write(&manifest, sums)
        .with_context(|| format!("cannot write {}", manifest.display()))?;
    println!("{} artifacts and SHA256SUMS in {}", artifacts.len(), o.out.display());
    Ok(())
}

/// Runs `exe ARGS` and writes what it prints to `path`.
fn write_output(exe: &Path, args: &[&str], path: &Path) -> anyhow::Result<()> {
    let out = Command::new(exe)
        .args(args)
        .output()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    if !out.status.success() {
        bail!(
            "{} {} failed ({}): {}",
            exe.display(),
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::write(path, out.stdout).with_context(|| format!("cannot write {}", path.display()))
}

/// The verified files of `preset` in `dir`, built there first (by pdb-gen) if the set is not
/// complete.
fn preset_files(
    root: &Path,
    cargo: &std::ffi::OsStr,
    dir: &Path,
    preset: &str,
) -> anyhow::Result<Vec<PathBuf>> {
    let complete = |dir: &Path| {
        scan_dir(dir, LoadMode::Mmap).sets.into_iter().find(|s| s.name == preset).map(|set| {
            set.tables.iter().filter_map(|t| t.path().map(Path::to_path_buf)).collect::<Vec<_>>()
        })
    };
    let files = match complete(dir) {
        Some(files) => files,
        None => {
            println!("{preset}: not in {}; building it with pdb-gen", dir.display());
            let status = Command::new(cargo)
                .current_dir(root)
                .args(["run", "--release", "--package", "pdb-gen", "--", "--preset", preset])
                .arg("--out")
                .arg(dir)
                .status()
                .context("cannot run cargo")?;
            if !status.success() {
                bail!("pdb-gen failed for preset {preset} ({status})");
            }
            complete(dir).with_context(|| {
                format!("pdb-gen built {preset} but {} holds no complete set", dir.display())
            })?
        }
    };
    let mut files = files;
    files.sort();
    for file in &files {
        let table = fifteen_core::pdb::PdbTable::open(file, LoadMode::Mmap)
            .with_context(|| format!("cannot use {}", file.display()))?;
        table.verify().with_context(|| format!("{} is damaged", file.display()))?;
    }
    Ok(files)
}

/// Compresses `from` into `to` (through a temporary file and a rename); returns both sizes.
fn compress(from: &Path, to: &Path, level: i32) -> anyhow::Result<(u64, u64)> {
    let tmp = to.with_extension("zst.tmp");
    let result = (|| {
        let mut input = BufReader::new(
            File::open(from).with_context(|| format!("cannot open {}", from.display()))?,
        );
        let output =
            File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        let mut enc = zstd::Encoder::new(BufWriter::new(output), level)?;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        // Multithreaded compression (zstd's `zstdmt`); a build without it compresses on one.
        let _ = enc.multithread(threads);
        enc.include_checksum(true)?;
        // At most an 8 MiB window, whatever the level: `fifteen pdb install` refuses windows
        // over 16 MiB, so that decompressing never needs more memory than that.
        enc.window_log(WINDOW_LOG)?;
        let raw = std::io::copy(&mut input, &mut enc)
            .with_context(|| format!("cannot compress {}", from.display()))?;
        let file = enc.finish()?.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        let packed = file.metadata()?.len();
        std::fs::rename(&tmp, to).with_context(|| format!("cannot rename to {}", to.display()))?;
        Ok((raw, packed))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The SHA-256 of a file, in lowercase hex.
fn sha256_hex(path: &Path) -> anyhow::Result<String> {
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}
