//! Errors, one type per operation, each turned into the JavaScript
//! exception a caller would expect: `RangeError` for an option out of range,
//! `TypeError` for a value of the wrong shape, `Error` otherwise, always with
//! a message. An exception thrown by the host's own `now()` is rethrown as is.
//!
//! A failing sink is not an error here: it is an outcome of the write
//! (`write.status` of the decision), see [`sink`](crate::sink).

use core::fmt;

use hush_core::OptionsError;
use hush_core::format::kube_json::Shape;
use wasm_bindgen::JsValue;

/// Why `new Correlator(…)` or `new Replay(…)` failed.
#[derive(Debug)]
pub enum ConstructError {
    /// An option has an unusable value (`RangeError`).
    Options(OptionsError),
    /// The options object could not be read: an unknown key or a value of
    /// the wrong type (`RangeError`).
    BadOptions(String),
    /// The options are not an object (`TypeError`).
    OptionsNotAnObject,
    /// The host or sink is not an object (`TypeError`); names which.
    NotAnObject(&'static str),
    /// The host or sink lacks a method (`TypeError`).
    MissingMethod {
        /// `host` or `sink`.
        object: &'static str,
        /// The method's name.
        method: &'static str,
    },
}

impl fmt::Display for ConstructError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstructError::Options(e) => write!(f, "{e}"),
            ConstructError::BadOptions(m) => write!(f, "invalid options: {m}"),
            ConstructError::OptionsNotAnObject => {
                f.write_str("options must be a plain object, undefined or null")
            }
            ConstructError::NotAnObject(what) => write!(f, "{what} must be an object"),
            ConstructError::MissingMethod { object, method } => {
                write!(f, "{object}.{method} is not a function")
            }
        }
    }
}

impl From<ConstructError> for JsValue {
    fn from(e: ConstructError) -> JsValue {
        let message = e.to_string();
        match e {
            ConstructError::Options(_) | ConstructError::BadOptions(_) => range_error(&message),
            ConstructError::OptionsNotAnObject
            | ConstructError::NotAnObject(_)
            | ConstructError::MissingMethod { .. } => type_error(&message),
        }
    }
}

/// Why reading the host's clock failed.
#[derive(Debug)]
pub enum ClockError {
    /// `now()` threw; the exception is rethrown unchanged.
    Threw(JsValue),
    /// `now()` returned neither a number nor a bigint (`TypeError`).
    NotATime(String),
    /// `now()` returned a time outside the years 1678–2261 (`RangeError`).
    OutOfRange(String),
}

impl fmt::Display for ClockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClockError::Threw(e) => write!(f, "host.now() threw {e:?}"),
            ClockError::NotATime(got) => write!(
                f,
                "host.now() must return milliseconds since the epoch (a number) \
                 or nanoseconds (a bigint), not {got}"
            ),
            ClockError::OutOfRange(got) => {
                write!(
                    f,
                    "host.now() returned {got}, outside the years 1678 to 2261"
                )
            }
        }
    }
}

impl From<ClockError> for JsValue {
    fn from(e: ClockError) -> JsValue {
        let message = e.to_string();
        match e {
            ClockError::Threw(thrown) => thrown,
            ClockError::NotATime(_) => type_error(&message),
            ClockError::OutOfRange(_) => range_error(&message),
        }
    }
}

/// A result that could not be turned into a JavaScript value (`Error`).
#[derive(Debug)]
pub struct OutputError(pub String);

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot convert the result to JavaScript: {}", self.0)
    }
}

impl From<OutputError> for JsValue {
    fn from(e: OutputError) -> JsValue {
        js_sys::Error::new(&e.to_string()).into()
    }
}

/// Why `observe(event)` or `tick()` failed; the recorder's state is
/// unchanged unless the error is [`ObserveError::Output`].
#[derive(Debug)]
pub enum ObserveError {
    /// The input is not a Kubernetes Event (`TypeError`, "not an Event: …").
    NotAnEvent(String),
    /// A replay input has no instant (`TypeError`); names the fields it needs.
    NoInstant(Shape),
    /// The host's clock failed; nothing was run.
    Clock(ClockError),
    /// The decision or lines could not be converted.
    Output(OutputError),
}

impl fmt::Display for ObserveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObserveError::NotAnEvent(m) => write!(f, "not an Event: {m}"),
            ObserveError::NoInstant(Shape::CoreV1) => f.write_str(
                "a replay input needs an instant: at, eventTime, lastTimestamp or firstTimestamp",
            ),
            ObserveError::NoInstant(Shape::EventsV1) => f.write_str(
                "a replay input needs an instant: at, eventTime, deprecatedLastTimestamp \
                 or deprecatedFirstTimestamp",
            ),
            ObserveError::Clock(e) => e.fmt(f),
            ObserveError::Output(e) => e.fmt(f),
        }
    }
}

impl From<ClockError> for ObserveError {
    fn from(e: ClockError) -> Self {
        ObserveError::Clock(e)
    }
}

impl From<OutputError> for ObserveError {
    fn from(e: OutputError) -> Self {
        ObserveError::Output(e)
    }
}

impl From<ObserveError> for JsValue {
    fn from(e: ObserveError) -> JsValue {
        match e {
            ObserveError::NotAnEvent(_) | ObserveError::NoInstant(_) => type_error(&e.to_string()),
            ObserveError::Clock(e) => e.into(),
            ObserveError::Output(e) => e.into(),
        }
    }
}

/// Why `new Recording(bytes)` or `append(bytes)` failed (`TypeError`).
#[derive(Debug)]
pub enum ReadError {
    /// The bytes are not UTF-8; the number is where the valid text ends.
    NotUtf8(usize),
    /// Files could not be read to their end (a truncated archive).
    Unreadable(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotUtf8(at) => write!(f, "not UTF-8 text: invalid byte at offset {at}"),
            ReadError::Unreadable(why) => write!(f, "cannot be read: {why}"),
        }
    }
}

impl From<ReadError> for JsValue {
    fn from(e: ReadError) -> JsValue {
        type_error(&e.to_string())
    }
}

/// Why `explain(i)` or `storedEvent(i)` failed.
#[derive(Debug)]
pub enum ExplainError {
    /// No such input or stored event (`RangeError`): the index and how
    /// many there are.
    OutOfRange(usize, usize),
    /// The result could not be converted.
    Output(OutputError),
}

impl fmt::Display for ExplainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExplainError::OutOfRange(i, n) => write!(f, "index {i} out of range: there are {n}"),
            ExplainError::Output(e) => e.fmt(f),
        }
    }
}

impl From<OutputError> for ExplainError {
    fn from(e: OutputError) -> Self {
        ExplainError::Output(e)
    }
}

impl From<ExplainError> for JsValue {
    fn from(e: ExplainError) -> JsValue {
        match e {
            ExplainError::OutOfRange(..) => range_error(&e.to_string()),
            ExplainError::Output(e) => e.into(),
        }
    }
}

fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

fn range_error(message: &str) -> JsValue {
    js_sys::RangeError::new(message).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_problem() {
        assert_eq!(
            ObserveError::NotAnEvent("invalid type: string \"x\"".into()).to_string(),
            "not an Event: invalid type: string \"x\""
        );
        assert_eq!(
            ObserveError::NotAnEvent("regarding is missing".into()).to_string(),
            "not an Event: regarding is missing"
        );
        assert!(
            ObserveError::NoInstant(Shape::EventsV1)
                .to_string()
                .contains("deprecatedLastTimestamp")
        );
        assert_eq!(
            ConstructError::MissingMethod {
                object: "sink",
                method: "patch"
            }
            .to_string(),
            "sink.patch is not a function"
        );
    }
}
