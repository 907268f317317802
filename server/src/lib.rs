//! hush's events API server as a library. Its parts:
//!
//! * [`tls`]: TLS serving with reloadable certificates and a generated
//!   CA, HTTP/2 and HTTP/1.1;
//! * [`auth`]: authentication, authorization and the API server's 401
//!   and 403 answers, as a tower layer;
//! * [`audit`]: the `audit.k8s.io/v1` audit log;
//! * [`follow`]: following a real cluster's events (client, reflector,
//!   occurrences).

pub mod audit;
pub mod auth;
pub mod follow;
pub mod tls;
