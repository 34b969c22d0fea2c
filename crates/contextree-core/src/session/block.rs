//! Sixteen bytes of a JSON string classified at once, for the scanner's hot loop.
//!
//! Most of a session file is string text; the scanner walks it looking for
//! the bytes that end a run (a quote, a backslash, a raw control character)
//! and counting UTF-16 units. On x86-64 the sixteen bytes are compared in one
//! SSE2 register (part of every x86-64 CPU, so no runtime detection); other
//! targets get the same answers byte by byte.

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
    pub(super) fn units(bytes: &[u8; 16], len: u32) -> u32 {
        // The mask's bits are counted without `count_ones`: the default x86-64 target has no
        // POPCNT instruction, and its replacement costs a dozen instructions.
        let mask = ((1u64 << len) - 1) as u32;
        let (continuation, lead4) = Self::non_ascii(bytes);
        len - (continuation & mask).count_ones() + (lead4 & mask).count_ones()
    }

    /// The run of text `bytes` starts with (up to its first stop, at most sixteen bytes): its
    /// length, its UTF-16 units, and whether it holds a byte above 0x7f.
    #[inline(always)]
    pub(super) fn run(bytes: &[u8; 16]) -> (u32, u32, bool) {
        let block = Self::of(bytes);
        let len = block.stops.trailing_zeros().min(16);
        let mask = ((1u64 << len) - 1) as u32;
        if block.high & mask == 0 {
            (len, len, false)
        } else {
            (len, Self::units(bytes, len), true)
        }
    }

    /// Continuation bytes (`10xxxxxx`) and 4-byte leads (`11110xxx` and up).
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    fn non_ascii(bytes: &[u8; 16]) -> (u32, u32) {
        use safe_arch::{cmp_gt_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i, set_splat_i8_m128i};
        let x = load_unaligned_m128i(bytes);
        // As signed bytes, 0x80..=0xBF are -128..=-65 and 0xF0..=0xFF are -16..=-1.
        let continuation = cmp_gt_mask_i8_m128i(set_splat_i8_m128i(-64), x);
        let lead4 = cmp_gt_mask_i8_m128i(x, set_splat_i8_m128i(-17)) & x;
        (move_mask_i8_m128i(continuation) as u32, move_mask_i8_m128i(lead4) as u32)
    }

    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    fn non_ascii(bytes: &[u8; 16]) -> (u32, u32) {
        bytes.iter().enumerate().fold((0, 0), |(c, l), (k, &b)| (c | u32::from(b & 0xC0 == 0x80) << k, l | u32::from(b >= 0xF0) << k))
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    pub(super) fn of(bytes: &[u8; 16]) -> Self {
        use safe_arch::{cmp_eq_mask_i8_m128i, load_unaligned_m128i, max_u8_m128i, move_mask_i8_m128i, set_splat_i8_m128i};
        let x = load_unaligned_m128i(bytes);
        let quote = cmp_eq_mask_i8_m128i(x, set_splat_i8_m128i(b'"' as i8));
        let backslash = cmp_eq_mask_i8_m128i(x, set_splat_i8_m128i(b'\\' as i8));
        // x <= 0x1f unsigned: max(x, 0x1f) is 0x1f.
        let low = set_splat_i8_m128i(0x1f);
        let control = cmp_eq_mask_i8_m128i(max_u8_m128i(x, low), low);
        Self { stops: move_mask_i8_m128i(quote | backslash | control) as u32, high: move_mask_i8_m128i(x) as u32 }
    }

    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    pub(super) fn of(bytes: &[u8; 16]) -> Self {
        bytes.iter().enumerate().fold(Self { stops: 0, high: 0 }, |acc, (k, &b)| Self {
            stops: acc.stops | u32::from(b == b'"' || b == b'\\' || b < 0x20) << k,
            high: acc.high | u32::from(b >= 0x80) << k,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-by-byte meaning, against which the SIMD forms are checked.
    fn by_bytes(bytes: &[u8; 16]) -> (Block, u32, u32) {
        let bit = |f: &dyn Fn(u8) -> bool| bytes.iter().enumerate().fold(0u32, |m, (k, &b)| m | u32::from(f(b)) << k);
        let block = Block { stops: bit(&|b| b == b'"' || b == b'\\' || b < 0x20), high: bit(&|b| b >= 0x80) };
        (block, bit(&|b| (0x80..0xC0).contains(&b)), bit(&|b| b >= 0xF0))
    }

    #[test]
    fn every_byte_value_is_classified_as_byte_by_byte() {
        for first in (0..=255u8).step_by(16) {
            let mut bytes = [0u8; 16];
            for (k, b) in bytes.iter_mut().enumerate() {
                *b = first + k as u8;
            }
            let (block, continuation, lead4) = by_bytes(&bytes);
            assert_eq!(Block::of(&bytes), block, "{bytes:?}");
            assert_eq!(Block::non_ascii(&bytes), (continuation, lead4), "{bytes:?}");
        }
    }

    #[test]
    fn units_count_utf16_code_units_of_whole_characters() {
        let text = "aé€😀 \"x\\\u{1}";
        let mut bytes = [b' '; 16];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        assert_eq!(Block::units(&bytes, text.len() as u32), text.encode_utf16().count() as u32);
        // The first three characters (1 + 2 + 3 bytes).
        assert_eq!(Block::units(&bytes, 6), 3);
        assert_eq!(Block::of(&bytes).high, 0b11_1111_1110);
    }
}
