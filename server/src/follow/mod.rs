//! Following a real cluster (`hushd serve --follow`): a Kubernetes client
//! for everything kubectl accepts ([`client`]), a reflector that lists
//! and watches the cluster's core/v1 events with client-go's reflector
//! behaviour and resumes from a stored resourceVersion across restarts
//! ([`reflector`]), the boundary to the store it feeds ([`mirror`]), the
//! pure rules that turn an event's changes into occurrences
//! ([`occurrences`]), what it shows `/metrics` and `/readyz` ([`state`]),
//! and its errors in words a person can act on ([`error`]).
//!
//! Wiring it into the server takes a few lines: connect, make a state and
//! register it, and run a reflector into the store's mirror.
//!
//! ```no_run
//! # async fn follow(store: hush_server::follow::MemoryMirror) -> Result<(), hush_server::follow::FollowError> {
//! use hush_server::follow::{ClientOptions, FollowState, Reflector, Settings, connect};
//! let connection = connect(&ClientOptions::new(None, None)).await?;
//! let state = FollowState::new(connection.target.server.clone());
//! // state.register(&mut registry); /readyz reads state.readiness().
//! let reflector = Reflector::new(&connection, Settings::default(), store, state.clone());
//! tokio::spawn(reflector.run(std::future::pending::<()>()));
//! # Ok(()) }
//! ```

pub mod client;
pub mod error;
pub mod import;
pub mod mirror;
pub mod occurrences;
pub mod reflector;
pub mod serve;
pub mod state;
pub mod stream;

pub use client::{ClientOptions, Connection, Environment, Target, connect};
pub use error::FollowError;
pub use mirror::{Batch, Change, MemoryMirror, Mirror};
pub use reflector::{Reflector, Settings};
pub use state::{FollowState, Readiness};
