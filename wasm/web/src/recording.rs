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

use core::ops::Range;

use hush_core::format::replay::{Native, Replay};
use hush_core::write::memory::MemoryStore;
use hush_core::{Event, Recorder, Timestamp};
use hush_input::{Position, read_text};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::columns::{Interner, JsObject, f64s, strings_to_js, u32s};
use crate::convert::{instant_to_millis, options_from_js};
use crate::error::{ConstructError, ReadError};
use crate::run::{RunBuilder, WebRun};

/// One accepted input event.
#[derive(Debug)]
struct Input {
    event: Event,
    at: Timestamp,
    span: Range<usize>,
}

/// A recorded file: its events, read once, and the records that were not.
#[wasm_bindgen(js_name = Recording)]
#[derive(Debug)]
pub struct WebRecording {
    inputs: Vec<Input>,
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
        let mut recording = WebRecording {
            inputs: Vec::new(),
            errors: Vec::new(),
            bytes_read: 0,
        };
        recording.append(bytes)?;
        Ok(recording)
    }

    /// Reads more of the same stream (e.g. events arriving from a watch),
    /// after the events already read, as if the bytes followed the earlier
    /// ones (spans count from the first byte ever read). Returns how many
    /// events were accepted.
    pub fn append(&mut self, bytes: &[u8]) -> Result<usize, ReadError> {
        let text = core::str::from_utf8(bytes).map_err(|e| ReadError::NotUtf8(e.valid_up_to()))?;
        let before = self.inputs.len();
        let offset = self.bytes_read;
        self.bytes_read += bytes.len();
        for raw in read_text(text) {
            let span = raw.span();
            match raw.observe() {
                Ok((_, observation, at)) => self.inputs.push(Input {
                    event: observation.event,
                    at,
                    span: offset + span.start..offset + span.end,
                }),
                Err(e) => self.errors.push((e.position, e.message)),
            }
        }
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
        let n = self.inputs.len();
        let mut strings: Interner<String> = Interner::default();
        let mut at = Vec::with_capacity(n);
        let [mut start, mut end] = [(); 2].map(|()| Vec::with_capacity(n));
        let mut columns: [Vec<u32>; 7] = Default::default();
        for input in &self.inputs {
            let e = &input.event;
            at.push(instant_to_millis(input.at));
            start.push(input.span.start as u32);
            end.push(input.span.end as u32);
            for (column, value) in columns.iter_mut().zip(strings_of(e)) {
                column.push(strings.id(value));
            }
        }
        let facts = JsObject::default();
        facts
            .set("at", f64s(&at))
            .set("start", u32s(&start))
            .set("end", u32s(&end));
        for (name, column) in STRING_COLUMNS.iter().zip(&columns) {
            facts.set(name, u32s(column));
        }
        facts.set("strings", strings_to_js(&strings));
        facts.into_js()
    }

    /// Correlates every event in order with `options` (as for `Replay`,
    /// `mode` included) into an in-memory API server, runs the clock on
    /// until every series has finished, and returns the [`Run`](WebRun).
    pub fn replay(&self, options: JsValue) -> Result<WebRun, ConstructError> {
        let options = options_from_js(&options)?;
        let mode = options.mode;
        let recorder = Recorder::new(options).map_err(ConstructError::Options)?;
        let engine = Native {
            recorder,
            sink: MemoryStore::new(),
        };
        let mut replay = Replay::new(engine, mode);
        let mut run = RunBuilder::new(mode, self.inputs.len());
        for (index, input) in self.inputs.iter().enumerate() {
            run.push(Some(index), replay.observe(input.event.clone(), input.at));
        }
        run.push(None, replay.finish());
        let stats = replay.engine.recorder.stats();
        Ok(run.finish(&replay.engine.sink, stats))
    }
}

/// The string columns of [`WebRecording::facts`], in [`strings_of`]'s order.
pub(crate) const STRING_COLUMNS: [&str; 7] = [
    "namespace",
    "kind",
    "name",
    "reason",
    "type",
    "component",
    "message",
];

/// An event's values for [`STRING_COLUMNS`].
pub(crate) fn strings_of(e: &Event) -> [&str; 7] {
    let component = match e.source.component.as_str() {
        "" => e.reporting_controller.as_str(),
        c => c,
    };
    [
        &e.involved_object.namespace,
        &e.involved_object.kind,
        &e.involved_object.name,
        &e.reason,
        &e.type_,
        component,
        &e.message,
    ]
}
