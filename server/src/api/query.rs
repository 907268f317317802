//! The query parameters of the events endpoints, parsed as the API server
//! parses them (booleans as Go's `strconv.ParseBool`); unknown parameters
//! are ignored, malformed known ones are a 400.

use super::status::ApiError;

/// What `?includeObject=` asks Table rows to carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IncludeObject {
    /// No object.
    None,
    /// `PartialObjectMetadata` (the default).
    #[default]
    Metadata,
    /// The whole object.
    Object,
}

/// `?fieldValidation=`: what to do with unknown fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    /// Drop them silently.
    Ignore,
    /// Drop them with a `Warning` header (the server's default).
    #[default]
    Warn,
    /// Refuse the request with 400.
    Strict,
}

/// The parameters hushd reads.
#[derive(Clone, Debug, Default)]
pub struct Query {
    /// `watch`.
    pub watch: bool,
    /// `resourceVersion`.
    pub resource_version: Option<String>,
    /// `fieldSelector`.
    pub field_selector: Option<String>,
    /// `labelSelector`.
    pub label_selector: Option<String>,
    /// `limit` (0 means none).
    pub limit: Option<usize>,
    /// `continue`.
    pub continue_token: Option<String>,
    /// `timeoutSeconds`.
    pub timeout_seconds: Option<u64>,
    /// `allowWatchBookmarks`.
    pub allow_watch_bookmarks: bool,
    /// `includeObject`.
    pub include_object: IncludeObject,
    /// `fieldValidation`.
    pub field_validation: FieldValidation,
    /// `dryRun=All`.
    pub dry_run: bool,
    /// `fieldManager`.
    pub field_manager: Option<String>,
    /// `sendInitialEvents`.
    pub send_initial_events: Option<bool>,
}

/// Go's `strconv.ParseBool`.
pub fn parse_bool(name: &str, value: &str) -> Result<bool, ApiError> {
    match value {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err(ApiError::bad_request(format!(
            "invalid value for {name}: {value:?} is not a boolean"
        ))),
    }
}

fn parse_number<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, ApiError> {
    value.parse().map_err(|_| {
        ApiError::bad_request(format!(
            "invalid value for {name}: {value:?} is not a non-negative integer"
        ))
    })
}

impl Query {
    /// Parses a raw query string.
    pub fn parse(raw: Option<&str>) -> Result<Query, ApiError> {
        let mut q = Query::default();
        let Some(raw) = raw else { return Ok(q) };
        for (name, value) in form_urlencoded::parse(raw.as_bytes()) {
            let value = value.as_ref();
            match name.as_ref() {
                "watch" => q.watch = parse_bool("watch", value)?,
                "resourceVersion" => q.resource_version = Some(value.into()),
                "fieldSelector" => q.field_selector = Some(value.into()),
                "labelSelector" => q.label_selector = Some(value.into()),
                "limit" => {
                    let limit: i64 = parse_number("limit", value)?;
                    q.limit = usize::try_from(limit).ok().filter(|l| *l > 0);
                }
                "continue" => {
                    q.continue_token = Some(value.into()).filter(|v: &String| !v.is_empty())
                }
                "timeoutSeconds" => {
                    q.timeout_seconds = Some(parse_number("timeoutSeconds", value)?)
                }
                "allowWatchBookmarks" => {
                    q.allow_watch_bookmarks = parse_bool("allowWatchBookmarks", value)?
                }
                "includeObject" => {
                    q.include_object = match value {
                        "None" => IncludeObject::None,
                        "Metadata" | "" => IncludeObject::Metadata,
                        "Object" => IncludeObject::Object,
                        other => {
                            return Err(ApiError::bad_request(format!(
                                "includeObject: Unsupported value: {other:?}: supported values: \"Metadata\", \"None\", \"Object\""
                            )));
                        }
                    }
                }
                "fieldValidation" => {
                    q.field_validation = match value {
                        "Ignore" => FieldValidation::Ignore,
                        "Warn" | "" => FieldValidation::Warn,
                        "Strict" => FieldValidation::Strict,
                        other => {
                            return Err(ApiError::bad_request(format!(
                                "fieldValidation: Unsupported value: {other:?}: supported values: \"Ignore\", \"Strict\", \"Warn\""
                            )));
                        }
                    }
                }
                "dryRun" => match value {
                    "All" => q.dry_run = true,
                    "" => {}
                    other => {
                        return Err(ApiError::bad_request(format!(
                            "dryRun: Unsupported value: {other:?}: supported values: \"All\""
                        )));
                    }
                },
                "fieldManager" => q.field_manager = Some(value.into()),
                "sendInitialEvents" => {
                    q.send_initial_events = Some(parse_bool("sendInitialEvents", value)?)
                }
                _ => {}
            }
        }
        Ok(q)
    }

    /// The watch's starting resource version: `None` for "send the current
    /// state first" (absent, empty or `0`).
    pub fn watch_from(&self) -> Result<Option<u64>, ApiError> {
        match self.resource_version.as_deref() {
            None | Some("" | "0") => Ok(None),
            Some(rv) => rv
                .parse()
                .map(Some)
                .map_err(|_| ApiError::bad_request(format!("invalid resource version {rv:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_parse_as_go_does_and_limits_of_zero_mean_none() {
        let q = Query::parse(Some("watch=True&allowWatchBookmarks=1&limit=0&continue=")).unwrap();
        assert!(q.watch && q.allow_watch_bookmarks);
        assert_eq!((q.limit, q.continue_token), (None, None));
        assert!(Query::parse(Some("watch=yes")).is_err());
        assert!(Query::parse(Some("limit=-3")).unwrap().limit.is_none());
        assert!(Query::parse(Some("limit=many")).is_err());
    }

    #[test]
    fn selectors_are_percent_decoded_and_unknown_parameters_ignored() {
        let q = Query::parse(Some(
            "fieldSelector=involvedObject.name%3Dfoo%2Ctype%3DWarning&timeout=32s",
        ))
        .unwrap();
        assert_eq!(
            q.field_selector.as_deref(),
            Some("involvedObject.name=foo,type=Warning")
        );
    }

    #[test]
    fn a_watch_starts_from_the_current_state_unless_given_a_version() {
        let from = |raw| Query::parse(Some(raw)).unwrap().watch_from().unwrap();
        assert_eq!(
            (from("resourceVersion=0"), from("resourceVersion=12")),
            (None, Some(12))
        );
        assert!(
            Query::parse(Some("resourceVersion=x"))
                .unwrap()
                .watch_from()
                .is_err()
        );
    }
}
