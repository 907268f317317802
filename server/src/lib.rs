//! # hush-server
//!
//! The events API server as a library: a Kubernetes events API (core/v1
//! and events.k8s.io/v1) with server-side correlation, which `hushd serve`
//! runs. Its parts, each in its module:
//!
//! * [`http`]: the HTTP/1.1 server, connection limits, request metrics;
//! * [`tls`]: TLS serving with reloadable certificates and a generated
//!   CA, HTTP/2 and HTTP/1.1;
//! * [`auth`]: authentication, authorization and the API server's 401
//!   and 403 answers, as a tower layer;
//! * [`audit`]: the `audit.k8s.io/v1` audit log;
//! * [`api`]: discovery, the event endpoints, Tables, watches, `Status`
//!   errors;
//! * [`object`]: the stored Event and its two JSON views;
//! * [`writer`]: the single writer, group-committing every change;
//! * [`correlate`]: the correlator component with the writer as its sink;
//! * [`store`]: the narrow store traits and the SQLite backend;
//! * [`hub`]: fan-out of committed changes to watches, with resumable
//!   history (the API's watch handler is [`api::watch`]);
//! * [`follow`]: following a real cluster's events (client, reflector,
//!   occurrences, the occurrence stream, `--import`);
//! * [`export`]: new occurrences to a JSON Lines file or a webhook;
//! * [`clock`]: the one wall clock everything reads;
//! * [`metrics`]: the Prometheus counters;
//! * [`assets`]: the dashboard (`www/dist`), embedded, at `/`;
//! * [`demo`]: `--demo`, the built-in storm posted to the server itself;
//! * [`config`] and [`start`]: what the server is told, and starting it;
//!   [`shutdown`]: stopping it.

pub mod api;
pub mod assets;
pub mod audit;
pub mod auth;
pub mod clock;
pub mod config;
pub mod correlate;
pub mod demo;
pub mod export;
pub mod follow;
pub mod http;
pub mod hub;
pub mod metrics;
pub mod object;
pub mod shutdown;
pub mod start;
pub mod store;
pub mod tls;
pub mod writer;
