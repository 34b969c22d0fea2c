//! `contextree serialize`.

use clap::Args;
use contextree_core::compaction::{preferred_dialect, SummaryDialect};
use contextree_core::context::{serialize_context_with, summary_transcript, ReadBackError};
use contextree_core::session::Session;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io::Write;

use crate::common::{print_session_doc, read_back, write_session_json_start, write_stdout_with, CliError, SessionArgs};

/// `serialize --json` (after `dialect` and `ruleSet`).
#[derive(Serialize)]
struct SerializeDoc<'a> {
    text: &'a str,
    /// In UTF-16 code units.
    length: usize,
    sha256: String,
    /// The summarizer input's transcript format.
    #[serde(skip_serializing_if = "Option::is_none")]
    transcript: Option<&'static str>,
}

#[derive(Debug, Args)]
pub struct SerializeArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// omp@18: the summarizer input for this summary model instead: the transcript in the
    /// model family's format (`preferredDialect`), as omp 18's summaries quote it.
    #[arg(long, conflicts_with = "transcript")]
    pub summary_model: Option<String>,
    /// omp@18: the summarizer input in this transcript format (anthropic, glm, gemini, gemma,
    /// kimi, qwen3, deepseek, minimax, harmony, xml).
    #[arg(long)]
    pub transcript: Option<String>,
}

pub fn run(a: &SerializeArgs) -> Result<(), CliError> {
    let args = &a.session;
    let loaded = args.load()?;
    let ctx = args.context(&loaded)?;
    let rules = loaded.session.rules();
    let pack = args.pack(rules)?;
    let dialect = match (&a.summary_model, &a.transcript) {
        (Some(model), _) => Some(preferred_dialect(model)),
        (None, Some(name)) => Some(SummaryDialect::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = SummaryDialect::ALL.iter().map(|d| d.name()).collect();
            CliError::Input(format!("unknown transcript format {name:?} (one of {})", names.join(", ")))
        })?),
        (None, None) => None,
    };
    if dialect.is_some() && !rules.summarizes_with_model_transcript() {
        return Err(CliError::Input(format!("--summary-model / --transcript are omp 18's summarizer input; the rules here are {rules}")));
    }
    let (s, source) = (&loaded.session, &loaded.source);
    let Some(d) = dialect else {
        // The conversation written as it is made, a message at a time.
        return stream(args.json, s, |emit| serialize_context_with(s, &ctx, &pack, source, emit));
    };
    let text = summary_transcript(s, &ctx, &pack, source, d).map_err(read_back)?;
    if args.json {
        let sha = Sha256::digest(text.as_bytes());
        let hex: String = sha.iter().map(|b| format!("{b:02x}")).collect();
        let doc = SerializeDoc { text: &text, length: contextree_core::js::utf16_len(&text), sha256: hex, transcript: Some(d.name()) };
        print_session_doc(s, &doc);
        return Ok(());
    }
    out!("{text}");
    Ok(())
}

/// Writes the text `make` gives in parts: as it is (text), or as the document
/// `{"text", "length", "sha256"}` with the length (UTF-16 units) and digest taken on the way.
fn stream(json: bool, s: &Session, make: impl FnOnce(&mut dyn FnMut(&str)) -> Result<(), ReadBackError>) -> Result<(), CliError> {
    let mut failed = None;
    write_stdout_with(|out| {
        let mut written: std::io::Result<()> = Ok(());
        let (mut sha, mut length) = (Sha256::new(), 0usize);
        let mut escaped = Vec::new();
        if json {
            write_session_json_start(out, s)?;
            out.write_all(b",\"text\":\"")?;
        }
        let made = make(&mut |part: &str| {
            if written.is_err() {
                return;
            }
            written = if json {
                sha.update(part.as_bytes());
                length += contextree_core::js::utf16_len(part);
                // A JSON string's escaping is per character: the parts' escapings, concatenated.
                escaped.clear();
                serde_json::to_writer(&mut escaped, part)
                    .map_err(std::io::Error::other)
                    .and_then(|()| out.write_all(&escaped[1..escaped.len() - 1]))
            } else {
                out.write_all(part.as_bytes())
            };
        });
        written?;
        if let Err(e) = made {
            failed = Some(e);
        }
        if json {
            let hex: String = sha.finalize().iter().map(|b| format!("{b:02x}")).collect();
            writeln!(out, "\",\"length\":{length},\"sha256\":\"{hex}\"}}")?;
        }
        Ok(())
    });
    failed.map_or(Ok(()), |e| Err(read_back(e)))
}
