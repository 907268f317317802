//! `Recording`: a whole recorded file, read once, replayed as often as
//! asked. The dashboard's bulk entry point: the file crosses into wasm
//! once as bytes, its facts come back as columns (one typed array per
//! field, strings interned), and each [`replay`](WebRecording::replay) with
//! other options returns a [`Run`](crate::run::WebRun) without one
//! JavaScript call per event.
//!
//! ```js
//! const recording = new Recording(bytes);        // Uint8Array of the file
//! recording.errors();                            // [{position: "line 3", message}]
//! const facts = recording.facts();               // {strings, at, namespace, kind, name, …}
//! const run = recording.replay({ burst: 10 });   // the correlator over every event
//! ```

use hush_core::Event;
use hush_input::{Position, read_text};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::columns::{JsObject, f64s, strings_to_js, u32s};
use crate::convert::{instant_to_millis, options_from_js};
use crate::error::{ConstructError, ReadError};
use crate::inputs::{Inputs, STRING_COLUMNS};
use crate::run::{Correlation, WebRun};

/// A recorded file: its events, read once, and the records that were not.
#[wasm_bindgen(js_name = Recording)]
#[derive(Debug, Default)]
pub struct WebRecording {
    inputs: Inputs,
    /// The events read, replayed as often as asked.
    events: Vec<Event>,
    errors: Vec<(Position, String)>,
    /// Bytes read so far: where the next `append` starts.
    bytes_read: usize,
}

#[wasm_bindgen(js_class = Recording)]
impl WebRecording {
    /// `new Recording(bytes)`: reads a file's bytes (UTF-8): JSON Lines of
    /// Events of either shape, or one document (a list with `items`, or one
    /// Event). Records that are not Events are kept as errors, not thrown;
    /// only text that is not UTF-8 throws (`TypeError`).
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<WebRecording, ReadError> {
        let mut recording = WebRecording::default();
        recording.append(bytes)?;
        Ok(recording)
    }

    /// Reads more of the same stream (e.g. events arriving from a watch),
    /// after the events already read, as if the bytes followed the earlier
    /// ones (spans count from the first byte ever read). Returns how many
    /// events were accepted.
    pub fn append(&mut self, bytes: &[u8]) -> Result<usize, ReadError> {
        let before = self.inputs.len();
        let events = &mut self.events;
        read_into(
            bytes,
            &mut self.bytes_read,
            &mut self.inputs,
            &mut self.errors,
            &mut |e| events.push(e),
        )?;
        Ok(self.inputs.len() - before)
    }

    /// The number of events read.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.inputs.len()
    }

    /// The records that are not events, in order:
    /// `[{position: "line 3" | "items[2]", message}]`.
    pub fn errors(&self) -> JsValue {
        let array = js_sys::Array::new();
        for (position, message) in &self.errors {
            let error = JsObject::default();
            error
                .set("position", position.to_string())
                .set("message", message.as_str());
            array.push(&error.into_js());
        }
        array.into()
    }

    /// The events' facts as columns, one entry per event in input order:
    /// `at` (milliseconds since the epoch, the instant a replay observes it
    /// at), `start` and `end` (its bytes in the file), and, as numbers into
    /// `strings`, the involved object's `namespace`, `kind`, `name`, and the
    /// event's `reason`, `type`, `component` (source, else reporting
    /// controller) and `message`.
    pub fn facts(&self) -> JsValue {
        facts_from(&self.inputs, 0).into_js()
    }

    /// Correlates every event in order with `options` (as for `Replay`,
    /// `mode` included) into an in-memory API server, runs the clock on
    /// until every series has finished, and returns the [`Run`](WebRun).
    pub fn replay(&self, options: JsValue) -> Result<WebRun, ConstructError> {
        let options = options_from_js(&options)?;
        let mut correlation = Correlation::new(options).map_err(ConstructError::Options)?;
        correlation.advance(&self.inputs, &mut |i| self.events[i].clone());
        correlation.finish();
        Ok(WebRun::from(correlation))
    }
}

/// Reads `bytes` (UTF-8, the stream's next bytes after `bytes_read`) into
/// `inputs` and `errors`, in order, giving each event read to `keep`.
pub(crate) fn read_into(
    bytes: &[u8],
    bytes_read: &mut usize,
    inputs: &mut Inputs,
    errors: &mut Vec<(Position, String)>,
    keep: &mut dyn FnMut(Event),
) -> Result<(), ReadError> {
    let text = core::str::from_utf8(bytes).map_err(|e| ReadError::NotUtf8(e.valid_up_to()))?;
    let offset = *bytes_read;
    *bytes_read += bytes.len();
    for raw in read_text(text) {
        let span = raw.span();
        match raw.observe() {
            Ok((_, observation, at)) => {
                inputs.push(
                    &observation.event,
                    at,
                    offset + span.start..offset + span.end,
                );
                keep(observation.event);
            }
            Err(e) => errors.push((e.position, e.message)),
        }
    }
    Ok(())
}

/// The facts of inputs `from..` as columns (see [`WebRecording::facts`]),
/// without the string table.
pub(crate) fn fact_columns(inputs: &Inputs, from: usize) -> JsObject {
    let list = inputs.from(from);
    let from = inputs.len() - list.len();
    let at: Vec<f64> = list.iter().map(|i| instant_to_millis(i.at)).collect();
    let start: Vec<u32> = list.iter().map(|i| i.span.start as u32).collect();
    let end: Vec<u32> = list.iter().map(|i| i.span.end as u32).collect();
    let ids = &inputs.all_ids()[from..];
    let facts = JsObject::default();
    facts
        .set("at", f64s(&at))
        .set("start", u32s(&start))
        .set("end", u32s(&end));
    for (c, name) in STRING_COLUMNS.iter().enumerate() {
        let column: Vec<u32> = ids.iter().map(|ids| ids[c]).collect();
        facts.set(name, u32s(&column));
    }
    facts
}

/// [`fact_columns`] with the whole string table as `strings`.
fn facts_from(inputs: &Inputs, from: usize) -> JsObject {
    let facts = fact_columns(inputs, from);
    facts.set("strings", strings_to_js(inputs.strings()));
    facts
}
