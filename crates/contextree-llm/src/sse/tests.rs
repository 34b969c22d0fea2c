use super::*;

const OPENAI: &[u8] = include_bytes!("../../tests/fixtures/openai_ollama.sse");
const ANTHROPIC: &[u8] = include_bytes!("../../tests/fixtures/anthropic.sse");

fn parse_chunks(chunks: &[&[u8]]) -> Result<Vec<SseEvent>, LlmError> {
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut out)?;
    }
    parser.finish(&mut out)?;
    Ok(out)
}

fn parse(bytes: &[u8]) -> Vec<SseEvent> {
    parse_chunks(&[bytes]).unwrap()
}

fn ev(event: &str, data: &str, offset: u64) -> SseEvent {
    SseEvent { event: event.into(), data: data.into(), id: None, offset }
}

fn decode_all(format: StreamFormat, bytes: &[u8]) -> (StreamDecoder, Vec<String>) {
    let mut decoder = StreamDecoder::new(format);
    let mut deltas = Vec::new();
    for event in parse(bytes) {
        decoder.decode(&event, &mut |t| deltas.push(t.to_owned())).unwrap();
    }
    (decoder, deltas)
}

#[test]
fn events_survive_every_split_point_and_line_ending() {
    let lf = "\u{feff}: comment\nevent: a\ndata: one\ndata:two\ndata\n\nid: 7\nretry: 10\nunknown: x\ndata: {\"k\":\"😀\"}\n\n";
    let want = vec![
        SseEvent { event: "a".into(), data: "one\ntwo\n".into(), id: None, offset: 13 },
        SseEvent { event: String::new(), data: "{\"k\":\"😀\"}".into(), id: Some("7".into()), offset: 47 },
    ];
    assert_eq!(parse(lf.as_bytes()), want);
    for ending in ["\r\n", "\r"] {
        let text = lf.replace('\n', ending);
        let events = parse(text.as_bytes());
        let extra = if ending == "\r\n" { [1, 6] } else { [0, 0] };
        let mut want = want.clone();
        want[0].offset += extra[0];
        want[1].offset += extra[1];
        assert_eq!(events, want, "{ending:?}");
        // Every split point, including inside CRLF, inside the BOM and inside the emoji.
        let bytes = text.as_bytes();
        for cut in 0..=bytes.len() {
            assert_eq!(parse_chunks(&[&bytes[..cut], &bytes[cut..]]).unwrap(), want, "cut at {cut}");
        }
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(parse_chunks(&singles).unwrap(), want);
    }
}

#[test]
fn events_without_data_are_not_dispatched_and_a_final_open_event_is_if_its_line_ended() {
    assert_eq!(parse(b"event: x\n\n\n\ndata: last\n"), vec![ev("", "last", 12)]);
    assert_eq!(parse(b"data: done\n\ndata: {\"cut"), vec![ev("", "done", 0)]);
    assert_eq!(parse(b"data:\n\n"), vec![ev("", "", 0)]);
}

#[test]
fn invalid_utf8_reports_the_byte_offset() {
    let err = parse_chunks(&[b"data: ok\n\ndata: a\xff\n\n"]).unwrap_err();
    assert_eq!(err.to_string(), "malformed stream event at byte 17: invalid UTF-8");
}

#[test]
fn openai_stream_yields_content_usage_and_stop() {
    let (decoder, deltas) = decode_all(StreamFormat::OpenAi, OPENAI);
    assert_eq!(deltas, ["## Goal", "\nPort the ", "parser 😀."]);
    assert!(decoder.is_done() && decoder.is_complete());
    assert_eq!(decoder.stop_reason(), Some("stop"));
    assert_eq!(decoder.usage(), Some(Usage { input_tokens: Some(812), output_tokens: Some(9) }));
}

#[test]
fn anthropic_stream_joins_text_blocks_and_skips_thinking() {
    let (decoder, deltas) = decode_all(StreamFormat::Anthropic, ANTHROPIC);
    assert_eq!(deltas.concat(), "## Goal\nPort the parser.\n## Next Steps");
    assert!(decoder.is_done() && decoder.is_complete());
    assert_eq!(decoder.stop_reason(), Some("end_turn"));
    assert_eq!(decoder.usage(), Some(Usage { input_tokens: Some(1204), output_tokens: Some(57) }));
}

#[test]
fn a_stream_cut_before_its_end_marker_is_not_done() {
    let cut = &OPENAI[..OPENAI.len() / 2];
    let (decoder, deltas) = decode_all(StreamFormat::OpenAi, cut);
    assert!(!deltas.is_empty());
    assert!(!decoder.is_done() && !decoder.is_complete());
}

#[test]
fn malformed_json_names_the_event_and_its_offset() {
    let text = b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: content_block_delta\ndata: {nope\n\n";
    let mut decoder = StreamDecoder::new(StreamFormat::Anthropic);
    let mut sink = |_: &str| {};
    let events = parse(text);
    decoder.decode(&events[0], &mut sink).unwrap();
    let err = decoder.decode(&events[1], &mut sink).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("malformed stream event at byte 66: invalid JSON in content_block_delta event data:"), "{text}");
    assert!(!err.is_retryable());
}

#[test]
fn provider_errors_inside_the_stream_become_errors() {
    let mut sink = |_: &str| {};
    let events =
        parse(b"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n");
    let err = StreamDecoder::new(StreamFormat::Anthropic).decode(&events[0], &mut sink).unwrap_err();
    assert_eq!(err.to_string(), "provider error (overloaded_error): Overloaded");
    assert!(err.is_retryable());
    let events = parse(b"data: {\"error\":{\"message\":\"model not found\",\"type\":\"invalid_request_error\"}}\n\n");
    let err = StreamDecoder::new(StreamFormat::OpenAi).decode(&events[0], &mut sink).unwrap_err();
    assert_eq!(err.to_string(), "provider error (invalid_request_error): model not found");
    assert!(!err.is_retryable());
}

#[test]
fn non_streamed_answers_are_read_too() {
    let openai = br#"{"choices":[{"index":0,"message":{"role":"assistant","content":"S"},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}"#;
    let answer = decode_json_response(StreamFormat::OpenAi, openai).unwrap();
    assert_eq!(answer.text, "S");
    assert_eq!(answer.stop_reason.as_deref(), Some("length"));
    assert_eq!(answer.usage, Some(Usage { input_tokens: Some(3), output_tokens: Some(1) }));
    let anthropic = br#"{"content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"A"},{"type":"text","text":"B"}],"stop_reason":"end_turn"}"#;
    let answer = decode_json_response(StreamFormat::Anthropic, anthropic).unwrap();
    assert_eq!(answer.text, "A\nB");
    assert_eq!(answer.usage, None);
}

#[test]
fn remote_answers_need_a_string_summary() {
    assert_eq!(decode_remote(br#"{"summary":"S","shortSummary":"x"}"#).unwrap(), "S");
    assert!(matches!(decode_remote(br#"{"summary":1}"#), Err(LlmError::RemoteMissingSummary)));
    assert!(matches!(decode_remote(b"{}"), Err(LlmError::RemoteMissingSummary)));
    assert!(matches!(decode_remote(b"<html>"), Err(LlmError::MalformedResponse { .. })));
}
