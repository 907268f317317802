//! Following a real cluster (`hushd serve --follow`): a Kubernetes client
//! for everything kubectl accepts ([`client`]), its errors in words a person
//! can act on ([`error`]), the boundary to the store ([`mirror`]), the pure
//! rules that turn an upstream event's changes into occurrences
//! ([`occurrences`]) and what the follower shows `/metrics` and `/readyz`
//! ([`state`]).

pub mod client;
pub mod error;
pub mod mirror;
pub mod occurrences;
pub mod state;

pub use client::{ClientOptions, Connection, Environment, Target, connect};
pub use error::FollowError;
pub use state::{FollowState, Readiness};
