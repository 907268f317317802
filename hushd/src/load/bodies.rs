//! The request bodies a load posts: the realistic mix rendered once as
//! core/v1 (or events.k8s.io/v1) JSON templates, each request getting a
//! name of its own (`<object>.<sequence>`), as a raw emitter names them.

use bytes::{Bytes, BytesMut};

use hush_engine::workload::{Kind, Mix, SEED};
use hush_server::object::encode::View;
use hush_server::object::{EventObject, Group};

/// Distinct templates cycled through (the mix's repeats are among them).
const TEMPLATES: usize = 20_000;

/// Where the name goes in a template.
const NAME: &str = "@@NAME@@";

/// The templates, each split around its name.
pub struct Bodies {
    templates: Vec<(Bytes, String, Bytes)>,
}

impl Bodies {
    /// Renders the mix (or one part of it) for core/v1, or events.k8s.io/v1.
    pub fn new(only: Option<Kind>, events_v1: bool) -> Bodies {
        let mut mix = Mix::new(SEED, only);
        let group = if events_v1 {
            Group::Events
        } else {
            Group::Core
        };
        let templates = (0..TEMPLATES)
            .map(|_| {
                let (event, at) = mix.next_event();
                let mut object = EventObject {
                    event: event.clone(),
                    meta: Default::default(),
                };
                let prefix = object.event.involved_object.name.clone();
                object.event.metadata.name = NAME.into();
                if events_v1 {
                    // A new-style event: what the events.k8s.io/v1 API requires.
                    let e = &mut object.event;
                    e.event_time = Some(at);
                    e.action = e.reason.clone();
                    if e.reporting_instance.is_empty() {
                        e.reporting_instance = format!("{}-", e.reporting_controller);
                    }
                    e.source = Default::default();
                    e.first_timestamp = None;
                    e.last_timestamp = None;
                    e.count = 0;
                    e.metadata.namespace = "default".into();
                    e.involved_object.namespace = "default".into();
                } else {
                    object.event.metadata.namespace = "default".into();
                    object.event.involved_object.namespace = "default".into();
                }
                let json =
                    serde_json::to_string(&View(group, &object)).expect("an Event serializes");
                let (before, after) = json.split_once(NAME).expect("the name placeholder");
                (
                    Bytes::copy_from_slice(before.as_bytes()),
                    prefix,
                    Bytes::copy_from_slice(after.as_bytes()),
                )
            })
            .collect();
        Bodies { templates }
    }

    /// The body of request `seq`.
    pub fn body(&self, seq: u64) -> Bytes {
        let (before, prefix, after) = &self.templates[(seq % TEMPLATES as u64) as usize];
        let mut body = BytesMut::with_capacity(before.len() + prefix.len() + 20 + after.len());
        body.extend_from_slice(before);
        body.extend_from_slice(prefix.as_bytes());
        body.extend_from_slice(format!(".{seq:x}").as_bytes());
        body.extend_from_slice(after);
        body.freeze()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hush_server::object::decode::decode;

    #[test]
    fn every_body_is_a_valid_event_with_its_own_name() {
        for events_v1 in [false, true] {
            let bodies = Bodies::new(None, events_v1);
            let group = if events_v1 {
                Group::Events
            } else {
                Group::Core
            };
            let a = decode(&bodies.body(1), group).unwrap().object;
            let b = decode(&bodies.body(1 + TEMPLATES as u64), group)
                .unwrap()
                .object;
            assert_ne!(a.name(), b.name());
            assert_eq!(a.event.reason, b.event.reason);
            assert!(
                hush_server::object::validate::create(&a, group).is_empty(),
                "{a:?}"
            );
        }
    }
}
