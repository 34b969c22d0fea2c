//! The id → entry index. Entry ids are short random strings the file owner
//! controls only through their agent; a fast multiplicative hash (rustc-hash's
//! FxHasher) is enough, and SipHash showed up in profiles of large files.
//!
//! The index holds entry numbers only (4 bytes a slot), never the ids: the
//! ids live in the entries, which every lookup is given. A map keyed by a
//! copy of each id cost 50–80 bytes an entry.

use std::hash::Hasher;

use rustc_hash::FxHasher;

use super::entry::Entry;
use super::name::Name;
use super::tree::NodeId;

/// The slot an id starts probing at: FxHash's low bits are weak, so its
/// result is mixed (splitmix64's finalizer) and the high bits taken.
fn start(id: &[u8], shift: u32) -> usize {
    let mut h = FxHasher::default();
    h.write(id);
    let mut x = h.finish();
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x >> shift) as usize
}

/// Open addressing (linear probing) over entry numbers; `EMPTY` marks a free
/// slot. At most half full.
#[derive(Debug, Clone, Default)]
pub(super) struct IdIndex {
    slots: Vec<u32>,
}

const EMPTY: u32 = u32::MAX;

impl IdIndex {
    /// Indexes every entry with an id; a repeated id names its last entry.
    /// Returns the index and, for each repeated id, (the entry, the earlier
    /// entry it replaces), in file order.
    pub(super) fn build(entries: &[Entry]) -> (IdIndex, Vec<(NodeId, NodeId)>) {
        let n = entries.iter().filter(|e| !e.id.is_empty()).count();
        let size = (n * 2).next_power_of_two().max(8);
        let mut index = IdIndex { slots: vec![EMPTY; size] };
        let mut repeats = Vec::new();
        let mask = size - 1;
        for (i, e) in entries.iter().enumerate() {
            if e.id.is_empty() {
                continue;
            }
            let mut at = start(e.id.as_bytes(), index.shift());
            loop {
                match index.slots[at] {
                    EMPTY => {
                        index.slots[at] = i as u32;
                        break;
                    }
                    j if entries[j as usize].id == e.id => {
                        index.slots[at] = i as u32;
                        repeats.push((NodeId(i as u32), NodeId(j)));
                        break;
                    }
                    _ => at = (at + 1) & mask,
                }
            }
        }
        (index, repeats)
    }

    /// 64 − log2(slots): the hash's high bits pick the slot.
    fn shift(&self) -> u32 {
        64 - self.slots.len().trailing_zeros()
    }

    /// The entry with this id, looked up among `entries` (the ones the index
    /// was built from).
    pub(super) fn get(&self, entries: &[Entry], id: &str) -> Option<NodeId> {
        self.find(entries, id.as_bytes(), |name| name.as_bytes() == id.as_bytes())
    }

    /// [`IdIndex::get`] of a `Name` (a parent id): compared as names, with no UTF-8 check of
    /// the id as `&str` and no call to `memcmp` for a short one.
    pub(super) fn get_name(&self, entries: &[Entry], id: &Name) -> Option<NodeId> {
        self.find(entries, id.as_bytes(), |name| name == id)
    }

    fn find(&self, entries: &[Entry], id: &[u8], same: impl Fn(&Name) -> bool) -> Option<NodeId> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut at = start(id, self.shift());
        loop {
            match self.slots[at] {
                EMPTY => return None,
                j if same(&entries[j as usize].id) => return Some(NodeId(j)),
                _ => at = (at + 1) & mask,
            }
        }
    }
}
