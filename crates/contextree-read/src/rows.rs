//! How a report holds what it does not hold: lists made while they are written, and objects
//! whose keys keep the order they were met in.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use contextree_core::context::ReadBackError;

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

/// The first message that could not be read back while a report's [`Rows`] were written (the
/// file changed under them): the list ends there, and the report's `finish` returns it. Clones
/// share one slot (the rows' iterator keeps one, the report the other).
#[derive(Clone, Default)]
pub(crate) struct ReadBackSlot(Rc<RefCell<Option<ReadBackError>>>);

impl ReadBackSlot {
    /// Keeps `e` for `finish`.
    pub(crate) fn keep(&self, e: ReadBackError) {
        *self.0.borrow_mut() = Some(e);
    }

    /// The items of `results` up to the first error, which is kept.
    pub(crate) fn until_error<'a, T: 'a>(
        &self,
        results: impl Iterator<Item = Result<T, ReadBackError>> + 'a,
    ) -> impl Iterator<Item = T> + 'a {
        let slot = self.clone();
        results.map_while(move |r| r.map_err(|e| slot.keep(e)).ok())
    }

    /// The error kept, if any.
    pub(crate) fn finish(&self) -> Result<(), ReadBackError> {
        match self.0.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
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

/// The ids of `nodes` as a JSON array, written one at a time from the session (a million
/// abandoned or summarized entries are not copied out as strings first). Its TypeScript type is
/// `Array<string>`.
pub struct Ids<'a>(pub &'a contextree_core::session::Session, pub &'a [contextree_core::session::NodeId]);

impl Serialize for Ids<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.1.iter().map(|&n| &*self.0.entry(n).id))
    }
}

impl ts_rs::TS for Ids<'_> {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(_: &ts_rs::Config) -> String {
        "Array<string>".to_owned()
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        Self::name(cfg)
    }
}

/// File operations of a cut or a branch: the raw sets sorted (as the oracle prints them) and the
/// agents' own `readFiles` / `modifiedFiles` lists.
#[derive(Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct FileOpsReport {
    /// Files read.
    pub read: Vec<String>,
    /// Files written.
    pub written: Vec<String>,
    /// Files edited.
    pub edited: Vec<String>,
    /// The agents' `readFiles` (read and never modified).
    pub read_files: Vec<String>,
    /// The agents' `modifiedFiles` (written or edited).
    pub modified_files: Vec<String>,
}

impl FileOpsReport {
    /// The report of `ops`.
    pub fn new(ops: &contextree_core::compaction::FileOps) -> Self {
        let sorted = |set: &contextree_core::compaction::PathSet| {
            let mut v = set.as_slice().to_vec();
            v.sort_by(|a, b| contextree_core::js::cmp_utf16(a, b));
            v
        };
        let lists = ops.lists();
        Self {
            read: sorted(&ops.read),
            written: sorted(&ops.written),
            edited: sorted(&ops.edited),
            read_files: lists.read_files,
            modified_files: lists.modified_files,
        }
    }
}
