//! The id → entry map. Entry ids are short random strings the file owner
//! controls only through their agent; a fast multiplicative hash (FxHash's) is
//! enough, and SipHash showed up in profiles of large files.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash: rotate, xor, multiply per word.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl IdHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().unwrap_or_default()));
        }
        let mut tail = [0u8; 8];
        tail[..words.remainder().len()].copy_from_slice(words.remainder());
        self.add(u64::from_le_bytes(tail));
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by entry id.
pub type IdMap<V> = HashMap<Box<str>, V, BuildHasherDefault<IdHasher>>;
