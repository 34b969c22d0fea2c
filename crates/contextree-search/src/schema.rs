//! The index's fields. Entry documents carry the text and the filters; file documents (the
//! per-file records, [`crate::record`]) carry `rec` and `rec_json` only.

use tantivy::schema::{Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STORED, STRING};
use tantivy::tokenizer::{LowerCaser, RawTokenizer, RemoveLongFilter, SimpleTokenizer, TextAnalyzer};
use tantivy::Index;

/// The tokenizer of the whole-value filters (role, tool, agent): one lowercased token.
pub const KEY: &str = "ct_key";
/// The tokenizer of the text and of the word-matched filters (project, model): words,
/// lowercased, with tokens longer than 80 bytes dropped (base64, hashes).
pub const WORDS: &str = "ct_words";

/// `kind`'s values.
pub const KIND_ENTRY: &str = "e";
/// `kind` of a file record.
pub const KIND_FILE: &str = "f";

/// Every field, resolved once.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub kind: Field,
    pub file: Field,
    pub offset: Field,
    pub line_len: Field,
    pub entry: Field,
    pub session: Field,
    pub project: Field,
    pub agent: Field,
    pub rules: Field,
    pub model: Field,
    pub role: Field,
    pub tool: Field,
    pub time: Field,
    pub text: Field,
    pub rec: Field,
    pub rec_json: Field,
}

/// The schema and its fields.
pub fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let key = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer(KEY).set_index_option(IndexRecordOption::Basic))
        .set_stored();
    let words_stored = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer(WORDS).set_index_option(IndexRecordOption::WithFreqsAndPositions))
        .set_stored();
    // The text is indexed, not stored: snippets are cut from the session file at the line's
    // offset, which keeps the index a fraction of the text it holds.
    let text = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer(WORDS).set_index_option(IndexRecordOption::WithFreqsAndPositions));
    let fields = Fields {
        kind: b.add_text_field("kind", STRING),
        file: b.add_text_field("file", STRING | STORED),
        offset: b.add_u64_field("offset", STORED),
        line_len: b.add_u64_field("line_len", STORED),
        entry: b.add_text_field("entry", STRING | STORED),
        session: b.add_text_field("session", STRING | STORED),
        project: b.add_text_field("project", words_stored.clone()),
        agent: b.add_text_field("agent", key.clone()),
        rules: b.add_text_field("rules", key.clone()),
        model: b.add_text_field("model", words_stored),
        role: b.add_text_field("role", key.clone()),
        tool: b.add_text_field("tool", key),
        time: b.add_i64_field("time", NumericOptions::from(INDEXED | FAST | STORED)),
        text: b.add_text_field("text", text),
        rec: b.add_text_field("rec", STRING),
        rec_json: b.add_text_field("rec_json", STORED),
    };
    (b.build(), fields)
}

/// Registers the tokenizers the schema names (they are not stored with the index).
pub fn register_tokenizers(index: &Index) {
    index.tokenizers().register(KEY, TextAnalyzer::builder(RawTokenizer::default()).filter(LowerCaser).build());
    index
        .tokenizers()
        .register(WORDS, TextAnalyzer::builder(SimpleTokenizer::default()).filter(RemoveLongFilter::limit(80)).filter(LowerCaser).build());
}
