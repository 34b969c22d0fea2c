//! Reads string constants out of the pi package's compiled JavaScript
//! (`export const NAME = \`...\`;`), so that pi's prompt texts can be used at
//! run time without being copied into this repository (docs/decisions.md D8).
//!
//! Only what such declarations need is understood: a declaration keyword, the
//! name, `=`, then one or more string or template literals joined by `+`. A
//! template literal may interpolate another constant of the same file by its
//! bare name (`${OTHER}`, as pi 1.6 builds `UPDATE_SUMMARIZATION_PROMPT`);
//! any other `${...}` is an error.
//! Escapes are decoded as JavaScript (strict mode) does, so the result is the
//! exact runtime value: the digests in the spec are taken of that value.

/// Why a constant could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JsLiteralError {
    /// The declaration's value is not a literal (or a `+` chain of literals).
    #[error("`{name}` is not initialised with a string literal (at byte {offset})")]
    NotALiteral {
        /// Constant name.
        name: String,
        /// Byte offset where a literal was expected.
        offset: usize,
    },
    /// A template literal with `${...}` that is not the bare name of another
    /// string constant of the same file: its value depends on run time.
    #[error("`{name}` interpolates `${{...}}` at byte {offset}")]
    Interpolation {
        /// Constant name.
        name: String,
        /// Byte offset of the `${`.
        offset: usize,
    },
    /// The literal never closes.
    #[error("`{name}`: unterminated literal starting at byte {offset}")]
    Unterminated {
        /// Constant name.
        name: String,
        /// Byte offset of the opening quote.
        offset: usize,
    },
    /// An escape sequence that strict-mode JavaScript rejects, or that yields
    /// a lone surrogate (not representable as Rust text).
    #[error("`{name}`: invalid escape `{escape}` at byte {offset}")]
    BadEscape {
        /// Constant name.
        name: String,
        /// Byte offset of the backslash.
        offset: usize,
        /// The offending sequence.
        escape: String,
    },
}

/// The value of the first `const`/`let`/`var` declaration of `name` in
/// `source`, or `None` when there is no such declaration.
pub(crate) fn find_string_constant(source: &str, name: &str) -> Result<Option<String>, JsLiteralError> {
    find_constant(source, name, 0)
}

/// How deep `${NAME}` references are followed (a cycle ends here).
const MAX_REFERENCE_DEPTH: usize = 8;

fn find_constant(source: &str, name: &str, depth: usize) -> Result<Option<String>, JsLiteralError> {
    let Some(value_at) = find_declaration(source, name) else {
        return Ok(None);
    };
    let err_name = || name.to_owned();
    let mut pos = skip_ws(source, value_at);
    let mut units: Vec<u16> = Vec::new();
    loop {
        pos = parse_literal(source, pos, name, depth, &mut units)?;
        let next = skip_ws(source, pos);
        if source[next..].starts_with('+') && !source[next..].starts_with("++") {
            pos = skip_ws(source, next + 1);
        } else {
            break;
        }
    }
    // A `+` chain that continues with a non-literal (`"a" + x`) is caught by
    // parse_literal; anything after the chain other than a terminator means
    // the value is an expression such as `"a".trim()`.
    let end = skip_ws(source, pos);
    match source[end..].chars().next() {
        None | Some(';' | ',' | ')' | '}' | '\n' | '\r') => {}
        Some(_) if source[pos..end].contains('\n') => {}
        Some(_) => return Err(JsLiteralError::NotALiteral { name: err_name(), offset: end }),
    }
    String::from_utf16(&units).map(Some).map_err(|_| JsLiteralError::BadEscape {
        name: err_name(),
        offset: value_at,
        escape: "lone surrogate".into(),
    })
}

/// Byte offset just after `=` of `(const|let|var) name =`.
fn find_declaration(source: &str, name: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut from = 0;
    while let Some(found) = source[from..].find(name) {
        let start = from + found;
        let end = start + name.len();
        from = end;
        if start > 0 && is_ident_byte(bytes[start - 1]) {
            continue;
        }
        if end < bytes.len() && is_ident_byte(bytes[end]) {
            continue;
        }
        let before = source[..start].trim_end();
        let keyword = ["const", "let", "var"].into_iter().find(|k| {
            before.ends_with(k) && {
                let k_start = before.len() - k.len();
                k_start == 0 || !is_ident_byte(bytes[k_start - 1])
            }
        });
        if keyword.is_none() {
            continue;
        }
        let eq = skip_ws(source, end);
        if source[eq..].starts_with('=') && !source[eq..].starts_with("==") && !source[eq..].starts_with("=>") {
            return Some(eq + 1);
        }
    }
    None
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

fn skip_ws(source: &str, mut pos: usize) -> usize {
    let bytes = source.as_bytes();
    while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
        pos += 1;
    }
    pos
}

/// Decodes the literal starting at `start` into `out`; returns the offset
/// after its closing quote.
fn parse_literal(source: &str, start: usize, name: &str, depth: usize, out: &mut Vec<u16>) -> Result<usize, JsLiteralError> {
    let quote = match source[start..].chars().next() {
        Some(q @ ('`' | '"' | '\'')) => q,
        _ => return Err(JsLiteralError::NotALiteral { name: name.to_owned(), offset: start }),
    };
    let unterminated = || JsLiteralError::Unterminated { name: name.to_owned(), offset: start };
    let mut chars = source[start + 1..].char_indices().map(|(i, c)| (start + 1 + i, c)).peekable();
    let mut buf = [0u16; 2];
    while let Some((at, c)) = chars.next() {
        match c {
            c if c == quote => return Ok(at + 1),
            '\\' => decode_escape(&mut chars, source, at, name, out)?,
            '$' if quote == '`' && matches!(chars.peek(), Some((_, '{'))) => {
                let interpolation = || JsLiteralError::Interpolation { name: name.to_owned(), offset: at };
                let (value, end) = interpolated_constant(source, at, depth).ok_or_else(interpolation)?;
                out.extend(value.encode_utf16());
                while chars.next_if(|&(i, _)| i < end).is_some() {}
            }
            // Template literals normalise CR and CRLF to LF; in ordinary
            // string literals a raw line break is a syntax error.
            '\r' | '\n' if quote != '`' => return Err(unterminated()),
            '\r' => {
                if matches!(chars.peek(), Some((_, '\n'))) {
                    chars.next();
                }
                out.push(u16::from(b'\n'));
            }
            c => out.extend_from_slice(c.encode_utf16(&mut buf)),
        }
    }
    Err(unterminated())
}

/// `${NAME}` at `at` where `NAME` is a string constant of `source`: its value
/// and the offset after the `}`.
fn interpolated_constant(source: &str, at: usize, depth: usize) -> Option<(String, usize)> {
    let inner_start = at + 2;
    let close = inner_start + source[inner_start..].find('}')?;
    let ident = source[inner_start..close].trim();
    let valid = !ident.is_empty() && !ident.as_bytes()[0].is_ascii_digit() && ident.bytes().all(is_ident_byte);
    if !valid || depth >= MAX_REFERENCE_DEPTH {
        return None;
    }
    let value = find_constant(source, ident, depth + 1).ok()??;
    Some((value, close + 1))
}

fn decode_escape(
    chars: &mut std::iter::Peekable<impl Iterator<Item = (usize, char)>>,
    source: &str,
    at: usize,
    name: &str,
    out: &mut Vec<u16>,
) -> Result<(), JsLiteralError> {
    let bad = |end: usize| {
        let mut end = end.min(source.len());
        while !source.is_char_boundary(end) {
            end += 1;
        }
        JsLiteralError::BadEscape { name: name.to_owned(), offset: at, escape: source[at..end].to_owned() }
    };
    let Some((i, c)) = chars.next() else {
        return Err(JsLiteralError::Unterminated { name: name.to_owned(), offset: at });
    };
    let simple = match c {
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        'v' => Some('\u{b}'),
        _ => None,
    };
    if let Some(s) = simple {
        out.push(s as u16);
        return Ok(());
    }
    match c {
        '0' if !matches!(chars.peek(), Some((_, '0'..='9'))) => out.push(0),
        // Legacy octal and \8 \9 are syntax errors in modules (strict mode)
        // and in template literals.
        '0'..='9' => return Err(bad(i + 1)),
        // Line continuation: the backslash and the line break vanish.
        '\r' => {
            if matches!(chars.peek(), Some((_, '\n'))) {
                chars.next();
            }
        }
        '\n' | '\u{2028}' | '\u{2029}' => {}
        'x' => {
            let v = take_hex(chars, 2).ok_or_else(|| bad(i + 3))?;
            out.push(v as u16);
        }
        'u' => {
            if matches!(chars.peek(), Some((_, '{'))) {
                chars.next();
                let mut v: u32 = 0;
                let mut digits = 0;
                loop {
                    match chars.next() {
                        Some((_, '}')) if digits > 0 => break,
                        Some((j, d)) => match d.to_digit(16) {
                            Some(d) if v <= 0x10FFFF => {
                                v = v * 16 + d;
                                digits += 1;
                            }
                            _ => return Err(bad(j + d.len_utf8())),
                        },
                        None => return Err(bad(source.len())),
                    }
                }
                match (char::from_u32(v), v) {
                    (Some(c), _) => out.extend_from_slice(c.encode_utf16(&mut [0u16; 2])),
                    // A surrogate code point written as \u{D800}: kept as a
                    // unit so that a following escape can pair with it.
                    (None, 0xD800..=0xDFFF) => out.push(v as u16),
                    (None, _) => return Err(bad(i + 1)),
                }
            } else {
                let v = take_hex(chars, 4).ok_or_else(|| bad(i + 5))?;
                out.push(v as u16);
            }
        }
        other => out.extend_from_slice(other.encode_utf16(&mut [0u16; 2])),
    }
    Ok(())
}

fn take_hex(chars: &mut impl Iterator<Item = (usize, char)>, n: usize) -> Option<u32> {
    let mut v = 0;
    for _ in 0..n {
        v = v * 16 + chars.next()?.1.to_digit(16)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(src: &str, name: &str) -> Option<String> {
        find_string_constant(src, name).unwrap()
    }

    #[test]
    fn template_literal_with_lines() {
        let src = "/** doc */\nexport const A = `one\n\ntwo`;\nexport const B = `x`;\n";
        assert_eq!(get(src, "A").unwrap(), "one\n\ntwo");
        assert_eq!(get(src, "B").unwrap(), "x");
        assert_eq!(get(src, "C"), None);
    }

    #[test]
    fn names_are_matched_whole_and_only_at_declarations() {
        let src = "x = p ? UPDATE_PROMPT : PROMPT;\nconst UPDATE_PROMPT = \"u\";\nlet PROMPT= 'p'\n";
        assert_eq!(get(src, "PROMPT").unwrap(), "p");
        assert_eq!(get(src, "UPDATE_PROMPT").unwrap(), "u");
        assert_eq!(get("const PROMPT_X = 'a';", "PROMPT"), None);
        assert_eq!(get("if (PROMPT == 'a') {}", "PROMPT"), None);
        assert_eq!(get("reconst PROMPT = 'a';", "PROMPT"), None);
    }

    #[test]
    fn escapes_decode_like_javascript() {
        let src = r#"const A = `tick \` dollar \${x} \$ back \\ nl \n tab \t`;
const B = "q \" \' \x41\u0042\u{43} \u{1F600} \uD83D\uDE00 \0 \a";
const C = 'line \
continues';"#;
        assert_eq!(get(src, "A").unwrap(), "tick ` dollar ${x} $ back \\ nl \n tab \t");
        assert_eq!(get(src, "B").unwrap(), "q \" ' ABC \u{1F600} \u{1F600} \0 a");
        assert_eq!(get(src, "C").unwrap(), "line continues");
    }

    #[test]
    fn bare_constant_interpolation_is_resolved() {
        let src = "const I = `rules\n- one`;\nconst P = `New messages.\n\n${I}`;\nconst Q = `<${ P }>` + '!';";
        assert_eq!(get(src, "P").unwrap(), "New messages.\n\nrules\n- one");
        assert_eq!(get(src, "Q").unwrap(), "<New messages.\n\nrules\n- one>!");
    }

    #[test]
    fn crlf_in_template_literals_becomes_lf() {
        assert_eq!(get("const A = `a\r\nb\rc`;\r\n", "A").unwrap(), "a\nb\nc");
    }

    #[test]
    fn plus_chains_are_concatenated() {
        let src = "const A = \"a\" +\n  `b` + 'c';";
        assert_eq!(get(src, "A").unwrap(), "abc");
    }

    #[test]
    fn non_literal_values_fail() {
        let err = |src: &str| find_string_constant(src, "A").unwrap_err();
        assert!(matches!(err("const A = `a${b}`;"), JsLiteralError::Interpolation { offset: 12, .. }));
        assert!(matches!(err("const b = 1;\nconst A = `a${b}`;"), JsLiteralError::Interpolation { .. }));
        assert!(matches!(err("const b = 'x';\nconst A = `a${b + 1}`;"), JsLiteralError::Interpolation { .. }));
        assert!(matches!(err("const A = `a${A}`;"), JsLiteralError::Interpolation { .. }));
        assert!(matches!(err("const A = b;"), JsLiteralError::NotALiteral { .. }));
        assert!(matches!(err("const A = 'a' + b;"), JsLiteralError::NotALiteral { .. }));
        assert!(matches!(err("const A = 'a'.trim();"), JsLiteralError::NotALiteral { .. }));
        assert!(matches!(err("const A = `abc"), JsLiteralError::Unterminated { .. }));
        assert!(matches!(err("const A = 'a\nb';"), JsLiteralError::Unterminated { .. }));
        assert!(matches!(err(r"const A = '\01';"), JsLiteralError::BadEscape { .. }));
        assert!(matches!(err(r"const A = '\xZ1';"), JsLiteralError::BadEscape { .. }));
        assert!(matches!(err(r"const A = '\uD800';"), JsLiteralError::BadEscape { .. }));
        assert!(matches!(err(r"const A = '\u{110000}';"), JsLiteralError::BadEscape { .. }));
    }
}
