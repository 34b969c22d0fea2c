//! The typed values the flows return and both faces serialize (`#[derive(Serialize)]`): how a
//! summary was written, a summarizer call as shown, a JavaScript number.

use contextree_core::compaction::SummarizerCall;
use serde::{Serialize, Serializer};

use crate::Call;

/// A number as JavaScript prints it: core's, shared with the read layer.
pub use contextree_core::js::JsNumber;

/// How a summary was written (`{kind: model|offline|supplied|hook|none, ...}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Summarizer {
    /// A compaction's summaries, each by the model that answered.
    #[serde(rename = "model")]
    Models {
        /// In order: history, turn prefix, short.
        calls: Vec<ModelAnswer>,
    },
    /// A branch summary, by the model that answered.
    Model {
        /// The candidate's label.
        provider: String,
        /// The model.
        model: String,
        /// Its `stopReason`.
        stop_reason: Option<String>,
    },
    /// contextree-llm's extractive summary; no model was asked.
    Offline {
        /// Why no model was asked.
        why: String,
    },
    /// The user's own summary, stored as a hook's.
    Supplied,
    /// A hook supplied it.
    Hook {
        /// The hook's event.
        event: &'static str,
    },
    /// No call was made (the agents store their literal without asking).
    None {
        /// Why.
        why: String,
    },
}

impl Summarizer {
    /// The offline summary was written.
    pub fn is_offline(&self) -> bool {
        matches!(self, Summarizer::Offline { .. })
    }
}

/// One summary a model wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelAnswer {
    /// Which summary.
    pub call: Call,
    /// The candidate's label.
    pub provider: String,
    /// The model.
    pub model: String,
    /// Its `stopReason`.
    pub stop_reason: Option<String>,
}

/// Entry ids, held as one text (an 8-character id costs 12 bytes, not a `String` of its own:
/// a plan over a million-entry path lists a million of them); serialized as an array of strings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdList {
    text: String,
    ends: Vec<u32>,
}

impl IdList {
    /// The ids of `nodes` in `session`.
    pub fn of(session: &contextree_core::session::Session, nodes: &[contextree_core::session::NodeId]) -> IdList {
        let mut list = IdList { text: String::new(), ends: Vec::with_capacity(nodes.len()) };
        for &n in nodes {
            list.text.push_str(&session.entry(n).id);
            list.ends.push(u32::try_from(list.text.len()).unwrap_or(u32::MAX));
        }
        list
    }

    /// The number of ids.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the list holds no id.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The ids in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(a, &b)| &self.text[a as usize..b as usize])
    }

    /// The ids as strings of their own.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }
}

/// In the UI's types: the list of ids it is written as.
#[cfg(feature = "ts")]
impl ts_rs::TS for IdList {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(_: &ts_rs::Config) -> String {
        "Array<string>".to_owned()
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        Self::name(cfg)
    }
}

impl Serialize for IdList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// A summarizer call as a dry run shows it: `{systemPrompt, prompt, maxTokens?, reasoning?,
/// kind?}` (`maxTokens` only when the request carries it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CallView {
    /// The system prompt.
    pub system_prompt: String,
    /// The user message.
    pub prompt: String,
    /// `maxTokens` as sent (pi@1.6 sends none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// The `reasoning` option.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// `history`, `turnPrefix` or `short` (a compaction's calls; `None` for a branch summary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// `maxTokens`, or the notional budget the preview counts with when none is sent.
    #[serde(skip)]
    pub budget_tokens: u64,
}

impl CallView {
    /// A compaction's call, its prompts moved in (a prompt that quotes a whole session is not
    /// copied).
    pub(crate) fn from_call(c: SummarizerCall) -> CallView {
        let (max_tokens, kind, budget_tokens) = (c.sent_max_tokens(), Some(c.kind.name()), c.max_tokens);
        CallView { system_prompt: c.system_prompt, prompt: c.prompt, max_tokens, reasoning: c.reasoning, kind, budget_tokens }
    }

    /// A compaction's call.
    pub(crate) fn of(c: &SummarizerCall) -> CallView {
        CallView {
            system_prompt: c.system_prompt.clone(),
            prompt: c.prompt.clone(),
            max_tokens: c.sent_max_tokens(),
            reasoning: c.reasoning.clone(),
            kind: Some(c.kind.name()),
            budget_tokens: c.max_tokens,
        }
    }

    /// A branch-summary call.
    pub(crate) fn of_branch(c: &contextree_core::branch_summary::BranchSummaryCall) -> CallView {
        CallView {
            system_prompt: c.system_prompt.clone(),
            prompt: c.prompt.clone(),
            max_tokens: c.sent_max_tokens(),
            reasoning: c.reasoning.clone(),
            kind: None,
            budget_tokens: c.max_tokens,
        }
    }
}

/// The usage pi stores with a summary entry (its `Usage` shape), from what the providers
/// reported: input and output tokens, no cache or cost figures (contextree does not know them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PiUsage {
    /// Input tokens, summed over the calls.
    pub input: u64,
    /// Output tokens, summed over the calls.
    pub output: u64,
    /// `cacheRead`: always 0 (not known to contextree).
    pub cache_read: u64,
    /// `cacheWrite`: always 0 (not known to contextree).
    pub cache_write: u64,
    /// `totalTokens`: `input + output`.
    pub total_tokens: u64,
    /// `cost`: all zero.
    pub cost: PiCost,
}

/// pi's `Usage.cost`, all zero.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PiCost {
    /// Cost of the input tokens: 0.
    pub input: u64,
    /// Cost of the output tokens: 0.
    pub output: u64,
    /// `cacheRead` cost: 0.
    pub cache_read: u64,
    /// `cacheWrite` cost: 0.
    pub cache_write: u64,
    /// The total: 0.
    pub total: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summarizers_and_numbers_serialize_as_the_faces_show_them() {
        let wire = |s: Summarizer| serde_json::to_value(s).unwrap();
        let answer = ModelAnswer { call: Call::TurnPrefix, provider: "p".into(), model: "m".into(), stop_reason: None };
        assert_eq!(
            wire(Summarizer::Models { calls: vec![answer] }),
            json!({"kind": "model", "calls": [{"call": "turnPrefix", "provider": "p", "model": "m", "stopReason": null}]})
        );
        assert_eq!(
            wire(Summarizer::Model { provider: "p".into(), model: "m".into(), stop_reason: Some("stop".into()) }),
            json!({"kind": "model", "provider": "p", "model": "m", "stopReason": "stop"})
        );
        assert_eq!(wire(Summarizer::Offline { why: "--offline".into() }), json!({"kind": "offline", "why": "--offline"}));
        assert_eq!(wire(Summarizer::Supplied), json!({"kind": "supplied"}));
        assert_eq!(wire(Summarizer::Hook { event: "session_before_tree" }), json!({"kind": "hook", "event": "session_before_tree"}));
        assert_eq!(wire(Summarizer::None { why: "w".into() }), json!({"kind": "none", "why": "w"}));
        let text = |x: f64| serde_json::to_string(&JsNumber(x)).unwrap();
        assert_eq!((text(12.0), text(0.5), text(f64::NAN), text(1e300)), ("12".into(), "0.5".into(), "null".into(), "1e+300".into()));
    }
}
