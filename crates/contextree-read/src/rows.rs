//! How a report holds what it does not hold: lists made while they are written, and objects
//! whose keys keep the order they were met in.

use std::cell::Cell;

use serde::{Serialize, Serializer};

/// A large list of a report, serialized one element at a time as its iterator makes them: no
/// element is held after it is written. It serializes once (it is the iterator); its
/// TypeScript type is the element's array (`#[ts(as = "Vec<T>")]` on the field).
pub struct Rows<I>(Cell<Option<I>>);

impl<I> Rows<I> {
    /// The list `items` will make.
    pub fn new(items: I) -> Self {
        Self(Cell::new(Some(items)))
    }
}

impl<I: Iterator> Rows<I> {
    /// The rows themselves, for a face that renders them (none when already written).
    pub fn into_inner(self) -> std::iter::Flatten<std::option::IntoIter<I>> {
        self.0.into_inner().into_iter().flatten()
    }
}

impl<I> Serialize for Rows<I>
where
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let items = self.0.take().ok_or_else(|| serde::ser::Error::custom("a streamed list is written once"))?;
        serializer.collect_seq(items)
    }
}

/// Keys in first-seen order, as a JSON object: counts per type, labels per id, models per role.
#[derive(Debug, Clone, Default)]
pub struct Ordered<V>(Vec<(String, V)>);

impl<V> Ordered<V> {
    /// The value of `key`, added (with `V::default()`) when new.
    pub fn entry(&mut self, key: &str) -> &mut V
    where
        V: Default,
    {
        let at = match self.0.iter().position(|(k, _)| k == key) {
            Some(at) => at,
            None => {
                self.0.push((key.to_owned(), V::default()));
                self.0.len() - 1
            }
        };
        &mut self.0[at].1
    }

    /// Sets `key` to `value` (a key seen before keeps its place).
    pub fn set(&mut self, key: &str, value: V)
    where
        V: Default,
    {
        *self.entry(key) = value;
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The keys and values in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
}

impl<V: Serialize> Serialize for Ordered<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}
