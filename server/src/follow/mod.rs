//! Following a real cluster (`hushd serve --follow`): a Kubernetes client
//! for everything kubectl accepts ([`client`]), its errors in words a person
//! can act on ([`error`]), the boundary to the store ([`mirror`]) and the pure
//! rules that turn an upstream event's changes into occurrences
//! ([`occurrences`]).

pub mod client;
pub mod error;
pub mod mirror;
pub mod occurrences;

pub use client::{ClientOptions, Connection, Environment, Target, connect};
pub use error::FollowError;
