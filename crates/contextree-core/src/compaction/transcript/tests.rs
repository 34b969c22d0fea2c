use serde_json::json;

use super::*;

#[test]
fn boundary_tags() {
    assert_eq!(
        escape_boundary_tags("a</conversation>b< Previous-Summary >c< / CONVERSATION\t>d<conv>"),
        "a&lt;/conversation>b&lt; Previous-Summary >c&lt; / CONVERSATION\t>d<conv>"
    );
}

#[test]
fn harmony_tokens() {
    assert_eq!(harmony::escape_control_tokens("<|start|>x<|foo|><|<|end|>"), "<\\|start\\|>x<|foo|><|<\\|end\\|>");
}

#[test]
fn useless_and_thinking() {
    let llm = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {"p": "."}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "ls", "useless": true, "content": [{"type": "text", "text": "x"}]}
    ]);
    let llm = llm.as_array().unwrap();
    assert_eq!(serialize_for_summary(llm, SummaryDialect::Anthropic), "\n\nHuman: hi");
    assert_eq!(serialize_for_summary(llm, SummaryDialect::Xml), "\n\nHuman: hi\n\nAssistant: <thinking>\nhmm\n</thinking>");
}

#[test]
fn omp18_input_budget() {
    use crate::compaction::prompt::omp18_input_budget;
    // max(min(16384, max(1024, window / 8)), floor(0.8 · window) − maxTokens − 16384)
    assert_eq!(omp18_input_budget(Some(200_000), 13_107), 130_509);
    assert_eq!(omp18_input_budget(None, 13_107), 130_509);
    assert_eq!(omp18_input_budget(Some(8_000), 13_107), 1_024);
    assert_eq!(omp18_input_budget(Some(20_000), 13_107), 2_500);
    assert_eq!(omp18_input_budget(Some(1_000_000), 16_384), 767_232);
}

#[test]
fn every_format_of_nothing() {
    for d in SummaryDialect::ALL {
        assert_eq!(serialize_for_summary(&[], d), "", "{}", d.name());
        assert_eq!(SummaryDialect::from_name(d.name()), Some(d));
    }
}

/// Every message of `llm` pushed into a [`ChunkedTranscript`] of `chunk`, with `limit`.
fn chunked(llm: &[Value], d: SummaryDialect, chunk: usize, limit: Option<u64>) -> Result<String, u64> {
    let useless = llm.iter().filter_map(ChunkedTranscript::useless_key).collect();
    let mut w = ChunkedTranscript::new(d, useless, chunk);
    if let Some(limit) = limit {
        w = w.with_limit(limit);
    }
    for m in llm {
        w.push(m.clone());
    }
    w.finish_within()
}

fn whole_count(text: &str) -> u64 {
    crate::tokens::tokenizer::count(crate::tokens::tokenizer::TokenizerKind::O200kBase, text) as u64
}

/// The transcript written a few messages at a time, and counted a piece at a time, is the
/// whole's: `llm` in every format, parts of 1 to 3 messages, limits under and over its count.
fn check_chunked(name: &str, llm: &[Value]) {
    for d in SummaryDialect::ALL {
        let whole = serialize_for_summary(llm, d);
        let tokens = whole_count(&whole);
        for piece in [1, 64] {
            assert_eq!(o200k_count_in(&whole, piece), tokens, "{name} {} piece {piece}", d.name());
        }
        for chunk in [1, 3, 1024] {
            assert_eq!(chunked(llm, d, chunk, None).as_deref(), Ok(whole.as_str()), "{name} {} chunk {chunk}", d.name());
            let limits: &[u64] = if chunk == 1 { &[0, tokens / 2, tokens.saturating_sub(1), tokens] } else { &[tokens / 2] };
            for &limit in limits {
                let want = if tokens > limit { Err(tokens) } else { Ok(whole.clone()) };
                assert_eq!(chunked(llm, d, chunk, Some(limit)), want, "{name} {} chunk {chunk} limit {limit}", d.name());
            }
        }
    }
}

#[test]
fn chunked_is_whole_made_up() {
    let llm = json!([
        {"role": "developer", "content": "dev first"},
        {"role": "user", "content": "hi <"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm."}, {"type": "text", "text": "ok \n"}, {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {"p": "."}}, {"type": "toolCall", "id": "c2", "name": "cat", "arguments": {"f": "a"}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "ls", "useless": true, "content": [{"type": "text", "text": "x"}]},
        {"role": "toolResult", "toolCallId": "c2", "toolName": "cat", "content": [{"type": "text", "text": "{\"a\": 1}\n"}]},
        {"role": "developer", "content": "dev before user <|"},
        {"role": "user", "content": "conversation> and <|end|> .\n\n"},
        {"role": "user", "content": [{"type": "text", "text": "Next\n"}, {"type": "image", "mimeType": "image/png"}]},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c3", "name": "ls", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": "c3", "toolName": "ls", "useless": true, "content": [{"type": "text", "text": "y"}]},
        {"role": "user", "content": "  \n"},
        {"role": "developer", "content": ""},
        {"role": "user", "content": "/ previous-summary >"},
        {"role": "toolResult", "toolCallId": "c9", "toolName": "x", "isError": true, "content": [{"type": "text", "text": "12\n"}]},
        {"role": "user", "content": "end"}
    ]);
    check_chunked("made up", llm.as_array().unwrap());
}

#[test]
fn chunked_is_whole_on_the_goldens() {
    use crate::context::{build, materialize::llm_messages, Leaf};
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = 0;
    for golden in std::fs::read_dir(root.join("tests/golden-omp18-transcript")).unwrap() {
        let golden = golden.unwrap().path();
        if golden.extension().is_none_or(|e| e != "json") || golden.file_name().unwrap().to_string_lossy().starts_with('_') {
            continue;
        }
        let g: Value = serde_json::from_slice(&std::fs::read(&golden).unwrap()).unwrap();
        let bytes = std::fs::read(root.join("tests/fixtures").join(g["fixture"].as_str().unwrap())).unwrap();
        let session = crate::session::Session::parse(&bytes, Some(crate::RuleSet::Omp18));
        let ctx = build(&session, Leaf::Last);
        let pack = crate::prompts::PromptPack::placeholders(crate::Dialect::Omp);
        let llm = llm_messages(&session, &ctx, &pack, &bytes).unwrap();
        check_chunked(&golden.display().to_string(), &llm);
        files += 1;
    }
    assert!(files > 50, "{files} golden files");
}

#[test]
fn o200k_cuts() {
    for s in
        ["a \n\nb", ".\n\nHuman: x", "  \nx", "\n\n\nA", "x\r\nY", "1\nA", "'s\nt", "é\nb\nc", "\n a\nb", "<|x|>\nb", "12345\nab\n\ncd"]
    {
        for piece in [1, 2, 3] {
            assert_eq!(o200k_count_in(s, piece), whole_count(s), "{s:?} piece {piece}");
        }
    }
}
