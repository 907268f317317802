//! Following a real cluster (`hushd serve --follow`): the boundary to the
//! store ([`mirror`]) and the pure rules that turn an upstream event's
//! changes into occurrences ([`occurrences`]).

pub mod mirror;
pub mod occurrences;
