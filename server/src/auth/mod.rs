//! Who may do what: authentication (client certificates against
//! `--client-ca-file`, bearer tokens from `--token-auth-file`, anonymous
//! requests where allowed), the request's attributes as kube-apiserver
//! derives them, authorization (the built-in open paths, then an ABAC
//! policy file), and the 401 and 403 answers exactly as the API server
//! sends them, all in one tower layer that leaves the user in the
//! request's extensions.
//!
//! * [`user`]: the user and the well-known users and groups;
//! * [`csv`], [`tokenfile`]: the token file and the `Authorization` header;
//! * [`x509`]: client certificates;
//! * [`authenticator`]: the chain of authenticators;
//! * [`request_info`]: verb, namespace, resource, … of a request;
//! * [`abac`], [`authorizer`]: the policy file and the authorizer chain;
//! * [`status`]: the 401 and 403 bodies and headers;
//! * [`layer`]: the middleware;
//! * [`metrics`]: denials by user and verb;
//! * [`kubeconfig`]: the kubeconfig `--write-kubeconfig` writes;
//! * [`setup`]: the flags, the start-up rule, starting it all.

pub mod abac;
pub mod authenticator;
pub mod authorizer;
pub mod csv;
pub mod kubeconfig;
pub mod layer;
pub mod metrics;
pub mod request_info;
pub mod setup;
pub mod status;
pub mod tokenfile;
pub mod user;
pub mod x509;

pub use authorizer::Authorizer;
pub use layer::{AuthLayer, AuthOutcome};
pub use request_info::RequestInfo;
pub use setup::{AuthConfig, Security, SecurityConfig, check_exposure};
pub use user::UserInfo;
