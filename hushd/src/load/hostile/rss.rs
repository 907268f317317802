//! The server's memory while a load runs, read from `/proc/PID/status`
//! (the server must run on this machine): its resident set sampled every
//! 100 ms, and its own high-water mark.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A `/proc/PID/status` field in bytes (`VmRSS:`, `VmHWM:`).
pub fn status_bytes(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The server's memory over a run.
#[derive(Debug, Default, serde::Serialize)]
pub struct Memory {
    /// Resident set when the load started.
    pub start_rss_bytes: u64,
    /// The largest resident set sampled during the load.
    pub peak_rss_bytes: u64,
    /// Resident set when the load ended.
    pub end_rss_bytes: u64,
    /// The process's own high-water mark at the end (since it started).
    pub hwm_bytes: u64,
}

/// Samples `pid`'s resident set every 100 ms until `stop`.
pub async fn sample(pid: u32, stop: Arc<AtomicBool>) -> Result<Memory, String> {
    let read = || status_bytes(pid, "VmRSS:");
    let start = read()
        .ok_or_else(|| format!("cannot read /proc/{pid}/status: is the server's pid {pid}?"))?;
    let mut memory = Memory {
        start_rss_bytes: start,
        peak_rss_bytes: start,
        ..Memory::default()
    };
    while !stop.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if let Some(rss) = read() {
            memory.peak_rss_bytes = memory.peak_rss_bytes.max(rss);
            memory.end_rss_bytes = rss;
        }
    }
    memory.hwm_bytes = status_bytes(pid, "VmHWM:").unwrap_or_default();
    Ok(memory)
}
