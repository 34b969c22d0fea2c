//! `contextree serialize`.

use clap::Args;
use contextree_core::compaction::transcript::{preferred_dialect, SummaryDialect};
use contextree_core::context::materialize::{serialize_context, summary_transcript};
use contextree_core::RuleSet;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::common::{print_session_doc, read_back, CliError, SessionArgs};

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
    if dialect.is_some() && rules != RuleSet::Omp18 {
        return Err(CliError::Input(format!("--summary-model / --transcript are omp 18's summarizer input; the rules here are {rules}")));
    }
    let text = match dialect {
        Some(d) => summary_transcript(&loaded.session, &ctx, &pack, &loaded.source, d),
        None => serialize_context(&loaded.session, &ctx, &pack, &loaded.source),
    }
    .map_err(read_back)?;
    if args.json {
        let sha = Sha256::digest(text.as_bytes());
        let hex: String = sha.iter().map(|b| format!("{b:02x}")).collect();
        let doc =
            SerializeDoc { text: &text, length: contextree_core::js::utf16_len(&text), sha256: hex, transcript: dialect.map(|d| d.name()) };
        print_session_doc(&loaded.session, &doc);
        return Ok(());
    }
    out!("{text}");
    Ok(())
}
