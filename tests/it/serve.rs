//! `fifteen serve`: the real binary answering HTTP, checked against `fifteen solve --json` and
//! `fifteen random`, and against published optimal lengths.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{fifteen, pdb_dir};

const KORF100: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/instances/korf100.txt");

/// Korf's instance `id`: its cells and published optimal length (goal `blank-first`).
pub(crate) fn korf(id: usize) -> (String, u64) {
    let text = std::fs::read_to_string(KORF100).expect("korf100.txt is in ../shared/instances");
    let line = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .find(|l| l.split_whitespace().next() == Some(&id.to_string()))
        .expect("the instance");
    let fields: Vec<&str> = line.split_whitespace().collect();
    (fields[2..].join(" "), fields[1].parse().expect("a length"))
}

/// A running `fifteen serve` on a free loopback port, killed when dropped.
pub(crate) struct Served {
    child: Child,
    pub(crate) url: String,
}

impl Served {
    pub(crate) fn start(extra: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fifteen"))
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(extra)
            .env("FIFTEEN_PDB_DIR", pdb_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the first line");
        let url = line
            .strip_prefix("serving ")
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .trim_end_matches('/')
            .to_string();
        Served { child, url }
    }

    fn agent() -> ureq::Agent {
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into()
    }

    /// Status and JSON body of a `POST` of `body` to `path`.
    pub(crate) fn post(&self, path: &str, body: &str) -> (u16, Value) {
        let mut r = Self::agent()
            .post(format!("{}{path}", self.url))
            .header("content-type", "application/json")
            .send(body)
            .expect("a response");
        let status = r.status().as_u16();
        (status, serde_json::from_str(&r.body_mut().read_to_string().expect("body")).expect("JSON"))
    }

    /// Status and JSON body of a `GET` of `path`.
    pub(crate) fn get(&self, path: &str) -> (u16, Value) {
        let mut r = Self::agent().get(format!("{}{path}", self.url)).call().expect("a response");
        let status = r.status().as_u16();
        (status, serde_json::from_str(&r.body_mut().read_to_string().expect("body")).expect("JSON"))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The record without its time, which differs between runs.
fn timeless(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("time_ms");
    }
    v
}

#[test]
fn the_api_answers_like_solve_json() {
    let served = Served::start(&["--workers", "2"]);
    let (board, optimal) = korf(1);
    let body = json!({ "board": board, "goal": "blank-first" }).to_string();
    let (status, api) = served.post("/api/solve", &body);
    assert_eq!(status, 200, "{api}");
    assert_eq!(api["length"].as_u64(), Some(optimal), "{api}");
    assert_eq!(api["optimal"], true);
    let cli = fifteen(&["solve", &board, "--goal", "blank-first", "--json", "--threads", "1"]);
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    let cli: Value = serde_json::from_str(cli.stdout.trim()).expect("one JSON line");
    assert_eq!(timeless(api), timeless(cli));
    // 3x3 with size and goal given, the way the page sends them.
    let body = json!({ "board": "8 7 6 5 4 3 2 1 0", "goal": "blank-first", "size": "3x3" });
    let (status, api) = served.post("/api/solve", &body.to_string());
    assert_eq!((status, api["length"].as_u64()), (200, Some(28)), "{api}");
}

#[test]
fn bad_requests_get_the_command_line_message() {
    let served = Served::start(&[]);
    for (board, status) in [("1 2 x 4 5 6 7 8 0", 422), ("2 1 3 4 5 6 7 8 0", 422)] {
        let (got, api) = served.post("/api/solve", &json!({ "board": board }).to_string());
        assert_eq!(got, status, "{api}");
        let cli = fifteen(&["solve", board, "--json"]);
        let message = match cli.stdout.trim() {
            "" => cli.stderr.trim().trim_start_matches("error: ").to_string(),
            line => {
                let v: Value = serde_json::from_str(line).expect("JSON");
                v["error"].as_str().expect("an error").to_string()
            }
        };
        assert_eq!(api["error"].as_str(), Some(message.as_str()), "{board}");
    }
    let (status, api) = served.post("/api/solve", "{\"board\": [1, 2]}");
    assert_eq!(status, 400, "{api}");
    let (status, api) =
        served.post("/api/solve", &format!("{{\"board\": \"{}\"}}", "1 ".repeat(9000)));
    assert_eq!(status, 413, "{api}");
    let (status, api) = served.get("/api/random?size=0x4");
    assert_eq!(status, 422, "{api}");
}

#[test]
fn random_positions_are_those_of_fifteen_random() {
    let served = Served::start(&[]);
    for (query, args) in [
        ("size=4x4&seed=5", vec!["--uniform", "--seed", "5", "--size", "4x4"]),
        ("size=3x5&seed=11&moves=40", vec!["--moves", "40", "--seed", "11", "--size", "3x5"]),
    ] {
        let (status, api) = served.get(&format!("/api/random?{query}"));
        assert_eq!(status, 200, "{api}");
        let mut cli_args = vec!["random"];
        cli_args.extend(args);
        let cli = fifteen(&cli_args);
        assert_eq!(api["board"].as_str(), Some(cli.stdout.trim()), "{query}");
    }
}

#[test]
fn the_page_and_health_are_served() {
    let served = Served::start(&["--workers", "3", "--queue", "5"]);
    let (status, health) = served.get("/api/health");
    assert_eq!(status, 200);
    assert_eq!(health, json!({ "running": 0, "waiting": 0, "workers": 3, "queue": 5 }));
    let mut page = ureq::get(format!("{}/", served.url)).call().expect("the page");
    let html = page.body_mut().read_to_string().expect("html");
    assert!(html.contains("<title>fifteen"), "{html}");
}

#[test]
fn serve_refuses_an_address_in_use() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = taken.local_addr().expect("addr").to_string();
    let run = fifteen(&["serve", "--addr", &addr]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains(&format!("cannot listen on {addr}")), "{}", run.stderr);
}
