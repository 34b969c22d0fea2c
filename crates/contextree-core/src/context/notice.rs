//! The user-message texts of `bashExecution` and `pythonExecution` messages
//! (context.md §2.1), including omp's output notice (`formatOutputNotice`, in
//! omp 13.19's words or omp 18's).
//!
//! Fields are read with JS semantics ([`crate::js`]): the agents test them for
//! truthiness and interpolate them with template literals, so a missing
//! command reads `undefined` and an output of `""` counts as no output.

use serde_json::{Map, Value};

use crate::js::{is_js_line_terminator, is_js_whitespace, is_truthy, push_js_string, to_fixed, to_js_number, to_js_string};

/// Whose words a command's output notice is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoticeWords {
    /// pi: only `[Output truncated. Full output: …]` of a truncated command.
    Pi,
    /// oh-my-pi 13.19's `formatOutputNotice`.
    Omp13,
    /// oh-my-pi 18's, reworded (`RuleSet::words_omp18_output_notices`).
    Omp18,
}

/// omp's notice appended to tool and user-run command output, from the
/// message's `meta` (`{truncation, limits, diagnostics}`, omp 18 also
/// `source`, `artifactError`); empty without one.
pub(crate) fn output_notice(meta: Option<&Value>, words: NoticeWords) -> String {
    if !is_truthy(meta) {
        return String::new();
    }
    let omp18 = words == NoticeWords::Omp18;
    let field = |name: &str| meta.and_then(|m| m.get(name));
    let mut parts: Vec<String> = Vec::new();
    if is_truthy(field("truncation")) {
        parts.push(if omp18 { truncation_notice18(field("truncation"), field("source")) } else { truncation_notice(field("truncation")) });
    }
    if omp18 && is_truthy(field("artifactError")) {
        parts.push(format!("Full output was not saved completely (artifact {} failed)", to_js_string(field("artifactError"))));
    }
    let limits = field("limits");
    let limit = |name: &str| limits.and_then(|l| l.get(name)).filter(|l| is_truthy(Some(l)));
    let limit_notices = [("matchLimit", "matches"), ("resultLimit", "results"), ("headLimit", "results")];
    for (name, noun) in limit_notices {
        if let Some(l) = limit(name) {
            parts.push(format!(
                "{} {noun} limit reached. Use limit={} for more",
                to_js_string(l.get("reached")),
                to_js_string(l.get("suggestion"))
            ));
        }
    }
    if let Some(c) = limit("columnTruncated") {
        if omp18 {
            // `c.unit ?? "chars"`, `c.artifactId != null`.
            let unit = c.get("unit").filter(|u| !u.is_null()).map_or_else(|| "chars".to_owned(), |u| to_js_string(Some(u)));
            let mut notice = format!("Some lines truncated to {} {unit}", to_js_string(c.get("maxColumn")));
            if let Some(id) = c.get("artifactId").filter(|v| !v.is_null()) {
                notice.push_str(&format!(". Read artifact://{} for full output", to_js_string(Some(id))));
            }
            parts.push(notice);
        } else {
            parts.push(format!("Some lines truncated to {} chars", to_js_string(c.get("maxColumn"))));
        }
    }

    let mut notice = String::new();
    if !parts.is_empty() {
        notice = format!("\n\n[{}]", parts.join(". "));
    }
    notice.push_str(&diagnostics_notice(field("diagnostics"), omp18));
    notice
}

/// omp 18's `formatTruncationMetaNotice(truncation, source)`: middle
/// truncation and partial lines have their own wording, the next offset reads
/// `Use :N`, and a report's artifact is named as the report.
fn truncation_notice18(t: Option<&Value>, source: Option<&Value>) -> String {
    let get = |name: &str| t.and_then(|t| t.get(name));
    let present = |name: &str| get(name).filter(|v| !v.is_null());
    let reference = present("artifactId").map(|id| {
        let id = to_js_string(Some(id));
        if source.and_then(|s| s.get("type")).and_then(Value::as_str) == Some("report") {
            format!("Read artifact://{id} for full report ({})", to_js_string(source.and_then(|s| s.get("value"))))
        } else {
            format!("Read artifact://{id} for full output")
        }
    });
    let tail = |mut notice: String, next_offset: bool| {
        if next_offset {
            if let Some(next) = present("nextOffset") {
                notice.push_str(&format!(". Use :{} to continue", to_js_string(Some(next))));
            }
        }
        if let Some(r) = &reference {
            notice.push_str(&format!(". {r}"));
        }
        notice
    };
    let total_lines = get("totalLines");
    if get("direction").and_then(Value::as_str) == Some("middle") {
        let num = |name: &str| to_js_number(get(name));
        // `x ?? Math.max(0, a - b)`
        let or_max = |name: &str, a: &str, b: &str| match present(name) {
            Some(v) => (to_js_number(Some(v)), Some(v.clone())),
            None => (js_max0(num(a) - num(b)), None),
        };
        let (elided_bytes, bytes_raw) = or_max("elidedBytes", "totalBytes", "outputBytes");
        let (elided_lines, lines_raw) = or_max("elidedLines", "totalLines", "outputLines");
        let range = |name: &str, lead: &str| {
            get(name)
                .filter(|r| is_truthy(Some(r)))
                .map(|r| format!("{lead}{}-{}", to_js_string(r.get("start")), to_js_string(r.get("end"))))
        };
        let notice = match (range("headRange", "lines "), range("tailRange", "")) {
            (Some(head), Some(tail_part)) => {
                let lines = lines_raw.as_ref().map_or_else(|| locale_number(elided_lines), locale_value);
                let one = lines_raw.as_ref().map_or(elided_lines == 1.0, |v| v.as_f64() == Some(1.0));
                format!(
                    "Showing {head} and {tail_part} of {}; {lines} middle line{} ({}) elided",
                    to_js_string(total_lines),
                    if one { "" } else { "s" },
                    bytes_of(elided_bytes, bytes_raw.as_ref())
                )
            }
            _ if elided_bytes > 0.0 => {
                let one = total_lines.and_then(Value::as_f64) == Some(1.0);
                format!(
                    "Showing head and tail bytes of {} line{}; {} elided",
                    total_lines.map_or_else(|| "undefined".to_owned(), locale_value),
                    if one { "" } else { "s" },
                    bytes_of(elided_bytes, bytes_raw.as_ref())
                )
            }
            _ => format!(
                "Showing {} of {} lines; middle elided",
                crate::js::number_to_js_string(js_min(num("outputLines"), num("totalLines"))),
                to_js_string(total_lines)
            ),
        };
        return tail(notice, true);
    }
    if is_truthy(get("partialLine")) {
        let line = get("shownRange")
            .and_then(|r| r.get("start"))
            .filter(|v| !v.is_null())
            .map_or_else(|| "1".to_owned(), |v| to_js_string(Some(v)));
        let notice = format!(
            "Showing line {line} (partial, {} of {}) of {}",
            format_bytes(get("outputBytes")),
            format_bytes(get("totalBytes")),
            to_js_string(total_lines)
        );
        return tail(notice, false);
    }
    let range = get("shownRange").filter(|r| is_truthy(Some(r)));
    let mut notice = match range.filter(|r| js_ge(r.get("end"), r.get("start"))) {
        Some(r) => {
            format!("Showing lines {}-{} of {}", to_js_string(r.get("start")), to_js_string(r.get("end")), to_js_string(total_lines))
        }
        None => format!("Showing {} of {} lines", to_js_string(get("outputLines")), to_js_string(total_lines)),
    };
    if get("truncatedBy").and_then(Value::as_str) == Some("bytes") {
        let max_bytes = present("maxBytes").or(get("outputBytes"));
        notice.push_str(&format!(" ({} limit)", format_bytes(max_bytes)));
    }
    tail(notice, true)
}

/// `formatBytes` of a computed number, or of the stored value it came from.
fn bytes_of(n: f64, raw: Option<&Value>) -> String {
    match raw {
        Some(v) => format_bytes(Some(v)),
        None => format_bytes(Some(&crate::js::json_number(n))),
    }
}

/// JS `Math.max(0, x)` (NaN stays NaN).
fn js_max0(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else {
        x.max(0.0)
    }
}

/// JS `Math.min(a, b)` (NaN wins).
fn js_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// `value.toLocaleString()` in Bun's default `en-US`: a number grouped by
/// thousands with at most three decimals; anything else as its string.
fn locale_value(v: &Value) -> String {
    match v {
        Value::Number(n) => locale_number(n.as_f64().unwrap_or(f64::NAN)),
        other => to_js_string(Some(other)),
    }
}

fn locale_number(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "∞".into()
        } else {
            "-∞".into()
        };
    }
    let fixed = to_fixed(x.abs(), 3);
    let (int, frac) = fixed.split_once('.').unwrap_or((&fixed, ""));
    let frac = frac.trim_end_matches('0');
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if x < 0.0 && (int != "0" || !frac.is_empty()) { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}.{frac}")
    }
}

/// `Showing lines A-B of N` / `Showing K of N lines`, then the byte limit, the
/// next offset and the artifact reference when present.
fn truncation_notice(t: Option<&Value>) -> String {
    let get = |name: &str| t.and_then(|t| t.get(name));
    let range = get("shownRange").filter(|r| is_truthy(Some(r)));
    let shown_range = range.filter(|r| js_ge(r.get("end"), r.get("start")));
    let mut notice = match shown_range {
        Some(r) => {
            format!("Showing lines {}-{} of {}", to_js_string(r.get("start")), to_js_string(r.get("end")), to_js_string(get("totalLines")))
        }
        None => format!("Showing {} of {} lines", to_js_string(get("outputLines")), to_js_string(get("totalLines"))),
    };
    if get("truncatedBy").and_then(Value::as_str) == Some("bytes") {
        let max_bytes = get("maxBytes").filter(|v| !v.is_null()).or(get("outputBytes"));
        notice.push_str(&format!(" ({} limit)", format_bytes(max_bytes)));
    }
    if let Some(next) = get("nextOffset").filter(|v| !v.is_null()) {
        notice.push_str(&format!(". Use offset={} to continue", to_js_string(Some(next))));
    }
    if let Some(id) = get("artifactId").filter(|v| !v.is_null()) {
        notice.push_str(&format!(". Read artifact://{} for full output", to_js_string(Some(id))));
    }
    notice
}

/// JS `a >= b` for the range bounds: strings compare as strings, anything
/// else as numbers (NaN is never `>=`).
fn js_ge(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(Value::String(a)), Some(Value::String(b))) => crate::js::cmp_utf16(a, b) != std::cmp::Ordering::Less,
        _ => to_js_number(a) >= to_js_number(b),
    }
}

/// omp's `formatBytes`: `123B`, `1.5KB`, `2.0MB`, `1.0GB` (binary units, one
/// decimal with JS `toFixed` rounding).
fn format_bytes(bytes: Option<&Value>) -> String {
    let n = to_js_number(bytes);
    const KB: f64 = 1024.0;
    if n < KB {
        format!("{}B", to_js_string(bytes))
    } else if n < KB * KB {
        format!("{}KB", to_fixed(n / KB, 1))
    } else if n < KB * KB * KB {
        format!("{}MB", to_fixed(n / (KB * KB), 1))
    } else {
        // Also reached by NaN, as in omp (`NaNGB`).
        format!("{}GB", to_fixed(n / (KB * KB * KB), 1))
    }
}

/// `\n\nLSP Diagnostics (<summary>):\n<messages grouped by file>` when the
/// diagnostics carry messages.
fn diagnostics_notice(d: Option<&Value>, omp18: bool) -> String {
    if !is_truthy(d) {
        return String::new();
    }
    let Some(messages) = d.and_then(|d| d.get("messages")).and_then(Value::as_array) else {
        return String::new();
    };
    if messages.is_empty() {
        return String::new();
    }
    let messages: Vec<String> = messages.iter().map(|m| to_js_string(Some(m))).collect();
    format!("\n\nLSP Diagnostics ({}):\n{}", to_js_string(d.and_then(|d| d.get("summary"))), group_diagnostics(&messages, omp18))
}

/// A file path and the rest (`line:col …`) of each of its messages.
type FileDiagnostics<'a> = (String, Vec<&'a str>);

/// omp's `formatGroupedDiagnosticMessages`: `path:line:col …` messages grouped
/// by file in first-seen order, each file's messages indented under it; other
/// messages last, after a blank line. The files are laid out as omp 13 does
/// ([`dir_headings`]) or as omp 18 does ([`folded_tree`]).
fn group_diagnostics(messages: &[String], omp18: bool) -> String {
    let mut by_file: Vec<FileDiagnostics> = Vec::new();
    let mut ungrouped: Vec<&str> = Vec::new();
    for msg in messages {
        let Some((path, rest)) = split_diagnostic(msg) else {
            ungrouped.push(msg);
            continue;
        };
        let path = path.replace('\\', "/");
        match by_file.iter_mut().find(|(p, _)| *p == path) {
            Some((_, rests)) => rests.push(rest),
            None => by_file.push((path, vec![rest])),
        }
    }
    if by_file.is_empty() {
        return ungrouped.join("\n");
    }
    let mut lines = if omp18 { folded_tree(&by_file) } else { dir_headings(&by_file) };
    if !ungrouped.is_empty() {
        lines.push(String::new());
        lines.extend(ungrouped.iter().map(|m| (*m).to_owned()));
    }
    lines.join("\n")
}

/// omp 13.19: `# dir` / `## └─ file` headings (files of `.` directly under
/// `# file`), a blank line between groups.
fn dir_headings(by_file: &[FileDiagnostics]) -> Vec<String> {
    let mut by_dir: Vec<(String, Vec<&FileDiagnostics>)> = Vec::new();
    for file in by_file {
        let dir = posix_dirname(&file.0).replace('\\', "/");
        match by_dir.iter_mut().find(|(d, _)| *d == dir) {
            Some((_, files)) => files.push(file),
            None => by_dir.push((dir, vec![file])),
        }
    }

    let mut lines: Vec<String> = Vec::new();
    for (dir, files) in &by_dir {
        let top_level = dir == ".";
        if !top_level {
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(format!("# {dir}"));
        }
        for (path, rests) in files {
            if top_level {
                if !lines.is_empty() {
                    lines.push(String::new());
                }
                lines.push(format!("# {}", posix_basename(path)));
            } else {
                lines.push(format!("## └─ {}", posix_basename(path)));
            }
            lines.extend(rests.iter().map(|r| format!("  {r}")));
        }
    }
    lines
}

/// omp 18 (`formatGroupedFiles`): the files' prefix-folded tree
/// ([`crate::path_tree`]), `#` × (depth + 1) before a folded directory
/// (`dir/`) or a file, a blank line before every directory and every
/// top-level file but the first.
fn folded_tree(by_file: &[FileDiagnostics]) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for step in crate::path_tree::walk(by_file.iter().map(|(p, _)| (p.as_str(), p.as_str()))) {
        if !lines.is_empty() && (step.depth == 0 || step.is_dir) {
            lines.push(String::new());
        }
        let hashes = "#".repeat(step.depth + 1);
        if step.is_dir {
            lines.push(format!("{hashes} {}/", step.name));
            continue;
        }
        lines.push(format!("{hashes} {}", step.name));
        if let Some((_, rests)) = by_file.iter().find(|(p, _)| p == step.key) {
            lines.extend(rests.iter().map(|r| format!("  {r}")));
        }
    }
    lines
}

/// `/^(.+?):(\d+:\d+\s+.*)$/` → (path, rest).
fn split_diagnostic(msg: &str) -> Option<(&str, &str)> {
    for (i, c) in msg.char_indices() {
        if is_js_line_terminator(c) {
            return None;
        }
        if c == ':' && i > 0 && is_line_col_rest(&msg[i + 1..]) {
            return Some((&msg[..i], &msg[i + 1..]));
        }
    }
    None
}

/// `\d+:\d+\s+.*$`: digits, colon, digits, whitespace, then no line
/// terminator after the whitespace run.
fn is_line_col_rest(s: &str) -> bool {
    let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let n = digits(s);
    if n == 0 || !s[n..].starts_with(':') {
        return false;
    }
    let s = &s[n + 1..];
    let m = digits(s);
    let s = &s[m..];
    let tail = s.trim_start_matches(is_js_whitespace);
    m > 0 && tail.len() < s.len() && !tail.chars().any(is_js_line_terminator)
}

/// Node's `path.posix.dirname`.
fn posix_dirname(path: &str) -> &str {
    let bytes = path.as_bytes();
    if bytes.is_empty() {
        return ".";
    }
    let has_root = bytes[0] == b'/';
    let mut matched_slash = true;
    let mut end = None;
    for i in (1..bytes.len()).rev() {
        if bytes[i] == b'/' {
            if !matched_slash {
                end = Some(i);
                break;
            }
        } else {
            matched_slash = false;
        }
    }
    match end {
        None if has_root => "/",
        None => ".",
        Some(1) if has_root => "//",
        Some(end) => &path[..end],
    }
}

/// Node's `path.posix.basename` (no extension argument).
fn posix_basename(path: &str) -> &str {
    let bytes = path.as_bytes();
    let mut start = 0;
    let mut end = None;
    for i in (0..bytes.len()).rev() {
        if bytes[i] == b'/' {
            if end.is_some() {
                start = i + 1;
                break;
            }
        } else if end.is_none() {
            end = Some(i + 1);
        }
    }
    end.map_or("", |end| &path[start..end])
}

/// The text a `bashExecution` message becomes in the context.
pub(crate) fn bash_text(msg: &Map<String, Value>, words: NoticeWords) -> String {
    let mut text = String::from("Ran `");
    push_js_string(msg.get("command"), &mut text);
    text.push_str("`\n");
    push_output(msg, "```\n", &mut text);
    if is_truthy(msg.get("cancelled")) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = failed_exit_code(msg) {
        text.push_str("\n\nCommand exited with code ");
        push_js_string(Some(code), &mut text);
    }
    if words == NoticeWords::Pi {
        if is_truthy(msg.get("truncated")) && is_truthy(msg.get("fullOutputPath")) {
            text.push_str("\n\n[Output truncated. Full output: ");
            push_js_string(msg.get("fullOutputPath"), &mut text);
            text.push(']');
        }
    } else {
        text.push_str(&output_notice(msg.get("meta"), words));
    }
    text
}

/// The text an omp `pythonExecution` message becomes in the context.
pub(crate) fn python_text(msg: &Map<String, Value>, words: NoticeWords) -> String {
    let mut text = String::from("Ran Python:\n```python\n");
    push_js_string(msg.get("code"), &mut text);
    text.push_str("\n```\n");
    push_output(msg, "Output:\n```\n", &mut text);
    if is_truthy(msg.get("cancelled")) {
        text.push_str("\n\n(execution cancelled)");
    } else if let Some(code) = failed_exit_code(msg) {
        text.push_str("\n\nExecution failed with code ");
        push_js_string(Some(code), &mut text);
    }
    text.push_str(&output_notice(msg.get("meta"), words));
    text
}

/// `opening + output + "\n```"`, or `(no output)` for a falsy output.
fn push_output(msg: &Map<String, Value>, opening: &str, text: &mut String) {
    let output = msg.get("output");
    if is_truthy(output) {
        text.push_str(opening);
        push_js_string(output, text);
        text.push_str("\n```");
    } else {
        text.push_str("(no output)");
    }
}

/// The exit code when it is set and not (strictly) the number 0.
fn failed_exit_code(msg: &Map<String, Value>) -> Option<&Value> {
    msg.get("exitCode").filter(|code| match code {
        Value::Null => false,
        Value::Number(n) => n.as_f64() != Some(0.0),
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn bash_texts() {
        let m = obj(json!({"command": "npm test", "output": "1 failing", "exitCode": 1, "cancelled": false}));
        let expected = "Ran `npm test`\n```\n1 failing\n```\n\nCommand exited with code 1";
        assert_eq!(bash_text(&m, NoticeWords::Pi), expected);
        assert_eq!(bash_text(&m, NoticeWords::Omp13), expected);
        let m = obj(json!({"command": "sleep 100", "output": "", "exitCode": null, "cancelled": true}));
        assert_eq!(bash_text(&m, NoticeWords::Pi), "Ran `sleep 100`\n(no output)\n\n(command cancelled)");
    }

    #[test]
    fn pi_full_output_path_omp_meta() {
        let m = obj(json!({
            "command": "x", "output": "y", "exitCode": 0, "truncated": true,
            "fullOutputPath": "/tmp/out.log",
            "meta": {"truncation": {"truncatedBy": "lines", "totalLines": 10, "outputLines": 2,
                                    "shownRange": {"start": 9, "end": 10}}}
        }));
        assert_eq!(bash_text(&m, NoticeWords::Pi), "Ran `x`\n```\ny\n```\n\n[Output truncated. Full output: /tmp/out.log]");
        assert_eq!(bash_text(&m, NoticeWords::Omp13), "Ran `x`\n```\ny\n```\n\n[Showing lines 9-10 of 10]");
    }

    #[test]
    fn python_texts() {
        let m = obj(json!({"code": "print(1)", "output": "1", "exitCode": 2}));
        assert_eq!(
            python_text(&m, NoticeWords::Omp13),
            "Ran Python:\n```python\nprint(1)\n```\nOutput:\n```\n1\n```\n\nExecution failed with code 2"
        );
        let m = obj(json!({"code": "x", "output": "", "cancelled": true, "exitCode": 1}));
        assert_eq!(python_text(&m, NoticeWords::Omp13), "Ran Python:\n```python\nx\n```\n(no output)\n\n(execution cancelled)");
    }

    #[test]
    fn notices() {
        assert_eq!(output_notice(None, NoticeWords::Omp13), "");
        assert_eq!(output_notice(Some(&json!({})), NoticeWords::Omp13), "");
        let meta = json!({
            "truncation": {"truncatedBy": "bytes", "totalLines": 500, "outputLines": 120, "outputBytes": 51200,
                           "shownRange": {"start": 1, "end": 120}, "nextOffset": 121, "artifactId": "a7"},
            "limits": {"matchLimit": {"reached": 100, "suggestion": 200}, "resultLimit": {"reached": 5, "suggestion": 10},
                       "headLimit": {"reached": 7, "suggestion": 14}, "columnTruncated": {"maxColumn": 300}}
        });
        assert_eq!(
            output_notice(Some(&meta), NoticeWords::Omp13),
            "\n\n[Showing lines 1-120 of 500 (50.0KB limit). Use offset=121 to continue. Read artifact://a7 for full output. \
             100 matches limit reached. Use limit=200 for more. 5 results limit reached. Use limit=10 for more. \
             7 results limit reached. Use limit=14 for more. Some lines truncated to 300 chars]"
        );
        let meta = json!({"truncation": {"truncatedBy": "bytes", "totalLines": 9, "outputLines": 3, "maxBytes": 1280,
                                         "shownRange": {"start": 5, "end": 4}}});
        assert_eq!(output_notice(Some(&meta), NoticeWords::Omp13), "\n\n[Showing 3 of 9 lines (1.3KB limit)]");
    }

    #[test]
    fn omp18_notices() {
        let n = |meta: Value| output_notice(Some(&meta), NoticeWords::Omp18);
        // The plain case: `Use :N`, the report source, an artifact error, column units.
        let meta = json!({
            "truncation": {"truncatedBy": "bytes", "totalLines": 500, "outputLines": 120, "outputBytes": 51200,
                           "shownRange": {"start": 1, "end": 120}, "nextOffset": 121, "artifactId": "a7"},
            "source": {"type": "report", "value": "r.md"}, "artifactError": "write",
            "limits": {"columnTruncated": {"maxColumn": 300, "unit": "bytes", "artifactId": "c1"}}
        });
        assert_eq!(
            n(meta),
            "\n\n[Showing lines 1-120 of 500 (50.0KB limit). Use :121 to continue. Read artifact://a7 for full report (r.md). \
             Full output was not saved completely (artifact write failed). Some lines truncated to 300 bytes. Read artifact://c1 for full output]"
        );
        assert_eq!(n(json!({"limits": {"columnTruncated": {"maxColumn": 9, "unit": null}}})), "\n\n[Some lines truncated to 9 chars]");
        // Middle truncation: head and tail ranges, computed elisions, locale grouping.
        let meta = json!({"truncation": {"direction": "middle", "totalLines": 20000, "outputLines": 400, "totalBytes": 3_000_000,
                                         "outputBytes": 50_000, "headRange": {"start": 1, "end": 200},
                                         "tailRange": {"start": 19801, "end": 20000}, "nextOffset": 201, "artifactId": "m"}});
        assert_eq!(n(meta), "\n\n[Showing lines 1-200 and 19801-20000 of 20000; 19,600 middle lines (2.8MB) elided. Use :201 to continue. Read artifact://m for full output]");
        let meta = json!({"truncation": {"direction": "middle", "totalLines": 1, "outputLines": 1, "totalBytes": 9000, "outputBytes": 1000, "elidedLines": 1}});
        assert_eq!(n(meta), "\n\n[Showing head and tail bytes of 1 line; 7.8KB elided]");
        let meta = json!({"truncation": {"direction": "middle", "totalLines": 12, "outputLines": 30, "totalBytes": 10, "outputBytes": 10}});
        assert_eq!(n(meta), "\n\n[Showing 12 of 12 lines; middle elided]");
        // A partial line: its start, the bytes shown of the whole; no next offset.
        let meta = json!({"truncation": {"partialLine": true, "totalLines": 3, "outputBytes": 2048, "totalBytes": 4096,
                                         "shownRange": {"start": 2, "end": 2}, "nextOffset": 3, "artifactId": "p"}});
        assert_eq!(n(meta), "\n\n[Showing line 2 (partial, 2.0KB of 4.0KB) of 3. Read artifact://p for full output]");
        assert_eq!(locale_number(1234567.0), "1,234,567");
        assert_eq!(locale_number(-1234.5678), "-1,234.568");
        assert_eq!(locale_number(0.0), "0");
    }

    #[test]
    fn omp18_diagnostics_are_a_folded_tree() {
        let meta = json!({"diagnostics": {"summary": "3 issues", "messages": [
            "src/a/x.rs:1:2 [error] bad", "main.rs:3:4 [error] worse", "src/a/x.rs:5:6 [warning] meh",
            "src/b/y.rs:7:8 [info] x", "no location"
        ]}});
        assert_eq!(
            output_notice(Some(&meta), NoticeWords::Omp18),
            "\n\nLSP Diagnostics (3 issues):\n# main.rs\n  3:4 [error] worse\n\n# src/\n\n## a/\n### x.rs\n  1:2 [error] bad\n  5:6 [warning] meh\n\n\
             ## b/\n### y.rs\n  7:8 [info] x\n\nno location"
        );
    }

    #[test]
    fn byte_sizes() {
        let f = |n: Value| format_bytes(Some(&n));
        assert_eq!(f(json!(1023)), "1023B");
        assert_eq!(f(json!(1536)), "1.5KB");
        assert_eq!(f(json!(2 * 1024 * 1024)), "2.0MB");
        assert_eq!(f(json!(1u64 << 30)), "1.0GB");
        assert_eq!(format_bytes(None), "NaNGB");
    }

    #[test]
    fn diagnostics_grouping() {
        let meta = json!({"diagnostics": {"summary": "2 error(s)", "messages": [
            "src/a.rs:1:2 [error] bad", "main.rs:3:4 [error] worse", "src/a.rs:5:6 [warning] meh",
            "lib\\b.rs:7:8 [info] x", "no location"
        ]}});
        assert_eq!(
            output_notice(Some(&meta), NoticeWords::Omp13),
            "\n\nLSP Diagnostics (2 error(s)):\n# src\n## └─ a.rs\n  1:2 [error] bad\n  5:6 [warning] meh\n\n\
             # main.rs\n  3:4 [error] worse\n\n# lib\n## └─ b.rs\n  7:8 [info] x\n\nno location"
        );
        let meta = json!({"diagnostics": {"summary": "s", "messages": ["plain", "also plain"]}});
        assert_eq!(output_notice(Some(&meta), NoticeWords::Omp13), "\n\nLSP Diagnostics (s):\nplain\nalso plain");
    }

    #[test]
    fn posix_paths() {
        assert_eq!(posix_dirname("a/b/c.rs"), "a/b");
        assert_eq!(posix_dirname("c.rs"), ".");
        assert_eq!(posix_dirname("/c.rs"), "/");
        assert_eq!(posix_dirname("a/b/"), "a");
        assert_eq!(posix_basename("a/b/c.rs"), "c.rs");
        assert_eq!(posix_basename("a/b/"), "b");
        assert_eq!(posix_basename(""), "");
    }
}
