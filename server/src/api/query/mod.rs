//! The query parameters of the events endpoints, read as the API server's
//! parameter codec reads them: the first value of a repeated parameter
//! counts, booleans are true unless `0` or `false` ([`query_bool`]),
//! numbers are Go's (with Go's error text in the 400); unknown parameters
//! are ignored. Lists and watches share one reading and one check of
//! their options ([`Query::parse_list`], in `list_options`), so a
//! parameter is accepted or refused alike by both.

mod go;
mod list_options;

pub use self::go::query_bool;

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
    /// `resourceVersionMatch` (checked by [`Query::parse_list`]).
    pub resource_version_match: Option<String>,
    /// `fieldSelector`.
    pub field_selector: Option<String>,
    /// `labelSelector`.
    pub label_selector: Option<String>,
    /// `limit` (0 or less means none).
    pub limit: Option<usize>,
    /// `continue`.
    pub continue_token: Option<String>,
    /// `timeoutSeconds`: `None` for the server's default (absent or 0, as
    /// the API server reads it), `Some(0)` for a negative one (the watch
    /// ends at once, as the API server's expired context ends it).
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

/// The longest `timeoutSeconds` kept as asked: longer ones (up to Go's
/// int64) would overflow the clock's instants, and are cut to this (136
/// years).
pub const MAX_TIMEOUT_SECONDS: u64 = u32::MAX as u64;

/// A number parameter that does not parse: the API server's 400.
fn bad_number(error: String) -> ApiError {
    ApiError::bad_request(error)
}

/// Whether `raw` asks for a watch, read as [`Query::parse`] reads it
/// (for the layers that need the verb before the handler runs).
pub fn watch_requested(raw: Option<&str>) -> bool {
    form_urlencoded::parse(raw.unwrap_or("").as_bytes())
        .find(|(name, _)| name == "watch")
        .is_some_and(|(_, value)| query_bool(&value))
}

impl Query {
    /// Parses a raw query string. Only the first value of a parameter
    /// given twice counts, as the API server's decoder takes it (and as
    /// the authorizer reads the verb: a later `watch=true` cannot turn an
    /// authorized list into a watch).
    pub fn parse(raw: Option<&str>) -> Result<Query, ApiError> {
        let mut q = Query::default();
        let Some(raw) = raw else { return Ok(q) };
        let mut seen: Vec<std::borrow::Cow<'_, str>> = Vec::new();
        for (name, value) in form_urlencoded::parse(raw.as_bytes()) {
            if seen.contains(&name) {
                continue;
            }
            let value = value.as_ref();
            match name.as_ref() {
                "watch" => q.watch = query_bool(value),
                "resourceVersion" => q.resource_version = Some(value.into()),
                "resourceVersionMatch" => q.resource_version_match = Some(value.into()),
                "fieldSelector" => q.field_selector = Some(value.into()),
                "labelSelector" => q.label_selector = Some(value.into()),
                "limit" => {
                    let limit = go::parse_int(value).map_err(bad_number)?;
                    q.limit = usize::try_from(limit).ok().filter(|l| *l > 0);
                }
                "continue" => {
                    q.continue_token = Some(value.into()).filter(|v: &String| !v.is_empty())
                }
                "timeoutSeconds" => {
                    let seconds = go::parse_int(value).map_err(bad_number)?;
                    q.timeout_seconds = match seconds {
                        0 => None,
                        ..0 => Some(0),
                        _ => Some(seconds.unsigned_abs().min(MAX_TIMEOUT_SECONDS)),
                    };
                }
                "allowWatchBookmarks" => q.allow_watch_bookmarks = query_bool(value),
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
                "sendInitialEvents" => q.send_initial_events = Some(query_bool(value)),
                _ => continue,
            }
            seen.push(name);
        }
        Ok(q)
    }

    /// Parses the query of a list or a watch and checks its options as
    /// the API server does for both (see `list_options`): a malformed
    /// `resourceVersion` is the same 400 for a list as for a watch, and
    /// options that do not go together are a 422 `ListOptions` Invalid.
    pub fn parse_list(raw: Option<&str>) -> Result<Query, ApiError> {
        let query = Query::parse(raw)?;
        query.check_list_options()?;
        Ok(query)
    }

    /// The watch's starting resource version: `None` for "send the current
    /// state first" (absent, empty or `0`).
    pub fn watch_from(&self) -> Result<Option<u64>, ApiError> {
        match self.resource_version.as_deref() {
            None | Some("" | "0") => Ok(None),
            Some(rv) => list_options::resource_version(rv).map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_are_read_as_the_api_servers_codec_reads_them() {
        let q = Query::parse(Some("watch=True&allowWatchBookmarks=1&limit=0&continue=")).unwrap();
        assert!(q.watch && q.allow_watch_bookmarks);
        assert_eq!((q.limit, q.continue_token), (None, None));
        assert!(Query::parse(Some("watch=yes")).unwrap().watch);
        assert!(!Query::parse(Some("watch=False")).unwrap().watch);
        assert!(Query::parse(Some("limit=-3")).unwrap().limit.is_none());
        let e = Query::parse(Some("limit=many")).unwrap_err();
        assert_eq!(
            (e.code.as_u16(), e.message.as_str()),
            (400, "strconv.ParseInt: parsing \"many\": invalid syntax")
        );
    }

    #[test]
    fn the_first_value_of_a_repeated_parameter_counts() {
        let q = Query::parse(Some("watch=false&watch=true&limit=5&limit=x")).unwrap();
        assert!(!q.watch);
        assert_eq!(q.limit, Some(5));
        assert!(!watch_requested(Some("watch=0&watch=1")));
        assert!(watch_requested(Some("limit=500&watch=1")));
        assert!(!watch_requested(None));
    }

    #[test]
    fn timeouts_of_zero_mean_the_default_and_negative_ones_end_at_once() {
        let timeout = |raw| Query::parse(Some(raw)).unwrap().timeout_seconds;
        assert_eq!(timeout("timeoutSeconds=0"), None);
        assert_eq!(timeout("timeoutSeconds=-5"), Some(0));
        assert_eq!(timeout("timeoutSeconds=30"), Some(30));
        assert_eq!(
            timeout("timeoutSeconds=9223372036854775807"),
            Some(MAX_TIMEOUT_SECONDS)
        );
        assert!(Query::parse(Some("timeoutSeconds=5s")).is_err());
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
