//! hush's events API server. Its security parts:
//!
//! * [`tls`]: TLS serving with reloadable certificates and a generated
//!   CA, HTTP/2 and HTTP/1.1.

pub mod tls;
