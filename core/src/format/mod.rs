//! The formats: how events, decisions and state leave and enter the core.
//!
//! Kubernetes JSON for events in either shape (`kube_json`, with the
//! `serde` feature), hush's compact [`wire`] encoding for batches across a
//! boundary, [`replay`] of a recorded stream with its decision lines, and
//! snapshots of a recorder's whole state (`snapshot`, with the `snapshot`
//! feature).

#[cfg(feature = "serde")]
pub mod kube_json;
pub mod replay;
#[cfg(feature = "snapshot")]
pub mod snapshot;
pub mod wire;
