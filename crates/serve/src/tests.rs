//! The server against a fake backend: status codes, limits, admission, and that no search
//! outlives its request. The real backend is tested end to end in `tests/it/serve.rs`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::*;

/// Boards it knows: `easy` answers at once, `bad` is refused, `hard` runs until cancelled or
/// out of time, `deadline` reports its budget.
#[derive(Default)]
struct Fake {
    live: AtomicUsize,
    max_live: AtomicUsize,
    cancelled: AtomicUsize,
}

impl Backend for Fake {
    fn check(&self, request: &SolveRequest) -> Result<(), Reply> {
        match request.board.as_str() {
            "refused early" => Err(Reply::Unprocessable(error_body("refused early"))),
            _ => Ok(()),
        }
    }

    fn solve(&self, request: &SolveRequest, budget: &Budget) -> Reply {
        let live = self.live.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_live.fetch_max(live, Ordering::SeqCst);
        let reply = match request.board.as_str() {
            "easy" => Reply::Ok(json!({ "status": "solved", "length": 0 })),
            "bad" => Reply::Unprocessable(error_body("bad board")),
            "deadline" => Reply::Ok(json!({
                "ms": budget.deadline.saturating_duration_since(Instant::now()).as_millis() as u64,
                "max_nodes": budget.max_nodes,
            })),
            _ => loop {
                if budget.cancel.load(Ordering::Relaxed) {
                    self.cancelled.fetch_add(1, Ordering::SeqCst);
                    break Reply::Ok(json!({ "status": "limit", "why": "cancelled" }));
                }
                if Instant::now() >= budget.deadline {
                    break Reply::Ok(json!({ "status": "limit", "why": "time" }));
                }
                thread::sleep(Duration::from_millis(2));
            },
        };
        self.live.fetch_sub(1, Ordering::SeqCst);
        reply
    }

    fn random(&self, query: &RandomQuery) -> Reply {
        Reply::Ok(json!({ "size": query.size, "seed": query.seed }))
    }
}

struct Running {
    addr: SocketAddr,
    health: Box<dyn Fn() -> Health + Send + Sync>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            t.join().expect("the server thread ended cleanly");
        }
    }
}

fn start(fake: &Arc<Fake>, config: Config) -> Running {
    let addr: SocketAddr = "127.0.0.1:0".parse().expect("an address");
    let backend: Arc<dyn Backend> = Arc::clone(fake) as Arc<dyn Backend>;
    let server = Server::bind(addr, backend, config).expect("bind");
    let addr = server.local_addr();
    let health = Box::new(server.health_probe());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = thread::spawn(move || {
        server
            .run(async {
                let _ = stopped.await;
            })
            .expect("the server ran");
    });
    Running { addr, health, stop: Some(stop), thread: Some(thread) }
}

fn config(workers: usize, queue: usize, timeout_ms: u64) -> Config {
    Config {
        workers,
        queue,
        timeout: Duration::from_millis(timeout_ms),
        max_nodes: Some(1234),
        max_body: 1024,
    }
}

fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(timeout))
        .build()
        .into()
}

/// Status, `Retry-After` and body of a `POST /api/solve`.
fn post(addr: SocketAddr, body: &str) -> (u16, Option<String>, Value) {
    post_with(&agent(Duration::from_secs(30)), addr, body).expect("a response")
}

fn post_with(
    agent: &ureq::Agent,
    addr: SocketAddr,
    body: &str,
) -> Result<(u16, Option<String>, Value), ureq::Error> {
    let mut response = agent
        .post(format!("http://{addr}/api/solve"))
        .header("content-type", "application/json")
        .send(body)?;
    let status = response.status().as_u16();
    let retry =
        response.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
    let text = response.body_mut().read_to_string()?;
    let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Ok((status, retry, value))
}

fn get(addr: SocketAddr, path: &str) -> (u16, String, String) {
    let mut response =
        agent(Duration::from_secs(10)).get(format!("http://{addr}{path}")).call().expect("get");
    let ct = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    (response.status().as_u16(), ct, response.body_mut().read_to_string().expect("body"))
}

fn wait_idle(run: &Running, within: Duration) -> Health {
    let until = Instant::now() + within;
    loop {
        let h = (run.health)();
        if (h.running == 0 && h.waiting == 0) || Instant::now() > until {
            return h;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn serves_the_page_and_its_assets() {
    let run = start(&Arc::new(Fake::default()), config(1, 1, 1000));
    let (status, ct, body) = get(run.addr, "/");
    assert_eq!((status, ct.as_str()), (200, "text/html; charset=utf-8"));
    assert!(body.contains("<script src=\"app.js\""), "{body}");
    let (status, ct, _) = get(run.addr, "/app.js");
    assert_eq!((status, ct.as_str()), (200, "text/javascript; charset=utf-8"));
    let (status, ct, _) = get(run.addr, "/style.css");
    assert_eq!((status, ct.as_str()), (200, "text/css; charset=utf-8"));
    let (status, _, body) = get(run.addr, "/nope");
    assert_eq!(status, 404);
    assert!(body.contains("no such page: GET /nope"), "{body}");
    let (status, _, body) = get(run.addr, "/api/random?size=3x3&seed=7");
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<Value>(&body).ok(), Some(json!({"size": "3x3", "seed": 7})));
    let (status, _, body) = get(run.addr, "/api/random?seed=x");
    assert_eq!(status, 400);
    assert!(body.contains("bad query"), "{body}");
}

#[test]
fn bad_requests_get_400_413_or_422_with_a_message() {
    let run = start(&Arc::new(Fake::default()), config(1, 1, 1000));
    let (status, _, body) = post(run.addr, "{\"board\": ");
    assert_eq!(status, 400);
    assert!(body["error"].as_str().is_some_and(|e| e.starts_with("bad request: EOF")), "{body}");
    let (status, _, body) = post(run.addr, r#"{"boad": "easy"}"#);
    assert_eq!(status, 400);
    assert!(body["error"].as_str().is_some_and(|e| e.contains("unknown field `boad`")), "{body}");
    let (status, _, body) = post(run.addr, r#"{"board": 5}"#);
    assert_eq!(status, 400, "{body}");
    let (status, _, body) = post(run.addr, &format!(r#"{{"board": "{}"}}"#, "1 ".repeat(600)));
    assert_eq!(status, 413);
    assert_eq!(body["error"], "request too large: the limit is 1024 bytes");
    let (status, _, body) = post(run.addr, r#"{"board": "bad"}"#);
    assert_eq!((status, body), (422, error_body("bad board")));
    let (status, _, body) = post(run.addr, r#"{"board": "easy", "goal": "blank-first"}"#);
    assert_eq!((status, body), (200, json!({"status": "solved", "length": 0})));
}

#[test]
fn each_search_gets_the_configured_budget() {
    let run = start(&Arc::new(Fake::default()), config(1, 1, 3000));
    let (status, _, body) = post(run.addr, r#"{"board": "deadline"}"#);
    assert_eq!(status, 200);
    assert_eq!(body["max_nodes"], 1234);
    let ms = body["ms"].as_u64().expect("ms");
    assert!((2000..=3000).contains(&ms), "{ms} ms left of 3000");
}

#[test]
fn a_foreign_host_is_refused_on_loopback() {
    let run = start(&Arc::new(Fake::default()), config(1, 1, 1000));
    let ask = |host: &str| {
        let mut s = TcpStream::connect(run.addr).expect("connect");
        write!(s, "GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").expect("write");
        let mut text = String::new();
        s.read_to_string(&mut text).expect("read");
        text
    };
    assert!(ask("evil.example:80").starts_with("HTTP/1.1 403"));
    assert!(ask("127.0.0.1.evil.example").starts_with("HTTP/1.1 403"));
    assert!(ask(&format!("localhost:{}", run.addr.port())).starts_with("HTTP/1.1 200"));
    assert!(ask(&run.addr.to_string()).starts_with("HTTP/1.1 200"));
    assert!(ask("[::1]:8080").starts_with("HTTP/1.1 200"));
}

#[test]
fn loopback_names() {
    for yes in ["localhost", "LOCALHOST:80", "127.0.0.1", "127.9.9.9:1", "[::1]", "[::1]:443"] {
        assert!(server::is_loopback_host(yes), "{yes}");
    }
    for no in ["", "example.com", "10.0.0.1:80", "[::2]", "localhost.example", "127.0.0.1.nip.io"] {
        assert!(!server::is_loopback_host(no), "{no}");
    }
}

#[test]
fn a_full_queue_answers_503_with_retry_after() {
    let fake = Arc::new(Fake::default());
    let run = start(&fake, config(1, 1, 1500));
    let addr = run.addr;
    // One runs, one waits.
    let hard: Vec<_> =
        (0..2).map(|_| thread::spawn(move || post(addr, r#"{"board": "hard"}"#))).collect();
    let until = Instant::now() + Duration::from_secs(5);
    while (run.health)() != (Health { running: 1, waiting: 1, workers: 1, queue: 1 }) {
        assert!(Instant::now() < until, "{:?}", (run.health)());
        thread::sleep(Duration::from_millis(5));
    }
    let (status, retry, body) = post(addr, r#"{"board": "easy"}"#);
    assert_eq!((status, retry.as_deref()), (503, Some("1")), "{body}");
    assert!(body["error"].as_str().is_some_and(|e| e.contains("queue full")), "{body}");
    // What the quick check refuses is refused even now.
    let (status, _, body) = post(addr, r#"{"board": "refused early"}"#);
    assert_eq!((status, body), (422, error_body("refused early")));
    let answers: Vec<_> = hard.into_iter().map(|t| t.join().expect("client")).collect();
    // The first ran out of time; the second got the worker then, or waited longer than the
    // timeout for it (both take the timeout, so either may come first).
    let mut statuses: Vec<u16> = answers.iter().map(|a| a.0).collect();
    statuses.sort_unstable();
    assert!(statuses == [200, 200] || statuses == [200, 503], "{answers:?}");
    assert_eq!(wait_idle(&run, Duration::from_secs(2)).running, 0);
    assert_eq!(fake.max_live.load(Ordering::SeqCst), 1);
}

#[test]
fn a_client_that_goes_away_cancels_its_search() {
    let fake = Arc::new(Fake::default());
    // Without cancellation each search would run its full minute.
    let run = start(&fake, config(2, 2, 60_000));
    let impatient = agent(Duration::from_millis(300));
    for _ in 0..3 {
        let r = post_with(&impatient, run.addr, r#"{"board": "hard"}"#);
        assert!(r.is_err(), "the client gave up: {r:?}");
    }
    let h = wait_idle(&run, Duration::from_secs(5));
    assert_eq!((h.running, h.waiting), (0, 0), "searches left running");
    assert_eq!(fake.cancelled.load(Ordering::SeqCst), 3);
    assert_eq!(fake.live.load(Ordering::SeqCst), 0);
}

/// Many clients, mixed requests, some giving up half-way: every answer is one of the expected
/// statuses, concurrency never exceeds the workers, and nothing is left running.
#[test]
fn stress_mixed_clients_leave_nothing_behind() {
    let fake = Arc::new(Fake::default());
    let run = start(&fake, config(2, 3, 400));
    let addr = run.addr;
    let clients: Vec<_> = (0..12)
        .map(|c| {
            thread::spawn(move || {
                let patient = agent(Duration::from_secs(10));
                let impatient = agent(Duration::from_millis(50));
                let mut unexpected = Vec::new();
                for i in 0..30 {
                    let (body, client) = match (c + i) % 5 {
                        0 => (r#"{"board": "easy"}"#, &patient),
                        1 => (r#"{"board": "bad"}"#, &patient),
                        2 => (r#"{"board": "hard"}"#, &impatient),
                        3 => ("not json", &patient),
                        _ => (r#"{"board": "hard"}"#, &patient),
                    };
                    match post_with(client, addr, body) {
                        Ok((200 | 400 | 422, _, _)) => {}
                        Ok((503, Some(_), _)) => {}
                        Err(_) if std::ptr::eq(client, &impatient) => {}
                        other => unexpected.push(format!("{body}: {other:?}")),
                    }
                }
                unexpected
            })
        })
        .collect();
    let unexpected: Vec<String> =
        clients.into_iter().flat_map(|t| t.join().expect("client")).collect();
    assert!(unexpected.is_empty(), "{unexpected:?}");
    let h = wait_idle(&run, Duration::from_secs(3));
    assert_eq!((h.running, h.waiting), (0, 0));
    assert_eq!(fake.live.load(Ordering::SeqCst), 0);
    assert!(fake.max_live.load(Ordering::SeqCst) <= 2);
}
