//! The HTTP side of the plugin's decisions: a write as the request
//! client-go would send, the local answers (429 for a spam-filtered event,
//! 200 for an occurrence counted in memory), and the API server's answer
//! read back as what it stored.

use hush_core::decision::stored_count;
use hush_core::format::kube_json::{EventJson, Observation, Shape};
use hush_core::{Event, Explanation, Mode, Options, Stored, WriteOp};
use serde_json::json;

use crate::route::Api;

/// A write as an HTTP request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// `POST` or `PATCH`.
    pub method: &'static str,
    /// The path, in the mode's API.
    pub path: String,
    /// The body's content type.
    pub content_type: &'static str,
    /// The body: the event, or the patch as client-go sends it.
    pub body: Vec<u8>,
}

/// The request client-go's recorder would send for `op` in `mode`.
pub fn request(mode: Mode, op: &WriteOp) -> Request {
    let api = Api::of(mode);
    match op {
        WriteOp::Create(event) => Request {
            method: "POST",
            path: api.collection(&event.metadata.namespace),
            content_type: "application/json",
            body: event_json(mode, event),
        },
        WriteOp::Patch { event, patch } => Request {
            method: "PATCH",
            path: api.item(&event.metadata.namespace, &event.metadata.name),
            content_type: "application/strategic-merge-patch+json",
            body: patch.to_json().into_bytes(),
        },
    }
}

/// `event` as JSON in `mode`'s shape.
pub fn event_json(mode: Mode, event: &Event) -> Vec<u8> {
    // Serialising an Event cannot fail: every map key is a string.
    serde_json::to_vec(&EventJson(Shape::of(mode), event)).unwrap_or_default()
}

/// A local answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// HTTP status.
    pub status: u32,
    /// Headers besides the status.
    pub headers: Vec<(&'static str, String)>,
    /// The body.
    pub body: Vec<u8>,
}

/// Seconds until the spam filter has a token for this source and object
/// again, at least 1.
pub fn retry_after_seconds(tokens: f64, options: &Options) -> u64 {
    let options = options.populated();
    let missing = (1.0 - tokens).max(0.0);
    let seconds = (missing / f64::from(options.qps)).ceil();
    if seconds.is_finite() && seconds >= 1.0 {
        seconds as u64
    } else {
        1
    }
}

/// The 429 for an event the spam filter dropped: `Retry-After`, and a
/// Kubernetes `Status` saying why.
pub fn too_many_requests(event: &Event, why: &Explanation, options: &Options) -> Answer {
    let tokens = why.tokens.unwrap_or(0.0);
    let retry = retry_after_seconds(tokens, options);
    // Zeros mean client-go's defaults.
    let options = options.populated();
    let object = &event.involved_object;
    let message = format!(
        "hush spam filter: {} sends events about {} {}/{} faster than {} per {:.0} s after a burst of {} \
         ({:.2} tokens left); this occurrence is counted in the event's next write",
        if event.source.component.is_empty() {
            "this source"
        } else {
            &event.source.component
        },
        object.kind,
        object.namespace,
        object.name,
        1,
        1.0 / f64::from(options.qps),
        options.burst,
        tokens,
    );
    let status = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "TooManyRequests",
        "details": {
            "name": event.metadata.name,
            "kind": "events",
            "retryAfterSeconds": retry,
        },
        "code": 429,
    });
    Answer {
        status: 429,
        headers: vec![
            ("content-type", "application/json".into()),
            ("retry-after", retry.to_string()),
            ("x-hush-decision", "drop".into()),
        ],
        body: status.to_string().into_bytes(),
    }
}

/// The 200 for an occurrence counted in memory (series mode): the event as
/// it stands, series count included.
pub fn absorbed(mode: Mode, event: &Event) -> Answer {
    Answer {
        status: 200,
        headers: vec![
            ("content-type", "application/json".into()),
            ("x-hush-decision", "absorb".into()),
        ],
        body: event_json(mode, event),
    }
}

/// What the API server stored, read from its answer (the Event, either shape).
pub fn stored(body: &[u8]) -> Result<Stored, String> {
    let observation: Observation = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    let event = observation.event;
    Ok(Stored {
        count: stored_count(&event),
        name: event.metadata.name,
        resource_version: event.metadata.resource_version,
    })
}

#[cfg(test)]
mod tests {
    use hush_core::{EventSeries, LegacyPatch, Patch, Rule, Timestamp, Why};

    use super::*;

    fn event() -> Event {
        let mut e = Event::default();
        e.metadata.name = "web-1.17cb550d96f24000".into();
        e.metadata.namespace = "prod".into();
        e.involved_object.kind = "Pod".into();
        e.involved_object.namespace = "prod".into();
        e.involved_object.name = "web-1".into();
        e.source.component = "kubelet".into();
        e.type_ = "Warning".into();
        e.reason = "BackOff".into();
        e.count = 30;
        e
    }

    #[test]
    fn writes_become_client_go_requests() {
        let create = request(Mode::Legacy, &WriteOp::Create(event()));
        assert_eq!(create.method, "POST");
        assert_eq!(create.path, "/api/v1/namespaces/prod/events");
        assert!(
            create
                .body
                .starts_with(br#"{"kind":"Event","apiVersion":"v1""#)
        );
        let patch = Patch::Legacy(LegacyPatch {
            count: 2,
            last_timestamp: Some(Timestamp::from_secs(1_714_557_601)),
            message: "m".into(),
        });
        let patched = request(
            Mode::Legacy,
            &WriteOp::Patch {
                event: event(),
                patch,
            },
        );
        assert_eq!(
            (patched.method, patched.path.as_str(), patched.content_type),
            (
                "PATCH",
                "/api/v1/namespaces/prod/events/web-1.17cb550d96f24000",
                "application/strategic-merge-patch+json"
            )
        );
        assert_eq!(
            patched.body,
            br#"{"count":2,"lastTimestamp":"2024-05-01T10:00:01Z","message":"m"}"#
        );
        let series = Patch::Series(EventSeries {
            count: 3,
            last_observed_time: Timestamp::from_secs(1_714_557_601),
        });
        let patched = request(
            Mode::Series,
            &WriteOp::Patch {
                event: event(),
                patch: series,
            },
        );
        assert_eq!(
            patched.path,
            "/apis/events.k8s.io/v1/namespaces/prod/events/web-1.17cb550d96f24000"
        );
    }

    #[test]
    fn a_drop_is_a_429_that_says_when_to_come_back() {
        let options = Options::default();
        // client-go's bucket refills one token every 300 s.
        assert_eq!(retry_after_seconds(0.0, &options), 300);
        assert_eq!(retry_after_seconds(0.5, &options), 150);
        assert_eq!(retry_after_seconds(0.9999, &options), 1);
        assert_eq!(retry_after_seconds(3.0, &options), 1);
        let zero = Options {
            qps: 0.0,
            ..Options::default()
        };
        assert_eq!(
            retry_after_seconds(0.0, &zero),
            300,
            "0 is client-go's default"
        );
        let why = Why {
            rule: Rule::SpamFiltered,
            key: vec![],
            count: 30,
            distinct_messages: None,
            spam_key: Some(vec![]),
            tokens: Some(0.25),
        };
        let answer = too_many_requests(&event(), &why, &options);
        assert_eq!(answer.status, 429);
        assert!(answer.headers.contains(&("retry-after", "225".into())));
        let status: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
        assert_eq!(status["kind"], "Status");
        assert_eq!(status["reason"], "TooManyRequests");
        assert_eq!(status["code"], 429);
        assert_eq!(status["details"]["retryAfterSeconds"], 225);
        let message = status["message"].as_str().unwrap();
        assert!(
            message.contains("kubelet sends events about Pod prod/web-1"),
            "{message}"
        );
        assert!(message.contains("0.25 tokens left"), "{message}");
    }

    #[test]
    fn the_answer_of_the_api_server_is_read_back() {
        let body = br#"{"kind":"Event","apiVersion":"v1","metadata":{"name":"x.1","namespace":"a","resourceVersion":"42"},"involvedObject":{"name":"p"},"type":"Normal","count":7}"#;
        assert_eq!(
            stored(body),
            Ok(Stored {
                name: "x.1".into(),
                resource_version: "42".into(),
                count: 7
            })
        );
        assert!(stored(b"<html>").is_err());
    }
}
