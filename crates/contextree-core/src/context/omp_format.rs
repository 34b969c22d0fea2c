//! omp's post-render prompt formatter (context.md §2.4; omp 13.19
//! `formatPromptContent` with `renderPhase: "post-render"` and no symbol or
//! keyword rewriting).
//!
//! omp runs it over every rendered prompt template, including the summary text
//! inserted into the context templates, so the summary the model sees is not
//! the stored one: trailing spaces go, blank-line runs collapse, blank lines
//! before list items and around XML-like tag lines disappear, and table rows
//! are compacted — except inside code fences, and everything after an
//! unbalanced fence counts as inside one.
//!
//! Whitespace means JS whitespace ([`crate::js::is_js_whitespace`]), which is
//! what `trim()` and regex `\s` use there.

use crate::js::{is_js_line_terminator, is_js_whitespace, js_trim, js_trim_end, js_trim_start};

/// Applies omp's post-render formatter to a whole rendered template.
pub(crate) fn format(rendered: &str) -> String {
    let lines: Vec<&str> = rendered.split('\n').collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut in_code_block = false;

    for (i, raw) in lines.iter().enumerate() {
        let line = js_trim_end(raw);
        let text = js_trim_start(line);
        if text.starts_with("```") {
            in_code_block = !in_code_block;
            out.push(line.to_owned());
            continue;
        }
        if in_code_block {
            out.push(line.to_owned());
            continue;
        }

        if text.is_empty() {
            let next = lines.get(i + 1).map_or("", |l| js_trim(l));
            if drop_blank_line(out.last().map_or("", |l| js_trim(l)), next) {
                continue;
            }
        } else if is_closing_xml(text) {
            pop_trailing_blank_lines(&mut out);
        }
        out.push(rewrite_table_line(line, text));
    }

    pop_trailing_blank_lines(&mut out);
    out.join("\n")
}

/// oh-my-pi 18's post-render formatter (`pi-utils` `prompt.format`,
/// `renderPhase: "post-render"`, no symbol or keyword rewriting; used by
/// `prompt.render` in agent core 18.2.3). Against 13.19: `~~~` fences count
/// too, a blank line stays unless it is the start of a run of blank lines (a
/// run is dropped whole, with the blank lines before it) or the first line;
/// lists and opening tags no longer pull lines up; closing-tag lines still
/// drop the blank lines before them; table rows are compacted as before.
pub(crate) fn format18(rendered: &str) -> String {
    let lines: Vec<&str> = rendered.split('\n').collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut in_code_block = false;
    let blank = |l: &str| js_trim(l).is_empty();
    let mut i = 0;
    while i < lines.len() {
        let line = js_trim_end(lines[i]);
        // The indent: spaces and tabs, or all JS whitespace when the first
        // other character is not ASCII (as omp measures it).
        let spaces = line.len() - line.trim_start_matches([' ', '\t']).len();
        let s = match line[spaces..].chars().next() {
            Some(c) if !c.is_ascii() => line.len() - js_trim_start(line).len(),
            _ => spaces,
        };
        let text = &line[s..];
        if text.starts_with("```") || text.starts_with("~~~") {
            in_code_block = !in_code_block;
            out.push(line.to_owned());
            i += 1;
            continue;
        }
        if in_code_block {
            out.push(line.to_owned());
            i += 1;
            continue;
        }
        let closing =
            text.starts_with("</") && text.len() >= 4 && text.ends_with('>') && text[2..text.len() - 1].chars().all(is_tag_name_char);
        let line = if text.starts_with('|') && is_table_separator(text) {
            format!("{}{}", &line[..s], compact_table_separator(text))
        } else if text.starts_with('|') && is_table_row(text) {
            format!("{}{}", &line[..s], compact_table_row(text))
        } else {
            line.to_owned()
        };
        if line.is_empty() {
            let next = lines.get(i + 1);
            if next.is_none_or(|n| blank(n)) {
                pop_empty(&mut out);
                while lines.get(i + 1).is_some_and(|n| blank(n)) {
                    i += 1;
                }
                i += 1;
                continue;
            }
            if out.last().is_none_or(String::is_empty) {
                i += 1;
                continue;
            }
        }
        if closing {
            pop_empty(&mut out);
        }
        out.push(line);
        i += 1;
    }
    pop_empty(&mut out);
    out.join("\n")
}

fn pop_empty(out: &mut Vec<String>) {
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
}

/// The blank-line rules, given the previous *output* line and the next
/// *input* line, both trimmed.
fn drop_blank_line(prev: &str, next: &str) -> bool {
    is_list_item(next) || is_opening_xml(prev) || is_closing_xml(next) || prev.is_empty()
}

fn pop_trailing_blank_lines(out: &mut Vec<String>) {
    while out.last().is_some_and(|l| js_trim(l).is_empty()) {
        out.pop();
    }
}

/// Table separator rows and table rows are compacted (indentation kept);
/// closing-tag lines are never rewritten. `text` is `line` without its
/// leading whitespace.
fn rewrite_table_line(line: &str, text: &str) -> String {
    let indent = &line[..line.len() - text.len()];
    if is_closing_xml(text) {
        line.to_owned()
    } else if is_table_separator(text) {
        format!("{indent}{}", compact_table_separator(text))
    } else if is_table_row(text) {
        format!("{indent}{}", compact_table_row(text))
    } else {
        line.to_owned()
    }
}

/// `/^\|[-:\s|]+\|$/`
fn is_table_separator(t: &str) -> bool {
    t.len() >= 3
        && t.starts_with('|')
        && t.ends_with('|')
        && t[1..t.len() - 1].chars().all(|c| matches!(c, '-' | ':' | '|') || is_js_whitespace(c))
}

/// `/^\|.*\|$/` (`.` stops at line terminators such as a stray `\r`).
fn is_table_row(t: &str) -> bool {
    t.len() >= 2 && t.starts_with('|') && t.ends_with('|') && !t.chars().any(is_js_line_terminator)
}

/// Each non-blank cell becomes `---`, `:---`, `---:` or `:---:`.
fn compact_table_separator(t: &str) -> String {
    let cells: Vec<&str> = t
        .split('|')
        .map(js_trim)
        .filter(|c| !c.is_empty())
        .map(|c| match (c.starts_with(':'), c.ends_with(':')) {
            (true, true) => ":---:",
            (true, false) => ":---",
            (false, true) => "---:",
            (false, false) => "---",
        })
        .collect();
    format!("|{}|", cells.join("|"))
}

fn compact_table_row(t: &str) -> String {
    t.split('|').map(js_trim).collect::<Vec<_>>().join("|")
}

/// `/^(?:[-*]\s|\d+\.\s)/`
fn is_list_item(t: &str) -> bool {
    let rest = match t.as_bytes().first() {
        Some(b'-' | b'*') => &t[1..],
        Some(b'0'..=b'9') => {
            let after_digits = t.trim_start_matches(|c: char| c.is_ascii_digit());
            match after_digits.strip_prefix('.') {
                Some(rest) => rest,
                None => return false,
            }
        }
        _ => return false,
    };
    rest.chars().next().is_some_and(is_js_whitespace)
}

/// `/^<([a-z_-]+)(?:\s+[^>]*)?>$/` — also true for `<br />`-like lines, as in omp.
fn is_opening_xml(t: &str) -> bool {
    let Some(inner) = t.strip_prefix('<').and_then(|r| r.strip_suffix('>')) else {
        return false;
    };
    let name_end = inner.find(|c: char| !is_tag_name_char(c)).unwrap_or(inner.len());
    if name_end == 0 {
        return false;
    }
    let attrs = &inner[name_end..];
    attrs.is_empty() || (attrs.starts_with(is_js_whitespace) && !attrs.contains('>'))
}

/// `/^<\/([a-z_-]+)>$/`
fn is_closing_xml(t: &str) -> bool {
    t.strip_prefix("</").and_then(|r| r.strip_suffix('>')).is_some_and(|name| !name.is_empty() && name.chars().all(is_tag_name_char))
}

fn is_tag_name_char(c: char) -> bool {
    c.is_ascii_lowercase() || c == '_' || c == '-'
}

#[cfg(test)]
mod tests {
    use super::format;

    /// Same skeleton as omp 13.19's context templates (verified against the
    /// oracle): a lead paragraph, a blank line, `<summary>`, the placeholder on
    /// its own line, `</summary>`, and a final newline. The wording is ours.
    const TEMPLATE: &str = "Earlier work, condensed:\n\n<summary>\n{{summary}}\n</summary>\n";

    fn wrap(summary: &str) -> String {
        format(&TEMPLATE.replace("{{summary}}", summary))
    }

    const LEAD: &str = "Earlier work, condensed:\n\n<summary>\n";

    #[test]
    fn spec_example() {
        assert_eq!(format("A\n\n- b\n\n\n| x |  y |\nend   "), "A\n- b\n\n|x|y|\nend");
        assert_eq!(wrap("A\n\n- b\n\n\n| x |  y |\nend   "), format!("{LEAD}A\n- b\n\n|x|y|\nend\n</summary>"));
    }

    #[test]
    fn template_edges_lose_blank_lines_and_final_newline() {
        assert_eq!(wrap(""), format!("{LEAD}</summary>"));
        assert_eq!(wrap("\n\nx\n\n\n"), format!("{LEAD}x\n</summary>"));
        assert_eq!(wrap("x\n"), format!("{LEAD}x\n</summary>"));
    }

    #[test]
    fn lists_of_every_kind_pull_up() {
        assert_eq!(format("a\n\n- x\n\n* y\n\n12. z\n\n-no\n\n1.no"), "a\n- x\n* y\n12. z\n\n-no\n\n1.no");
        assert_eq!(format("a\n\n  - nested\n\n\t1.\tx"), "a\n  - nested\n\t1.\tx");
        // Only the blank line right before the item goes: of a run of two, the
        // first is kept (its next line is blank, not an item).
        assert_eq!(format("a\n\n\n- x"), "a\n\n- x");
    }

    #[test]
    fn tables_are_compacted_keeping_indentation() {
        assert_eq!(format("| a |  b |\n|---| :--: |\n| :- | -: |"), "|a|b|\n|---|:---:|\n|:---|---:|");
        assert_eq!(format("  | x | y |  "), "  |x|y|");
        assert_eq!(format("|  ---  |\n||\n|||\n| |"), "|---|\n||\n||\n||");
        // Not rows: no closing bar, or a carriage return inside.
        assert_eq!(format("| a | b\n| a \r b |"), "| a | b\n| a \r b |");
    }

    #[test]
    fn code_fences_protect_their_content() {
        assert_eq!(format("```\n| a |  b |\n\n\n- x  \n```\n\n- y"), "```\n| a |  b |\n\n\n- x\n```\n- y");
        // An unbalanced fence leaves the rest unformatted (only right-trimmed),
        // including the template's closing tag and the blank lines before it.
        assert_eq!(wrap("```js\n\n\n| a |\n\n"), format!("{LEAD}```js\n\n\n| a |\n\n\n</summary>"));
    }

    #[test]
    fn xml_tag_lines() {
        assert_eq!(format("<files>\n\nx\n\n</files>\n\n<br />\n\ny"), "<files>\nx\n</files>\n\n<br />\ny");
        assert_eq!(format("<a-b_c x=\"1\">\n\nx"), "<a-b_c x=\"1\">\nx");
        // Upper case or spaced tags are not tags here.
        assert_eq!(format("<Tag>\n\nx\n\n</tag >"), "<Tag>\n\nx\n\n</tag >");
    }

    #[test]
    fn js_whitespace_rules() {
        // U+3000 and U+FEFF are whitespace to JS, U+0085 is not.
        assert_eq!(format("a\u{3000}\n\u{FEFF}\n\u{FEFF}\nb"), "a\n\nb");
        assert_eq!(format("a\u{85}\n\u{85}"), "a\u{85}\n\u{85}");
        assert_eq!(format("a\r\n\r\nb\r"), "a\n\nb");
    }
}
