//! Following a cluster, measured (a benchmark, not a test): an upstream
//! `hushd serve` (`--correlate off`, so every create is an event) loaded
//! by `hushd load`, and a follower `hushd serve --follow` of it. Prints
//! the occurrences per second the follower stored while the load ran
//! (and the upstream's creates per second beside it), how long it took to
//! catch up after the load ended, and the follower's resident memory
//! (now and its peak) once it holds every event.
//!
//! ```sh
//! cargo bench -p hushd --bench follow                              # 20 s of load
//! HUSH_FOLLOW_BENCH_EVENTS=1000000 cargo bench -p hushd --bench follow  # load until the upstream holds 1,000,000 events
//! ```
//!
//! `HUSH_FOLLOW_BENCH_CONNECTIONS` (default 32) sets `hushd load
//! --connections`; the upstream keeps every event for the run
//! (`--event-ttl 24h`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const HUSHD: &str = env!("CARGO_BIN_EXE_hushd");

struct Serve {
    child: Child,
    address: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(db: &Path, args: &[&str]) -> Serve {
    let mut child = Command::new(HUSHD)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--sync",
            "normal",
            "--correlate",
            "off",
        ])
        .arg("--db")
        .arg(db)
        .args(args)
        .env("HUSHD_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting hushd serve");
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let address = loop {
        let line = lines
            .next()
            .expect("hushd serve exited before listening")
            .unwrap();
        if let Some(address) = line.strip_prefix("hushd serve: listening on http://") {
            break address.to_owned();
        }
    };
    // Keep draining its log so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines.by_ref() {});
    Serve { child, address }
}

/// A status line of /proc/PID/status in KiB (`VmRSS`, `VmHWM`).
fn memory_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix(field)?
                .trim_start_matches(':')
                .trim()
                .strip_suffix(" kB")?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// Occurrences the follower's store holds.
fn stored(db: &Path) -> u64 {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| {
            c.query_row("SELECT coalesce(max(seq), 0) FROM occurrences", [], |r| {
                r.get::<_, i64>(0)
            })
        })
        .map(|n| n as u64)
        .unwrap_or(0)
}

/// Events the upstream holds (its resource version counts every create).
fn upstream_events(db: &Path) -> u64 {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.query_row("SELECT count(*) FROM events", [], |r| r.get::<_, i64>(0)))
        .map(|n| n as u64)
        .unwrap_or(0)
}

fn load(server: &str, connections: &str, seconds: u64) -> String {
    let out = Command::new(HUSHD)
        .args([
            "load",
            "--server",
            server,
            "--connections",
            connections,
            "--warmup",
            "0s",
        ])
        .args(["--duration", &format!("{seconds}s")])
        .output()
        .expect("running hushd load");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn main() {
    let dir = std::env::temp_dir().join(format!("hush-follow-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target: Option<u64> = std::env::var("HUSH_FOLLOW_BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok());
    let connections =
        std::env::var("HUSH_FOLLOW_BENCH_CONNECTIONS").unwrap_or_else(|_| "32".into());
    let up_db = dir.join("upstream.db");
    let upstream = serve(
        &up_db,
        &["--event-ttl", "24h", "--watch-history", "1000000"],
    );
    let kubeconfig: PathBuf = dir.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: up\nclusters:\n- name: up\n  cluster:\n    server: http://{}\n\
             users:\n- name: u\n  user: {{}}\ncontexts:\n- name: up\n  context:\n    cluster: up\n    user: u\n",
            upstream.address
        ),
    )
    .unwrap();
    let db = dir.join("follower.db");
    let follower = serve(
        &db,
        &["--follow", "--kubeconfig", kubeconfig.to_str().unwrap()],
    );
    let pid = follower.child.id();

    let started = Instant::now();
    let mut loads = Vec::new();
    loop {
        loads.push(load(&upstream.address, &connections, 20));
        match target {
            Some(target) if upstream_events(&up_db) < target => continue,
            _ => break,
        }
    }
    let loaded = started.elapsed();
    let posted = upstream_events(&up_db);
    let during = stored(&db);
    let deadline = Instant::now() + Duration::from_secs(600);
    while stored(&db) < posted && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let caught_up = started.elapsed();
    let total = stored(&db);
    std::thread::sleep(Duration::from_secs(2));
    println!("follow bench: hushd load ({connections} connections) against the upstream:");
    for l in &loads {
        println!("  {l}");
    }
    println!(
        "follow bench: {posted} upstream events created in {:.1} s ({:.0}/s); the follower stored {during} occurrences meanwhile ({:.0}/s)",
        loaded.as_secs_f64(),
        posted as f64 / loaded.as_secs_f64(),
        during as f64 / loaded.as_secs_f64()
    );
    println!(
        "follow bench: all {total} stored {:.1} s after the load began ({:.0} occurrences/s overall, {:.1} s behind the load's end)",
        caught_up.as_secs_f64(),
        total as f64 / caught_up.as_secs_f64(),
        (caught_up - loaded).as_secs_f64()
    );
    println!(
        "follow bench: follower RSS {} MiB now, peak {} MiB, holding {total} events; its store {} MiB",
        memory_kib(pid, "VmRSS") / 1024,
        memory_kib(pid, "VmHWM") / 1024,
        std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0) >> 20
    );
    drop((follower, upstream));
    let _ = std::fs::remove_dir_all(&dir);
}
