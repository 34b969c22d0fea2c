use super::*;

/// E16 (examples.md), with the 2000-character tool result shortened, plus more turns.
const CONVERSATION: &str = r#"[User]: The conversation history before this point was compacted into the following summary:

<summary>
## Goal
Old goal.
</summary>

[User]: Look at this screenshot and fix the 😀 layout.

[Assistant thinking]: Plan: read CSS.
Then edit.

[Assistant]: Reading styles.
One moment.

[Assistant tool calls]: read(path="src/app.css", offset=10, limit=null); bash(command="grep -n \"flex\" src/*.css", env={"LANG":"C","list":[1,2.5,true]})

[Tool result]: aaaa

[... 5 more characters truncated]

[User]: Ran `npm test`
```
1 failing
```

Command exited with code 1

[User]: Why does the header wrap?
Also keep the footer.

[Assistant tool calls]: edit(path="src/app.css", oldText="a; b", newText="c"); write(path="src/new.css", content="x"); read(path="README.md"); read(path="src/new.css")

[Tool result]: [User]: this is tool output, not a user turn

[Assistant]: Fixed.

[User]: Can you also check the footer?"#;

#[test]
fn parts_split_only_at_known_prefixes_after_a_blank_line() {
    let kinds: Vec<PartKind> = parts(CONVERSATION).into_iter().map(|(kind, _)| kind).collect();
    use PartKind::*;
    assert_eq!(kinds, [User, User, Thinking, Assistant, ToolCalls, ToolResult, User, User, ToolCalls, ToolResult, Assistant, User]);
    // Blank lines inside a message stay inside it.
    assert_eq!(parts(CONVERSATION)[5].1, "aaaa\n\n[... 5 more characters truncated]");
}

#[test]
fn tool_calls_are_read_back_with_their_json_arguments() {
    let calls = parse_tool_calls(
        r#"read(path="src/app.css", offset=10, limit=null); bash(command="a; b(c)", env={"k":[1,")"]}); noop(); odd(x=undefined, path="p")"#,
    );
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["read", "bash", "noop", "odd"]);
    assert_eq!(calls[0].args[1], ("offset".to_owned(), serde_json::json!(10)));
    assert_eq!(calls[0].args[2], ("limit".to_owned(), serde_json::Value::Null));
    assert_eq!(calls[1].arg_str("command"), Some("a; b(c)"));
    assert_eq!(calls[3].arg_str("path"), Some("p"));
}

#[test]
fn the_offline_summary_quotes_goal_files_requests_and_questions() {
    let summary = summarize_offline(CONVERSATION);
    // The previous summary wrapper is context, not the goal; `Ran` parts are commands, not
    // requests; the fake `[User]:` inside a tool result is not a part.
    assert_eq!(
        summary,
        r#"_Offline summary written by contextree: extracted from the conversation, no model was asked._

## Goal
Look at this screenshot and fix the 😀 layout.

## Recent User Requests
1. Why does the header wrap?
   Also keep the footer.
2. Can you also check the footer?

## Open Questions
- Why does the header wrap?
- Can you also check the footer?

## Files Read
- `README.md`

## Files Modified
- `src/app.css`
- `src/new.css`

## Commands Run
- `grep -n "flex" src/*.css`
- `npm test`

## Last Assistant Reply
Fixed."#
    );
}

#[test]
fn an_empty_conversation_still_gives_every_section() {
    let summary = summarize_offline("");
    assert!(summary.starts_with(OFFLINE_LABEL));
    assert!(summary.contains("## Goal\n(no user request in the summarized part)"));
    assert!(summary.contains("## Files Modified\n(none)"));
    assert!(summary.ends_with("## Last Assistant Reply\n(none)"));
}

#[test]
fn long_texts_are_clipped_and_only_recent_requests_kept() {
    let mut conv = format!("[User]: {}", "g".repeat(GOAL_CHARS + 50));
    for n in 0..8 {
        conv.push_str(&format!("\n\n[User]: request {n}"));
    }
    let summary = summarize_offline(&conv);
    assert!(summary.contains(&format!("## Goal\n{}…\n", "g".repeat(GOAL_CHARS))));
    assert!(summary.contains("1. request 3\n"), "{summary}");
    assert!(summary.contains("5. request 7\n"), "{summary}");
    assert!(!summary.contains("request 2"));
}
