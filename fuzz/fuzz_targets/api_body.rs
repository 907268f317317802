//! The events API's request bodies: any bytes decoded as an Event of
//! either group (`POST`/`PUT` bodies, server-side apply) and validated
//! as a create give an object or a Status-worthy error, never a panic.
//! An object the server would store must come back unchanged from the
//! store's record (what a restart reads) and from the JSON the group
//! shows (what a client that GETs it and PUTs it back sends), and must
//! pass validation as an update to itself.
#![no_main]

use hush_server::object::decode::{decode, decode_stored};
use hush_server::object::encode::{View, to_stored};
use hush_server::object::{Group, validate};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: hush_fuzz::seeds::write_if_asked("api_body"), |data: &[u8]| {
    for group in [Group::Core, Group::Events] {
        let Ok(decoded) = decode(data, group) else {
            continue;
        };
        let object = decoded.object;
        let mut causes = decoded.causes;
        causes.extend(validate::create(&object, group));
        if !causes.is_empty() {
            continue;
        }
        let stored = decode_stored(&to_stored(&object))
            .unwrap_or_else(|e| panic!("the store's record of a valid object is refused: {e}"));
        assert_eq!(stored, object, "the store's record reads back otherwise");

        let shown = serde_json::to_vec(&View(group, &object)).expect("an Event serializes");
        let mut read = decode(&shown, group)
            .unwrap_or_else(|e| panic!("a valid object as shown is refused: {e}"))
            .object;
        if group == Group::Events {
            read.unfill_event_time(&object);
        }
        assert_eq!(read, object, "a valid object as shown reads back otherwise");
        let causes = validate::update(&object, &object, group);
        assert!(causes.is_empty(), "an unchanged object fails an update: {causes:?}");
    }
});
