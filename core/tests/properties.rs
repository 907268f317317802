//! Property tests of the core building blocks and of the legacy correlator.
//!
//! Failures are persisted next to this file
//! (`properties.proptest-regressions`) so a shrunk counter-example can be
//! committed and replayed on every later run.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use hush_core::key::{KeyKind, KeyRef};
use hush_core::legacy::token_bucket::{Rate, Take, TokenBucket};
use hush_core::lru::Lru;
use hush_core::model::complete::complete_core_v1;
use hush_core::model::name::{event_name, is_dns1123_subdomain, raw_event_name};
use hush_core::model::time::NANOS_PER_SECOND;
use hush_core::{
    Correlation, Event, EventSource, LegacyCorrelator, ObjectMeta, ObjectReference, Options, Rule,
    SpamKeyFields, Timestamp,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn config() -> ProptestConfig {
    ProptestConfig {
        // `WithSource(ext)` replaces the `.rs` of this file with `.ext`:
        // core/tests/properties.proptest-regressions.
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

/// A plausible "now": 2023-11-14T22:13:20Z.
const BASE_NANOS: i64 = 1_700_000_000 * NANOS_PER_SECOND;

// ---------------------------------------------------------------------------
// LRU
// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum LruOp {
    Insert(u8, u32),
    GetMut(u8),
    Peek(u8),
    Remove(u8),
}

fn lru_op() -> impl Strategy<Value = LruOp> {
    // A handful of keys, so hits, updates and evictions are all common.
    let key = 0u8..6;
    prop_oneof![
        3 => (key.clone(), any::<u32>()).prop_map(|(k, v)| LruOp::Insert(k, v)),
        2 => key.clone().prop_map(LruOp::GetMut),
        1 => key.clone().prop_map(LruOp::Peek),
        1 => key.prop_map(LruOp::Remove),
    ]
}

/// Keys are encoded bytes; make them more than one byte so prefixes matter.
fn lru_key(k: u8) -> Vec<u8> {
    vec![b'k'; usize::from(k)]
}

/// A plain reference LRU: entries from the least to the most recently used.
#[derive(Default)]
struct ModelLru {
    entries: Vec<(u8, u32)>,
}

impl ModelLru {
    fn position(&self, k: u8) -> Option<usize> {
        self.entries.iter().position(|(key, _)| *key == k)
    }
    fn touch(&mut self, k: u8) -> Option<u32> {
        let i = self.position(k)?;
        let entry = self.entries.remove(i);
        self.entries.push(entry);
        Some(entry.1)
    }
    /// Returns the evicted entry, if any.
    fn insert(&mut self, k: u8, v: u32, capacity: usize) -> Option<(u8, u32)> {
        if self.touch(k).is_some() {
            self.entries.last_mut().unwrap().1 = v;
            return None;
        }
        self.entries.push((k, v));
        (self.entries.len() > capacity).then(|| self.entries.remove(0))
    }
}

// ---------------------------------------------------------------------------
// Correlator streams
// ---------------------------------------------------------------------------

const OBJECTS: [(&str, &str, &str, &str); 3] = [
    ("Pod", "ns1", "web-1", "uid-1"),
    ("Pod", "ns1", "web-2", "uid-2"),
    ("Node", "", "node-a", "uid-n"),
];
const FIELD_PATHS: [&str; 2] = ["", "spec.containers{app}"];
const REASONS: [&str; 3] = ["BackOff", "Pulled", "Killing"];
const MESSAGES: [&str; 5] = ["m1", "m2", "m3", "m4", "m5"];
const TYPES: [&str; 2] = ["Normal", "Warning"];

#[derive(Clone, Debug)]
struct Draw {
    object: usize,
    field_path: usize,
    reason: usize,
    message: usize,
    type_: usize,
    /// Nanoseconds since the previous event (never negative).
    gap: i64,
}

fn draw() -> impl Strategy<Value = Draw> {
    let gap = prop_oneof![
        3 => Just(0i64),
        4 => 1i64..=5 * NANOS_PER_SECOND,
        1 => Just(299 * NANOS_PER_SECOND),
        1 => Just(301 * NANOS_PER_SECOND),
        1 => Just(601 * NANOS_PER_SECOND),
    ];
    (
        0..OBJECTS.len(),
        0..2usize,
        0..3usize,
        0..5usize,
        0..2usize,
        gap,
    )
        .prop_map(|(object, field_path, reason, message, type_, gap)| Draw {
            object,
            field_path,
            reason,
            message,
            type_,
            gap,
        })
}

fn correlator_options() -> impl Strategy<Value = Options> {
    (
        1u32..=30,
        prop_oneof![Just(0.0f32), Just(1.0 / 300.0), Just(0.5)],
        1u32..=11,
        prop_oneof![Just(0u32), Just(60), Just(600)],
        any::<bool>(),
    )
        .prop_map(|(burst, qps, max_events, interval, by_reason)| Options {
            burst,
            qps,
            max_events,
            max_interval_seconds: interval,
            spam_key: if by_reason {
                SpamKeyFields::SourceObjectTypeReason
            } else {
                SpamKeyFields::SourceObjectType
            },
            // The default 4096 entries: nothing is evicted in these streams,
            // so no count is ever forgotten.
            ..Options::default()
        })
}

fn drawn_event(d: &Draw, now: Timestamp) -> Event {
    let (kind, namespace, name, uid) = OBJECTS[d.object];
    let mut e = Event {
        involved_object: ObjectReference {
            kind: kind.into(),
            namespace: namespace.into(),
            name: name.into(),
            uid: uid.into(),
            api_version: "v1".into(),
            field_path: FIELD_PATHS[d.field_path].into(),
            ..Default::default()
        },
        source: EventSource {
            component: "kubelet".into(),
            host: "node-1".into(),
        },
        reason: REASONS[d.reason].into(),
        message: MESSAGES[d.message].into(),
        type_: TYPES[d.type_].into(),
        ..Default::default()
    };
    complete_core_v1(&mut e, now);
    e
}

// ---------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------

/// Field values chosen so that concatenations collide a lot ("a"+"ba" vs
/// "ab"+"a") and so that non-ASCII (`ÿ` is U+00FF, bytes C3 BF) appears.
fn key_field() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("a".to_string()),
        Just("b".to_string()),
        Just("ab".to_string()),
        Just("ba".to_string()),
        Just("ÿ".to_string()),
        Just("aÿ".to_string()),
        "[abÿ\u{FFFD}]{0,3}",
    ]
}

const SCALAR_FIELDS: usize = 17;
const RELATED_FIELDS: usize = 7;

/// All the fields any key reads: 17 scalars and an optional related object.
#[derive(Clone, Debug)]
struct KeyFields {
    scalars: Vec<String>,
    related: Option<Vec<String>>,
}

fn key_fields() -> impl Strategy<Value = KeyFields> {
    (
        prop::collection::vec(key_field(), SCALAR_FIELDS),
        prop::option::of(prop::collection::vec(key_field(), RELATED_FIELDS)),
    )
        .prop_map(|(scalars, related)| KeyFields { scalars, related })
}

/// A second tuple: mostly a copy of the first, with a few fields redrawn,
/// so that "all fields equal" is common and near misses are too.
fn key_fields_pair() -> impl Strategy<Value = (KeyFields, KeyFields)> {
    key_fields().prop_flat_map(|a| {
        let scalar_edits =
            prop::collection::vec(prop::option::weighted(0.08, key_field()), SCALAR_FIELDS);
        let related_edits =
            prop::collection::vec(prop::option::weighted(0.08, key_field()), RELATED_FIELDS);
        let toggle_related = prop::bool::weighted(0.05);
        (Just(a), scalar_edits, related_edits, toggle_related).prop_map(
            |(a, scalar_edits, related_edits, toggle)| {
                let mut b = a.clone();
                for (field, edit) in b.scalars.iter_mut().zip(scalar_edits) {
                    if let Some(v) = edit {
                        *field = v;
                    }
                }
                if toggle {
                    b.related = match b.related {
                        Some(_) => None,
                        None => Some(vec![String::new(); RELATED_FIELDS]),
                    };
                }
                if let Some(related) = &mut b.related {
                    for (field, edit) in related.iter_mut().zip(related_edits) {
                        if let Some(v) = edit {
                            *field = v;
                        }
                    }
                }
                (a, b)
            },
        )
    })
}

fn key_event(f: &KeyFields) -> Event {
    let s = |i: usize| f.scalars[i].clone();
    Event {
        source: EventSource {
            component: s(0),
            host: s(1),
        },
        involved_object: ObjectReference {
            kind: s(2),
            namespace: s(3),
            name: s(4),
            uid: s(5),
            api_version: s(6),
            resource_version: s(7),
            field_path: s(8),
        },
        type_: s(9),
        reason: s(10),
        message: s(11),
        reporting_controller: s(12),
        reporting_instance: s(13),
        action: s(14),
        metadata: ObjectMeta {
            namespace: s(15),
            name: s(16),
            ..Default::default()
        },
        related: f.related.as_ref().map(|r| ObjectReference {
            kind: r[0].clone(),
            namespace: r[1].clone(),
            name: r[2].clone(),
            uid: r[3].clone(),
            api_version: r[4].clone(),
            resource_version: r[5].clone(),
            field_path: r[6].clone(),
        }),
        ..Default::default()
    }
}

const KEY_KINDS: [KeyKind; 6] = [
    KeyKind::Event,
    KeyKind::Spam(SpamKeyFields::SourceObjectType),
    KeyKind::Spam(SpamKeyFields::SourceObjectTypeReason),
    KeyKind::Aggregate,
    KeyKind::Isomorphic,
    KeyKind::Target,
];

// ---------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------

/// 1678-01-01T00:00:00Z and 2262-01-01T00:00:00Z: the years `parse_rfc3339`
/// documents (its error says "between the years 1678 and 2261").
const SUPPORTED_MIN_NANOS: i64 = -9_214_560_000 * NANOS_PER_SECOND;
const SUPPORTED_END_NANOS: i64 = 9_214_646_400 * NANOS_PER_SECOND;

fn supported_nanos() -> impl Strategy<Value = i64> {
    prop_oneof![
        SUPPORTED_MIN_NANOS..SUPPORTED_END_NANOS,
        // Near the epoch, where a sign error in the arithmetic would show.
        -10 * NANOS_PER_SECOND..10 * NANOS_PER_SECOND,
        // Whole seconds and whole microseconds (trailing-zero trimming).
        (SUPPORTED_MIN_NANOS / NANOS_PER_SECOND..SUPPORTED_END_NANOS / NANOS_PER_SECOND)
            .prop_map(|s| s * NANOS_PER_SECOND),
        (SUPPORTED_MIN_NANOS / 1_000..SUPPORTED_END_NANOS / 1_000).prop_map(|u| u * 1_000),
        Just(SUPPORTED_MIN_NANOS),
        Just(SUPPORTED_END_NANOS - 1),
    ]
}

// ---------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------

fn object_name() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z0-9.-]{0,260}",
        "[a-zA-Z0-9.:/_ -]{0,300}",
        "[-.]{0,5}[a-z]{0,3}[-.]{0,5}",
        Just("2001:db8::123".to_string()),
        Just("x".repeat(300)),
    ]
}

fn any_nanos() -> impl Strategy<Value = i64> {
    prop_oneof![
        any::<i64>(),
        Just(i64::MIN),
        Just(i64::MAX),
        Just(0i64),
        Just(-1i64),
        Just(105_999_103_295_324_396i64),
    ]
}

proptest! {
    #![proptest_config(config())]

    /// The LRU never holds more than its capacity, and the key inserted last
    /// is present until it is removed (reads never evict).
    #[test]
    fn lru_respects_capacity_and_keeps_the_last_insert(
        capacity in 1usize..=5,
        ops in prop::collection::vec(lru_op(), 0..200),
    ) {
        let mut lru = Lru::new(NonZeroUsize::new(capacity).unwrap());
        let mut last_inserted: Option<(u8, u32)> = None;
        for op in ops {
            match op {
                LruOp::Insert(k, v) => {
                    lru.insert(&lru_key(k), v);
                    last_inserted = Some((k, v));
                }
                LruOp::GetMut(k) => {
                    lru.get_mut(&lru_key(k));
                }
                LruOp::Peek(k) => {
                    lru.peek(&lru_key(k));
                }
                LruOp::Remove(k) => {
                    lru.remove(&lru_key(k));
                    if last_inserted.is_some_and(|(last, _)| last == k) {
                        last_inserted = None;
                    }
                }
            }
            prop_assert!(lru.len() <= capacity, "len {} > capacity {}", lru.len(), capacity);
            prop_assert_eq!(lru.capacity().get(), capacity);
            prop_assert_eq!(lru.iter_oldest_first().count(), lru.len());
            if let Some((k, v)) = last_inserted {
                prop_assert_eq!(lru.peek(&lru_key(k)), Some(&v), "last insert {} missing", k);
            }
        }
    }

    /// The LRU behaves exactly like a plain reference model: same contents,
    /// same recency order, same evictions; `peek` never refreshes.
    #[test]
    fn lru_matches_a_reference_model(
        capacity in 1usize..=5,
        ops in prop::collection::vec(lru_op(), 0..200),
    ) {
        let mut lru = Lru::new(NonZeroUsize::new(capacity).unwrap());
        let mut model = ModelLru::default();
        for op in ops {
            match op {
                LruOp::Insert(k, v) => {
                    let evicted = lru
                        .insert(&lru_key(k), v)
                        .map(|(key, v)| (key.as_bytes().len() as u8, v));
                    prop_assert_eq!(evicted, model.insert(k, v, capacity));
                }
                LruOp::GetMut(k) => {
                    let got = lru.get_mut(&lru_key(k)).map(|v| *v);
                    prop_assert_eq!(got, model.touch(k));
                }
                LruOp::Peek(k) => {
                    let expected = model.position(k).map(|i| model.entries[i].1);
                    prop_assert_eq!(lru.peek(&lru_key(k)).copied(), expected);
                }
                LruOp::Remove(k) => {
                    let expected = model.position(k).map(|i| model.entries.remove(i).1);
                    prop_assert_eq!(lru.remove(&lru_key(k)), expected);
                }
            }
            let order: Vec<(u8, u32)> = lru
                .iter_oldest_first()
                .map(|(key, v)| (key.as_bytes().len() as u8, *v))
                .collect();
            prop_assert_eq!(&order, &model.entries);
        }
    }

    /// Over non-decreasing instants, a bucket admits at most
    /// `burst + qps × (t_last − t_first) + 1` takes, and a denied take
    /// leaves the bucket exactly as it was.
    #[test]
    fn token_bucket_admits_at_most_burst_plus_refill_forward_time(
        qps in prop_oneof![Just(0.0f32), Just(1.0f32 / 300.0), 0.001f32..10.0],
        burst in 1u32..40,
        gaps in prop::collection::vec(
            prop_oneof![Just(0i64), 0i64..2 * NANOS_PER_SECOND, 0i64..400 * NANOS_PER_SECOND],
            1..300,
        ),
    ) {
        let rate = Rate::new(qps, burst);
        let mut bucket = TokenBucket::full(&rate);
        let mut now = Timestamp::from_nanos(BASE_NANOS);
        let first = now;
        let mut admitted = 0u64;
        for gap in gaps {
            now = now.plus_nanos(gap);
            let span = now.nanos_since(first) as f64 / 1e9;
            take_within_bound(&mut bucket, &rate, now, span, &mut admitted)?;
        }
    }

    /// With instants that also move backwards: a denied take changes
    /// nothing, and the takes admitted are bounded by the burst plus the
    /// refill of the *forward* time travelled. (The literal
    /// `t_last − t_first` bound does not hold once time moves backwards, in
    /// x/time/rate as in hush: see
    /// `token_bucket_time_going_back_and_forth_recredits_like_x_time_rate`.)
    #[test]
    fn token_bucket_denied_takes_change_nothing_under_any_instants(
        qps in prop_oneof![Just(0.0f32), Just(1.0f32 / 300.0), 0.001f32..10.0],
        burst in 1u32..40,
        steps in prop::collection::vec(
            prop_oneof![
                -5 * NANOS_PER_SECOND..5 * NANOS_PER_SECOND,
                -400 * NANOS_PER_SECOND..400 * NANOS_PER_SECOND,
                Just(0i64),
            ],
            1..300,
        ),
    ) {
        let rate = Rate::new(qps, burst);
        let mut bucket = TokenBucket::full(&rate);
        let mut now = Timestamp::from_nanos(BASE_NANOS);
        let mut forward_seconds = 0.0f64;
        let mut admitted = 0u64;
        for (i, step) in steps.into_iter().enumerate() {
            if i > 0 {
                forward_seconds += step.max(0) as f64 / 1e9;
                now = now.plus_nanos(step);
            }
            take_within_bound(&mut bucket, &rate, now, forward_seconds, &mut admitted)?;
        }
    }

    /// Through the correlator, every key's count only goes up: each Write
    /// carries at least the previous Write's count, and each Skip's
    /// `why.count` is at least the previous count. With no eviction and
    /// inputs of count 1, it goes up by exactly one per occurrence, skipped
    /// ones included.
    #[test]
    fn correlator_counts_never_decrease_per_key(
        options in correlator_options(),
        draws in prop::collection::vec(draw(), 1..150),
        update_state in any::<bool>(),
    ) {
        let mut correlator = LegacyCorrelator::new(&options).unwrap();
        let mut now = Timestamp::from_nanos(BASE_NANOS);
        // Last count seen per key, and last count written per key.
        let mut last_seen: HashMap<Vec<u8>, i32> = HashMap::new();
        let mut last_written: HashMap<Vec<u8>, i32> = HashMap::new();
        let mut key = Vec::new();
        for d in &draws {
            now = now.plus_nanos(d.gap);
            let event = drawn_event(d, now);
            let (count, rule, written) = match correlator.correlate(&event, now) {
                Correlation::Write { event: out, patch, why } => {
                    why.key.encode_into(&mut key);
                    prop_assert_eq!(out.count, why.count);
                    if let Some(p) = &patch {
                        prop_assert_eq!(p.count, out.count);
                        prop_assert!(p.count >= 2);
                    }
                    let prev = last_written.get(&key).copied().unwrap_or(0);
                    prop_assert!(
                        why.count >= prev,
                        "write count {} < previous write {} for {:?}", why.count, prev, why.key
                    );
                    if update_state {
                        correlator.update_state(&out);
                    }
                    (why.count, why.rule, true)
                }
                Correlation::Skip { why, .. } => {
                    why.key.encode_into(&mut key);
                    prop_assert_eq!(why.rule, Rule::SpamFiltered);
                    (why.count, why.rule, false)
                }
            };
            let prev = last_seen.get(&key).copied();
            prop_assert!(
                count >= prev.unwrap_or(0),
                "{:?} count {} < previous {:?}", rule, count, prev
            );
            prop_assert_eq!(
                count,
                prev.unwrap_or(0) + 1,
                "each occurrence counts once ({:?})", rule
            );
            last_seen.insert(key.clone(), count);
            if written {
                last_written.insert(key.clone(), count);
            }
        }
    }

    /// The encoded keys are injective: two field tuples encode to the same
    /// bytes exactly when every field the key reads is equal (where
    /// client-go's separator-less concatenation collides), and client-go's
    /// own key is those fields concatenated. Which fields each key reads is
    /// `key_fields_are_the_references_in_its_order`.
    #[test]
    fn key_encoding_is_injective((a, b) in key_fields_pair()) {
        let (ea, eb) = (key_event(&a), key_event(&b));
        let (mut bytes_a, mut bytes_b) = (Vec::new(), Vec::new());
        for kind in KEY_KINDS {
            let (ka, kb) = (KeyRef::of(&ea, kind), KeyRef::of(&eb, kind));
            let (fa, fb) = (ka.to_owned_fields(), kb.to_owned_fields());
            prop_assert_eq!(ka.client_go_string(), fa.concat());
            prop_assert_eq!(kb.client_go_string(), fb.concat());
            ka.encode_into(&mut bytes_a);
            kb.encode_into(&mut bytes_b);
            prop_assert_eq!(
                bytes_a == bytes_b,
                fa == fb,
                "{:?}: {:?} vs {:?}", kind, fa, fb
            );
        }
    }

    /// RFC 3339 with nanoseconds round-trips over the supported years, and
    /// the second and microsecond forms are the truncated instant's.
    #[test]
    fn timestamp_rfc3339_round_trips(nanos in supported_nanos()) {
        let t = Timestamp::from_nanos(nanos);
        let text = t.to_rfc3339_nanos();
        prop_assert_eq!(Timestamp::parse_rfc3339(&text), Ok(t), "{}", text);
        prop_assert_eq!(t.to_rfc3339_seconds(), t.truncate_to_second().to_rfc3339_seconds());
        prop_assert_eq!(
            Timestamp::parse_rfc3339(&t.to_rfc3339_seconds()),
            Ok(t.truncate_to_second())
        );
        prop_assert_eq!(
            Timestamp::parse_rfc3339(&t.to_rfc3339_micros()),
            Ok(t.truncate_to_micro())
        );
        prop_assert!(t.truncate_to_second() <= t);
        prop_assert!(t.nanos_since(t.truncate_to_second()) < NANOS_PER_SECOND);
    }

    /// Event names are always valid DNS-1123 subdomains, end with the
    /// instant in hex (for instants not before the epoch), and are
    /// client-go's `<name>.<hex>` whenever that is valid.
    #[test]
    fn event_names_are_valid_and_keep_the_instant(name in object_name(), nanos in any_nanos()) {
        let generated = event_name(&name, nanos);
        prop_assert!(
            is_dns1123_subdomain(&generated),
            "{:?} @ {} -> {:?}", name, nanos, generated
        );
        if nanos >= 0 {
            let suffix = format!(".{nanos:x}");
            prop_assert!(generated.ends_with(&suffix), "{:?} @ {} -> {:?}", name, nanos, generated);
        }
        let raw = raw_event_name(&name, nanos);
        if is_dns1123_subdomain(&raw) {
            prop_assert_eq!(generated, raw);
        }
    }
}

/// An event whose every string field holds its own name, so a key's
/// fields spell out which fields it reads.
fn self_named_event() -> Event {
    let reference = |prefix: &str| ObjectReference {
        kind: format!("{prefix}.kind"),
        namespace: format!("{prefix}.namespace"),
        name: format!("{prefix}.name"),
        uid: format!("{prefix}.uid"),
        api_version: format!("{prefix}.apiVersion"),
        resource_version: format!("{prefix}.resourceVersion"),
        field_path: format!("{prefix}.fieldPath"),
    };
    let mut e = Event {
        metadata: ObjectMeta {
            name: "metadata.name".into(),
            namespace: "metadata.namespace".into(),
            resource_version: "metadata.resourceVersion".into(),
            ..Default::default()
        },
        involved_object: reference("involvedObject"),
        reason: "reason".into(),
        message: "message".into(),
        source: EventSource {
            component: "source.component".into(),
            host: "source.host".into(),
        },
        type_: "type".into(),
        action: "action".into(),
        related: Some(reference("related")),
        reporting_controller: "reportingController".into(),
        reporting_instance: "reportingInstance".into(),
        ..Default::default()
    };
    e.metadata
        .annotations
        .insert("metadata.annotations".into(), "metadata.annotations".into());
    e
}

/// Each key's fields, in order, as the reference lists them (written from
/// the document, not from core/src/key.rs).
#[test]
fn key_fields_are_the_references_in_its_order() {
    // §2.1 getEventKey.
    let event_key = [
        "source.component",
        "source.host",
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.fieldPath",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "type",
        "reason",
        "message",
    ];
    // §2.2 getSpamKey: no field path, reason or message; type since 1.32.
    let spam_key = [
        "source.component",
        "source.host",
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "type",
    ];
    // hush's opt-in spam key (not client-go's; a `SpamKeyFunc` in its
    // terms, §7): getSpamKey, then reason.
    let spam_key_with_reason = [
        "source.component",
        "source.host",
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "type",
        "reason",
    ];
    // §2.3 EventAggregatorByReasonFunc's aggregateKey: no field path, no
    // message (that is the local key).
    let aggregate_key = [
        "source.component",
        "source.host",
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "type",
        "reason",
        "reportingController",
        "reportingInstance",
    ];
    // §10.2 events.k8s.io/v1 getKey: no note; the whole regarding reference,
    // resource version included, then the related one.
    let isomorphic_key = [
        "type",
        "action",
        "reason",
        "reportingController",
        "reportingInstance",
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "related.kind",
        "related.namespace",
        "related.name",
        "related.uid",
        "related.apiVersion",
        "related.resourceVersion",
        "related.fieldPath",
    ];
    // §4.2: the Event object a write goes to, /namespaces/{namespace}/events/{name}.
    let target_key = ["metadata.namespace", "metadata.name"];

    let e = self_named_event();
    let cases: [(KeyKind, &[&str]); 6] = [
        (KeyKind::Event, &event_key),
        (KeyKind::Spam(SpamKeyFields::SourceObjectType), &spam_key),
        (
            KeyKind::Spam(SpamKeyFields::SourceObjectTypeReason),
            &spam_key_with_reason,
        ),
        (KeyKind::Aggregate, &aggregate_key),
        (KeyKind::Isomorphic, &isomorphic_key),
        (KeyKind::Target, &target_key),
    ];
    for (kind, expected) in cases {
        let key = KeyRef::of(&e, kind);
        assert_eq!(key.to_owned_fields(), expected, "{kind:?}");
        assert_eq!(key.client_go_string(), expected.concat(), "{kind:?}");
    }

    // A missing related object keys like the zero reference (Go compares
    // the dereferenced struct): seven empty fields.
    let unrelated = Event {
        related: None,
        ..self_named_event()
    };
    let mut expected: Vec<&str> = isomorphic_key[..12].to_vec();
    expected.extend([""; RELATED_FIELDS]);
    assert_eq!(
        KeyRef::of(&unrelated, KeyKind::Isomorphic).to_owned_fields(),
        expected
    );
    let zero_related = Event {
        related: Some(ObjectReference::default()),
        ..self_named_event()
    };
    let encoded = |e: &Event| {
        let mut bytes = Vec::new();
        KeyRef::of(e, KeyKind::Isomorphic).encode_into(&mut bytes);
        bytes
    };
    assert_eq!(encoded(&unrelated), encoded(&zero_related));
}

/// One take with its invariants: a denied take leaves the bucket (and what
/// it reports as available at that instant) unchanged; an allowed one takes
/// exactly one token. Returns whether it was allowed.
fn take_checked(
    bucket: &mut TokenBucket,
    rate: &Rate,
    now: Timestamp,
) -> Result<bool, TestCaseError> {
    let before = *bucket;
    let available = bucket.available(rate, now);
    prop_assert!(available <= f64::from(rate.burst()));
    match bucket.try_take(rate, now) {
        Take::Denied {
            available: reported,
        } => {
            prop_assert_eq!(*bucket, before, "a denied take changed the bucket");
            prop_assert_eq!(bucket.available(rate, now), available);
            prop_assert_eq!(reported, available);
            prop_assert!(available < 1.0);
            Ok(false)
        }
        Take::Allowed { remaining } => {
            prop_assert_eq!(remaining, available - 1.0);
            // At most the 1 ns tolerance of x/time/rate below zero.
            prop_assert!(remaining > -1e-6, "remaining {}", remaining);
            Ok(true)
        }
    }
}

/// One [`take_checked`] at `now`, counted in `admitted`, which must stay
/// within `burst + qps × refill_seconds + 1`: what a full bucket holds,
/// plus what `refill_seconds` of time can add, plus one take of slack.
fn take_within_bound(
    bucket: &mut TokenBucket,
    rate: &Rate,
    now: Timestamp,
    refill_seconds: f64,
    admitted: &mut u64,
) -> Result<(), TestCaseError> {
    if take_checked(bucket, rate, now)? {
        *admitted += 1;
    }
    let bound = f64::from(rate.burst()) + rate.limit() * refill_seconds + 1.0;
    prop_assert!(
        *admitted as f64 <= bound,
        "admitted {} > {} (burst {}, qps {}, refill over {} s)",
        admitted,
        bound,
        rate.burst(),
        rate.limit(),
        refill_seconds
    );
    Ok(())
}

/// x/time/rate sets `last = t` on every successful take, even when `t` is
/// earlier than `last`; moving forward again re-credits the same interval.
/// hush does the same (reference §8: "If ok, commit last = t"), so the
/// number admitted over instants that swing between two values is not
/// bounded by `burst + qps × (max − min)`.
#[test]
fn token_bucket_time_going_back_and_forth_recredits_like_x_time_rate() {
    let rate = Rate::new(1.0, 2);
    let mut bucket = TokenBucket::full(&rate);
    let t0 = Timestamp::from_nanos(BASE_NANOS);
    let t10 = t0.plus_nanos(10 * NANOS_PER_SECOND);
    let mut admitted = 0;
    for i in 0..20 {
        let now = if i % 2 == 0 { t0 } else { t10 };
        if matches!(bucket.try_take(&rate, now), Take::Allowed { .. }) {
            admitted += 1;
        }
    }
    // Every take is admitted: t0, t10 (refill 10 s, capped at 2), t0 (last
    // moves back to t0 with one token left), t10 (10 s again), … That is
    // more than burst + qps × (max − min) + 1 = 2 + 10 + 1 = 13.
    assert_eq!(admitted, 20);
}

/// The first second of the representable range, 1677-09-21T00:12:43.145224192Z
/// (`i64::MIN` ns) to 1677-09-21T00:12:43.999999999Z, formats to text that
/// `parse_rfc3339` reads back. It is outside the years the parser documents
/// (1678-2261), so the round-trip property above excludes it.
///
/// Regression test for core/src/time.rs `parse`: there the whole seconds
/// times 1e9 are below `i64::MIN` before the fraction is added back, so the
/// sum must not be computed in `i64` one step at a time.
#[test]
fn timestamp_min_formats_to_parseable_text() {
    let t = Timestamp::from_nanos(i64::MIN);
    assert_eq!(t.to_rfc3339_nanos(), "1677-09-21T00:12:43.145224192Z");
    assert_eq!(Timestamp::parse_rfc3339(&t.to_rfc3339_nanos()), Ok(t));
}

/// Truncating an instant in `[i64::MIN, -9_223_372_036_000_000_001]`, whose
/// whole second is below `i64::MIN`, stays at or before the instant.
///
/// Regression test for core/src/time.rs `truncate_to_second` and
/// `truncate_to_micro`: the floor times the unit must saturate, not overflow
/// (a panic in debug builds, a wrapped instant in 2262 in release builds).
/// `LegacyPatch::has_last_timestamp` (core/src/patch.rs) truncates, so a
/// patch with such a `last_timestamp` would panic too.
#[test]
fn timestamp_min_truncates_without_overflow() {
    let t = Timestamp::from_nanos(i64::MIN);
    assert!(t.truncate_to_second() <= t);
    assert!(t.truncate_to_micro() <= t);
    assert_eq!(
        t.to_rfc3339_seconds(),
        t.truncate_to_second().to_rfc3339_seconds()
    );
}

/// The top of the range is fine.
#[test]
fn timestamp_top_of_the_i64_range_round_trips() {
    let t = Timestamp::from_nanos(i64::MAX);
    assert_eq!(t.to_rfc3339_nanos(), "2262-04-11T23:47:16.854775807Z");
    assert_eq!(Timestamp::parse_rfc3339(&t.to_rfc3339_nanos()), Ok(t));
    assert_eq!(
        t.to_rfc3339_seconds(),
        t.truncate_to_second().to_rfc3339_seconds()
    );
}
