//! An in-memory Kubernetes API server for Event writes, as the test host's
//! upstream: `POST` creates (201, or 409 for an existing name), `PATCH`
//! applies a strategic merge patch of `{count, lastTimestamp, message}` or
//! `{series}` (200, or 404), both answering with the stored Event in the
//! API of the path, as the real one does. The store is hush-core's
//! [`MemoryStore`], the one `hushd replay` writes into, so resource
//! versions are given in the same order.

use hush_core::format::kube_json::{EventJson, Observation, Shape};
use hush_core::write::memory::MemoryStore;
use hush_core::{EventSeries, LegacyPatch, Patch, Sink, SinkError, Timestamp};
use serde_json::{Value, json};

use crate::host::Upstream;
use crate::state::HttpMessage;

/// The API server.
#[derive(Debug, Default)]
pub struct ApiServer {
    /// What is stored.
    pub store: MemoryStore,
    /// Every request received, in order.
    pub requests: Vec<HttpMessage>,
    /// Answer every request with no answer at all (a dead server).
    pub down: bool,
}

fn answer(status: u16, body: Vec<u8>) -> HttpMessage {
    HttpMessage {
        headers: vec![
            (":status".into(), status.to_string()),
            ("content-type".into(), "application/json".into()),
        ],
        body,
        trailers: Vec::new(),
    }
}

/// A Kubernetes `Status` answer.
fn status(code: u16, reason: &str, message: &str) -> HttpMessage {
    let body = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": reason, "code": code,
    });
    answer(code, body.to_string().into_bytes())
}

fn time(value: &Value) -> Result<Option<Timestamp>, String> {
    match value {
        Value::Null => Ok(None),
        Value::String(text) => Timestamp::parse_rfc3339(text)
            .map(Some)
            .map_err(|e| e.to_string()),
        other => Err(format!("not a time: {other}")),
    }
}

/// A patch body as the recorder's typed patch: a field absent from the
/// body is one the patch leaves alone.
fn patch_of(body: &[u8]) -> Result<Patch, String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    let count = |v: &Value| v.get("count").and_then(Value::as_i64).map(|c| c as i32);
    if let Some(series) = value.get("series") {
        return Ok(Patch::Series(EventSeries {
            count: count(series).ok_or("series.count is missing")?,
            last_observed_time: time(series.get("lastObservedTime").unwrap_or(&Value::Null))?
                .ok_or("series.lastObservedTime is missing")?,
        }));
    }
    Ok(Patch::Legacy(LegacyPatch {
        count: count(&value).ok_or("count is missing")?,
        // Absent: the zero time, which `has_last_timestamp` leaves alone.
        last_timestamp: match value.get("lastTimestamp") {
            None => Some(Timestamp::EPOCH),
            Some(v) => time(v)?,
        },
        message: value
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    }))
}

impl ApiServer {
    fn handle(&mut self, request: &HttpMessage) -> HttpMessage {
        let method = request.header(":method").unwrap_or_default();
        let path = request.header(":path").unwrap_or_default();
        let path = path.split('?').next().unwrap_or_default();
        let (shape, rest) = if let Some(rest) = path.strip_prefix("/api/v1/namespaces/") {
            (Shape::CoreV1, rest)
        } else if let Some(rest) = path.strip_prefix("/apis/events.k8s.io/v1/namespaces/") {
            (Shape::EventsV1, rest)
        } else {
            return status(
                404,
                "NotFound",
                "the server could not find the requested resource",
            );
        };
        let parts: Vec<&str> = rest.split('/').collect();
        let stored = match (method, parts.as_slice()) {
            ("POST", [namespace, "events"]) => {
                let event = match serde_json::from_slice::<Observation>(&request.body) {
                    Ok(o) => o.event,
                    Err(e) => return status(400, "BadRequest", &e.to_string()),
                };
                if event.metadata.namespace != *namespace {
                    return status(
                        400,
                        "BadRequest",
                        "the namespace of the object does not match the namespace on the request",
                    );
                }
                self.store.create(&event).map(|s| (201, s))
            }
            ("PATCH", [namespace, "events", name]) => match patch_of(&request.body) {
                Ok(patch) => self.store.patch(namespace, name, &patch).map(|s| (200, s)),
                Err(e) => return status(400, "BadRequest", &e),
            },
            _ => {
                return status(
                    405,
                    "MethodNotAllowed",
                    "the server does not allow this method on the requested resource",
                );
            }
        };
        match stored {
            Ok((code, stored)) => {
                let namespace = parts[0];
                let event = self
                    .store
                    .get(namespace, &stored.name)
                    .expect("just stored");
                answer(
                    code,
                    serde_json::to_vec(&EventJson(shape, event)).unwrap_or_default(),
                )
            }
            Err(SinkError::AlreadyExists) => status(409, "AlreadyExists", "events already exists"),
            Err(SinkError::NotFound) => status(404, "NotFound", "events not found"),
            Err(e) => status(500, "InternalError", &e.to_string()),
        }
    }
}

impl Upstream for ApiServer {
    fn call(&mut self, _cluster: &str, request: &HttpMessage) -> Option<HttpMessage> {
        self.requests.push(request.clone());
        (!self.down).then(|| self.handle(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(body: &str) -> HttpMessage {
        HttpMessage::new(
            &[
                (":method", "POST"),
                (":path", "/api/v1/namespaces/a/events"),
            ],
            body,
        )
    }

    const EVENT: &str = r#"{"metadata":{"name":"p.1","namespace":"a"},"involvedObject":{"name":"p"},"type":"Normal","count":1,"message":"m","lastTimestamp":"2024-05-01T10:00:00Z"}"#;

    #[test]
    fn create_then_conflict_then_patch() {
        let mut api = ApiServer::default();
        let created = api.call("", &post(EVENT)).unwrap();
        assert_eq!(created.status(), Some(201));
        let body: Value = serde_json::from_slice(&created.body).unwrap();
        assert_eq!(body["metadata"]["resourceVersion"], "1");
        assert_eq!(api.call("", &post(EVENT)).unwrap().status(), Some(409));
        let patch = HttpMessage::new(
            &[
                (":method", "PATCH"),
                (":path", "/api/v1/namespaces/a/events/p.1"),
            ],
            r#"{"count":2,"lastTimestamp":"2024-05-01T10:00:01Z"}"#,
        );
        let patched = api.call("", &patch).unwrap();
        assert_eq!(patched.status(), Some(200));
        let body: Value = serde_json::from_slice(&patched.body).unwrap();
        assert_eq!(body["count"], 2);
        assert_eq!(
            body["message"], "m",
            "a field absent from the patch is kept"
        );
        assert_eq!(body["lastTimestamp"], "2024-05-01T10:00:01Z");
        assert_eq!(body["metadata"]["resourceVersion"], "2");
        let gone = HttpMessage::new(
            &[
                (":method", "PATCH"),
                (":path", "/api/v1/namespaces/a/events/nope"),
            ],
            r#"{"count":2}"#,
        );
        assert_eq!(api.call("", &gone).unwrap().status(), Some(404));
        assert_eq!(api.call("", &post("{")).unwrap().status(), Some(400));
    }
}
