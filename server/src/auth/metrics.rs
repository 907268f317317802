//! What authentication and authorization count, for `/metrics`: requests
//! answered 401 (by verb) and 403 (by user and verb).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

/// A denied request.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DeniedLabels {
    /// 401 or 403.
    pub code: u16,
    /// The user (empty for 401: nobody was authenticated).
    pub user: String,
    /// The request's verb (`create`, `list`, `get` for a path, …).
    pub verb: &'static str,
}

/// The auth metrics.
#[derive(Clone, Debug, Default)]
pub struct AuthMetrics {
    /// Requests denied, by code, user and verb.
    pub denied: Family<DeniedLabels, Counter>,
}

/// The verbs a label may take; anything else (an invented HTTP method)
/// is `other`, so clients cannot grow the label set.
const VERBS: [&str; 16] = [
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "proxy",
    "head",
    "post",
    "put",
    "options",
    "connect",
    "trace",
    "other",
];

impl AuthMetrics {
    /// Registers the metrics in `registry` (under its prefix, `hush_`).
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "auth_denied_requests",
            "Requests answered 401 (unauthenticated) or 403 (forbidden), by code, user and verb",
            self.denied.clone(),
        );
    }

    /// Counts one denied request.
    pub fn denied(&self, code: u16, user: &str, verb: &str) {
        let verb = VERBS
            .iter()
            .find(|v| **v == verb)
            .copied()
            .unwrap_or("other");
        self.denied
            .get_or_create(&DeniedLabels {
                code,
                user: user.to_string(),
                verb,
            })
            .inc();
    }
}
