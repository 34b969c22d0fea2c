//! The instruction sets the string scanner classifies bytes with, behind one trait, so that the
//! scanner's body is written once and compiled once per instruction set.
//!
//! Every x86-64 CPU has SSE2, which is the baseline here. Most also have AVX2 (with BMI and
//! POPCNT, the x86-64-v3 level): there a 64-byte window is two 32-byte compares instead of four
//! 16-byte ones, and bit counts are one instruction. The binary must still run on the CPUs
//! without them, so the AVX2 form is chosen at run time, through `pulp`'s CPU token (its
//! `vectorize` compiles the closure with those features enabled; our code stays free of
//! `unsafe`). Other targets classify byte by byte, which is also the reference the tests hold
//! the SIMD forms to.

use super::block::Block;
use super::window::Window;

/// How the masks of a window or a block are computed; every form gives the same answers.
pub(super) trait Classify: Copy {
    /// The quote, backslash, control, high, `n` and `t` positions of 64 bytes.
    fn window(self, bytes: &[u8; 64]) -> Window;
    /// Continuation bytes (`10xxxxxx`) and 4-byte leads (`11110xxx` and up) of 64 bytes.
    fn window_utf8(self, bytes: &[u8; 64]) -> (u64, u64);
    /// The stops and high bytes of 16 bytes.
    fn block(self, bytes: &[u8; 16]) -> Block;
    /// Continuation bytes and 4-byte leads of 16 bytes.
    fn block_utf8(self, bytes: &[u8; 16]) -> (u32, u32);
}

/// Byte by byte: the form of targets other than x86-64, and the tests' reference. One pass
/// over the bytes sets all the masks, as before there were forms.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
pub(super) struct Bytewise;

impl Classify for Bytewise {
    fn window(self, bytes: &[u8; 64]) -> Window {
        bytes.iter().enumerate().fold(Window::default(), |w, (k, &b)| Window {
            quote: w.quote | u64::from(b == b'"') << k,
            backslash: w.backslash | u64::from(b == b'\\') << k,
            control: w.control | u64::from(b < 0x20) << k,
            high: w.high | u64::from(b >= 0x80) << k,
            n: w.n | u64::from(b == b'n') << k,
            t: w.t | u64::from(b == b't') << k,
        })
    }

    fn window_utf8(self, bytes: &[u8; 64]) -> (u64, u64) {
        bytes.iter().enumerate().fold((0, 0), |(c, l), (k, &b)| (c | u64::from(b & 0xC0 == 0x80) << k, l | u64::from(b >= 0xF0) << k))
    }

    fn block(self, bytes: &[u8; 16]) -> Block {
        bytes.iter().enumerate().fold(Block { stops: 0, high: 0 }, |acc, (k, &b)| Block {
            stops: acc.stops | u32::from(b == b'"' || b == b'\\' || b < 0x20) << k,
            high: acc.high | u32::from(b >= 0x80) << k,
        })
    }

    fn block_utf8(self, bytes: &[u8; 16]) -> (u32, u32) {
        bytes.iter().enumerate().fold((0, 0), |(c, l), (k, &b)| (c | u32::from(b & 0xC0 == 0x80) << k, l | u32::from(b >= 0xF0) << k))
    }
}

/// Sixteen bytes per SSE2 register (part of every x86-64 CPU).
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub(super) struct Sse2;

#[cfg(target_arch = "x86_64")]
impl Classify for Sse2 {
    // Inlined: a call returns the six masks through memory, about twenty instructions a
    // window more (callgrind).
    #[inline(always)]
    fn window(self, bytes: &[u8; 64]) -> Window {
        let (parts, _) = bytes.as_chunks::<16>();
        let mut w = Window::default();
        for (k, part) in parts.iter().enumerate() {
            let p = sse2::Masks::of(part);
            let shift = 16 * k;
            w.quote |= u64::from(p.quote) << shift;
            w.backslash |= u64::from(p.backslash) << shift;
            w.control |= u64::from(p.control) << shift;
            w.high |= u64::from(p.high) << shift;
            w.n |= u64::from(p.n) << shift;
            w.t |= u64::from(p.t) << shift;
        }
        w
    }

    fn window_utf8(self, bytes: &[u8; 64]) -> (u64, u64) {
        let (parts, _) = bytes.as_chunks::<16>();
        parts.iter().enumerate().fold((0, 0), |(c, l), (k, part)| {
            let (pc, pl) = sse2::utf8(part);
            (c | u64::from(pc) << (16 * k), l | u64::from(pl) << (16 * k))
        })
    }

    #[inline(always)]
    fn block(self, bytes: &[u8; 16]) -> Block {
        let m = sse2::Masks::of(bytes);
        Block { stops: m.quote | m.backslash | m.control, high: m.high }
    }

    fn block_utf8(self, bytes: &[u8; 16]) -> (u32, u32) {
        sse2::utf8(bytes)
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use safe_arch::{
        cmp_eq_mask_i8_m128i, cmp_gt_mask_i8_m128i, load_unaligned_m128i, max_u8_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };

    /// The masks of sixteen bytes.
    pub(super) struct Masks {
        pub(super) quote: u32,
        pub(super) backslash: u32,
        pub(super) control: u32,
        pub(super) high: u32,
        pub(super) n: u32,
        pub(super) t: u32,
    }

    impl Masks {
        #[inline(always)]
        pub(super) fn of(bytes: &[u8; 16]) -> Self {
            let x = load_unaligned_m128i(bytes);
            let eq = |c: u8| move_mask_i8_m128i(cmp_eq_mask_i8_m128i(x, set_splat_i8_m128i(c as i8))) as u32;
            // x <= 0x1f unsigned: max(x, 0x1f) is 0x1f.
            let low = set_splat_i8_m128i(0x1f);
            let control = move_mask_i8_m128i(cmp_eq_mask_i8_m128i(max_u8_m128i(x, low), low)) as u32;
            Self { quote: eq(b'"'), backslash: eq(b'\\'), control, high: move_mask_i8_m128i(x) as u32, n: eq(b'n'), t: eq(b't') }
        }
    }

    /// Continuation bytes and 4-byte leads.
    #[inline(always)]
    pub(super) fn utf8(bytes: &[u8; 16]) -> (u32, u32) {
        let x = load_unaligned_m128i(bytes);
        // As signed bytes, 0x80..=0xBF are -128..=-65 and 0xF0..=0xFF are -16..=-1.
        let continuation = cmp_gt_mask_i8_m128i(set_splat_i8_m128i(-64), x);
        let lead4 = cmp_gt_mask_i8_m128i(x, set_splat_i8_m128i(-17)) & x;
        (move_mask_i8_m128i(continuation) as u32, move_mask_i8_m128i(lead4) as u32)
    }
}

/// Thirty-two bytes per AVX2 register; only constructed from a token that proves the CPU has
/// AVX2, BMI1/2, POPCNT and LZCNT ([`Avx2::detect`]).
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub(super) struct Avx2(pub(super) pulp::x86::V3);

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// The AVX2 form when the CPU has it (pulp asks CPUID once per process and caches it).
    #[inline]
    pub(super) fn detect() -> Option<Self> {
        pulp::x86::V3::try_new().map(Self)
    }

    /// Runs `f` compiled with the AVX2 level's features: whatever `f` inlines uses them.
    #[inline(always)]
    pub(super) fn run<R>(self, f: impl FnOnce(Self) -> R) -> R {
        self.0.vectorize(move || f(self))
    }

    /// The six masks of 32 bytes.
    #[inline(always)]
    fn masks(self, bytes: &[u8; 32]) -> [u32; 6] {
        use std::arch::x86_64::__m256i;
        let (avx, avx2) = (self.0.avx, self.0.avx2);
        let x: __m256i = pulp::bytemuck::cast(*bytes);
        let mask = |v: __m256i| avx2._mm256_movemask_epi8(v) as u32;
        let eq = |c: u8| mask(avx2._mm256_cmpeq_epi8(x, avx._mm256_set1_epi8(c as i8)));
        // x <= 0x1f unsigned: max(x, 0x1f) is 0x1f.
        let low = avx._mm256_set1_epi8(0x1f);
        let control = mask(avx2._mm256_cmpeq_epi8(avx2._mm256_max_epu8(x, low), low));
        [eq(b'"'), eq(b'\\'), control, mask(x), eq(b'n'), eq(b't')]
    }

    /// Continuation bytes and 4-byte leads of 32 bytes.
    #[inline(always)]
    fn utf8(self, bytes: &[u8; 32]) -> (u32, u32) {
        use std::arch::x86_64::__m256i;
        let (avx, avx2) = (self.0.avx, self.0.avx2);
        let x: __m256i = pulp::bytemuck::cast(*bytes);
        // As signed bytes, 0x80..=0xBF are -128..=-65 and 0xF0..=0xFF are -16..=-1.
        let continuation = avx2._mm256_cmpgt_epi8(avx._mm256_set1_epi8(-64), x);
        let lead4 = avx2._mm256_and_si256(avx2._mm256_cmpgt_epi8(x, avx._mm256_set1_epi8(-17)), x);
        (avx2._mm256_movemask_epi8(continuation) as u32, avx2._mm256_movemask_epi8(lead4) as u32)
    }
}

#[cfg(target_arch = "x86_64")]
impl Classify for Avx2 {
    #[inline(always)]
    fn window(self, bytes: &[u8; 64]) -> Window {
        let (halves, _) = bytes.as_chunks::<32>();
        let [lo, hi] = [self.masks(&halves[0]), self.masks(&halves[1])];
        let join = |k: usize| u64::from(lo[k]) | u64::from(hi[k]) << 32;
        Window { quote: join(0), backslash: join(1), control: join(2), high: join(3), n: join(4), t: join(5) }
    }

    #[inline(always)]
    fn window_utf8(self, bytes: &[u8; 64]) -> (u64, u64) {
        let (halves, _) = bytes.as_chunks::<32>();
        let [(c0, l0), (c1, l1)] = [self.utf8(&halves[0]), self.utf8(&halves[1])];
        (u64::from(c0) | u64::from(c1) << 32, u64::from(l0) | u64::from(l1) << 32)
    }

    // Sixteen bytes fill half a register: the SSE2 form, which inlined here is encoded as AVX.
    #[inline(always)]
    fn block(self, bytes: &[u8; 16]) -> Block {
        Sse2.block(bytes)
    }

    #[inline(always)]
    fn block_utf8(self, bytes: &[u8; 16]) -> (u32, u32) {
        Sse2.block_utf8(bytes)
    }
}

/// The form the scanner uses where no wider one is detected.
#[cfg(target_arch = "x86_64")]
pub(super) const BASE: Sse2 = Sse2;
#[cfg(not(target_arch = "x86_64"))]
pub(super) const BASE: Bytewise = Bytewise;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte value at every position of a window or block, against the byte-wise form.
    #[cfg(target_arch = "x86_64")]
    fn agrees_with_bytes(c: impl Classify) {
        for first in 0..=255u8 {
            let bytes: [u8; 64] = std::array::from_fn(|k| first.wrapping_add((k as u8).wrapping_mul(37)));
            assert_eq!(c.window(&bytes), Bytewise.window(&bytes), "{bytes:?}");
            assert_eq!(c.window_utf8(&bytes), Bytewise.window_utf8(&bytes), "{bytes:?}");
            let block: &[u8; 16] = bytes[..16].try_into().unwrap();
            assert_eq!(c.block(block), Bytewise.block(block), "{block:?}");
            assert_eq!(c.block_utf8(block), Bytewise.block_utf8(block), "{block:?}");
        }
    }

    #[test]
    fn the_byte_wise_form_means_what_the_masks_say() {
        let bytes: [u8; 64] =
            std::array::from_fn(|k| [b'"', b'\\', 0x1f, 0x20, b'n', b't', 0x7f, 0x80, 0xBF, 0xC0, 0xEF, 0xF0, 0xFF][k % 13]);
        let w = Bytewise.window(&bytes);
        assert_eq!((w.quote & 0x1fff, w.backslash & 0x1fff, w.control & 0x1fff), (1, 2, 4));
        assert_eq!((w.n & 0x1fff, w.t & 0x1fff, w.high & 0x1fff), (16, 32, 0b1_1111_1000_0000));
        assert_eq!(Bytewise.window_utf8(&bytes).0 & 0x1fff, 0b1_1000_0000);
        assert_eq!(Bytewise.window_utf8(&bytes).1 & 0x1fff, 0b1_1000_0000_0000);
        let block = Bytewise.block(bytes[..16].try_into().unwrap());
        assert_eq!(block.stops, 0b1110_0000_0000_0111);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_classifies_as_byte_by_byte() {
        agrees_with_bytes(Sse2);
    }

    /// The AVX2 tests here and in the scanner run wherever the CPU has the x86-64-v3 level
    /// (CI's and the developers' machines do), not only where detection happens to say so.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_is_detected_where_the_cpu_has_it() {
        let v3 = is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("fma");
        assert_eq!(Avx2::detect().is_some(), v3);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_classifies_as_byte_by_byte() {
        let Some(avx2) = Avx2::detect() else { return };
        avx2.run(agrees_with_bytes);
    }
}
