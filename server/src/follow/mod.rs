//! Following a real cluster (`hushd serve --follow`): the pure rules
//! that turn an upstream event's changes into occurrences ([`occurrences`]).

pub mod occurrences;
