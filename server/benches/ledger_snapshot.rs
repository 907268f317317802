//! The cost of snapshotting the ledger at its default limits (100,000
//! aliases, 100,000 remembered creates, 200,000 objects), which the
//! writer does in the transaction every request of that moment waits for.
//! Prints milliseconds per snapshot and its size, then what restoring it
//! takes.
//!
//! `cargo bench -p hush-server --bench ledger_snapshot -- [--rounds 5]`;
//! run without `--bench` (as `cargo test --benches` does) it snapshots a
//! small ledger twice and checks it is made, the same bytes both times
//! (what a snapshot restores is `ledger::persist`'s tests).

#![allow(missing_docs)]

use std::time::Instant;

use hush_server::correlate::ledger::{FirstAnswer, Ledger, Limits};
use hush_server::store::Key;

fn first() -> FirstAnswer {
    FirstAnswer {
        status: 201,
        action: "create".into(),
        rule: "first-seen".into(),
        count: Some(1),
    }
}

/// A ledger as a busy server holds it: `n` creates remembered, `n` names
/// aliased to them, and `2n` objects maintained.
fn ledger(n: usize) -> Ledger {
    let limits = Limits {
        aliases: n,
        creates: n,
        maintained: 2 * n,
        ..Limits::default()
    };
    let mut ledger = Ledger::new(limits);
    for i in 0..n {
        let namespace = format!("team-{}", i % 20);
        let target = Key::new(
            &namespace,
            &format!("api-{i:06}-7d9f8b6c5d-x2k4q.17cb550d96f24000"),
        );
        let alias = Key::new(
            &namespace,
            &format!("api-{i:06}-7d9f8b6c5d-x2k4q.{:x}", i * 7919),
        );
        let digest = (i as u128).to_le_bytes();
        ledger.remember_create(target.clone(), digest, first(), 0);
        ledger.add_alias(alias, target.clone(), 2, digest, first(), 0);
        ledger.maintain(&target, [digest, (!(i as u128)).to_le_bytes()]);
        let other = Key::new(&namespace, &format!("web-{i:06}.17cb550d96f24000"));
        ledger.maintain(
            &other,
            [(i as u128 * 3).to_le_bytes(), (i as u128 * 5).to_le_bytes()],
        );
    }
    ledger
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let benching = args.iter().any(|a| a == "--bench");
    let rounds = args
        .windows(2)
        .find(|w| w[0] == "--rounds")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(5);
    if !benching {
        let small = ledger(100);
        let bytes = small.snapshot_state();
        assert!(bytes.len() > 100 * 50, "{} bytes", bytes.len());
        assert_eq!(
            small.snapshot_state(),
            bytes,
            "the same ledger, the same bytes"
        );
        return;
    }
    let n = Limits::default().aliases;
    let built = Instant::now();
    let ledger = ledger(n);
    eprintln!(
        "a ledger of {} entries built in {:.1} s",
        ledger.entries(),
        built.elapsed().as_secs_f64()
    );
    for round in 1..=rounds {
        let start = Instant::now();
        let bytes = ledger.snapshot_state();
        let ms = start.elapsed().as_secs_f64() * 1e3;
        println!(
            "{{\"round\":{round},\"entries\":{},\"bytes\":{},\"ms\":{ms:.1}}}",
            ledger.entries(),
            bytes.len()
        );
    }
    // What a restart pays for the snapshot's entries coming unsorted: the
    // restore puts the rebuilt orders in order.
    let state = ledger.snapshot_state();
    let start = Instant::now();
    let mut restored = Ledger::new(Limits::default());
    restored
        .restore_snapshot(&state)
        .expect("the snapshot restores");
    println!(
        "{{\"restored\":{},\"ms\":{:.1}}}",
        restored.entries(),
        start.elapsed().as_secs_f64() * 1e3
    );
}
