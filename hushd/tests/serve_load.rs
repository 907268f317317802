//! `hushd load` run once against a real server (a smoke test of the
//! benchmark, not a measurement): it reports its figures and, with
//! `--check`, finds every acknowledged event stored.

mod serve_support;

use std::process::Command;

use serve_support::{Server, TempDir};

fn load(server: &Server, extra: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_hushd"))
        .args(["load", "--server", &format!("127.0.0.1:{}", server.port)])
        .args([
            "--connections",
            "8",
            "--duration",
            "1s",
            "--warmup",
            "200ms",
            "--check",
        ])
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("events/s over 8 connections"), "{stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_load_generator_reports_figures_and_finds_nothing_lost() {
    for (args, group) in [
        (vec!["--correlate", "off"], "core"),
        (vec![], "core"),
        (vec![], "events"),
    ] {
        let dir = TempDir::new("load");
        let server = Server::start(&dir, &args);
        let figures = load(&server, &["--group", group]);
        assert!(figures["requests"].as_u64().unwrap() > 0, "{figures}");
        assert!(figures["p99_ms"].as_f64().unwrap() >= figures["p50_ms"].as_f64().unwrap());
        let check = &figures["check"];
        assert_eq!(check["lost"], 0, "{figures}");
        assert!(check["acknowledged"].as_u64().unwrap() > 0);
        if args.is_empty() {
            // Correlated: far fewer events stored than answers acknowledged.
            assert!(
                check["stored_events"].as_u64() < check["acknowledged"].as_u64(),
                "{figures}"
            );
        } else {
            assert_eq!(check["stored_events"], check["acknowledged"], "{figures}");
        }
    }
}
