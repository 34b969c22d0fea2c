//! Sixteen bytes of a JSON string classified at once, for the scanner's hot loop.
//!
//! Most of a session file is string text; the scanner walks it looking for
//! the bytes that end a run (a quote, a backslash, a raw control character)
//! and counting UTF-16 units. The masks come from a [`Classify`] form: one
//! SSE2 register on x86-64 (AVX-encoded in the scanner's AVX2 copy, chosen at
//! run time), byte by byte on other targets.

use super::classify::Classify;

/// What a block of sixteen bytes holds, one bit per byte (bit k for byte k).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Block {
    /// `"`, `\` or a byte below 0x20.
    pub(super) stops: u32,
    /// Bytes above 0x7f.
    pub(super) high: u32,
}

impl Block {
    /// UTF-16 units of the first `len` bytes of `bytes` (valid UTF-8, `len` ≤ 16):
    /// one per byte that starts a character, one more per 4-byte lead, so a
    /// character cut by a block's edge counts in the block where it starts.
    // Not inlined (it is the rare non-ASCII path) but generic, so the AVX2 copy has POPCNT.
    pub(super) fn units(c: impl Classify, bytes: &[u8; 16], len: u32) -> u32 {
        let mask = ((1u64 << len) - 1) as u32;
        let (continuation, lead4) = c.block_utf8(bytes);
        len - (continuation & mask).count_ones() + (lead4 & mask).count_ones()
    }

    /// The run of text `bytes` starts with (up to its first stop, at most sixteen bytes): its
    /// length, its UTF-16 units, and whether it holds a byte above 0x7f.
    #[inline(always)]
    pub(super) fn run(c: impl Classify, bytes: &[u8; 16]) -> (u32, u32, bool) {
        let block = c.block(bytes);
        let len = block.stops.trailing_zeros().min(16);
        let mask = ((1u64 << len) - 1) as u32;
        if block.high & mask == 0 {
            (len, len, false)
        } else {
            (len, Self::units(c, bytes, len), true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::classify::Bytewise;
    #[cfg(target_arch = "x86_64")]
    use crate::session::classify::{Avx2, Sse2};

    /// What every classifier form must count alike.
    fn units_count_utf16_code_units_of_whole_characters_with(c: impl Classify) {
        let text = "aé€😀 \"x\\\u{1}";
        let mut bytes = [b' '; 16];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        assert_eq!(Block::units(c, &bytes, text.len() as u32), text.encode_utf16().count() as u32);
        // The first three characters (1 + 2 + 3 bytes).
        assert_eq!(Block::units(c, &bytes, 6), 3);
        assert_eq!(c.block(&bytes).high, 0b11_1111_1110);
        // The run stops at the quote: eleven bytes, six units, non-ASCII.
        assert_eq!(Block::run(c, &bytes), (11, 6, true));
    }

    #[test]
    fn units_count_utf16_code_units_of_whole_characters() {
        units_count_utf16_code_units_of_whole_characters_with(Bytewise);
        #[cfg(target_arch = "x86_64")]
        {
            units_count_utf16_code_units_of_whole_characters_with(Sse2);
            if let Some(avx2) = Avx2::detect() {
                avx2.run(units_count_utf16_code_units_of_whole_characters_with);
            }
        }
    }
}
