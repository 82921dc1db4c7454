//! The page of `fifteen serve` driven in headless Chromium through chromedriver (W3C WebDriver):
//! load it, pick the goal, type a known 4x4 position, solve it, and check that the length shown
//! is the API's (and the published optimum) and that the last board shown is the goal; then ask
//! for a hint and click the tile it names. Saves screenshots to `target/browser/`.
//!
//! Needs `chromium` and `chromedriver` (Debian: `apt-get install chromium chromium-driver`).
//! Without them the test says so and passes, so that `cargo test --workspace` works on a fresh
//! clone; with `FIFTEEN_BROWSER_TESTS=1` (set by `.ci/run`, which installs them) it fails
//! instead. `FIFTEEN_CHROMIUM` and `FIFTEEN_CHROMEDRIVER` override the paths.
//!
//! The WebDriver client is the handful of JSON-over-HTTP calls below, on the HTTP client the
//! other tests use.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

use crate::serve::{Served, korf};
use crate::support::scratch_dir;

/// WebDriver's key for an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

fn find_program(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// chromedriver, killed when dropped.
struct Driver {
    child: Child,
    base: String,
    session: Option<String>,
    agent: ureq::Agent,
}

impl Driver {
    fn start(chromedriver: &Path) -> Driver {
        // A free port (chromedriver has no "pick one and tell me").
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let driver =
            Driver { child, base: format!("http://127.0.0.1:{port}"), session: None, agent };
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let ready = driver
                .agent
                .get(format!("{}/status", driver.base))
                .call()
                .ok()
                .and_then(|mut r| r.body_mut().read_to_string().ok())
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .is_some_and(|v| v["value"]["ready"] == true);
            if ready {
                return driver;
            }
            assert!(Instant::now() < until, "chromedriver did not get ready");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// One command; its `value`.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = match &self.session {
            Some(s) => format!("{}/session/{s}{path}", self.base),
            None => format!("{}{path}", self.base),
        };
        let response = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self
                .agent
                .post(&url)
                .header("content-type", "application/json")
                .send(body.unwrap_or_else(|| json!({})).to_string()),
        };
        let mut response = response.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().expect("a body");
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{path}: {text}"));
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    fn open(&mut self, chromium: &Path, profile: &Path) {
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1200,900",
        ]
        .map(String::from)
        .into_iter()
        .chain([format!("--user-data-dir={}", profile.display())])
        .collect::<Vec<_>>();
        let caps = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": { "binary": chromium, "args": args },
        }}});
        let v = self.call("POST", "/session", Some(caps));
        self.session = Some(v["sessionId"].as_str().expect("a session").to_string());
    }

    fn find(&self, css: &str) -> String {
        let v =
            self.call("POST", "/element", Some(json!({ "using": "css selector", "value": css })));
        v[ELEMENT].as_str().unwrap_or_else(|| panic!("no element {css}")).to_string()
    }

    fn click(&self, css: &str) {
        let id = self.find(css);
        self.call("POST", &format!("/element/{id}/click"), None);
    }

    fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.call("POST", &format!("/element/{id}/clear"), None);
        self.call("POST", &format!("/element/{id}/value"), Some(json!({ "text": text })));
    }

    fn text(&self, css: &str) -> String {
        let id = self.find(css);
        self.call("GET", &format!("/element/{id}/text"), None).as_str().unwrap_or("").to_string()
    }

    fn attribute(&self, css: &str, name: &str) -> Option<String> {
        let id = self.find(css);
        self.call("GET", &format!("/element/{id}/attribute/{name}"), None)
            .as_str()
            .map(String::from)
    }

    /// Polls `probe` until it gives a value.
    fn wait_for<T>(&self, what: &str, secs: u64, mut probe: impl FnMut() -> Option<T>) -> T {
        let until = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(v) = probe() {
                return v;
            }
            assert!(Instant::now() < until, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn screenshot(&self, path: &Path) {
        let b64 = self.call("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().expect("base64"))
            .expect("a PNG");
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        std::fs::write(path, png).expect("write the screenshot");
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if self.session.is_some() {
            let _ = self
                .agent
                .delete(format!(
                    "{}/session/{}",
                    self.base,
                    self.session.take().unwrap_or_default()
                ))
                .call();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_page_solves_a_known_position_in_chromium() {
    let required = std::env::var("FIFTEEN_BROWSER_TESTS").is_ok_and(|v| v == "1");
    let chromium =
        find_program("FIFTEEN_CHROMIUM", &["chromium", "chromium-browser", "google-chrome"]);
    let chromedriver = find_program("FIFTEEN_CHROMEDRIVER", &["chromedriver"]);
    let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
        assert!(
            !required,
            "FIFTEEN_BROWSER_TESTS=1 but chromium or chromedriver is missing \
             (apt-get install chromium chromium-driver)"
        );
        eprintln!(
            "note: browser test skipped: chromium and chromedriver not found \
             (apt-get install chromium chromium-driver; FIFTEEN_BROWSER_TESTS=1 makes this fail)"
        );
        return;
    };
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../browser");
    std::fs::create_dir_all(&shots).expect("target/browser");
    let served = Served::start(&["--workers", "2"]);
    let mut driver = Driver::start(&chromedriver);
    driver.open(&chromium, &scratch_dir("chromium-profile"));
    driver.call("POST", "/url", Some(json!({ "url": format!("{}/", served.url) })));
    let cells = |d: &Driver| d.attribute("#board", "data-cells");
    driver.wait_for("the board", 20, || cells(&driver));

    // Korf's instance 1 and its goal, picked and typed as a person would.
    let (board, optimal) = korf(1);
    driver.click("#goal-kind option[value=blank-first]");
    driver.type_into("#board-text", &board);
    driver.click("#set");
    assert_eq!(cells(&driver).as_deref(), Some(board.as_str()), "the board shown");
    driver.click("#solve");
    let shown: u64 = driver.wait_for("the length", 60, || driver.text("#length").parse().ok());

    let body = json!({ "board": board, "goal": "blank-first", "size": "4x4" }).to_string();
    let (status, api) = served.post("/api/solve", &body);
    assert_eq!(status, 200, "{api}");
    assert_eq!(Some(shown), api["length"].as_u64(), "the page shows the API's length");
    assert_eq!(shown, optimal, "Korf's published optimum");
    assert_eq!(driver.text("#optimal"), "yes (proven)");

    // Play a few moves of the animation, then jump to the end.
    driver.click("#play");
    driver.wait_for("the animation", 20, || {
        driver
            .text("#step")
            .strip_prefix("move ")
            .and_then(|s| s.split(' ').next()?.parse::<u64>().ok())
            .filter(|&n| n >= 3)
    });
    driver.screenshot(&shots.join("playing.png"));
    driver.click("#last");
    let goal: String = (0..16).map(|t| t.to_string()).collect::<Vec<_>>().join(" ");
    driver.wait_for("the goal", 10, || {
        (cells(&driver).as_deref() == Some(goal.as_str())).then_some(())
    });
    assert!(driver.text("#step").contains(&format!("move {optimal} / {optimal} · goal reached")));
    // Let the last tile's slide finish before the picture.
    std::thread::sleep(Duration::from_millis(600));
    driver.screenshot(&shots.join("solved.png"));

    // Back to the start: a hint, then the player clicks the tile it names.
    driver.click("#first");
    assert_eq!(cells(&driver).as_deref(), Some(board.as_str()));
    driver.click("#hint");
    let hint = driver.text("#message");
    let expected = format!("{optimal} moves from the goal");
    assert!(hint.starts_with("hint: slide tile ") && hint.ends_with(&expected), "{hint}");
    let tile: u8 = hint["hint: slide tile ".len()..]
        .split(' ')
        .next()
        .and_then(|t| t.parse().ok())
        .expect("a tile number");
    driver.screenshot(&shots.join("hint.png"));
    driver.click(&format!(".tile[data-tile='{tile}']"));
    let moved = driver.wait_for("the move", 10, || cells(&driver).filter(|c| *c != board));
    let before: Vec<&str> = board.split(' ').collect();
    let after: Vec<&str> = moved.split(' ').collect();
    let changed: Vec<usize> = (0..16).filter(|&i| before[i] != after[i]).collect();
    assert_eq!(changed.len(), 2, "one tile slid into the blank: {moved}");
    assert!(changed.iter().all(|&i| [tile.to_string().as_str(), "0"].contains(&before[i])));
    // Following the solution keeps it: one move along.
    assert!(
        driver.text("#step").starts_with(&format!("move 1 / {optimal}")),
        "{}",
        driver.text("#step")
    );
}
