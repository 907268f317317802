//! Column builders for bulk results: strings interned into one table and
//! numbers gathered into typed arrays, so that 100,000 rows cross into
//! JavaScript as a handful of arrays instead of 100,000 objects.

use std::collections::HashMap;
use std::hash::Hash;

use foldhash::fast::FixedState;

use js_sys::{Array, Float64Array, Int32Array, Object, Reflect, Uint8Array, Uint32Array};
use wasm_bindgen::JsValue;

/// A hash map with a fast, fixed hasher: the keys are the file's own
/// strings, and a replay must not depend on a random seed.
pub type FastMap<K, V> = HashMap<K, V, FixedState>;

/// Distinct values, each numbered in the order first seen.
#[derive(Debug)]
pub struct Interner<T> {
    ids: FastMap<T, u32>,
    values: Vec<T>,
}

impl<T> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            ids: FastMap::default(),
            values: Vec::new(),
        }
    }
}

impl<T: Hash + Eq + Clone> Interner<T> {
    /// The number of `value`, numbering it if new.
    pub fn id<Q>(&mut self, value: &Q) -> u32
    where
        T: std::borrow::Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = T> + ?Sized,
    {
        if let Some(&id) = self.ids.get(value) {
            return id;
        }
        let id = u32::try_from(self.values.len()).expect("fewer than 2^32 distinct values");
        let owned = value.to_owned();
        self.ids.insert(owned.clone(), id);
        self.values.push(owned);
        id
    }

    /// The number of `value`, if it has one.
    pub fn find<Q>(&self, value: &Q) -> Option<u32>
    where
        T: std::borrow::Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.ids.get(value).copied()
    }

    /// How many values are numbered.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value is numbered.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value numbered `id`.
    pub fn get(&self, id: u32) -> &T {
        &self.values[id as usize]
    }

    /// The values, in number order.
    pub fn values(&self) -> &[T] {
        &self.values
    }
}

/// The interned strings as a JavaScript array.
pub fn strings_to_js(strings: &Interner<String>) -> Array {
    strings_from(strings, 0)
}

/// The interned strings numbered `from` on, as a JavaScript array.
pub fn strings_from(strings: &Interner<String>, from: usize) -> Array {
    strings.values()[from.min(strings.len())..]
        .iter()
        .map(|s| JsValue::from_str(s))
        .collect()
}

/// A plain object filled field by field.
#[derive(Debug)]
pub struct JsObject(Object);

impl Default for JsObject {
    fn default() -> Self {
        JsObject(Object::new())
    }
}

impl JsObject {
    /// Sets `key` to `value`.
    pub fn set(&self, key: &str, value: impl Into<JsValue>) -> &Self {
        // Setting a property on a fresh plain object cannot fail.
        let _ = Reflect::set(&self.0, &JsValue::from_str(key), &value.into());
        self
    }

    /// The object.
    pub fn into_js(self) -> JsValue {
        self.0.into()
    }
}

/// Copies into a new `Float64Array`.
pub fn f64s(values: &[f64]) -> Float64Array {
    Float64Array::from(values)
}

/// Copies into a new `Int32Array`.
pub fn i32s(values: &[i32]) -> Int32Array {
    Int32Array::from(values)
}

/// Copies into a new `Uint32Array`.
pub fn u32s(values: &[u32]) -> Uint32Array {
    Uint32Array::from(values)
}

/// Copies into a new `Uint8Array`.
pub fn u8s(values: &[u8]) -> Uint8Array {
    Uint8Array::from(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_values_are_numbered_in_order_first_seen() {
        let mut strings: Interner<String> = Interner::default();
        assert_eq!(strings.id("b"), 0);
        assert_eq!(strings.id("a"), 1);
        assert_eq!(strings.id("b"), 0);
        assert_eq!(strings.values(), ["b", "a"]);
        let mut keys: Interner<Vec<String>> = Interner::default();
        let key = vec!["x".to_string(), "y".to_string()];
        assert_eq!(keys.id(&key[..]), 0);
        assert_eq!(keys.id(&key[..1]), 1);
        assert_eq!(keys.get(0), &key);
    }
}
