//! What the engines are measured on (`hushd bench`, `hushd load`, the
//! benches): the realistic mix built in memory ([`Mix`]) or the events of a
//! file ([`Recorded`]), as an endless stream of events and the instants
//! they are observed at, and a sink that stores nothing ([`NullSink`]).
//! Every stream made from one [`Source`] yields the same events in the same
//! order, so engines measured one after the other see the same input.

mod mix;
mod null_sink;
mod recorded;

pub use mix::{CRASHING_PODS, Kind, Mix, REPLICA_SETS, STEP_NANOS};
pub use null_sink::NullSink;
pub use recorded::{Recorded, Replayed};

use std::fmt;

use hush_core::{Event, Timestamp};

/// Seed of the mix (fixed, so runs compare).
pub const SEED: u64 = 0x5eed_4e55;

/// Where a benchmark's events come from.
#[derive(Debug)]
pub enum Source {
    /// The realistic mix, or one part of it.
    Mix(Option<Kind>),
    /// A file's events, replayed over and over.
    Recorded(Recorded),
}

impl Source {
    /// A new stream from the start.
    pub fn stream(&self) -> Stream<'_> {
        match self {
            Source::Mix(only) => Stream::Mix(Mix::new(SEED, *only)),
            Source::Recorded(recorded) => Stream::Recorded(recorded.replay()),
        }
    }
}

impl fmt::Display for Source {
    /// How the input is named in the figures: `mix`, `mix:repeat`, or the file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Mix(None) => f.write_str("mix"),
            Source::Mix(Some(kind)) => write!(f, "mix:{kind}"),
            Source::Recorded(recorded) => f.write_str(recorded.name()),
        }
    }
}

/// An endless stream of events.
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "one stream per measurement, made once and never moved in the loop"
)]
pub enum Stream<'a> {
    /// The mix generator.
    Mix(Mix),
    /// A file's events, pass after pass.
    Recorded(Replayed<'a>),
}

impl Stream<'_> {
    /// The next event and the instant it is observed.
    #[inline]
    pub fn next_event(&mut self) -> (&Event, Timestamp) {
        match self {
            Stream::Mix(mix) => mix.next_event(),
            Stream::Recorded(replayed) => replayed.next_event(),
        }
    }
}
