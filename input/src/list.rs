//! Lists of events: `items` (or `Items`, in the internal objects older
//! `kubectl cluster-info dump`s wrote) with what the list says about them.
//! Items are found in the list's text, not parsed: each becomes a record
//! with its own bytes, parsed when asked to.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use hush_core::format::kube_json::ListDefaults;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::Position;
use crate::raw::{Body, Raw};

/// What a list document holds, its items left unparsed.
#[derive(Deserialize)]
struct List<'a> {
    kind: Option<String>,
    #[serde(rename = "apiVersion")]
    api_version: Option<String>,
    #[serde(borrow, default, alias = "Items")]
    items: Option<Vec<&'a RawValue>>,
    /// Where an old dump's list (internal objects, no kind) came from:
    /// `/api/v1/namespaces/default/events`, `/api/v1/nodes`.
    #[serde(rename = "selfLink")]
    self_link: Option<String>,
}

/// What [`read`] found in a list's text: the defaults it gives its items,
/// and each item's bytes in the text.
pub(crate) struct Found {
    defaults: ListDefaults,
    items: Vec<Range<usize>>,
    /// The list says its items are of a kind other than Event
    /// (`PodList`, `NodeList`, …; or, without a kind, a `selfLink` to
    /// another resource than events).
    other_kind: bool,
}

impl Found {
    /// Whether the list says its items are not Events: a dump's lists of
    /// other kinds are passed over.
    pub(crate) fn holds_other_kind(&self) -> bool {
        self.other_kind
    }
}

/// Reads `text` as a list: `Ok(None)` when it is JSON but not a list (an
/// object without items), an error when it is not JSON or not shaped like
/// a list (a caller then reads it as a single Event, whose reading says
/// what is wrong).
pub(crate) fn read(text: &str) -> Result<Option<Found>, serde_json::Error> {
    let List {
        kind,
        api_version,
        items,
        self_link,
    } = serde_json::from_str(text)?;
    let Some(items) = items else {
        return Ok(None);
    };
    let items = items
        .into_iter()
        .map(|item| {
            // A borrowed RawValue is a slice of `text`.
            let start = item.get().as_ptr() as usize - text.as_ptr() as usize;
            start..start + item.get().len()
        })
        .collect();
    let other_kind = match (kind.as_deref(), self_link.as_deref()) {
        (Some(kind), _) => kind
            .strip_suffix("List")
            .is_some_and(|item| !item.is_empty() && item != "Event"),
        (None, Some(link)) => !link.trim_end_matches('/').ends_with("/events"),
        (None, None) => false,
    };
    Ok(Some(Found {
        defaults: ListDefaults::of(kind.as_deref(), api_version.as_deref()),
        items,
        other_kind,
    }))
}

/// The records of one line of JSON Lines or of the end of the input:
/// none, one, or a list's items.
#[derive(Debug, Default)]
pub struct Items(Inner);

#[derive(Debug, Default)]
enum Inner {
    #[default]
    None,
    One(Raw),
    List {
        source: Arc<String>,
        /// Where `source` starts in the input.
        start: usize,
        /// The line of JSON Lines the list is, if it is one.
        line: Option<usize>,
        defaults: Arc<ListDefaults>,
        items: std::iter::Enumerate<std::vec::IntoIter<Range<usize>>>,
    },
    /// The records of several documents, one after the other.
    Many(VecDeque<Items>),
}

impl Items {
    /// One record.
    pub(crate) fn one(raw: Raw) -> Items {
        Items(Inner::One(raw))
    }

    /// The items `found` in `source`, which starts at byte `start` of the
    /// input and is line `line` of JSON Lines or (`None`) a whole document.
    pub(crate) fn list(source: String, start: usize, line: Option<usize>, found: Found) -> Items {
        Items(Inner::List {
            source: Arc::new(source),
            start,
            line,
            defaults: Arc::new(found.defaults),
            items: found.items.into_iter().enumerate(),
        })
    }

    /// The items `found` in the list that starts at byte `offset` of
    /// `source` and at line `line` of the input, where `source` starts at
    /// byte `start` of the input (one of several documents).
    pub(crate) fn list_within(
        source: Arc<String>,
        offset: usize,
        start: usize,
        line: usize,
        found: Found,
    ) -> Items {
        let items: Vec<_> = found
            .items
            .into_iter()
            .map(|range| offset + range.start..offset + range.end)
            .collect();
        Items(Inner::List {
            source,
            start,
            line: Some(line),
            defaults: Arc::new(found.defaults),
            items: items.into_iter().enumerate(),
        })
    }

    /// The records of `parts`, in order.
    pub(crate) fn many(parts: Vec<Items>) -> Items {
        Items(Inner::Many(parts.into()))
    }
}

impl Iterator for Items {
    type Item = Raw;

    fn next(&mut self) -> Option<Raw> {
        match &mut self.0 {
            Inner::None => None,
            Inner::One(_) => match std::mem::take(&mut self.0) {
                Inner::One(raw) => Some(raw),
                _ => unreachable!("matched One above"),
            },
            Inner::Many(parts) => loop {
                if let Some(raw) = parts.front_mut()?.next() {
                    return Some(raw);
                }
                parts.pop_front();
            },
            Inner::List {
                source,
                start,
                line,
                defaults,
                items,
            } => {
                let (i, range) = items.next()?;
                Some(Raw {
                    position: line.map_or(Position::Item(i), |line| Position::LineItem(line, i)),
                    span: *start + range.start..*start + range.end,
                    body: Body::Item(source.clone(), range, defaults.clone()),
                })
            }
        }
    }
}
