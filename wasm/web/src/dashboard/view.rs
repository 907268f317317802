//! The indexes the dashboard draws from, rebuilt from the recording and its
//! runs whenever they change: items grouped by a key and sorted by time in
//! CSR form (offsets and items, one pair of arrays however many groups),
//! what a filter keeps, the rows in the order they are shown, the list's
//! order, and which rows a run left silent or stale. Every pass is linear
//! in what it indexes (the rows and the list are sorted), so a recording of
//! a million events is indexed in milliseconds.
//!
//! Pure Rust: no JavaScript here.

use core::cmp::Ordering;

use crate::columns::Interner;
use crate::dashboard::natural::natural_cmp;

/// Sorts numbers (indexes of something) by `cmp`, stably. Every sort of the
/// dashboard goes through here: one sort routine in the wasm module instead
/// of one per comparison.
pub fn sort_ids(items: &mut [u32], cmp: &dyn Fn(u32, u32) -> Ordering) {
    items.sort_by(|&a, &b| cmp(a, b));
}

/// Items grouped by key: group `k` is `items[offsets[k] .. offsets[k + 1]]`.
#[derive(Debug, Default, PartialEq)]
pub struct Groups {
    /// Where each group starts; one more entry than groups.
    pub offsets: Vec<u32>,
    /// The items, group after group.
    pub items: Vec<u32>,
}

/// Groups items `0..n` by `key` (items with `None` are left out) into
/// `keys` groups, each sorted by `order`, ties by item.
pub fn group(
    n: usize,
    keys: usize,
    key: &dyn Fn(usize) -> Option<u32>,
    order: &dyn Fn(usize) -> i64,
) -> Groups {
    let mut offsets = vec![0u32; keys + 1];
    for i in 0..n {
        if let Some(k) = key(i) {
            offsets[k as usize + 1] += 1;
        }
    }
    for k in 0..keys {
        offsets[k + 1] += offsets[k];
    }
    let mut fill: Vec<u32> = offsets[..keys].to_vec();
    let mut items = vec![0u32; offsets[keys] as usize];
    for i in 0..n {
        if let Some(k) = key(i) {
            items[fill[k as usize] as usize] = i as u32;
            fill[k as usize] += 1;
        }
    }
    for k in 0..keys {
        let part = &mut items[offsets[k] as usize..offsets[k + 1] as usize];
        if !part
            .windows(2)
            .all(|w| order(w[0] as usize) <= order(w[1] as usize))
        {
            part.sort_by(|&a, &b| {
                order(a as usize)
                    .partial_cmp(&order(b as usize))
                    .unwrap_or(Ordering::Equal)
                    .then(a.cmp(&b))
            });
        }
    }
    Groups { offsets, items }
}

/// The filter bar's fields: exact values (empty: any) and case-insensitive
/// substrings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// The involved object's namespace.
    pub namespace: String,
    /// Its kind.
    pub kind: String,
    /// A substring of its name.
    pub object: String,
    /// Normal or Warning.
    pub type_: String,
    /// The reason.
    pub reason: String,
    /// The reporting component.
    pub component: String,
    /// A substring of the message, reason, name, component, namespace or kind.
    pub text: String,
}

/// A [`Filter`] against a string table, with what it found of each string
/// remembered (the table only grows).
#[derive(Debug, Default)]
pub struct Compiled {
    filter: Filter,
    /// Per string column (the inputs' order), the wanted number: `None`
    /// any, `Some(None)` a value no event has.
    exact: [Option<Option<u32>>; 7],
    object: String,
    text: String,
    /// Per string: 0 not looked at yet, 1 no, 2 contains `object`.
    object_hits: Vec<u8>,
    /// Per string: 0 not looked at yet, 1 no, 2 contains `text`.
    text_hits: Vec<u8>,
}

impl Compiled {
    /// `filter` against `strings`.
    pub fn new(filter: Filter, strings: &Interner<String>) -> Self {
        let want = |value: &str| (!value.is_empty()).then(|| strings.find(value));
        let mut exact: [Option<Option<u32>>; 7] = Default::default();
        exact[0] = want(&filter.namespace);
        exact[1] = want(&filter.kind);
        exact[3] = want(&filter.reason);
        exact[4] = want(&filter.type_);
        exact[5] = want(&filter.component);
        Compiled {
            object: filter.object.to_lowercase(),
            text: filter.text.to_lowercase(),
            exact,
            filter,
            object_hits: Vec::new(),
            text_hits: Vec::new(),
        }
    }

    /// Looks again for wanted values no event had when compiled (the
    /// table has grown since).
    pub fn refresh(&mut self, strings: &Interner<String>) {
        let wanted = [
            (0, &self.filter.namespace),
            (1, &self.filter.kind),
            (3, &self.filter.reason),
            (4, &self.filter.type_),
            (5, &self.filter.component),
        ];
        for (c, value) in wanted {
            if self.exact[c] == Some(None) {
                self.exact[c] = Some(strings.find(value.as_str()));
            }
        }
    }

    /// Whether the filter keeps everything.
    pub fn is_empty(&self) -> bool {
        self.filter == Filter::default()
    }

    /// Whether an event with these string numbers (the inputs' columns)
    /// passes; `strings` is the table they number into.
    pub fn pass(&mut self, ids: &[u32], strings: &Interner<String>) -> bool {
        for (c, want) in self.exact.iter().enumerate() {
            if let Some(want) = want
                && *want != Some(ids[c])
            {
                return false;
            }
        }
        if !self.object.is_empty() && !hit(&mut self.object_hits, &self.object, ids[2], strings) {
            return false;
        }
        if !self.text.is_empty() {
            // message, reason, name, component, namespace, kind
            return [6, 3, 2, 5, 0, 1]
                .into_iter()
                .any(|c| hit(&mut self.text_hits, &self.text, ids[c], strings));
        }
        true
    }
}

fn hit(cache: &mut Vec<u8>, needle: &str, id: u32, strings: &Interner<String>) -> bool {
    let i = id as usize;
    if cache.len() <= i {
        cache.resize(strings.len().max(i + 1), 0);
    }
    if cache[i] == 0 {
        cache[i] = 1 + u8::from(strings.get(id).to_lowercase().contains(needle));
    }
    cache[i] == 2
}

/// The display order of rows, kept sorted as rows are added: by namespace,
/// kind and name in natural order, then by when the row was first seen.
#[derive(Debug, Default)]
pub struct RowOrder {
    order: Vec<u32>,
}

impl RowOrder {
    /// Adds rows `self.len()..rows.len()` in their places; `first[r]` is
    /// when row `r` was first seen.
    pub fn extend<T: Ord>(&mut self, rows: &[[u32; 4]], first: &[T], strings: &Interner<String>) {
        let cmp = |a: u32, b: u32| {
            let (x, y) = (rows[a as usize], rows[b as usize]);
            (0..3)
                .map(|c| natural_cmp(strings.get(x[c]), strings.get(y[c])))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
                .then_with(|| first[a as usize].cmp(&first[b as usize]))
                .then(a.cmp(&b))
        };
        let new = self.order.len() as u32..rows.len() as u32;
        if new.len() > self.order.len() / 4 + 64 {
            self.order.extend(new);
            sort_ids(&mut self.order, &cmp);
        } else {
            for row in new {
                let at = self.order.partition_point(|&r| cmp(r, row).is_lt());
                self.order.insert(at, row);
            }
        }
    }

    /// The rows in display order.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Per row: 1 when it is its object's first row in the order (the one
    /// that shows the object's name).
    pub fn firsts(&self, rows: &[[u32; 4]]) -> Vec<u8> {
        let mut firsts = vec![0u8; rows.len()];
        let mut previous: Option<[u32; 3]> = None;
        for &r in &self.order {
            let [ns, kind, name, _] = rows[r as usize];
            if previous != Some([ns, kind, name]) {
                firsts[r as usize] = 1;
            }
            previous = Some([ns, kind, name]);
        }
        firsts
    }
}

/// The list's sort: a column and a direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Column {
    /// The event's own namespace.
    Namespace,
    /// Last seen.
    #[default]
    Last,
    /// Normal or Warning.
    Type,
    /// The reason.
    Reason,
    /// `kind/name` of the involved object.
    Object,
    /// The count.
    Count,
    /// The message.
    Message,
    /// First seen.
    First,
    /// The reporting component.
    Source,
}

impl Column {
    /// The column the dashboard names `name`.
    pub fn named(name: &str) -> Option<Column> {
        Some(match name {
            "namespace" => Column::Namespace,
            "last" => Column::Last,
            "type" => Column::Type,
            "reason" => Column::Reason,
            "object" => Column::Object,
            "count" => Column::Count,
            "message" => Column::Message,
            "first" => Column::First,
            "source" => Column::Source,
            _ => return None,
        })
    }
}

/// Ranks of string numbers in natural order (equal strings, equal ranks).
pub fn ranks(ids: impl Iterator<Item = u32>, strings: &Interner<String>) -> Vec<u32> {
    let mut distinct: Vec<u32> = ids.collect();
    distinct.sort_unstable();
    distinct.dedup();
    sort_ids(&mut distinct, &|a, b| {
        natural_cmp(strings.get(a), strings.get(b))
    });
    let mut rank = vec![0u32; strings.len()];
    for (r, &id) in distinct.iter().enumerate() {
        rank[id as usize] = r as u32;
    }
    rank
}

/// The order of `items` by `key` (descending when asked), ties in `tie`'s
/// order, ascending either way.
pub fn sort_by_key(
    items: &mut [u32],
    descending: bool,
    key: &dyn Fn(u32) -> i64,
    tie: &dyn Fn(u32, u32) -> Ordering,
) {
    sort_ids(items, &|a, b| {
        let order = key(a).cmp(&key(b));
        let order = if descending { order.reverse() } else { order };
        order.then_with(|| tie(a, b))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_sorted_by_time_ties_by_item() {
        let key = [Some(1), None, Some(0), Some(1), Some(1)];
        let at = [5, 0, 3, 2, 5];
        let g = group(5, 3, &|i| key[i], &|i| at[i]);
        assert_eq!(g.offsets, [0, 1, 4, 4]);
        assert_eq!(g.items, [2, 3, 0, 4]);
    }

    fn table(words: &[&str]) -> Interner<String> {
        let mut t = Interner::default();
        for w in words {
            t.id(*w);
        }
        t
    }

    #[test]
    fn a_filter_keeps_exact_values_and_substrings_in_any_case() {
        // 0 shop, 1 Pod, 2 web-1, 3 BackOff, 4 Warning, 5 kubelet, 6 Back-off pulling
        let strings = table(&[
            "shop",
            "Pod",
            "web-1",
            "BackOff",
            "Warning",
            "kubelet",
            "Back-off pulling",
            "Normal",
        ]);
        let event = [0, 1, 2, 3, 4, 5, 6];
        let pass = |filter: Filter| Compiled::new(filter, &strings).pass(&event, &strings);
        assert!(pass(Filter::default()));
        assert!(pass(Filter {
            type_: "Warning".into(),
            ..Filter::default()
        }));
        assert!(!pass(Filter {
            type_: "Normal".into(),
            ..Filter::default()
        }));
        assert!(!pass(Filter {
            namespace: "nowhere".into(),
            ..Filter::default()
        }));
        assert!(pass(Filter {
            object: "WEB".into(),
            ..Filter::default()
        }));
        assert!(!pass(Filter {
            object: "shop".into(),
            ..Filter::default()
        }));
        assert!(pass(Filter {
            text: "PULLING".into(),
            ..Filter::default()
        }));
        assert!(pass(Filter {
            text: "kube".into(),
            ..Filter::default()
        }));
        assert!(!pass(Filter {
            text: "nothing".into(),
            ..Filter::default()
        }));
        // A value no event has yet is found once one has it.
        let mut growing = table(&["shop"]);
        let mut late = Compiled::new(
            Filter {
                reason: "BackOff".into(),
                ..Filter::default()
            },
            &growing,
        );
        assert!(!late.pass(&[0, 0, 0, 0, 0, 0, 0], &growing));
        growing.id("BackOff");
        late.refresh(&growing);
        assert!(late.pass(&[0, 0, 0, 1, 0, 0, 0], &growing));
    }

    #[test]
    fn rows_are_ordered_by_object_then_first_seen_as_they_come() {
        let strings = table(&["ns", "Pod", "web-10", "web-2", "BackOff", "Failed", "a"]);
        let mut rows = vec![[0, 1, 2, 4], [0, 1, 3, 5]];
        let mut first = vec![1, 2];
        let mut order = RowOrder::default();
        order.extend(&rows, &first, &strings);
        assert_eq!(order.order(), [1, 0]);
        // web-2 BackOff, first seen after web-2 Failed; and namespace "a" first of all.
        rows.push([0, 1, 3, 4]);
        first.push(3);
        rows.push([6, 1, 2, 4]);
        first.push(4);
        order.extend(&rows, &first, &strings);
        assert_eq!(order.order(), [3, 1, 2, 0]);
        assert_eq!(order.firsts(&rows), [1, 1, 0, 1]);
    }

    #[test]
    fn sorting_by_a_key_keeps_ties_ascending() {
        let key = [3, 1, 3, 2];
        let mut items = [0, 1, 2, 3];
        sort_by_key(&mut items, true, &|i| key[i as usize], &|a, b| a.cmp(&b));
        assert_eq!(items, [0, 2, 3, 1]);
        let strings = table(&["b", "A", "a10", "a9"]);
        let rank = ranks([0, 1, 2, 3].into_iter(), &strings);
        assert_eq!(rank, [3, 0, 2, 1]);
    }
}
