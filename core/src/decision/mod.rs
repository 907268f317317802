//! The decisions: what the correlators return and the write path carries
//! out. The stages ([`legacy`](crate::legacy), [`series`](crate::series))
//! and the recorder all speak these types, and none of them says how a
//! write is sent:
//!
//! - [`why`]: the rule behind each decision and the key it counted under;
//! - [`patch`]: the patches a repeat or a series is written with, and
//!   their bytes as client-go sends them;
//! - [`op`]: one write ([`WriteOp`]) and what the sink stored for it
//!   ([`Stored`]), which the stages remember;
//! - [`timer`]: which timer fired ([`TickKind`]) and the writes it asks
//!   for ([`TimerWrite`]).

pub(crate) mod name;
pub mod op;
pub mod patch;
pub mod timer;
pub mod why;

pub use op::{Stored, WriteOp, stored_count};
pub use patch::{LegacyPatch, Patch};
pub use timer::{TickKind, TimerWrite};
pub use why::{Explanation, Rule, Why};
