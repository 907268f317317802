//! Which requests are Event writes: `POST` to a namespace's `events`
//! collection (a create) and `PATCH` of one event, in the core API
//! (`/api/v1`) or `events.k8s.io` (`v1`, `v1beta1`). Everything else passes
//! untouched.

use hush_core::Mode;

/// The API group an Event path is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `/api/v1`.
    CoreV1,
    /// `/apis/events.k8s.io/v1` or `v1beta1`.
    EventsV1,
}

impl Api {
    /// The API a mode's recorder writes to.
    pub fn of(mode: Mode) -> Api {
        match mode {
            Mode::Legacy => Api::CoreV1,
            Mode::Series => Api::EventsV1,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Api::CoreV1 => "/api/v1",
            Api::EventsV1 => "/apis/events.k8s.io/v1",
        }
    }

    /// The path of a namespace's events collection.
    pub fn collection(self, namespace: &str) -> String {
        format!("{}/namespaces/{namespace}/events", self.prefix())
    }

    /// The path of one event.
    pub fn item(self, namespace: &str, name: &str) -> String {
        format!("{}/namespaces/{namespace}/events/{name}", self.prefix())
    }
}

/// What a request is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// `POST` of a new Event into `namespace`.
    Create {
        /// The API the client used.
        api: Api,
        /// The namespace in the path.
        namespace: String,
    },
    /// `PATCH` of one Event: a client that correlates already.
    Patch {
        /// The API the client used.
        api: Api,
    },
    /// Not an Event write.
    Other,
}

impl Route {
    /// Classifies a request by its `:method` and `:path` (a query is ignored).
    pub fn of(method: &str, path: &str) -> Route {
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let rest = if let Some(rest) = path.strip_prefix("/api/v1/namespaces/") {
            (Api::CoreV1, rest)
        } else if let Some(rest) = path
            .strip_prefix("/apis/events.k8s.io/v1/namespaces/")
            .or_else(|| path.strip_prefix("/apis/events.k8s.io/v1beta1/namespaces/"))
        {
            (Api::EventsV1, rest)
        } else {
            return Route::Other;
        };
        let (api, rest) = rest;
        let parts: Vec<&str> = rest.split('/').collect();
        match (method, parts.as_slice()) {
            ("POST", [namespace, "events"]) if !namespace.is_empty() => Route::Create {
                api,
                namespace: (*namespace).to_string(),
            },
            ("PATCH", [namespace, "events", name]) if !namespace.is_empty() && !name.is_empty() => {
                Route::Patch { api }
            }
            _ => Route::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_writes_are_recognised() {
        assert_eq!(
            Route::of("POST", "/api/v1/namespaces/prod/events"),
            Route::Create {
                api: Api::CoreV1,
                namespace: "prod".into()
            }
        );
        assert_eq!(
            Route::of(
                "POST",
                "/apis/events.k8s.io/v1/namespaces/a/events?fieldManager=x"
            ),
            Route::Create {
                api: Api::EventsV1,
                namespace: "a".into()
            }
        );
        assert_eq!(
            Route::of("POST", "/apis/events.k8s.io/v1beta1/namespaces/a/events"),
            Route::Create {
                api: Api::EventsV1,
                namespace: "a".into()
            }
        );
        assert_eq!(
            Route::of("PATCH", "/api/v1/namespaces/a/events/x.1"),
            Route::Patch { api: Api::CoreV1 }
        );
    }

    #[test]
    fn everything_else_passes() {
        for (method, path) in [
            ("GET", "/api/v1/namespaces/a/events"),
            ("POST", "/api/v1/namespaces/a/pods"),
            ("POST", "/api/v1/namespaces//events"),
            ("PATCH", "/api/v1/namespaces/a/events"),
            ("DELETE", "/api/v1/namespaces/a/events/x"),
            ("POST", "/apis/apps/v1/namespaces/a/events"),
            ("POST", "/api/v1/events"),
        ] {
            assert_eq!(Route::of(method, path), Route::Other, "{method} {path}");
        }
    }

    #[test]
    fn paths_are_built_per_api() {
        assert_eq!(
            Api::of(Mode::Legacy).item("a", "x.1"),
            "/api/v1/namespaces/a/events/x.1"
        );
        assert_eq!(
            Api::of(Mode::Series).collection("a"),
            "/apis/events.k8s.io/v1/namespaces/a/events"
        );
    }
}
