//! What moving the leaf would write: `contextree navigate --dry-run` and the app's *Continue from
//! here* preview. The preview is contextree-ops' (the flow that would write it computes it).

use contextree_core::dialect::RuleChoiceWire;
use contextree_core::session::Session;
use contextree_core::RuleChoice;
use contextree_ops::navigate::NavigatePreview;
use serde::Serialize;
use ts_rs::TS;

/// A navigation's preview: the entries left behind, where the branch summary or the marker
/// would go, and the exact summary call.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NavigateReport<'a> {
    /// The agent whose rules ran.
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: &'a RuleChoice,
    /// The preview.
    #[serde(flatten)]
    pub preview: NavigatePreview,
}

impl<'a> NavigateReport<'a> {
    /// The report of `preview`, a navigation of `s`.
    pub fn new(s: &'a Session, preview: NavigatePreview) -> Self {
        Self { dialect: s.dialect().name(), rule_set: s.rule_choice(), preview }
    }
}
