//! `hush-proxy-bench FILE [--events N] [--mode legacy|series]`: events per
//! second through the proxy-wasm plugin in the test host, each event a
//! `POST` of an Event through the whole request and response path (the
//! plugin's JSON parsing, correlation, rewrite, decision log line, and the
//! in-memory API server's answer read back). FILE's events are replayed
//! pass after pass, each pass later by the file's span plus a second, after
//! 10,000 events to warm up. Prints one JSON line.

use std::process::ExitCode;
use std::time::Instant;

use hush_proxy_host::{Drive, HttpMessage, drive::request_of, load_plugin};
use serde_json::{Value, json};

/// Events sent before measuring.
const WARM_UP: usize = 10_000;
/// `proxy_log_level_t` `WARN`: decision lines are made but not kept.
const WARN: i32 = 3;

struct Args {
    file: String,
    events: usize,
    mode: String,
}

fn args() -> Result<Args, String> {
    let mut args = Args {
        file: String::new(),
        events: 200_000,
        mode: "legacy".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--events" => {
                args.events = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--events needs a number")?
            }
            "--mode" => args.mode = it.next().ok_or("--mode needs legacy or series")?,
            _ if args.file.is_empty() && !arg.starts_with('-') => args.file = arg,
            _ => return Err(format!("unexpected argument {arg}")),
        }
    }
    if args.file.is_empty() {
        return Err("usage: hush-proxy-bench FILE [--events N] [--mode legacy|series]".into());
    }
    Ok(args)
}

fn run() -> Result<Value, String> {
    let args = args()?;
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{}: {e}", args.file))?;
    let requests: Vec<(u64, HttpMessage)> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l)
                .map_err(|e| e.to_string())
                .and_then(|v| request_of(&v))
        })
        .collect::<Result<_, _>>()?;
    let (first, last) = match (requests.first(), requests.last()) {
        (Some(f), Some(l)) => (f.0, l.0),
        _ => return Err(format!("{}: no events", args.file)),
    };
    let period = last - first + 1_000_000_000;
    let (engine, module) = load_plugin()?;
    let configuration = json!({ "mode": args.mode }).to_string();
    let mut drive = Drive::start(&engine, &module, configuration.as_bytes(), first)
        .map_err(|e| e.to_string())?;
    drive.host.state().log_level = WARN;
    let mut sent = 0usize;
    let mut send = |drive: &mut Drive, n: usize| -> Result<(), String> {
        for _ in 0..n {
            let (at, request) = &requests[sent % requests.len()];
            let pass = (sent / requests.len()) as u64;
            drive
                .send(at + pass * period, request.clone())
                .map_err(|e| e.to_string())?;
            sent += 1;
        }
        Ok(())
    };
    send(&mut drive, WARM_UP.min(args.events))?;
    let start = Instant::now();
    send(&mut drive, args.events)?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(json!({
        "engine": "proxy-wasm test host",
        "events": args.events,
        "seconds": seconds,
        "events_per_sec": args.events as f64 / seconds,
    }))
}

fn main() -> ExitCode {
    match run() {
        Ok(figures) => {
            println!("{figures}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("hush-proxy-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
