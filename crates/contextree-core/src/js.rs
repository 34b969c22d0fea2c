//! JavaScript semantics that the agents' numbers and texts depend on
//! (context.md §5).
//!
//! The agents are JavaScript programs: every length they compare against a
//! budget is in UTF-16 code units, every tool-call argument they measure or show
//! went through `JSON.stringify`, and every file list they print was sorted with
//! the default `Array.prototype.sort`. Reproducing their output byte for byte
//! means reproducing those three things exactly.
//!
//! Lone surrogates: a Rust `str` cannot hold one. The only place where JS could
//! create one from valid input is a cut inside a surrogate pair
//! ([`slice_utf16`]); there the lone half is replaced by U+FFFD, which is what
//! the agents' text becomes when it is sent (as UTF-8) to a model.

use std::cmp::Ordering;

use serde_json::{Map, Value};

/// Length of `s` in UTF-16 code units (JS `s.length`).
pub fn utf16_len(s: &str) -> usize {
    utf8_bytes_utf16_len(s.as_bytes())
}

/// UTF-16 units of well-formed UTF-8 bytes: one per character (every byte that
/// is not a continuation byte starts one), plus one more for each 4-byte
/// character (it needs a surrogate pair).
///
/// It runs over whole session files, so it is written for the vectoriser:
/// branch-free, with `u8` accumulators over chunks of 127 bytes (at most 2
/// per byte, so no overflow), about 8× faster than a plain `usize` sum.
fn utf8_bytes_utf16_len(bytes: &[u8]) -> usize {
    let mut total = 0;
    for chunk in bytes.chunks(127) {
        let mut units = 0u8;
        for &b in chunk {
            units += u8::from((b as i8) >= -0x40) + u8::from(b >= 0xF0);
        }
        total += usize::from(units);
    }
    total
}

/// UTF-16 length of the string a JSON string literal decodes to, computed on the
/// raw literal (with or without its surrounding quotes) without decoding it.
///
/// `\uXXXX` is one unit (a pair written as two escapes is therefore two), every
/// other escape is one unit, raw text counts as in [`utf16_len`]. The input is
/// assumed to be a literal serde_json accepted.
pub fn raw_string_utf16_len(raw: &str) -> usize {
    let mut bytes = raw.as_bytes();
    if let [b'"', inner @ .., b'"'] = bytes {
        bytes = inner;
    }
    // Count the raw text as if unescaped, then take back what each escape
    // (all ASCII: `\x` = 2 units, `\uXXXX` = 6) counted beyond its one unit.
    let mut units = utf8_bytes_utf16_len(bytes);
    let mut pos = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[pos..]) {
        let at = pos + found;
        let escape_len = if bytes.get(at + 1) == Some(&b'u') { 6 } else { 2 };
        let escape_len = escape_len.min(bytes.len() - at);
        units -= escape_len - 1;
        pos = at + escape_len;
    }
    units
}

/// `JSON.stringify(v)` (no indentation), exactly as JavaScript produces it.
pub fn stringify(v: &Value) -> String {
    let mut out = String::new();
    stringify_into(v, &mut out);
    out
}

/// [`stringify`], appending to `out`.
pub fn stringify_into(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_to_js_string(json_number_as_f64(n))),
        Value::String(s) => quote_into(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                stringify_into(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, value)) in js_entries(map).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                quote_into(key, out);
                out.push(':');
                stringify_into(value, out);
            }
            out.push('}');
        }
    }
}

/// UTF-16 length of [`stringify`]`(v)`, without building the string.
pub fn stringify_len(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(b) => {
            if *b {
                4
            } else {
                5
            }
        }
        // Number strings are ASCII.
        Value::Number(n) => number_to_js_string(json_number_as_f64(n)).len(),
        Value::String(s) => quoted_len(s),
        Value::Array(items) => 2 + items.len().saturating_sub(1) + items.iter().map(stringify_len).sum::<usize>(),
        Value::Object(map) => {
            2 + map.len().saturating_sub(1) + map.iter().map(|(k, v)| quoted_len(k) + 1 + stringify_len(v)).sum::<usize>()
        }
    }
}

/// The value JavaScript holds for a JSON number: always a double, so integers
/// beyond 2^53 are rounded (the nearest double, as JS's parser rounds too).
fn json_number_as_f64(n: &serde_json::Number) -> f64 {
    if let Some(u) = n.as_u64() {
        u as f64
    } else if let Some(i) = n.as_i64() {
        i as f64
    } else {
        n.as_f64().unwrap_or(f64::NAN)
    }
}

/// An object's entries in JS property order: array-index-like keys first in
/// ascending numeric order, then the other keys in insertion order.
pub fn js_entries(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    if entries.iter().any(|(k, _)| array_index(k).is_some()) {
        // Stable sort: non-index keys all compare equal and keep their order.
        entries.sort_by_key(|(k, _)| array_index(k).map_or((1, 0), |i| (0, i)));
    }
    entries
}

/// `Some(n)` when `key` is a canonical array index (`"0"`, `"7"`, `"42"`, no
/// leading zero, below 2^32 − 1): such keys are ordered first by JS engines.
fn array_index(key: &str) -> Option<u32> {
    let bytes = key.as_bytes();
    let canonical = match bytes {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.len() < 10 && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !canonical {
        return None;
    }
    key.parse::<u64>().ok().filter(|&n| n < u64::from(u32::MAX)).map(|n| n as u32)
}

/// JS `JSON.stringify` of a string: `"` `\` and control characters escaped
/// (short forms where JSON has them, else `\u00xx` in lower case); everything
/// else, including non-ASCII, `/` and U+2028, is kept raw.
fn quote_into(s: &str, out: &mut String) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escaped: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0C => "\\f",
            0x00..=0x1F => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escaped.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 0xF)] as char);
        } else {
            out.push_str(escaped);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// UTF-16 length of `quote_into(s)`.
fn quoted_len(s: &str) -> usize {
    let extra: usize = s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0C => 1,
            0x00..=0x1F => 5,
            _ => 0,
        })
        .sum();
    2 + utf16_len(s) + extra
}

/// JS `Number.prototype.toString()` (= `String(f)`): shortest round-trip
/// digits, plain notation for decimal exponents in `-7 < e < 21`, otherwise
/// `d.ddde+x` / `de-x`; `-0` prints as `0`.
///
/// `JSON.stringify` differs only for non-finite numbers (it prints `null`);
/// JSON values cannot hold those.
pub fn number_to_js_string(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    if f == 0.0 {
        return "0".to_owned();
    }
    let sign = if f < 0.0 { "-" } else { "" };
    let (digits, exp) = shortest_digits(f.abs());
    format!("{sign}{}", place_decimal_point(&digits, exp + 1))
}

/// A JS number as a JSON value, as `JSON.stringify` prints it: integral values
/// without a fraction, NaN and infinities as null.
pub fn json_number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

/// Shortest round-trip decimal digits of a positive finite `f` and the decimal
/// exponent of the first digit, with JS's tie rule.
///
/// Rust's `{:e}` already gives the shortest digits closest to `f`, but when two
/// candidates are exactly equally close it takes the upper one, while
/// ECMA-262 takes the even one (`1864184398007684.25` → `…684.2`).
fn shortest_digits(f: f64) -> (String, i32) {
    let (mut digits, exp) = split_sci(&format!("{f:e}"));
    let last = digits.as_bytes()[digits.len() - 1];
    if last % 2 == 1 && digits.len() > 1 {
        let lower = format!("{}{}", &digits[..digits.len() - 1], char::from(last - 1));
        if is_exact_tie(f, &lower, exp) {
            digits = lower;
        }
    }
    (digits, exp)
}

/// Whether `f` lies exactly halfway between `lower` and the next digit string,
/// both read with first-digit exponent `exp`. Checked on `f`'s exact decimal
/// expansion (a double has at most 767 significant digits), which is only
/// computed when `lower` also round-trips, i.e. in rare near-tie cases.
fn is_exact_tie(f: f64, lower: &str, exp: i32) -> bool {
    let mantissa = format!("{}.{}", &lower[..1], &lower[1..]);
    if format!("{mantissa}e{exp}").parse::<f64>() != Ok(f) {
        return false;
    }
    let (exact, exact_exp) = split_sci(&format!("{f:.800e}"));
    let exact = exact.trim_end_matches('0');
    exact_exp == exp && exact.len() == lower.len() + 1 && exact.starts_with(lower) && exact.ends_with('5')
}

/// `"d.ddde±x"` → (`"dddd"`, x).
fn split_sci(sci: &str) -> (String, i32) {
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    (mantissa.chars().filter(|c| *c != '.').collect(), exp.parse().unwrap_or(0))
}

/// ECMA-262 Number::toString steps for digits `d1…dk` × 10^(n−k).
fn place_decimal_point(digits: &str, n: i32) -> String {
    let k = digits.len() as i32;
    if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        format!("{int}.{frac}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let e_sign = if e < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        format!("{first}{rest}e{e_sign}{}", e.abs())
    }
}

/// JS default sort order (`Array.prototype.sort` without comparator): UTF-16
/// code unit order. It differs from `str`'s order only between characters at
/// U+E000–U+FFFF and supplementary ones (which JS sees as surrogates, < U+E000).
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// JS `s.slice(0, end_units)`, as the text is sent to a model: when the cut
/// falls inside a surrogate pair, JS keeps the lone high surrogate, which UTF-8
/// encoding turns into U+FFFD; so the result ends with U+FFFD then. The result
/// always has `min(end_units, utf16_len(s))` UTF-16 units.
pub fn slice_utf16(s: &str, end_units: usize) -> String {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        let w = c.len_utf16();
        if units + w > end_units {
            let mut out = s[..i].to_owned();
            if units < end_units {
                out.push('\u{FFFD}');
            }
            return out;
        }
        units += w;
    }
    s.to_owned()
}

/// Whether `c` is whitespace for JS `trim()` and regex `\s` (WhiteSpace and
/// LineTerminator of ECMA-262). Differs from [`char::is_whitespace`]: U+FEFF
/// is whitespace in JS, U+0085 is not.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{B}' | '\u{C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

/// Whether `c` ends a line for JS regex `.` (which matches anything else).
pub fn is_js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// JS `s.trim()`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// JS `s.trimStart()`.
pub fn js_trim_start(s: &str) -> &str {
    s.trim_start_matches(is_js_whitespace)
}

/// JS `s.trimEnd()`.
pub fn js_trim_end(s: &str) -> &str {
    s.trim_end_matches(is_js_whitespace)
}

/// JS truthiness of a JSON value (`None` = `undefined`).
pub fn is_truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => {
            let f = json_number_as_f64(n);
            f != 0.0 && !f.is_nan()
        }
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// JS `String(v)` / template-literal interpolation `${v}` of a JSON value
/// (`None` = `undefined`). The agents interpolate stored fields this way, so a
/// missing field reads `undefined` in their text.
pub fn to_js_string(v: Option<&Value>) -> String {
    let mut out = String::new();
    push_js_string(v, &mut out);
    out
}

/// [`to_js_string`], appending to `out`.
pub fn push_js_string(v: Option<&Value>, out: &mut String) {
    match v {
        None => out.push_str("undefined"),
        Some(Value::String(s)) => out.push_str(s),
        Some(Value::Array(items)) => push_array_join(items, ",", out),
        Some(Value::Object(_)) => out.push_str("[object Object]"),
        Some(other) => out.push_str(&primitive_to_js_string(other)),
    }
}

/// JS `array.join(sep)`: `null` elements become empty, others `String(x)`.
pub fn push_array_join(items: &[Value], sep: &str, out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        if !item.is_null() {
            push_js_string(Some(item), out);
        }
    }
}

fn primitive_to_js_string(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_to_js_string(json_number_as_f64(n)),
        _ => String::new(),
    }
}

/// JS `Number(v)` of a JSON value (`None` = `undefined` → NaN).
pub fn to_js_number(v: Option<&Value>) -> f64 {
    match v {
        None => f64::NAN,
        Some(Value::Null) => 0.0,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(Value::Number(n)) => json_number_as_f64(n),
        Some(Value::String(s)) => string_to_js_number(s),
        Some(Value::Array(_)) => string_to_js_number(&to_js_string(v)),
        Some(Value::Object(_)) => f64::NAN,
    }
}

/// JS `Number(s)` for decimal, hexadecimal/octal/binary and `Infinity` forms.
fn string_to_js_number(s: &str) -> f64 {
    let t = js_trim(s);
    if t.is_empty() {
        return 0.0;
    }
    let radix = match t.get(..2) {
        Some("0x" | "0X") => 16,
        Some("0o" | "0O") => 8,
        Some("0b" | "0B") => 2,
        _ => 10,
    };
    if radix != 10 {
        let digits = &t[2..];
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return f64::NAN;
        }
        return digits.chars().fold(0.0, |acc, c| acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0)));
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned == "Infinity" {
        return if t.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY };
    }
    let well_formed = !unsigned.is_empty()
        && unsigned.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && unsigned.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'.');
    if well_formed {
        t.parse().unwrap_or(f64::NAN)
    } else {
        f64::NAN
    }
}

/// JS `x.toFixed(digits)` for `digits <= 20`: the exact value of `x` rounded to
/// `digits` decimals, ties away from zero (Rust's `{:.n}` rounds ties to even,
/// which differs for values such as `1.25`).
pub fn to_fixed(x: f64, digits: usize) -> String {
    if !x.is_finite() || x.abs() >= 1e21 {
        return number_to_js_string(x);
    }
    // A double's exact decimal expansion has at most 1074 fractional digits.
    let exact = format!("{:.1074}", x.abs());
    let (int, frac) = exact.split_once('.').unwrap_or((&exact, ""));
    let mut kept: Vec<u8> = format!("{int}{}", &frac[..digits]).into_bytes();
    if frac.as_bytes()[digits] >= b'5' {
        round_up_decimal(&mut kept);
    }
    let kept = String::from_utf8(kept).unwrap_or_default();
    let split = kept.len() - digits;
    let sign = if x < 0.0 { "-" } else { "" };
    if digits == 0 {
        format!("{sign}{kept}")
    } else {
        format!("{sign}{}.{}", &kept[..split], &kept[split..])
    }
}

/// Adds one unit in the last place of an ASCII digit string.
fn round_up_decimal(digits: &mut Vec<u8>) {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return;
        }
    }
    digits.insert(0, b'1');
}

/// A number as JavaScript prints it (`json_number`): whole numbers below 2^53 without a
/// fraction, others as floats, non-finite ones as `null`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JsNumber(pub f64);

/// In the UI's types: a number.
#[cfg(feature = "ts")]
impl ts_rs::TS for JsNumber {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(_: &ts_rs::Config) -> String {
        "number".to_owned()
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        Self::name(cfg)
    }
}

impl serde::Serialize for JsNumber {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let x = self.0;
        if x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
            s.serialize_i64(x as i64)
        } else if x.is_finite() {
            s.serialize_f64(x)
        } else {
            s.serialize_none()
        }
    }
}

impl std::fmt::Display for JsNumber {
    /// As the JSON output shows it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| std::fmt::Error)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn utf16_lengths() {
        assert_eq!(utf16_len(""), 0);
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("€"), 1);
        assert_eq!(utf16_len("😀"), 2);
        // E16: the two text blocks of u1 are 24 + 22 units.
        assert_eq!(utf16_len("Look at this screenshot "), 24);
        assert_eq!(utf16_len("and fix the 😀 layout."), 22);
    }

    #[test]
    fn raw_literal_lengths() {
        let cases = [
            r#""""#,
            r#""abc""#,
            r#""a\nb\u00e9😀""#,
            r#""\ud83d\ude00""#,
            r#""\\u0041""#,
            r#""\"\\\/\b\f\n\r\t""#,
            r#""é€😀 mixed \u20ac and \\ end\\""#,
        ];
        for raw in cases {
            let decoded: String = serde_json::from_str(raw).unwrap();
            assert_eq!(raw_string_utf16_len(raw), utf16_len(&decoded), "{raw}");
        }
        assert_eq!(raw_string_utf16_len(r#""a\nb\u00e9😀""#), 6);
    }

    // The last two literals are exact ties between two shortest candidates.
    #[allow(clippy::excessive_precision)]
    #[test]
    fn numbers_like_js() {
        let cases: [(f64, &str); 24] = [
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-1.0, "-1"),
            (2.5, "2.5"),
            (0.1, "0.1"),
            (0.1 + 0.2, "0.30000000000000004"),
            (100.0, "100"),
            (123456789.0, "123456789"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (-2.5e-10, "-2.5e-10"),
            (123.456, "123.456"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (9007199254740993.0, "9007199254740992"),
            (1767225601000.0, "1767225601000"),
            (0.000123, "0.000123"),
            (1864184398007684.25, "1864184398007684.2"),
            (84641686528524.125, "84641686528524.12"),
        ];
        for (f, s) in cases {
            assert_eq!(number_to_js_string(f), s, "{f:e}");
        }
        assert_eq!(number_to_js_string(f64::NAN), "NaN");
        assert_eq!(number_to_js_string(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn stringify_like_js() {
        // E01: the arguments of call_1 are 16 units.
        let v = json!({"command": "ls"});
        assert_eq!(stringify(&v), r#"{"command":"ls"}"#);
        assert_eq!(stringify_len(&v), 16);
        // E16's second tool call, nested values and escapes.
        let v: Value = serde_json::from_str(r#"{"LANG":"C","list":[1,2.5,true]}"#).unwrap();
        assert_eq!(stringify(&v), r#"{"LANG":"C","list":[1,2.5,true]}"#);
        let v = json!("grep -n \"flex\" src/*.css");
        assert_eq!(stringify(&v), r#""grep -n \"flex\" src/*.css""#);
    }

    #[test]
    fn stringify_escapes() {
        let s = "q\" b\\ \u{8}\u{c}\n\r\t \u{0}\u{1f}\u{7f} / \u{2028} é😀";
        let expected = "\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0000\\u001f\u{7f} / \u{2028} é😀\"";
        assert_eq!(stringify(&json!(s)), expected);
        assert_eq!(stringify_len(&json!(s)), utf16_len(expected));
    }

    #[test]
    fn stringify_key_order() {
        let v: Value = serde_json::from_str(r#"{"b":1,"10":2,"a":3,"2":4,"01":5,"4294967295":6,"4294967294":7,"-1":8}"#).unwrap();
        assert_eq!(stringify(&v), r#"{"2":4,"10":2,"4294967294":7,"b":1,"a":3,"01":5,"4294967295":6,"-1":8}"#);
        assert_eq!(stringify_len(&v), stringify(&v).len());
    }

    /// JS parses every JSON number to the nearest double; serde_json does so
    /// only with its `float_roundtrip` feature (otherwise the last digit can be
    /// off by one ULP, which changes `JSON.stringify` output and lengths).
    #[test]
    fn parsed_floats_round_trip_like_js() {
        for text in ["92.79438668282403", "27.374195214327358", "3.1089678540002354e+29", "9.266012887206359e+29"] {
            let v: Value = serde_json::from_str(text).unwrap();
            assert_eq!(stringify(&v), text);
        }
    }

    #[test]
    fn stringify_numbers_and_big_integers() {
        let v: Value =
            serde_json::from_str(r#"[-0, -0.0, 1e21, 1E-7, 12345678901234567890, 9007199254740993, -9007199254740993, 1.0]"#).unwrap();
        let s = stringify(&v);
        assert_eq!(s, "[0,0,1e+21,1e-7,12345678901234567000,9007199254740992,-9007199254740992,1]");
        assert_eq!(stringify_len(&v), s.len());
    }

    #[test]
    fn js_sort_order() {
        let mut v = vec!["é", "a", "Z", "\u{FF5E}", "😀", "B"];
        v.sort_by(|a, b| cmp_utf16(a, b));
        assert_eq!(v, ["B", "Z", "a", "é", "😀", "\u{FF5E}"]);
    }

    #[test]
    fn slices_in_utf16_units() {
        assert_eq!(slice_utf16("abcdef", 3), "abc");
        assert_eq!(slice_utf16("abc", 10), "abc");
        assert_eq!(slice_utf16("ab😀c", 4), "ab😀");
        assert_eq!(slice_utf16("ab😀c", 3), "ab\u{FFFD}");
        assert_eq!(slice_utf16("ab😀c", 2), "ab");
        assert_eq!(slice_utf16("é€x", 2), "é€");
        assert_eq!(slice_utf16("x", 0), "");
    }

    #[test]
    fn js_whitespace_and_trim() {
        assert_eq!(js_trim("\u{FEFF} a \u{3000}"), "a");
        assert_eq!(js_trim("\u{85}a\u{85}"), "\u{85}a\u{85}");
        assert_eq!(js_trim_end(" a \t\r"), " a");
        assert_eq!(js_trim_start(" a "), "a ");
    }

    #[test]
    fn js_conversions() {
        assert_eq!(to_js_string(None), "undefined");
        assert_eq!(to_js_string(Some(&json!(null))), "null");
        assert_eq!(to_js_string(Some(&json!(2.50))), "2.5");
        assert_eq!(to_js_string(Some(&json!([1, null, "x", [2, 3]]))), "1,,x,2,3");
        assert_eq!(to_js_string(Some(&json!({"a": 1}))), "[object Object]");
        assert!(!is_truthy(Some(&json!(""))));
        assert!(!is_truthy(Some(&json!(0))));
        assert!(!is_truthy(Some(&json!(-0.0))));
        assert!(is_truthy(Some(&json!([]))));
        assert!(is_truthy(Some(&json!("0"))));
        assert_eq!(to_js_number(Some(&json!(" 12 "))), 12.0);
        assert_eq!(to_js_number(Some(&json!("0x1f"))), 31.0);
        assert_eq!(to_js_number(Some(&json!(""))), 0.0);
        assert!(to_js_number(Some(&json!("12px"))).is_nan());
        assert!(to_js_number(None).is_nan());
    }

    #[test]
    fn to_fixed_like_js() {
        assert_eq!(to_fixed(1.25, 1), "1.3");
        assert_eq!(to_fixed(1.35, 1), "1.4"); // 1.35 is 1.350000000000000088…
        assert_eq!(to_fixed(1.45, 1), "1.4"); // 1.45 is 1.449999999999999955…
        assert_eq!(to_fixed(0.05, 1), "0.1");
        assert_eq!(to_fixed(9.96, 1), "10.0");
        assert_eq!(to_fixed(1536.0 / 1024.0, 1), "1.5");
        assert_eq!(to_fixed(-0.04, 1), "-0.0");
        assert_eq!(to_fixed(2.5, 0), "3");
        assert_eq!(to_fixed(1e21, 1), "1e+21");
    }
}
