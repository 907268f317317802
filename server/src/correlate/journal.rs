//! The correlator journal's records: what a correlator was given (an
//! event, or a timer run) and every answer its sink gave, so replaying
//! the records after the last snapshot rebuilds its state exactly, even
//! after `kill -9`.

use hush_core::{Event, Options};
use serde::{Deserialize, Serialize};

use super::sink::Answer;

/// One journal record's payload.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Record {
    /// The observed event; `None` for a timer run.
    pub event: Option<Event>,
    /// The sink's answers, in call order.
    pub answers: Vec<Answer>,
}

/// Tags the record format, so a hushd never replays records it would
/// misread (a different format starts the correlators afresh).
const FORMAT: u8 = 1;

/// A record to encode, borrowing its parts (the same bytes as [`Record`]).
#[derive(Serialize)]
pub struct RecordRef<'a> {
    /// See [`Record::event`].
    pub event: Option<&'a Event>,
    /// See [`Record::answers`].
    pub answers: &'a [Answer],
}

/// Encodes a record.
pub fn encode(record: &RecordRef<'_>) -> Vec<u8> {
    let mut bytes = vec![FORMAT];
    bytes.extend(postcard::to_stdvec(record).expect("a journal record serializes"));
    bytes
}

/// Decodes a record written by [`encode`].
pub fn decode(bytes: &[u8]) -> Result<Record, String> {
    match bytes.split_first() {
        Some((&FORMAT, rest)) => postcard::from_bytes(rest).map_err(|e| e.to_string()),
        Some((other, _)) => Err(format!("journal format {other}, expected {FORMAT}")),
        None => Err("an empty journal record".into()),
    }
}

/// The options a snapshot was made with, as stored beside it.
pub fn encode_options(options: &Options) -> Vec<u8> {
    serde_json::to_vec(options).expect("options serialize")
}

/// Reads options written by [`encode_options`].
pub fn decode_options(bytes: &[u8]) -> Result<Options, String> {
    serde_json::from_slice(bytes).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hush_core::{SinkError, Stored};

    #[test]
    fn records_round_trip_and_foreign_formats_are_refused() {
        let mut event = Event::default();
        event.metadata.name = "web-1.17a2".into();
        event.count = 3;
        let record = Record {
            event: Some(event),
            answers: vec![
                Err(SinkError::NotFound),
                Ok(Stored {
                    name: "web-1.17a2".into(),
                    resource_version: "9".into(),
                    count: 3,
                }),
            ],
        };
        let bytes = encode(&RecordRef {
            event: record.event.as_ref(),
            answers: &record.answers,
        });
        assert_eq!(decode(&bytes).unwrap(), record);
        let mut foreign = bytes.clone();
        foreign[0] = 9;
        assert!(decode(&foreign).is_err());
        assert!(decode(&[]).is_err());
    }

    #[test]
    fn options_round_trip() {
        let options = Options {
            burst: 7,
            ..Options::default()
        };
        assert_eq!(decode_options(&encode_options(&options)).unwrap(), options);
    }
}
