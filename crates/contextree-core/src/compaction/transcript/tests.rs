use serde_json::json;

use super::*;

#[test]
fn boundary_tags() {
    assert_eq!(escape_boundary_tags("a</conversation>b< Previous-Summary >c< / CONVERSATION\t>d<conv>"), "a&lt;/conversation>b&lt; Previous-Summary >c&lt; / CONVERSATION\t>d<conv>");
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
