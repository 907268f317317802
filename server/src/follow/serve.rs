//! `hushd serve --follow` in the server: connecting to the cluster at
//! start (a wrong kubeconfig, an untrusted certificate or a missing
//! permission stops the start with the message), the follower's metrics
//! and `/readyz`, and the reflector running into the store through the
//! writer until the server stops.

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::client::{ClientOptions, Connection, Environment, connect};
use super::reflector::{Reflector, Settings};
use super::state::{FollowState, Readiness};
use crate::store::sqlite::OccurrenceReader;
use crate::writer::Writer;
use crate::writer::ingest::{CHECKPOINT, StoreMirror};

/// The error kinds that stop the start: waiting would not help.
const FATAL_AT_START: [&str; 5] = [
    "config",
    "untrusted-certificate",
    "tls",
    "unauthorized",
    "forbidden",
];

/// What `--follow` is told.
#[derive(Clone, Debug, Default)]
pub struct FollowConfig {
    /// `--kubeconfig`: this file only (else `KUBECONFIG`, `~/.kube/config`, in-cluster).
    pub kubeconfig: Option<PathBuf>,
    /// `--context`.
    pub context: Option<String>,
    /// `--follow-namespace`: one namespace (default: all).
    pub namespace: Option<String>,
}

/// A follower connected and checked, not yet running.
pub struct Follower {
    connection: Connection,
    namespace: Option<String>,
    /// What `/metrics` and `/readyz` show of it.
    pub state: FollowState,
}

impl Follower {
    /// Connects as kubectl would with `config`, and checks that the events
    /// can be listed (the error says what to do when not).
    pub async fn connect(config: &FollowConfig) -> Result<Follower, String> {
        let options = ClientOptions {
            kubeconfig: config.kubeconfig.clone(),
            context: config.context.clone(),
            env: Environment::from_process(),
        };
        let connection = connect(&options).await.map_err(|e| e.to_string())?;
        let state = FollowState::new(connection.target.server.clone());
        if let Err(e) = connection.check(config.namespace.as_deref()).await {
            // A start against a cluster that is down goes on (the
            // reflector retries with backoff, /readyz says why); one that
            // the configuration will never get into (a wrong CA, rejected
            // credentials, a missing permission) does not.
            if FATAL_AT_START.contains(&e.kind()) {
                return Err(e.to_string());
            }
            tracing::warn!("following: {e}; trying again with backoff");
        }
        Ok(Follower {
            connection,
            namespace: config.namespace.clone(),
            state,
        })
    }

    /// Runs the reflector into the store (through `writer`) until
    /// `stopping` turns true, resuming from the checkpoint the store holds.
    pub fn spawn(
        self,
        writer: Writer,
        store: &OccurrenceReader,
        mut stopping: tokio::sync::watch::Receiver<bool>,
    ) -> Result<tokio::task::JoinHandle<()>, String> {
        let checkpoint = store.value(CHECKPOINT).map_err(|e| e.to_string())?;
        let settings = Settings {
            namespace: self.namespace,
            ..Settings::default()
        };
        let mirror = StoreMirror::new(writer, checkpoint);
        let reflector = Reflector::new(&self.connection, settings, mirror, self.state);
        Ok(tokio::spawn(async move {
            reflector
                .run(async move { crate::shutdown::stopped(&mut stopping).await })
                .await;
        }))
    }
}

/// `/readyz` while following: 503 with the reason while the follower is
/// not synced and connected; every other request passes through.
pub async fn readyz(
    State(state): State<Arc<FollowState>>,
    request: Request,
    next: Next,
) -> Response {
    if request.uri().path() == "/readyz"
        && let Readiness::NotReady(reason) = state.readiness()
    {
        return (StatusCode::SERVICE_UNAVAILABLE, format!("{reason}\n")).into_response();
    }
    next.run(request).await
}
