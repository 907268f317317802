//! A call that traps is reported as its own action, `trap`, with the host's
//! message as the error (never as a spam drop or a refusal), in the
//! decision and in the replay line.

use std::sync::Arc;

use hush_core::format::replay::{Line, LineJson};
use hush_core::write::memory::MemoryStore;
use hush_core::{
    Action, DropCause, Event, EventSource, Mode, ObjectReference, Options, Timestamp, WriteStatus,
};
use hushd::component::{ComponentEngine, Epoch, Guards, HostClock, Plugin, embedded_bytes};

fn event(message: String) -> Event {
    Event {
        involved_object: ObjectReference {
            kind: "Pod".into(),
            namespace: "prod".into(),
            name: "web-1".into(),
            ..Default::default()
        },
        type_: "Warning".into(),
        reason: "BackOff".into(),
        message,
        source: EventSource {
            component: "kubelet".into(),
            host: "node-1".into(),
        },
        ..Default::default()
    }
}

#[test]
fn an_observe_that_traps_is_the_action_trap_with_the_host_message() {
    let plugin: Arc<Plugin> =
        Plugin::with_epoch(embedded_bytes(), Epoch::Manual).expect("the component loads");
    let now = Timestamp::from_secs(1_714_557_600);
    let mut engine = ComponentEngine::new(
        plugin,
        &Options::default(),
        HostClock::Virtual(now),
        MemoryStore::new(),
        Guards {
            memory_bytes: 4 << 20,
            snapshot_every: 1,
            ..Guards::default()
        },
        None,
    )
    .expect("instantiates");

    // An 8 MiB message cannot be lowered into a guest limited to 4 MiB.
    let decision = engine.observe_at(&event("x".repeat(8 << 20)), now);
    assert_eq!(decision.action, Action::Trap);
    let Some(WriteStatus::Dropped(DropCause::Trapped(message))) = &decision.write else {
        panic!("{:?}", decision.write)
    };
    assert!(
        message.starts_with("the correlator trapped in observe: "),
        "{message}"
    );
    assert_eq!(engine.traps.len(), 1);

    let line = Line::Decision(Box::new(decision.clone()));
    let json: serde_json::Value = serde_json::to_value(LineJson {
        mode: Mode::Legacy,
        line: &line,
    })
    .unwrap();
    assert_eq!(json["action"], "trap");
    assert_eq!(json["error"], serde_json::Value::String(message.clone()));
    assert!(json.get("write").is_none(), "the action says it: {json}");

    // The rebuilt instance goes on.
    let next = engine.observe_at(&event("back-off".into()), now);
    assert_eq!(next.action, Action::Create);
}
