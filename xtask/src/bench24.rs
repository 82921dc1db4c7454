//! `cargo xtask bench --24`: Korf's 24-puzzle instances (`korf24.txt`) against the published
//! search effort (`korf24-published.txt`).
//!
//! Each instance is solved in its own process of the release binary (`fifteen solve --json
//! --goal blank-first`, the strongest 5x5 set of `--pdb-dir`), as a user would, its search
//! split over `--threads` threads (default 2). Per instance it prints the length (checked
//! against the published optimum: a mismatch fails the run), expansions, generated nodes, the
//! search's time and the process's wall time, the node rate, and our expansions over those of
//! Clausecker & Reinefeld's solver with the "small" zero-aware catalogue (SZ) and with Korf &
//! Felner's 6-6-6-6 partition and its transpose (RA). Then the totals, the two-thread speed-up
//! on each `--speedup ID` (one thread, then two, `--speedup-runs` times, compared by their
//! median times: single runs on a shared 2-core VM vary by a quarter), and a projection for all 50
//! instances: the published expansions of each, times our mean ratio to them, at our rate.
//!
//! The default instances are the ten shortest (81 - 95 moves), which the target is
//! about; `--instances 40,25` picks others.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

pub(crate) const USAGE: &str =
    "  bench --24 [--instances ID,...] [--pdb-dir DIR] [--threads N] [--speedup ID[,ID...]]
              [--speedup-runs N] [--timeout SECS]
      Korf's 24-puzzle instances (default: the ten shortest, 25,40,29,36,20,30,47,44,1,22),
      one process each: length (checked), expansions, generated, time, nodes/s, and ours
      over the published SZ and RA expansions, the share of the tables in 2 MiB pages (see the
      README: a low share slows the search); the 1- vs 2-thread speed-up on each --speedup
      ID (N runs of each, default 3, alternating; the ratio of the median times); the
      projected time for all 50";

/// The ten shortest instances, shortest first.
const TEN_SHORTEST: &[u32] = &[25, 40, 29, 36, 20, 30, 47, 44, 1, 22];

/// One instance of `korf24.txt`, with its published effort.
#[derive(Clone, Debug)]
struct Instance {
    id: u32,
    length: u32,
    cells: String,
    /// Expansions of the SZ and RA runs.
    sz: f64,
    ra: f64,
}

/// What one solve did.
#[derive(Clone, Copy, Debug)]
struct Solved {
    length: u32,
    expanded: u64,
    generated: u64,
    search: f64,
    wall: f64,
    /// The share of the tables the kernel mapped with 2 MiB pages (the solver's note).
    huge: Option<u8>,
}

struct Options {
    ids: Vec<u32>,
    pdb_dir: PathBuf,
    threads: usize,
    speedup: Vec<u32>,
    speedup_runs: usize,
    timeout: Option<String>,
}

/// Runs `cargo xtask bench --24 ARGS`.
pub(crate) fn run(root: &Path, args: &[String]) -> anyhow::Result<()> {
    let cwd = std::env::current_dir()?;
    let mut o = Options {
        ids: TEN_SHORTEST.to_vec(),
        pdb_dir: root.join("data"),
        threads: 2,
        speedup: Vec::new(),
        speedup_runs: 3,
        timeout: None,
    };
    if args.iter().any(|a| a == "--help" || a == "-h") {
        eprintln!("usage: cargo xtask\n{USAGE}");
        return Ok(());
    }
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--instances" => {
                o.ids = value()?
                    .split(',')
                    .map(|s| s.trim().parse().with_context(|| format!("bad instance id {s:?}")))
                    .collect::<anyhow::Result<_>>()?;
            }
            "--pdb-dir" => o.pdb_dir = cwd.join(value()?),
            "--threads" => {
                o.threads =
                    value()?.parse().ok().filter(|&n| n > 0).context("--threads: a count")?;
            }
            "--speedup" => {
                o.speedup = value()?
                    .split(',')
                    .map(|s| s.trim().parse().with_context(|| format!("--speedup: bad id {s:?}")))
                    .collect::<anyhow::Result<_>>()?;
            }
            "--speedup-runs" => {
                o.speedup_runs = value()?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .context("--speedup-runs: a count of at least 1")?;
            }
            "--timeout" => o.timeout = Some(value()?.clone()),
            other => bail!("bench --24: unknown argument {other:?}\n\n{USAGE}"),
        }
    }
    let instances = read_instances(root)?;
    let bin = crate::release_build(root, &["fifteen-cli"])?;
    let fifteen = bin.join("fifteen");
    let chosen: Vec<&Instance> = o
        .ids
        .iter()
        .map(|id| instances.get(id).with_context(|| format!("no instance {id} in korf24.txt")))
        .collect::<anyhow::Result<_>>()?;

    println!("Korf's 24-puzzle, {} threads, databases in {}:", o.threads, o.pdb_dir.display());
    println!(
        "{:>3} {:>4} {:>14} {:>14} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "id",
        "len",
        "expanded",
        "generated",
        "search s",
        "wall s",
        "M gen/s",
        "/SZ",
        "/RA",
        "2 MiB %"
    );
    let mut done: Vec<(&Instance, Solved)> = Vec::new();
    let mut failed = 0;
    for inst in &chosen {
        match solve(&fifteen, inst, &o, o.threads) {
            Ok(s) => {
                let ok = if s.length == inst.length { "" } else { "  WRONG LENGTH" };
                if s.length != inst.length {
                    failed += 1;
                }
                println!(
                    "{:>3} {:>4} {:>14} {:>14} {:>9.2} {:>9.2} {:>8.2} {:>8.3} {:>8.3} {:>8}{ok}",
                    inst.id,
                    s.length,
                    s.expanded,
                    s.generated,
                    s.search,
                    s.wall,
                    s.generated as f64 / s.search.max(1e-9) / 1e6,
                    s.expanded as f64 / inst.sz,
                    s.expanded as f64 / inst.ra,
                    s.huge.map_or("?".to_string(), |p| p.to_string()),
                );
                done.push((inst, s));
            }
            Err(e) => {
                failed += 1;
                println!("{:>3} {:>4} {e:#}", inst.id, "-");
            }
        }
    }
    if !done.is_empty() {
        summary(&done, &instances, o.threads);
    }
    for &id in &o.speedup {
        let inst = instances.get(&id).with_context(|| format!("no instance {id}"))?;
        // One and two threads in turn, so that a slow spell of a shared machine falls on both.
        let (mut one, mut two) = (Vec::new(), Vec::new());
        for _ in 0..o.speedup_runs {
            one.push(solve(&fifteen, inst, &o, 1)?);
            two.push(solve(&fifteen, inst, &o, 2)?);
        }
        let times = |runs: &[Solved]| -> String {
            runs.iter().map(|r| format!("{:.2}", r.search)).collect::<Vec<_>>().join(", ")
        };
        let (m1, m2) = (median_search(&one), median_search(&two));
        println!(
            "speed-up on #{id}: 1 thread {m1:.2} s, 2 threads {m2:.2} s of search (medians of {} \
             runs: {} s and {} s): {:.2}x ({} and {} expansions)",
            o.speedup_runs,
            times(&one),
            times(&two),
            m1 / m2.max(1e-9),
            one[0].expanded,
            two[0].expanded
        );
    }
    if failed > 0 {
        bail!("{failed} instance(s) not solved to the published length");
    }
    Ok(())
}

/// The median search time of `runs` (not empty; the mean of the middle two for an even count).
fn median_search(runs: &[Solved]) -> f64 {
    let mut t: Vec<f64> = runs.iter().map(|r| r.search).collect();
    t.sort_by(f64::total_cmp);
    let k = t.len() / 2;
    if t.len() % 2 == 1 { t[k] } else { (t[k - 1] + t[k]) / 2.0 }
}

/// Totals and the projection for all 50.
fn summary(done: &[(&Instance, Solved)], all: &HashMap<u32, Instance>, threads: usize) {
    let search: f64 = done.iter().map(|(_, s)| s.search).sum();
    let wall: f64 = done.iter().map(|(_, s)| s.wall).sum();
    let expanded: u64 = done.iter().map(|(_, s)| s.expanded).sum();
    let generated: u64 = done.iter().map(|(_, s)| s.generated).sum();
    let sz: f64 = done.iter().map(|(i, _)| i.sz).sum();
    let ra: f64 = done.iter().map(|(i, _)| i.ra).sum();
    println!(
        "total: {} instances, {expanded} expanded, {generated} generated, search {search:.1} s, \
         wall {wall:.1} s; expansions / SZ {:.3}, / RA {:.3} (sums)",
        done.len(),
        expanded as f64 / sz,
        expanded as f64 / ra
    );
    let rate = expanded as f64 / search.max(1e-9);
    println!(
        "rate: {:.2} M expansions/s, {:.2} M generated/s on {threads} threads",
        rate / 1e6,
        generated as f64 / search.max(1e-9) / 1e6
    );
    // All 50 at our rate, with expansions estimated from each published count and our ratio
    // to it here (the ratio varies per instance; this is the ratio of the sums).
    let all_sz: f64 = all.values().map(|i| i.sz).sum();
    let all_ra: f64 = all.values().map(|i| i.ra).sum();
    let hours = |published: f64, ratio: f64| published * ratio / rate / 3600.0;
    println!(
        "projection for all 50: {:.0} h from SZ's expansions x {:.3}, {:.0} h from RA's x {:.3}",
        hours(all_sz, expanded as f64 / sz),
        expanded as f64 / sz,
        hours(all_ra, expanded as f64 / ra),
        expanded as f64 / ra
    );
}

/// Solves `inst` in a process of its own.
fn solve(fifteen: &Path, inst: &Instance, o: &Options, threads: usize) -> anyhow::Result<Solved> {
    let mut cmd = Command::new(fifteen);
    cmd.args(["solve", &inst.cells, "--goal", "blank-first", "--json", "--heuristic", "pdb"])
        .args(["--threads", &threads.to_string(), "--pdb-dir"])
        .arg(&o.pdb_dir);
    if let Some(t) = &o.timeout {
        cmd.args(["--timeout", t]);
    }
    let t0 = Instant::now();
    let out = cmd.output().context("cannot run fifteen")?;
    let wall = t0.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).with_context(|| {
        format!("no answer ({}): {}", out.status, String::from_utf8_lossy(&out.stderr).trim())
    })?;
    if v["status"] != "solved" {
        bail!("{}", v["error"].as_str().unwrap_or("not solved"));
    }
    let num = |k: &str| v[k].as_u64().with_context(|| format!("no {k} in {v}"));
    Ok(Solved {
        length: num("length")? as u32,
        expanded: num("expanded")?,
        generated: num("nodes")?,
        search: v["time_ms"].as_f64().context("no time_ms")? / 1e3,
        wall: Duration::as_secs_f64(&wall),
        huge: crate::bench::huge_percent(&String::from_utf8_lossy(&out.stderr)),
    })
}

/// `korf24.txt` joined with `korf24-published.txt`, by id.
fn read_instances(root: &Path) -> anyhow::Result<HashMap<u32, Instance>> {
    let dir = root.join("../shared/instances");
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
    };
    let rows = |text: String| -> Vec<Vec<String>> {
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| l.split_whitespace().map(String::from).collect())
            .collect()
    };
    // ID OPTLEN KF02 SZ SA RZ RA
    let mut published: HashMap<u32, (f64, f64)> = HashMap::new();
    for r in rows(read("korf24-published.txt")?) {
        let n = |i: usize| r.get(i).and_then(|x| x.parse::<f64>().ok());
        if let (Some(id), Some(sz), Some(ra)) = (n(0), n(3), n(6)) {
            published.insert(id as u32, (sz, ra));
        }
    }
    let mut out = HashMap::new();
    for r in rows(read("korf24.txt")?) {
        if r.len() != 27 {
            bail!("korf24.txt: a line of {} fields, not 27", r.len());
        }
        let id: u32 = r[0].parse().context("an id")?;
        let length: u32 = r[1].parse().context("a length")?;
        let (sz, ra) = *published.get(&id).with_context(|| format!("no published row {id}"))?;
        out.insert(id, Instance { id, length, cells: r[2..].join(" "), sz, ra });
    }
    Ok(out)
}
