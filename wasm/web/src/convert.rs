//! JavaScript ⇄ core values: options, events, instants, sink answers and
//! output lines.
//!
//! Inputs are read with serde-wasm-bindgen; outputs are written with its
//! [`json_compatible`](Serializer::json_compatible) serializer, so they are
//! plain objects, arrays and numbers (never a `Map` or a `BigInt`) and
//! `JSON.stringify` gives what the native build prints.

use hush_core::format::kube_json::{EventJson, Observation, PatchJson, Shape};
use hush_core::format::replay::{Line, LineJson};
use hush_core::{Event, Mode, Options, Patch, SinkError, Stored, Timestamp};
use js_sys::{Array, Object, Reflect};
use serde::de::IntoDeserializer;
use serde::de::value::MapDeserializer;
use serde::{Deserialize, Serialize};
use serde_wasm_bindgen::Serializer;
use wasm_bindgen::{JsCast, JsValue};

use crate::error::{ClockError, ConstructError, ObserveError, OutputError};

/// Nanoseconds in one millisecond.
const NANOS_PER_MILLI: i64 = 1_000_000;

/// Writes `value` as a plain, JSON-compatible JavaScript value.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, OutputError> {
    value
        .serialize(&Serializer::json_compatible())
        .map_err(|e| OutputError(serde_message(e)))
}

/// Writes one replay line as a plain object, events in `mode`'s shape.
pub fn line_to_js(mode: Mode, line: &Line) -> Result<JsValue, OutputError> {
    to_js(&LineJson { mode, line })
}

/// Writes replay lines as an array of plain objects, events in `mode`'s shape.
pub fn lines_to_js(mode: Mode, lines: &[Line]) -> Result<JsValue, OutputError> {
    let array = Array::new();
    for line in lines {
        array.push(&line_to_js(mode, line)?);
    }
    Ok(array.into())
}

/// Writes an event in `mode`'s Kubernetes shape (core/v1 for legacy,
/// events.k8s.io/v1 for series).
pub fn event_to_js(mode: Mode, event: &Event) -> Result<JsValue, OutputError> {
    to_js(&EventJson(Shape::of(mode), event))
}

/// Writes a patch as the JSON object it sends.
pub fn patch_to_js(patch: &Patch) -> Result<JsValue, OutputError> {
    to_js(&PatchJson(patch))
}

/// A JavaScript value handed to serde as a map value.
struct Value(JsValue);

impl<'de> IntoDeserializer<'de, serde_wasm_bindgen::Error> for Value {
    type Deserializer = serde_wasm_bindgen::Deserializer;

    fn into_deserializer(self) -> Self::Deserializer {
        serde_wasm_bindgen::Deserializer::from(self.0)
    }
}

/// Reads options: kebab-case keys of [`Options`]; `undefined` or `null`
/// (for the whole object or one key) means the default. Unknown keys are
/// refused, as in every other front end.
pub fn options_from_js(value: &JsValue) -> Result<Options, ConstructError> {
    if value.is_undefined() || value.is_null() {
        return Ok(Options::default());
    }
    if !value.is_object() || Array::is_array(value) {
        return Err(ConstructError::OptionsNotAnObject);
    }
    // serde-wasm-bindgen reads a struct by its known fields only, which
    // would ignore a misspelt option; reading the entries as a map lets
    // `deny_unknown_fields` see every key.
    let object: &Object = value.unchecked_ref();
    let mut entries = Vec::new();
    for key in Object::keys(object).iter() {
        let entry =
            Reflect::get(value, &key).map_err(|e| ConstructError::BadOptions(describe(&e)))?;
        if entry.is_undefined() || entry.is_null() {
            continue;
        }
        let key = key.as_string().unwrap_or_default();
        entries.push((key, Value(entry)));
    }
    let options = Options::deserialize(MapDeserializer::new(entries.into_iter()))
        .map_err(|e| ConstructError::BadOptions(serde_message(e)))?;
    options.validate().map_err(ConstructError::Options)?;
    Ok(options)
}

/// Reads one Kubernetes Event of either shape, with hush's optional `at`.
pub fn observation_from_js(value: JsValue) -> Result<Observation, ObserveError> {
    serde_wasm_bindgen::from_value(value).map_err(|e| ObserveError::NotAnEvent(serde_message(e)))
}

/// Reads what a host's `now()` returned: milliseconds since the epoch as a
/// number (fractions kept to the nanosecond), or nanoseconds as a bigint.
pub fn instant_from_js(value: &JsValue) -> Result<Timestamp, ClockError> {
    if value.is_bigint() {
        return i64::try_from(value.clone())
            .map(Timestamp::from_nanos)
            .map_err(|_| ClockError::OutOfRange(format!("{}n", describe(value))));
    }
    match value.as_f64() {
        Some(ms) => millis_to_instant(ms).ok_or_else(|| ClockError::OutOfRange(ms.to_string())),
        None => Err(ClockError::NotATime(describe(value))),
    }
}

/// Milliseconds since the epoch (fractional) as an instant, if finite and
/// in range. The whole milliseconds are converted exactly, so the fraction
/// keeps what precision the `f64` had.
pub fn millis_to_instant(ms: f64) -> Option<Timestamp> {
    if !ms.is_finite() {
        return None;
    }
    let whole = ms.trunc();
    // i64 nanoseconds reach about ±9.22e12 ms.
    if whole.abs() >= 9.2e12 {
        return None;
    }
    let nanos_in_ms = ((ms - whole) * NANOS_PER_MILLI as f64).round() as i64;
    (whole as i64)
        .checked_mul(NANOS_PER_MILLI)?
        .checked_add(nanos_in_ms)
        .map(Timestamp::from_nanos)
}

/// An instant as milliseconds since the epoch (what `Date` uses).
pub fn instant_to_millis(at: Timestamp) -> f64 {
    let nanos = at.nanos();
    let whole = nanos.div_euclid(NANOS_PER_MILLI);
    whole as f64 + nanos.rem_euclid(NANOS_PER_MILLI) as f64 / NANOS_PER_MILLI as f64
}

/// Retry-After seconds as nanoseconds, if a usable duration.
pub fn seconds_to_nanos(seconds: f64) -> Option<u64> {
    (0.0..1.8e10)
        .contains(&seconds)
        .then(|| (seconds * 1e9).round() as u64)
}

/// Reads a sink's answer to `create` or `patch`: `{name, resourceVersion, count}`.
/// A malformed answer is a host bug: the write failed, and is retried a
/// bounded number of times before it is dropped with this message.
pub fn stored_from_js(operation: &str, answer: JsValue) -> Result<Stored, SinkError> {
    serde_wasm_bindgen::from_value(answer).map_err(|e| {
        SinkError::Failed(format!(
            "sink.{operation} must return {{name, resourceVersion, count}}: {}",
            serde_message(e)
        ))
    })
}

/// Reads a sink's answer to `list`: an array of Events of either shape.
pub fn events_from_js(answer: JsValue) -> Result<Vec<Event>, SinkError> {
    let bad = |m: String| SinkError::Failed(format!("sink.list must return Events: {m}"));
    let array: Array = answer
        .dyn_into()
        .map_err(|v| bad(format!("not an array: {}", describe(&v))))?;
    array
        .iter()
        .enumerate()
        .map(|(i, item)| {
            serde_wasm_bindgen::from_value::<Observation>(item)
                .map(|o| o.event)
                .map_err(|e| bad(format!("item {i}: {}", serde_message(e))))
        })
        .collect()
}

/// The message of a serde-wasm-bindgen error (its `Display` would prefix
/// the JavaScript `Error: `).
pub fn serde_message(e: serde_wasm_bindgen::Error) -> String {
    describe(&JsValue::from(e))
}

/// A short description of any JavaScript value, for messages: an Error's
/// message, a string itself, else its debug form.
pub fn describe(value: &JsValue) -> String {
    if let Some(s) = value.as_string() {
        return s;
    }
    if let Some(e) = value.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    if value.is_object()
        && let Some(m) = Reflect::get(value, &JsValue::from_str("message"))
            .ok()
            .and_then(|m| m.as_string())
    {
        return m;
    }
    format!("{value:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_keep_their_fraction() {
        let t = millis_to_instant(1_714_557_600_000.0).unwrap();
        assert_eq!(t.nanos(), 1_714_557_600_000_000_000);
        let t = millis_to_instant(1_714_557_600_000.5).unwrap();
        assert_eq!(t.nanos(), 1_714_557_600_000_500_000);
        let t = millis_to_instant(-1.25).unwrap();
        assert_eq!(t.nanos(), -1_250_000);
        assert_eq!(instant_to_millis(Timestamp::from_nanos(-1_250_000)), -1.25);
        assert_eq!(
            instant_to_millis(Timestamp::from_nanos(1_714_557_600_000_500_000)),
            1_714_557_600_000.5
        );
    }

    #[test]
    fn unusable_milliseconds_are_refused() {
        assert!(millis_to_instant(f64::NAN).is_none());
        assert!(millis_to_instant(f64::INFINITY).is_none());
        assert!(millis_to_instant(1e13).is_none());
        assert!(millis_to_instant(-1e13).is_none());
    }

    #[test]
    fn retry_after_seconds() {
        assert_eq!(seconds_to_nanos(1.5), Some(1_500_000_000));
        assert_eq!(seconds_to_nanos(-1.0), None);
        assert_eq!(seconds_to_nanos(f64::NAN), None);
    }
}
