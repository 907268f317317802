//! `hushd load` run once against a real server (a smoke test of the
//! benchmark, not a measurement): it reports its figures and, with
//! `--check`, finds every acknowledged event stored; with `--watchers`,
//! every watch it holds is sent every change, in order.

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

#[test]
fn the_load_generator_s_watches_are_each_sent_every_change_in_order() {
    let dir = TempDir::new("load-watch");
    let server = Server::start(&dir, &["--correlate", "off"]);
    let figures = load(&server, &["--watchers", "6"]);
    let watch = &figures["watch"];
    assert_eq!(watch["watchers"], 6, "{figures}");
    // Uncorrelated: each acknowledged create is one change every watch gets.
    let acknowledged = figures["check"]["acknowledged"].as_u64().unwrap();
    assert!(acknowledged > 0);
    assert_eq!(
        watch["events_min"].as_u64(),
        Some(acknowledged),
        "{figures}"
    );
    assert_eq!(
        watch["events_max"].as_u64(),
        Some(acknowledged),
        "{figures}"
    );
    assert!(watch["measured_events"].as_u64().unwrap() > 0, "{figures}");
    for zero in ["out_of_order", "errors", "behind"] {
        assert_eq!(watch[zero], 0, "{zero}: {figures}");
    }
    assert_eq!(figures["connect_failures"], 0, "{figures}");

    // A selector nothing matches: the watches are sent nothing.
    let figures = load(
        &server,
        &["--watchers", "2", "--watch-selector", "type=Nothing"],
    );
    assert_eq!(figures["watch"]["events_max"], 0, "{figures}");
}
