//! The layers every request passes on its way to the API's routes, in
//! their order from the outside in:
//!
//! 1. [`close`]: `Connection: close` when the body was left
//!    unread;
//! 2. [`measure`](super::measure::measure): counted and timed, whatever
//!    the answer;
//! 3. [`host`](super::host): the `Host` check (421);
//! 4. the audit log ([`crate::audit`]), which reads the auth layer's
//!    decision from the answer;
//! 5. authentication and authorization ([`crate::auth`]): 401 and 403,
//!    the user and request info into the request's extensions;
//! 6. [`limit`](super::measure::limit): the in-flight limit (429), for
//!    requests someone may make;
//! 7. the router.

use std::sync::Arc;

use axum::Router;
use axum::middleware::{from_fn, from_fn_with_state};

use super::host::{AllowedHosts, HostCheck, check_host};
use super::{close, measure};
use crate::api::App;
use crate::auth::Security;

/// `router` behind every layer, for `app` protected by `security`,
/// answering to `hosts`.
pub fn front(router: Router, app: &Arc<App>, security: &Security, hosts: AllowedHosts) -> Router {
    let host = HostCheck {
        hosts: Arc::new(hosts),
        metrics: app.metrics.clone(),
    };
    router
        .layer(from_fn_with_state(app.clone(), measure::limit))
        .layer(security.auth.clone())
        .layer(security.audit_layer())
        .layer(from_fn_with_state(host, check_host))
        .layer(from_fn_with_state(app.metrics.clone(), measure::measure))
        .layer(from_fn(close::close_when_unread))
}
