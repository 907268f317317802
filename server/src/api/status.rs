//! `metav1.Status` errors: the code, reason and message the API server
//! answers with, and the `details` clients read (kubectl prints 422 causes
//! from them; Python keeps the body in `ApiException.body`).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::object::Group;
use crate::object::validate::Cause;

/// An error answer.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// HTTP status, also the Status `code`.
    pub code: StatusCode,
    /// The Status `reason` (`NotFound`, `Invalid`, …).
    pub reason: &'static str,
    /// The human message.
    pub message: String,
    /// `details`, for errors about one object.
    pub details: Option<Box<Details>>,
    /// Seconds the client should wait (429): the `Retry-After` header.
    pub retry_after: Option<u64>,
}

/// `metav1.StatusDetails`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Details {
    /// The object's name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The API group.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub group: &'static str,
    /// The resource (`events`) or kind (`Event`), as upstream fills it.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub kind: &'static str,
    /// The object's uid (deletes).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// Field problems (422).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<CauseJson>,
    /// How long to wait (429).
    #[serde(rename = "retryAfterSeconds", skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u64>,
}

/// `metav1.StatusCause`.
#[derive(Debug, Clone, Serialize)]
pub struct CauseJson {
    reason: &'static str,
    message: String,
    field: String,
}

impl From<&Cause> for CauseJson {
    fn from(c: &Cause) -> Self {
        CauseJson {
            reason: c.reason(),
            message: c.message.clone(),
            field: c.field.clone(),
        }
    }
}

/// A Status, success or failure.
#[derive(Serialize)]
struct StatusJson<'a> {
    kind: &'static str,
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    metadata: Empty,
    status: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    message: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a Details>,
    code: u16,
}

#[derive(Serialize)]
struct Empty {}

/// A Status body.
pub fn status_json(
    code: StatusCode,
    reason: &str,
    message: &str,
    details: Option<&Details>,
) -> Vec<u8> {
    let status = if code.is_success() {
        "Success"
    } else {
        "Failure"
    };
    serde_json::to_vec(&StatusJson {
        kind: "Status",
        api_version: "v1",
        metadata: Empty {},
        status,
        message,
        reason,
        details,
        code: code.as_u16(),
    })
    .expect("a Status serializes")
}

impl ApiError {
    /// An error with no details.
    pub fn new(code: StatusCode, reason: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: None,
            retry_after: None,
        }
    }

    fn about(mut self, group: Group, name: &str, kind: &'static str) -> ApiError {
        self.details = Some(Box::new(Details {
            name: name.into(),
            group: group.name(),
            kind,
            ..Details::default()
        }));
        self
    }

    /// 400 BadRequest.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "BadRequest", message)
    }

    /// 404 for a path nothing serves.
    pub fn no_route() -> ApiError {
        let mut e = ApiError::new(
            StatusCode::NOT_FOUND,
            "NotFound",
            "the server could not find the requested resource",
        );
        e.details = Some(Box::default());
        e
    }

    /// 404 for a missing event.
    pub fn not_found(group: Group, name: &str) -> ApiError {
        let message = format!("{} {name:?} not found", group.qualified_resource());
        ApiError::new(StatusCode::NOT_FOUND, "NotFound", message).about(group, name, "events")
    }

    /// 409 AlreadyExists.
    pub fn already_exists(group: Group, name: &str) -> ApiError {
        let message = format!("{} {name:?} already exists", group.qualified_resource());
        ApiError::new(StatusCode::CONFLICT, "AlreadyExists", message).about(group, name, "events")
    }

    /// 409 Conflict: a stale resourceVersion or uid.
    pub fn conflict(group: Group, name: &str, detail: &str) -> ApiError {
        let message = format!(
            "Operation cannot be fulfilled on {} {name:?}: {detail}",
            group.qualified_resource()
        );
        ApiError::new(StatusCode::CONFLICT, "Conflict", message).about(group, name, "events")
    }

    /// 422 Invalid, with its causes.
    pub fn invalid(group: Group, name: &str, causes: &[Cause]) -> ApiError {
        let listed: Vec<String> = causes
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        let list = match listed.as_slice() {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        let message = format!("{} {name:?} is invalid: {list}", group.qualified_kind());
        let mut e = ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "Invalid", message)
            .about(group, name, "Event");
        if let Some(d) = &mut e.details {
            d.causes = causes.iter().map(CauseJson::from).collect();
        }
        e
    }

    /// 413 RequestEntityTooLarge.
    pub fn too_large(limit: usize) -> ApiError {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "RequestEntityTooLarge",
            format!("the request body is larger than {limit} bytes"),
        )
    }

    /// 415 UnsupportedMediaType.
    pub fn unsupported_media_type(message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UnsupportedMediaType",
            message,
        )
    }

    /// 429 TooManyRequests with Retry-After.
    pub fn too_many_requests(message: impl Into<String>, retry_after: u64) -> ApiError {
        let mut e = ApiError::new(StatusCode::TOO_MANY_REQUESTS, "TooManyRequests", message);
        e.retry_after = Some(retry_after);
        e.details = Some(Box::new(Details {
            retry_after_seconds: Some(retry_after),
            ..Details::default()
        }));
        e
    }

    /// 500 InternalError.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "InternalError", message)
    }

    /// 503 ServiceUnavailable (shutting down, store failing).
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        let mut e = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "ServiceUnavailable",
            message,
        );
        e.retry_after = Some(1);
        e
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.code.as_u16(),
            self.reason,
            self.message
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = status_json(
            self.code,
            self.reason,
            &self.message,
            self.details.as_deref(),
        );
        let mut response = super::json(self.code, "application/json", body);
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(e: ApiError) -> serde_json::Value {
        serde_json::from_slice(&status_json(
            e.code,
            e.reason,
            &e.message,
            e.details.as_deref(),
        ))
        .unwrap()
    }

    #[test]
    fn not_found_names_the_resource_of_its_group() {
        let core = body(ApiError::not_found(Group::Core, "nope"));
        assert_eq!(
            core,
            serde_json::json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
                "message":"events \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"events"},"code":404})
        );
        let events = body(ApiError::not_found(Group::Events, "manual.2"));
        assert_eq!(
            events["message"],
            "events.events.k8s.io \"manual.2\" not found"
        );
        assert_eq!(events["details"]["group"], "events.k8s.io");
    }

    #[test]
    fn invalid_lists_several_causes_in_brackets_and_one_without() {
        let causes = [
            Cause::required("reportingController"),
            Cause::invalid("type", "", "has invalid value: Bogus"),
        ];
        let many = body(ApiError::invalid(Group::Events, "bad.1", &causes));
        assert_eq!(
            many["message"],
            "Event.events.k8s.io \"bad.1\" is invalid: [reportingController: Required value, type: Invalid value: \"\": has invalid value: Bogus]"
        );
        assert_eq!(many["details"]["kind"], "Event");
        assert_eq!(many["details"]["causes"][0]["reason"], "FieldValueRequired");
        let one = body(ApiError::invalid(Group::Core, "bad.2", &causes[..1]));
        assert_eq!(
            one["message"],
            "Event \"bad.2\" is invalid: reportingController: Required value"
        );
    }

    #[test]
    fn too_many_requests_carries_its_wait_in_the_details() {
        let e = ApiError::too_many_requests("slow down", 7);
        assert_eq!(e.retry_after, Some(7));
        assert_eq!(body(e)["details"]["retryAfterSeconds"], 7);
    }
}
