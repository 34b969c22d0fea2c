//! The threshold comparison every rule set ends with, in one place so the
//! report's sentence reads the same whichever agent's number was compared.

use super::report::{AutoCheck, AutoDecision};
use crate::compaction::settings::{should_compact_under, CompactionSettings};

impl AutoCheck {
    /// The threshold comparison shared by both dialects.
    pub(super) fn threshold_test(mut self, tokens: f64, settings: &CompactionSettings, what: &str) -> AutoCheck {
        self.context_tokens = Some(tokens);
        let threshold = self.threshold.map_or_else(|| "none".to_owned(), |t| t.to_string());
        if should_compact_under(tokens, self.window, settings, self.rules) {
            self.decision = AutoDecision::Threshold;
            self.reason = format!(
                "{what} {tokens} > threshold {threshold} (window {}): auto-compaction, reason threshold, willRetry false",
                self.window
            );
        } else {
            self.reason = format!("{what} {tokens} ≤ threshold {threshold} (window {}): no compaction", self.window);
        }
        self
    }
}
