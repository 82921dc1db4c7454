//! `fifteen pdb install`: released database files into the database folder.
//!
//! An artifact is `fifteen-pdb-v<VERSION>-<file>.zst` (see `cargo xtask dist`), for example
//! `fifteen-pdb-v2-4x4-6-6-3.p1.pdb.zst`, which installs as `4x4-6-6-3.p1.pdb`. Each one is
//! checked, in order, and refused at the first mismatch with a message naming the file:
//!
//! 1. its name: the pattern above, a format version this build reads, a plain file name;
//! 2. its SHA-256 against `--sha256` or the `SHA256SUMS` next to it;
//! 3. decompressed as a stream ([`unpack`]): the header is decoded and checked from the first
//!    bytes (its checksum, and the preset against the name) before anything is written; then
//!    exactly the entries the header declares go into a temporary file in the database folder,
//!    checked on the way (checksum, histogram); a longer or shorter stream is refused. A
//!    decompression bomb is thus refused after a few bytes, and memory stays at the buffers'.
//! 4. fsync, and a rename over the final name: a reader never sees a partial file, and
//!    installing the same artifact twice just replaces the file by an identical one.
//!
//! The SHA-256 only proves that a file matches its manifest, not that the manifest is honest, so
//! step 3 trusts nothing in the stream before it is checked.

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use fifteen_core::pdb::{EntryCheck, PREFIX_LEN, check_version, decode_header, head_len};
use sha2::{Digest, Sha256};

use crate::args::{InstallArgs, PdbOpts};
use crate::exit::{self, Usage};
use crate::pdb::{DbError, DirLock, search_dirs, write_stamp};

/// The largest database an artifact may decompress to (the largest preset table, 5x5 6-tile,
/// is 128 MB; the 7-8's 8-tile table 519 MB): a guard against a decompression bomb.
const MAX_INSTALLED_BYTES: u64 = 4 << 30;

/// The largest zstd window accepted, as a power of two: 16 MiB, so that decompressing takes at
/// most that much memory. `cargo xtask dist` compresses at levels up to 19, whose windows are at
/// most 8 MiB.
const WINDOW_LOG_MAX: u32 = 24;

/// The manifest `cargo xtask dist` writes next to the artifacts.
const MANIFEST: &str = "SHA256SUMS";

/// The name prefix of database artifacts.
const PREFIX: &str = "fifteen-pdb-v";

/// Runs `fifteen pdb install`.
pub(crate) fn run(args: &InstallArgs) -> anyhow::Result<u8> {
    let mut artifacts = args.artifacts.clone();
    if let Some(dir) = &args.from {
        let manifest = dir.join(MANIFEST);
        let listed = read_manifest(&manifest)?;
        let before = artifacts.len();
        artifacts.extend(
            listed.iter().filter(|(name, _)| name.starts_with(PREFIX)).map(|(n, _)| dir.join(n)),
        );
        if artifacts.len() == before {
            return Err(
                DbError(format!("{} lists no database artifact", manifest.display())).into()
            );
        }
    }
    if args.sha256.is_some() && artifacts.len() != 1 {
        anyhow::bail!(Usage("--sha256 applies to exactly one artifact".into()));
    }
    let opts = PdbOpts { pdb_dir: args.pdb_dir.clone(), ..PdbOpts::default() };
    let (_, dir) = search_dirs(&opts);
    let dir = dir.ok_or_else(|| DbError("no folder to install in: pass --pdb-dir".into()))?;
    let _lock = DirLock::acquire(&dir).map_err(|e| DbError(format!("{e:#}")))?;
    for artifact in &artifacts {
        let t0 = Instant::now();
        let (path, bytes) = install_one(artifact, args.sha256.as_deref(), &dir)
            .map_err(|e| DbError(format!("cannot install {}: {e:#}", artifact.display())))?;
        println!("installed {} ({bytes} bytes, verified) in {:.1?}", path.display(), t0.elapsed());
    }
    Ok(exit::OK)
}

/// Installs one artifact into `dir`; returns the installed file and its size.
fn install_one(
    artifact: &Path,
    sha256: Option<&str>,
    dir: &Path,
) -> anyhow::Result<(PathBuf, u64)> {
    let name = artifact
        .file_name()
        .and_then(|n| n.to_str())
        .context("the artifact has no file name in UTF-8")?;
    let target = installed_name(name)?;
    let meta = std::fs::metadata(artifact).context("cannot read it")?;
    anyhow::ensure!(meta.is_file(), "not a regular file");

    let expected = match sha256 {
        Some(hex) => parse_hex(hex).context("--sha256 is not 64 hex digits")?,
        None => {
            let manifest = artifact.parent().unwrap_or(Path::new(".")).join(MANIFEST);
            let listed = read_manifest(&manifest)?;
            let (_, hex) = listed.iter().find(|(n, _)| n == name).with_context(|| {
                format!("{} does not list it; pass --sha256 HEX", manifest.display())
            })?;
            parse_hex(hex)
                .with_context(|| format!("{}: bad hash for {name}", manifest.display()))?
        }
    };
    let found = sha256_of(artifact)?;
    if found != expected {
        anyhow::bail!(
            "SHA-256 mismatch: expected {}, the file has {}; download it again",
            hex(&expected),
            hex(&found)
        );
    }

    let path = dir.join(&target);
    let tmp = dir.join(format!(".{target}.install-{}", std::process::id()));
    let result = unpack(artifact, &tmp, &target).and_then(|unpacked| {
        std::fs::rename(&tmp, &path)
            .with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))?;
        Ok(unpacked)
    });
    let (bytes, checksum) = match result {
        Ok(unpacked) => unpacked,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    // Verified just now: record it so the first solve does not verify a large table again.
    write_stamp(&path, checksum);
    Ok((path, bytes))
}

/// `fifteen-pdb-v2-4x4-6-6-3.p1.pdb.zst` -> `4x4-6-6-3.p1.pdb`, if the version is this build's.
fn installed_name(name: &str) -> anyhow::Result<String> {
    let bad = || {
        format!(
            "the name {name:?} is not {PREFIX}<VERSION>-<preset>.p<N>.pdb.zst, as `cargo xtask dist` writes it"
        )
    };
    let rest = name.strip_prefix(PREFIX).with_context(bad)?;
    let (version, file) = rest.split_once('-').with_context(bad)?;
    let version: u32 = version.parse().ok().with_context(bad)?;
    let file = file.strip_suffix(".zst").filter(|f| f.ends_with(".pdb")).with_context(bad)?;
    anyhow::ensure!(
        !file.starts_with('.') && !file.contains(['/', '\\']) && file.len() > 4,
        "{}",
        bad()
    );
    // The same refusal as for such a file: an old version says how to rebuild or reinstall.
    check_version(version)?;
    Ok(file.to_string())
}

/// Decompresses `artifact` into `tmp` as a stream, checking it on the way, and syncs it;
/// returns the table's size in bytes and its entries' checksum.
///
/// The first bytes must be a database header of this format version ([`head_len`],
/// [`decode_header`]) for the table `target`, or the artifact is refused before anything is
/// written; then exactly the entries the header declares are copied, each piece fed to the full
/// check ([`EntryCheck`]), and a stream with more bytes than that is refused. So whatever the
/// artifact, at most the declared size reaches the disk, and the memory used is the buffers'.
fn unpack(artifact: &Path, tmp: &Path, target: &str) -> anyhow::Result<(u64, u64)> {
    let input = File::open(artifact).context("cannot open it")?;
    let mut decoder = zstd::Decoder::new(BufReader::new(input)).context("not a zstd stream")?;
    decoder.window_log_max(WINDOW_LOG_MAX).context("not a zstd stream")?;
    let mut head = vec![0u8; PREFIX_LEN];
    read_full(&mut decoder, &mut head).context("cannot decompress it")?;
    let offset = head_len(&head).context("the database does not load")?;
    head.resize(offset, 0);
    read_full(&mut decoder, &mut head[PREFIX_LEN..]).context("cannot decompress it")?;
    let header = decode_header(&head).context("the database does not load")?;
    let preset = header.preset.as_deref().unwrap_or("custom");
    anyhow::ensure!(
        target.strip_prefix(preset).is_some_and(|r| r.starts_with('.')),
        "the header says preset {preset}, but the artifact is named for {target}"
    );
    let total = (offset as u64).saturating_add(header.entry_count);
    anyhow::ensure!(
        total <= MAX_INSTALLED_BYTES,
        "its header declares {total} bytes, more than the {MAX_INSTALLED_BYTES} of any database"
    );

    let mut out = File::create(tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let write_err = || format!("cannot write {} (is the disk full?)", tmp.display());
    out.write_all(&head).with_context(write_err)?;
    let mut check = EntryCheck::new(&header).context("the database does not load")?;
    let mut buf = vec![0u8; 1 << 16];
    let mut left = header.entry_count;
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = read_some(&mut decoder, &mut buf[..want]).context("cannot decompress it")?;
        anyhow::ensure!(
            n > 0,
            "it ends {left} bytes before the end of the entries its header declares (truncated)"
        );
        check.update(&buf[..n]);
        out.write_all(&buf[..n]).with_context(write_err)?;
        left -= n as u64;
    }
    let more = read_some(&mut decoder, &mut buf[..1]).context("cannot decompress it")?;
    anyhow::ensure!(more == 0, "it holds more bytes than the {total} its header declares");
    check.finish().context("the database does not verify")?;
    out.flush().with_context(write_err)?;
    out.sync_all().with_context(write_err)?;
    fifteen_core::pdb::uncache(&out);
    Ok((total, header.checksum))
}

/// Fills `buf` from `input`, or says how many bytes the stream had.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> anyhow::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        let n = read_some(input, &mut buf[filled..])?;
        anyhow::ensure!(
            n > 0,
            "not a pattern database: the stream ends after {filled} bytes of a {}-byte header",
            buf.len()
        );
        filled += n;
    }
    Ok(())
}

/// One read, retried when interrupted.
fn read_some(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// The `(file name, hex hash)` lines of a `sha256sum`-style manifest.
fn read_manifest(path: &Path) -> anyhow::Result<Vec<(String, String)>> {
    let meta = std::fs::metadata(path).map_err(|e| {
        DbError(format!("cannot read {}: {e}; pass --sha256 HEX for a single file", path.display()))
    })?;
    // A manifest lists a few dozen files; a large one is not a manifest.
    if !meta.is_file() || meta.len() > 1 << 20 {
        return Err(DbError(format!("{} is not a SHA256SUMS manifest", path.display())).into());
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| DbError(format!("cannot read {}: {e}", path.display())))?;
    Ok(text
        .lines()
        .filter_map(|l| {
            let (hash, name) = l.split_once(char::is_whitespace)?;
            // `sha256sum` writes "HASH  NAME" (text) or "HASH *NAME" (binary).
            let name = name.trim_start().trim_start_matches('*');
            Some((name.to_string(), hash.to_string()))
        })
        .collect())
}

fn sha256_of(path: &Path) -> anyhow::Result<[u8; 32]> {
    let mut file = File::open(path).context("cannot open it")?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).context("cannot read it")?;
        if n == 0 {
            return Ok(hasher.finalize().into());
        }
        hasher.update(&buf[..n]);
    }
}

fn parse_hex(text: &str) -> Option<[u8; 32]> {
    let text = text.trim();
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
