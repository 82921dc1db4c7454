//! `cargo xtask load`: a load test of `fifteen serve` on loopback.
//!
//! Starts the release binary on a free loopback port, sends `--requests` requests from
//! `--clients` threads, mixing easy positions (3x3 and short 4x4 scrambles), hard ones (Korf's
//! 100, goal blank-first; 5x5 scrambles, which take the near-optimal path), requests whose client
//! gives up after 100 ms, and bad ones (malformed JSON, bad boards, unsolvable, too large),
//! then prints the latency percentiles and statuses per kind, the unexpected answers (wanted:
//! none), the server's memory before and after each round, and its searches left running.
//! Clients do not wait for `Retry-After`: the load is kept above what the workers can serve, so
//! that the queue fills and `503` is part of the test.
//! Expected answers: `200` (or `503` when busy) for positions, `400`, `413` or `422` for bad
//! requests; anything else, or a failed connection of a patient client, is unexpected.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use fifteen_core::{Board, Dir, Size};

/// The kinds of request, in the order they are reported.
const KINDS: [&str; 5] = ["easy", "hard", "big", "impatient", "bad"];

struct Options {
    requests: usize,
    clients: usize,
    rounds: usize,
    server_args: Vec<String>,
}

/// One request's outcome.
struct Sample {
    kind: usize,
    ms: f64,
    status: Option<u16>,
    unexpected: bool,
}

/// SplitMix64, to make the same requests on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A random walk of `moves` from the blank-last goal of `size`.
fn scramble(size: Size, moves: usize, rng: &mut Rng) -> String {
    let mut b = Board::blank_last(size);
    for _ in 0..moves {
        let d = Dir::ALL[(rng.next() % 4) as usize];
        b.apply(d);
    }
    b.to_line()
}

/// The body of request `i` and its kind.
fn request(i: usize, korf: &[String], rng: &mut Rng) -> (usize, String) {
    let json =
        |board: &str, goal: &str| serde_json::json!({ "board": board, "goal": goal }).to_string();
    match i % 20 {
        0..=6 => {
            let size = if i.is_multiple_of(2) { Size::S3X3 } else { Size::S4X4 };
            (0, json(&scramble(size, 20 + (rng.next() % 30) as usize, rng), "blank-last"))
        }
        7..=9 => (1, json(&korf[(rng.next() % korf.len() as u64) as usize], "blank-first")),
        10 => (2, json(&scramble(Size::new(5, 5).unwrap_or(Size::S4X4), 300, rng), "blank-last")),
        11..=12 => (3, json(&korf[(rng.next() % korf.len() as u64) as usize], "blank-first")),
        13 => (4, "{\"board\": ".to_string()),
        14 => (4, json("1 2 x 4 5 6 7 8 0", "blank-last")),
        15 => (4, json("2 1 3 4 5 6 7 8 0", "blank-last")),
        16 => (4, format!("{{\"board\": \"{}\"}}", "1 ".repeat(10_000))),
        17 => (4, "{\"bord\": \"1 2 3 4 5 6 7 8 0\"}".to_string()),
        18 => (4, json("1 2 3 4 5 6 7 8 0 9", "blank-last")),
        _ => (4, "{\"board\": \"1 2 3 0\", \"size\": \"9x9\"}".to_string()),
    }
}

fn parse(args: &[String]) -> anyhow::Result<Options> {
    let mut opts = Options { requests: 3000, clients: 16, rounds: 2, server_args: Vec::new() };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--requests" => opts.requests = value("--requests")?.parse()?,
            "--clients" => opts.clients = value("--clients")?.parse()?,
            "--rounds" => opts.rounds = value("--rounds")?.parse()?,
            "--" => {
                opts.server_args = it.cloned().collect();
                break;
            }
            other => bail!("load: unknown argument {other:?}"),
        }
    }
    Ok(opts)
}

/// Resident and peak memory of a process, in MiB, from `/proc`.
fn memory(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// One line of the table for `samples`: the latency percentiles of all of them and of those
/// answered `200`, then `what` and the unexpected count.
fn row(name: &str, samples: &[&Sample], what: &str) {
    let sorted = |answered: bool| {
        let mut ms: Vec<f64> =
            samples.iter().filter(|s| !answered || s.status == Some(200)).map(|s| s.ms).collect();
        ms.sort_by(f64::total_cmp);
        ms
    };
    let (all, answered) = (sorted(false), sorted(true));
    println!(
        "| {name} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {what} | {} |",
        all.len(),
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        percentile(&answered, 0.5),
        percentile(&answered, 0.99),
        all.last().copied().unwrap_or(f64::NAN),
        samples.iter().filter(|s| s.unexpected).count(),
    );
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

pub(crate) fn run(root: &Path, args: &[String]) -> anyhow::Result<()> {
    let opts = parse(args)?;
    let bin = crate::release_build(root, &["fifteen-cli"])?;
    let korf_text = std::fs::read_to_string(root.join("../shared/instances/korf100.txt"))
        .context("../shared/instances/korf100.txt")?;
    let korf: Vec<String> = korf_text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().skip(2).collect::<Vec<_>>().join(" "))
        .collect();
    let mut server = Command::new(bin.join("fifteen"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(&opts.server_args)
        .stdout(Stdio::piped())
        .spawn()
        .context("cannot start fifteen serve")?;
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.take().context("stdout")?),
        &mut line,
    )?;
    let url = line
        .strip_prefix("serving ")
        .and_then(|r| r.split_whitespace().next())
        .context("the server's first line")?
        .trim_end_matches('/')
        .to_string();
    let pid = server.id();
    let before = memory(pid);
    println!("server {url} (pid {pid}), args {:?}", opts.server_args);
    println!("{} rounds of {} requests from {} clients", opts.rounds, opts.requests, opts.clients);
    let korf = Arc::new(korf);
    let per_client = opts.requests.div_ceil(opts.clients);
    let mut samples: Vec<Sample> = Vec::new();
    let mut wall = Duration::ZERO;
    let mut rounds = Vec::new();
    // Each round sends the same requests: memory that grows from round to round would be a
    // leak, memory kept after the first is the allocator's.
    for _ in 0..opts.rounds {
        let started = Instant::now();
        let threads: Vec<_> = (0..opts.clients)
            .map(|c| {
                let (korf, url) = (Arc::clone(&korf), url.clone());
                std::thread::spawn(move || client(c, per_client, &url, &korf))
            })
            .collect();
        for t in threads {
            samples.extend(t.join().map_err(|_| anyhow::anyhow!("a client panicked"))?);
        }
        wall += started.elapsed();
        let at_end = memory(pid);
        std::thread::sleep(Duration::from_secs(2));
        rounds.push((at_end, memory(pid)));
    }
    let health: serde_json::Value = ureq::get(format!("{url}/api/health"))
        .call()
        .ok()
        .and_then(|mut r| r.body_mut().read_to_string().ok())
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let _ = server.kill();
    let _ = server.wait();

    println!(
        "\n| kind | requests | p50 ms | p99 ms | p50 ms (200) | p99 ms (200) | max ms | statuses | unexpected |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (k, name) in KINDS.iter().enumerate() {
        let of_kind: Vec<&Sample> = samples.iter().filter(|s| s.kind == k).collect();
        let mut statuses = std::collections::BTreeMap::new();
        for s in &of_kind {
            let key = s.status.map_or("gave up".to_string(), |c| c.to_string());
            *statuses.entry(key).or_insert(0usize) += 1;
        }
        let statuses: Vec<String> = statuses.iter().map(|(s, n)| format!("{s}: {n}")).collect();
        row(name, &of_kind, &statuses.join(", "));
    }
    let all: Vec<&Sample> = samples.iter().collect();
    let rate = format!("{:.0} requests/s", all.len() as f64 / wall.as_secs_f64());
    row("all", &all, &rate);
    let unexpected = samples.iter().filter(|s| s.unexpected).count();
    println!("\nserver memory (RSS, MiB): {:.1} before the load", before.0);
    for (i, (end, idle)) in rounds.iter().enumerate() {
        println!(
            "  round {}: {:.1} at its end, {:.1} 2 s later (peak so far {:.1})",
            i + 1,
            end.0,
            idle.0,
            idle.1
        );
    }
    println!("after the load: {health}");
    if unexpected > 0 {
        bail!("{unexpected} unexpected answers");
    }
    Ok(())
}

fn client(c: usize, count: usize, url: &str, korf: &[String]) -> Vec<Sample> {
    let patient: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let impatient: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_millis(100)))
        .build()
        .into();
    let mut rng = Rng(c as u64 * 7919 + 1);
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let (kind, body) = request(c * count + i, korf, &mut rng);
        let agent = if kind == 3 { &impatient } else { &patient };
        let t = Instant::now();
        let result = agent
            .post(format!("{url}/api/solve"))
            .header("content-type", "application/json")
            .send(&body)
            .and_then(|mut r| r.body_mut().read_to_string().map(|_| r.status().as_u16()));
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let status = result.ok();
        let expected = matches!(
            (kind, status),
            (3, None) | (4, Some(400 | 413 | 422)) | (0..=3, Some(200 | 503))
        );
        let unexpected = !expected;
        out.push(Sample { kind, ms, status, unexpected });
    }
    out
}
