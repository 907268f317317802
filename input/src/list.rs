//! Lists of events: `items` (or `Items`, in the internal objects older
//! `kubectl cluster-info dump`s wrote) with what the list says about them.

use std::sync::Arc;

use hush_core::format::kube_json::ListDefaults;
use serde_json::Value;

use super::{Body, Position, Raw};

/// Takes the items out of `value` if it is a list, with what the list's
/// `kind` and `apiVersion` say about them.
pub(super) fn take_list(value: &mut Value) -> Option<(Arc<ListDefaults>, Vec<Value>)> {
    let object = value.as_object_mut()?;
    let key = ["items", "Items"]
        .into_iter()
        .find(|key| object.get(*key).is_some_and(Value::is_array))?;
    let Some(Value::Array(items)) = object.remove(key) else {
        return None;
    };
    let field = |name: &str| object.get(name).and_then(Value::as_str);
    let defaults = ListDefaults::of(field("kind"), field("apiVersion"));
    Some((Arc::new(defaults), items))
}

/// The records of one line of JSON Lines: itself, or a list's items.
#[derive(Debug)]
pub enum Items {
    /// The line as one record (or the error reading it).
    One(Option<std::io::Result<Raw>>),
    /// The items of the list on line `.1`.
    Many(
        Arc<ListDefaults>,
        usize,
        std::iter::Enumerate<std::vec::IntoIter<Value>>,
    ),
}

impl Iterator for Items {
    type Item = std::io::Result<Raw>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Items::One(record) => record.take(),
            Items::Many(list, line, items) => {
                let (i, item) = items.next()?;
                Some(Ok(Raw {
                    position: Position::LineItem(*line, i),
                    body: Body::Value(item, list.clone()),
                }))
            }
        }
    }
}
