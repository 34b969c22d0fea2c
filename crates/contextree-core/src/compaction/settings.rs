//! Compaction settings and the automatic threshold rule (compaction.md §1.2,
//! docs/decisions.md D6).

use crate::Dialect;

/// omp's `compaction.strategy`. pi has no such setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Summarize old history when the context is full (the default).
    #[default]
    ContextFull,
    /// Ask the agent for a handoff document instead (non-overflow reasons).
    Handoff,
    /// Never compact automatically.
    Off,
}

/// The settings `prepareCompaction` and `shouldCompact` read. The defaults are
/// both agents' `DEFAULT_COMPACTION_SETTINGS`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompactionSettings {
    /// `enabled`: automatic compaction on.
    pub enabled: bool,
    /// `keepRecentTokens`: the estimate of recent history kept verbatim
    /// (omp scales it down by the usage/estimate ratio, D4).
    pub keep_recent_tokens: u64,
    /// `reserveTokens`: room left for the reply; also sizes the summaries'
    /// `maxTokens` (80 % history, 50 % turn prefix).
    pub reserve_tokens: u64,
    /// omp `thresholdTokens` (`None` = the agents' −1, unset).
    pub threshold_tokens: Option<f64>,
    /// omp `thresholdPercent` (`None` = the agents' −1, unset).
    pub threshold_percent: Option<f64>,
    /// omp `strategy`.
    pub strategy: Strategy,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        CompactionSettings {
            enabled: true,
            keep_recent_tokens: 20_000,
            reserve_tokens: 16_384,
            threshold_tokens: None,
            threshold_percent: None,
            strategy: Strategy::ContextFull,
        }
    }
}

/// The largest context size that does not trigger compaction, by the
/// dialect's formula (the agents compact when the size is strictly greater);
/// None when the rule never fires (disabled; omp: strategy `off` or no
/// window). Fractional only when omp's `thresholdTokens` setting is.
pub fn threshold_tokens(window: u64, settings: &CompactionSettings, dialect: Dialect) -> Option<f64> {
    let w = window as f64;
    match dialect {
        Dialect::Pi => settings.enabled.then_some(w - settings.reserve_tokens as f64),
        Dialect::Omp if !settings.enabled || settings.strategy == Strategy::Off || window == 0 => None,
        Dialect::Omp => Some(omp_threshold(window, settings)),
    }
}

/// omp's `resolveThresholdTokens`: fixed tokens, then a percentage, then the
/// effective reserve.
fn omp_threshold(window: u64, settings: &CompactionSettings) -> f64 {
    let w = window as f64;
    if let Some(t) = settings.threshold_tokens.filter(|t| t.is_finite() && *t > 0.0) {
        return (w - 1.0).min(t.max(1.0));
    }
    match settings.threshold_percent.filter(|p| p.is_finite() && *p > 0.0) {
        Some(p) => (w * (p.clamp(1.0, 99.0) / 100.0)).floor(),
        None => w - effective_reserve_tokens(window, settings) as f64,
    }
}

/// omp's `effectiveReserveTokens`: at least 15 % of the window.
pub fn effective_reserve_tokens(window: u64, settings: &CompactionSettings) -> u64 {
    ((window as f64 * 0.15).floor() as u64).max(settings.reserve_tokens)
}

/// `shouldCompact(contextTokens, window, settings)` of the dialect.
pub fn should_compact(context_tokens: f64, window: u64, settings: &CompactionSettings, dialect: Dialect) -> bool {
    threshold_tokens(window, settings, dialect).is_some_and(|t| context_tokens > t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_thresholds() {
        let s = CompactionSettings::default();
        // compaction.md §1.2: 200000 − max(30000, 16384).
        assert_eq!(threshold_tokens(200_000, &s, Dialect::Omp), Some(170_000.0));
        assert_eq!(threshold_tokens(200_000, &s, Dialect::Pi), Some(183_616.0));
        // Small windows: the configured reserve wins over 15 %.
        assert_eq!(threshold_tokens(100_000, &s, Dialect::Omp), Some(83_616.0));
        assert!(!should_compact(170_000.0, 200_000, &s, Dialect::Omp));
        assert!(should_compact(170_001.0, 200_000, &s, Dialect::Omp));
        assert!(should_compact(183_617.0, 200_000, &s, Dialect::Pi));
        assert!(!should_compact(183_616.0, 200_000, &s, Dialect::Pi));
    }

    #[test]
    fn omp_overrides() {
        let fixed = CompactionSettings { threshold_tokens: Some(500_000.0), ..Default::default() };
        assert_eq!(threshold_tokens(200_000, &fixed, Dialect::Omp), Some(199_999.0));
        let percent = CompactionSettings { threshold_percent: Some(150.0), threshold_tokens: Some(-1.0), ..Default::default() };
        assert_eq!(threshold_tokens(200_000, &percent, Dialect::Omp), Some(198_000.0));
        let off = CompactionSettings { strategy: Strategy::Off, ..Default::default() };
        assert!(!should_compact(1e9, 200_000, &off, Dialect::Omp));
        assert!(!should_compact(1e9, 0, &CompactionSettings::default(), Dialect::Omp));
        // pi ignores omp's settings and compacts even with a zero window.
        assert!(should_compact(1.0, 0, &off, Dialect::Pi));
        let disabled = CompactionSettings { enabled: false, ..Default::default() };
        assert_eq!(threshold_tokens(200_000, &disabled, Dialect::Pi), None);
        assert_eq!(threshold_tokens(0, &CompactionSettings::default(), Dialect::Omp), None);
    }
}
