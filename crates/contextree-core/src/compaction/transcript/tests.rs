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
