//! Sixty-four bytes of a JSON string classified at once, for the scanner's hot loop.
//!
//! Text in a session file has an escape every few dozen bytes (`\n` above all). Stopping at
//! each one and classifying the bytes after it again (the sixteen-byte [`super::block::Block`]
//! loop) costs more than the classification itself; with the quote, backslash, control and
//! `n` positions of 64 bytes as bit masks, a run of text and the two-byte escapes inside it are
//! measured together, by counting bits. The sixteen-byte parts are compared in SSE2 registers
//! (part of every x86-64 CPU, so no runtime detection); other targets get the same answers
//! byte by byte.

/// What 64 bytes hold, one bit per byte (bit k for byte k).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Window {
    /// `"`.
    pub(super) quote: u64,
    /// `\`.
    pub(super) backslash: u64,
    /// Bytes below 0x20 (never allowed raw in a string).
    pub(super) control: u64,
    /// Bytes above 0x7f.
    pub(super) high: u64,
    /// `n`: with `t`, the byte most escapes carry (text's `\n`), so that checking them
    /// needs no byte-wise look.
    pub(super) n: u64,
    /// `t`: code's `\t`, as common as `\n` in tool results.
    pub(super) t: u64,
}

/// A string's run within a window, measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Run {
    /// Bytes before the first byte the scanner must look at itself (64: none). The run never
    /// ends inside a two-byte escape.
    pub(super) len: u32,
    /// UTF-16 units of the run's decoded text.
    pub(super) units: u32,
    /// Two-byte escapes in the run (each two bytes for one decoded byte).
    pub(super) escapes: u32,
    /// The run holds a byte above 0x7f (the line then needs UTF-8 validation).
    pub(super) non_ascii: bool,
}

impl Window {
    /// The run of string text at the start of `bytes`: up to the first unescaped quote, raw
    /// control byte, or escape other than `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` (the `\u`
    /// escapes and the invalid ones are left to the byte-wise code), or a backslash in the
    /// last byte, whose escaped byte is in the next window.
    #[inline]
    pub(super) fn run(bytes: &[u8; 64]) -> Run {
        let w = Self::of(bytes);
        // Escape starts: backslashes not escaped by the one before them. Mostly no two
        // backslashes touch, and then every backslash starts an escape; runs of them (`\\\\`,
        // `\\\"`) are walked one by one, cheaper than simdjson's carry trick at one or two a
        // window.
        let starts = if w.backslash & w.backslash << 1 == 0 {
            w.backslash
        } else {
            let mut starts = 0u64;
            let mut rest = w.backslash;
            while rest != 0 {
                let p = rest.trailing_zeros();
                starts |= 1 << p;
                // The byte after an escape start is escaped, a backslash too.
                rest &= !(3u64 << p);
            }
            starts
        };
        let escaped = starts << 1;
        let mut stops = (w.quote & !escaped) | w.control | (starts & 1 << 63);
        // Escaped bytes other than `n`, `t`, `"` and `\` (the escapes of text and code): the
        // rarer two-byte escapes go on, anything else stops the run at its backslash.
        let mut unusual = escaped & !(w.n | w.t | w.quote | w.backslash);
        while unusual != 0 {
            let p = unusual.trailing_zeros();
            if !matches!(bytes[p as usize], b'/' | b'b' | b'f' | b'r') {
                stops |= 1 << (p - 1);
                break;
            }
            unusual &= unusual - 1;
        }
        let len = stops.trailing_zeros();
        let mask = 1u64.checked_shl(len).map_or(u64::MAX, |bit| bit - 1);
        let escapes = (starts & mask).count_ones();
        let non_ascii = w.high & mask != 0;
        let mut units = len - escapes;
        if non_ascii {
            // One unit per byte that starts a character, one more per 4-byte lead; a
            // character cut by the window's edge counts in the window where it starts.
            let (continuation, lead4) = Self::non_ascii(bytes);
            units = units - (continuation & mask).count_ones() + (lead4 & mask).count_ones();
        }
        Run { len, units, escapes, non_ascii }
    }

    // Inlined: a call returns the six masks through memory, about twenty instructions a
    // window more (callgrind).
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn of(bytes: &[u8; 64]) -> Self {
        use safe_arch::{cmp_eq_mask_i8_m128i, load_unaligned_m128i, max_u8_m128i, move_mask_i8_m128i, set_splat_i8_m128i};
        let (parts, _) = bytes.as_chunks::<16>();
        let mut w = Self::default();
        for (k, part) in parts.iter().enumerate() {
            let x = load_unaligned_m128i(part);
            let eq = |c: u8| move_mask_i8_m128i(cmp_eq_mask_i8_m128i(x, set_splat_i8_m128i(c as i8))) as u64;
            // x <= 0x1f unsigned: max(x, 0x1f) is 0x1f.
            let low = set_splat_i8_m128i(0x1f);
            let control = move_mask_i8_m128i(cmp_eq_mask_i8_m128i(max_u8_m128i(x, low), low)) as u64;
            let shift = 16 * k;
            w.quote |= eq(b'"') << shift;
            w.backslash |= eq(b'\\') << shift;
            w.n |= eq(b'n') << shift;
            w.t |= eq(b't') << shift;
            w.control |= control << shift;
            w.high |= (move_mask_i8_m128i(x) as u64) << shift;
        }
        w
    }

    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    fn of(bytes: &[u8; 64]) -> Self {
        bytes.iter().enumerate().fold(Self::default(), |w, (k, &b)| Self {
            quote: w.quote | u64::from(b == b'"') << k,
            backslash: w.backslash | u64::from(b == b'\\') << k,
            control: w.control | u64::from(b < 0x20) << k,
            high: w.high | u64::from(b >= 0x80) << k,
            n: w.n | u64::from(b == b'n') << k,
            t: w.t | u64::from(b == b't') << k,
        })
    }

    /// Continuation bytes (`10xxxxxx`) and 4-byte leads (`11110xxx` and up).
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    fn non_ascii(bytes: &[u8; 64]) -> (u64, u64) {
        use safe_arch::{cmp_gt_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i, set_splat_i8_m128i};
        let (parts, _) = bytes.as_chunks::<16>();
        let (mut continuation, mut lead4) = (0u64, 0u64);
        for (k, part) in parts.iter().enumerate() {
            let x = load_unaligned_m128i(part);
            // As signed bytes, 0x80..=0xBF are -128..=-65 and 0xF0..=0xFF are -16..=-1.
            let c = cmp_gt_mask_i8_m128i(set_splat_i8_m128i(-64), x);
            let l = cmp_gt_mask_i8_m128i(x, set_splat_i8_m128i(-17)) & x;
            continuation |= (move_mask_i8_m128i(c) as u64) << (16 * k);
            lead4 |= (move_mask_i8_m128i(l) as u64) << (16 * k);
        }
        (continuation, lead4)
    }

    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    fn non_ascii(bytes: &[u8; 64]) -> (u64, u64) {
        bytes.iter().enumerate().fold((0, 0), |(c, l), (k, &b)| (c | u64::from(b & 0xC0 == 0x80) << k, l | u64::from(b >= 0xF0) << k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(text: &[u8]) -> [u8; 64] {
        let mut bytes = [b'.'; 64];
        bytes[..text.len()].copy_from_slice(text);
        bytes
    }

    #[test]
    fn every_byte_value_is_classified_as_byte_by_byte() {
        for first in (0..=255u8).step_by(64) {
            let bytes: [u8; 64] = std::array::from_fn(|k| first.wrapping_add(k as u8));
            let bit = |f: &dyn Fn(u8) -> bool| bytes.iter().enumerate().fold(0u64, |m, (k, &b)| m | u64::from(f(b)) << k);
            let w = Window::of(&bytes);
            assert_eq!(w.quote, bit(&|b| b == b'"'));
            assert_eq!(w.backslash, bit(&|b| b == b'\\'));
            assert_eq!(w.control, bit(&|b| b < 0x20));
            assert_eq!(w.high, bit(&|b| b >= 0x80));
            assert_eq!(w.n, bit(&|b| b == b'n'));
            assert_eq!(w.t, bit(&|b| b == b't'));
            assert_eq!(Window::non_ascii(&bytes), (bit(&|b| (0x80..0xC0).contains(&b)), bit(&|b| b >= 0xF0)));
        }
    }

    #[test]
    fn a_run_takes_two_byte_escapes_and_stops_at_the_rest() {
        // (text, run length, units, escapes)
        for (text, len, units, escapes) in [
            (&br#"ab\ncd\"e\\"x"#[..], 11, 8, 3),
            (br#"\\\"x\/\b\f\r\t""#, 15, 8, 7),
            (br#"ab\u0041"#, 2, 2, 0),
            (br#"ab\x"#, 2, 2, 0),
            (b"ab\n", 2, 2, 0),
            ("é€😀\"".as_bytes(), 9, 4, 0),
            (b"ab\\\x01", 2, 2, 0),
        ] {
            let run = Window::run(&window(text));
            assert_eq!((run.len, run.units, run.escapes), (len, units, escapes), "{}", String::from_utf8_lossy(text));
            assert_eq!(run.non_ascii, text.iter().take(len as usize).any(|&b| b >= 0x80));
        }
        // No stop at all; a backslash in the last byte stops there.
        assert_eq!(Window::run(&[b'a'; 64]).len, 64);
        let mut last = [b'a'; 64];
        last[63] = b'\\';
        assert_eq!((Window::run(&last).len, Window::run(&last).units), (63, 63));
        last[62] = b'\\';
        assert_eq!((Window::run(&last).len, Window::run(&last).units, Window::run(&last).escapes), (64, 63, 1));
    }
}
