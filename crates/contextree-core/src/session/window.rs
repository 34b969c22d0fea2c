//! Sixty-four bytes of a JSON string classified at once, for the scanner's hot loop.
//!
//! Text in a session file has an escape every few dozen bytes (`\n` above all). Stopping at
//! each one and classifying the bytes after it again (the sixteen-byte [`super::block::Block`]
//! loop) costs more than the classification itself; with the quote, backslash, control and
//! `n` positions of 64 bytes as bit masks, a run of text and the two-byte escapes inside it are
//! measured together, by counting bits. The masks come from a [`Classify`] form: two AVX2
//! compares where the CPU has them (detected at run time), four SSE2 ones on other x86-64 CPUs,
//! byte by byte elsewhere.

use super::classify::Classify;

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
    // Always inlined: under the AVX2 form this is compiled into the scanner's AVX2 copy.
    #[inline(always)]
    pub(super) fn run(c: impl Classify, bytes: &[u8; 64]) -> Run {
        let w = c.window(bytes);
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
            let (continuation, lead4) = c.window_utf8(bytes);
            units = units - (continuation & mask).count_ones() + (lead4 & mask).count_ones();
        }
        Run { len, units, escapes, non_ascii }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::classify::Bytewise;
    #[cfg(target_arch = "x86_64")]
    use crate::session::classify::{Avx2, Sse2};

    fn window(text: &[u8]) -> [u8; 64] {
        let mut bytes = [b'.'; 64];
        bytes[..text.len()].copy_from_slice(text);
        bytes
    }

    /// The runs every classifier form must measure alike.
    fn runs_take_two_byte_escapes_and_stop_at_the_rest(c: impl Classify) {
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
            let run = Window::run(c, &window(text));
            assert_eq!((run.len, run.units, run.escapes), (len, units, escapes), "{}", String::from_utf8_lossy(text));
            assert_eq!(run.non_ascii, text.iter().take(len as usize).any(|&b| b >= 0x80));
        }
        // No stop at all; a backslash in the last byte stops there.
        assert_eq!(Window::run(c, &[b'a'; 64]).len, 64);
        let mut last = [b'a'; 64];
        last[63] = b'\\';
        let run = Window::run(c, &last);
        assert_eq!((run.len, run.units), (63, 63));
        last[62] = b'\\';
        let run = Window::run(c, &last);
        assert_eq!((run.len, run.units, run.escapes), (64, 63, 1));
    }

    #[test]
    fn a_run_takes_two_byte_escapes_and_stops_at_the_rest() {
        runs_take_two_byte_escapes_and_stop_at_the_rest(Bytewise);
        #[cfg(target_arch = "x86_64")]
        {
            runs_take_two_byte_escapes_and_stop_at_the_rest(Sse2);
            if let Some(avx2) = Avx2::detect() {
                avx2.run(runs_take_two_byte_escapes_and_stop_at_the_rest);
            }
        }
    }
}
