//! The checks the API server makes on a list's or a watch's options
//! before it reads (`ValidateListOptions` and its watch half, answered
//! 422 `ListOptions.meta.k8s.io "" is invalid`), and the storage's own
//! 400s for a `resourceVersion` that is not a number and for one given
//! with `continue`. Both lists and watches pass here, so the same request
//! parameter gets the same answer from either.

use axum::http::StatusCode;

use super::Query;
use crate::api::status::{ApiError, CauseJson, Details};
use crate::object::validate::Cause;

/// `resourceVersionMatch=NotOlderThan`.
const NOT_OLDER_THAN: &str = "NotOlderThan";
/// `resourceVersionMatch=Exact`.
const EXACT: &str = "Exact";

/// A `resourceVersion` as the storage parses it: a decimal number, or the
/// API server's 400 (`invalid resource version: …` with Go's error).
pub(super) fn resource_version(rv: &str) -> Result<u64, ApiError> {
    super::go::parse_uint(rv).map_err(|e| {
        ApiError::bad_request(format!(
            "invalid resource version: resourceVersion: Invalid value: {rv:?}: {e}"
        ))
    })
}

/// The 422 for options that do not go together.
fn invalid(causes: &[Cause]) -> ApiError {
    let listed: Vec<String> = causes
        .iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect();
    let list = match listed.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    };
    let mut e = ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "Invalid",
        format!("ListOptions.meta.k8s.io \"\" is invalid: {list}"),
    );
    e.details = Some(Box::new(Details {
        group: "meta.k8s.io",
        kind: "ListOptions",
        causes: causes.iter().map(CauseJson::from).collect(),
        ..Details::default()
    }));
    e
}

impl Query {
    /// The API server's checks of a list's or a watch's options, in its
    /// order: the options that do not go together (422), then what the
    /// storage refuses (400). hushd serves every list from its newest
    /// state and keeps no older ones, so `resourceVersionMatch` is only
    /// checked here, not otherwise heeded.
    pub(super) fn check_list_options(&self) -> Result<(), ApiError> {
        let causes = if self.watch {
            self.watch_option_causes()
        } else {
            self.list_option_causes()
        };
        if !causes.is_empty() {
            return Err(invalid(&causes));
        }
        let rv = self.resource_version.as_deref().unwrap_or("");
        if !self.watch && self.continue_token.is_some() && !rv.is_empty() && rv != "0" {
            return Err(ApiError::bad_request(
                "specifying resource version is not allowed when using continue",
            ));
        }
        if !rv.is_empty() {
            resource_version(rv)?;
        }
        Ok(())
    }

    /// `ValidateListOptions` for a list.
    fn list_option_causes(&self) -> Vec<Cause> {
        let mut causes = Vec::new();
        if let Some(matching) = self
            .resource_version_match
            .as_deref()
            .filter(|m| !m.is_empty())
        {
            let rv = self.resource_version.as_deref().unwrap_or("");
            if rv.is_empty() {
                causes.push(Cause::forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                ));
            }
            if self.continue_token.is_some() {
                causes.push(Cause::forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
            if matching != EXACT && matching != NOT_OLDER_THAN {
                causes.push(Cause::not_supported(
                    "resourceVersionMatch",
                    matching,
                    &[EXACT, NOT_OLDER_THAN, ""],
                ));
            }
            if matching == EXACT && rv == "0" {
                causes.push(Cause::forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                ));
            }
        }
        if self.send_initial_events.is_some() {
            causes.push(Cause::forbidden(
                "sendInitialEvents",
                "sendInitialEvents is forbidden for list",
            ));
        }
        causes
    }

    /// `ValidateListOptions` for a watch (the WatchList feature on).
    fn watch_option_causes(&self) -> Vec<Cause> {
        let mut causes = Vec::new();
        let matching = self
            .resource_version_match
            .as_deref()
            .filter(|m| !m.is_empty());
        if self.send_initial_events.is_some() && matching != Some(NOT_OLDER_THAN) {
            causes.push(Cause::forbidden(
                "resourceVersionMatch",
                "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            ));
        }
        if let Some(matching) = matching {
            if self.send_initial_events.is_none() {
                causes.push(Cause::forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                ));
            }
            if matching != NOT_OLDER_THAN {
                causes.push(Cause::not_supported(
                    "resourceVersionMatch",
                    matching,
                    &[NOT_OLDER_THAN],
                ));
            }
            if self.continue_token.is_some() {
                causes.push(Cause::forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
        }
        causes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(raw: &str) -> Result<Query, (u16, String)> {
        Query::parse_list(Some(raw)).map_err(|e| (e.code.as_u16(), e.message))
    }

    #[test]
    fn a_malformed_resource_version_is_the_same_400_for_lists_and_watches() {
        let expected = (
            400,
            "invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax".to_string(),
        );
        assert_eq!(answer("resourceVersion=abc").unwrap_err(), expected);
        assert_eq!(
            answer("resourceVersion=abc&watch=true").unwrap_err(),
            expected
        );
        assert!(answer("resourceVersion=-1").is_err());
        assert!(answer("resourceVersion=0").is_ok());
        assert!(answer("resourceVersion=").is_ok());
    }

    #[test]
    fn options_that_do_not_go_together_are_422_list_options() {
        let (code, message) = answer("resourceVersionMatch=NotOlderThan").unwrap_err();
        assert_eq!(code, 422);
        assert_eq!(
            message,
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"
        );
        let (_, message) = answer("resourceVersion=1&resourceVersionMatch=Newest").unwrap_err();
        assert!(
            message.ends_with(
                "resourceVersionMatch: Unsupported value: \"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\""
            ),
            "{message}"
        );
        assert_eq!(answer("sendInitialEvents=true").unwrap_err().0, 422);
        assert!(answer("resourceVersion=3&resourceVersionMatch=Exact").is_ok());
        // A watch asks for initial events only with NotOlderThan.
        assert_eq!(answer("watch=1&sendInitialEvents=true").unwrap_err().0, 422);
        assert!(answer("watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan").is_ok());
        assert_eq!(
            answer("watch=1&resourceVersionMatch=NotOlderThan")
                .unwrap_err()
                .0,
            422
        );
    }

    #[test]
    fn a_continued_list_takes_no_resource_version_but_a_watch_ignores_continue() {
        assert_eq!(
            answer("continue=abc&resourceVersion=5").unwrap_err(),
            (
                400,
                "specifying resource version is not allowed when using continue".into()
            )
        );
        assert!(answer("continue=abc&resourceVersion=0").is_ok());
        assert!(answer("watch=1&continue=abc&resourceVersion=5").is_ok());
    }
}
