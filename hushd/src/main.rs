//! `hushd`: the hush daemon's command line. It parses the arguments and
//! hands each command to its module in the `hushd` library.

use std::io;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hushd::bench::cli::BenchArgs;
use hushd::load::cli::LoadArgs;
use hushd::replay::cli::ReplayArgs;
use hushd::serve::cli::ServeArgs;

#[global_allocator]
static ALLOCATOR: hushd::bench::alloc_counter::Counting = hushd::bench::alloc_counter::Counting;

/// `hushd --version`: the crate's version and the SHA-256 of the component
/// it embeds (the same as `sha256sum target/component/hush.component.wasm`).
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "{} (component sha256:{})",
        env!("CARGO_PKG_VERSION"),
        hush_engine::COMPONENT_SHA256
    )
});

#[derive(Parser)]
#[command(
    name = "hushd",
    version = VERSION.as_str(),
    about = "Kubernetes event correlation, portable and visible"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay recorded events through the correlator into an in-memory API server.
    Replay(ReplayArgs),
    /// Serve a Kubernetes events API (core/v1 and events.k8s.io/v1) with
    /// server-side correlation, a durable SQLite store, watches and metrics.
    Serve(Box<ServeArgs>),
    /// Load a running `hushd serve` (or any API server) with raw Event
    /// creates over many connections; prints events/s, latency percentiles
    /// and, with --check, whether anything acknowledged was lost.
    Load(LoadArgs),
    /// Measure events per second and allocations per event: native, the
    /// component, the floor; on a realistic mix or a file. One JSON line each.
    Bench(BenchArgs),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Replay(args) => hushd::replay::cli::run(args),
        Command::Serve(args) => hushd::serve::cli::run(*args),
        Command::Load(args) => hushd::load::cli::run(args),
        Command::Bench(args) => {
            hushd::bench::cli::run(&args, &mut io::stdout().lock()).map(|()| ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("hushd: {message}");
            ExitCode::from(2)
        }
    }
}
