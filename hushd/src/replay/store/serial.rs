//! The replay store as `--state` saves it (serde, written with postcard):
//! its counters, its namespaces, the rows' shared strings when rows are
//! kept, and one record per stored event, written and read one at a time
//! rather than gathered in a list first.

use std::fmt;
use std::hash::RandomState;

use hashbrown::HashMap;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

use super::rows::{Row, Symbols};
use super::{Entry, Key, ReplayStore};

/// One stored event, as written.
#[derive(Serialize)]
struct EntryOut<'a> {
    namespace: u32,
    name: &'a str,
    resource_version: u64,
    count: i32,
    series_count: Option<i32>,
    row: Option<&'a Row>,
}

/// One stored event, as read.
#[derive(Deserialize)]
struct EntryIn {
    namespace: u32,
    name: Box<str>,
    resource_version: u64,
    count: i32,
    series_count: Option<i32>,
    row: Option<Box<Row>>,
}

/// The events, written one by one from the store's map.
struct Objects<'a>(&'a HashMap<Key, Entry, RandomState>);

impl Serialize for Objects<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|(key, entry)| EntryOut {
            namespace: key.namespace,
            name: &key.name,
            resource_version: entry.resource_version,
            count: entry.count,
            series_count: entry.series_count,
            row: entry.row.as_deref(),
        }))
    }
}

/// The events, read one by one into a map.
struct ObjectsIn(HashMap<Key, Entry, RandomState>);

impl<'de> Deserialize<'de> for ObjectsIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Each;
        impl<'de> Visitor<'de> for Each {
            type Value = ObjectsIn;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the stored events")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ObjectsIn, A::Error> {
                let mut objects = HashMap::with_hasher(RandomState::new());
                objects.reserve(seq.size_hint().unwrap_or(0).min(1 << 20));
                while let Some(e) = seq.next_element::<EntryIn>()? {
                    let key = Key {
                        namespace: e.namespace,
                        name: e.name,
                    };
                    let entry = Entry {
                        resource_version: e.resource_version,
                        count: e.count,
                        series_count: e.series_count,
                        row: e.row,
                    };
                    objects.insert(key, entry);
                }
                Ok(ObjectsIn(objects))
            }
        }
        d.deserialize_seq(Each)
    }
}

#[derive(Serialize)]
struct StoreOut<'a> {
    last_resource_version: u64,
    writes: u64,
    namespaces: &'a [Box<str>],
    symbols: Option<&'a [Box<str>]>,
    objects: Objects<'a>,
}

#[derive(Deserialize)]
struct StoreIn {
    last_resource_version: u64,
    writes: u64,
    namespaces: Vec<Box<str>>,
    symbols: Option<Vec<Box<str>>>,
    objects: ObjectsIn,
}

impl Serialize for ReplayStore {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        StoreOut {
            last_resource_version: self.last_resource_version,
            writes: self.writes,
            namespaces: &self.namespaces,
            symbols: self.symbols.as_ref().map(Symbols::texts),
            objects: Objects(&self.objects),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for ReplayStore {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let saved = StoreIn::deserialize(d)?;
        let known = saved.namespaces.len();
        if saved
            .objects
            .0
            .keys()
            .any(|k| k.namespace as usize >= known)
        {
            return Err(de::Error::custom("an event names a namespace not saved"));
        }
        let namespace_ids = saved
            .namespaces
            .iter()
            .enumerate()
            .map(|(id, ns)| (ns.clone(), id as u32))
            .collect();
        Ok(ReplayStore {
            namespaces: saved.namespaces,
            namespace_ids,
            objects: saved.objects.0,
            symbols: saved.symbols.map(Symbols::from_texts),
            last_resource_version: saved.last_resource_version,
            writes: saved.writes,
        })
    }
}
