//! Compaction settings and the automatic threshold rule (compaction.md §1.2,
//! docs/decisions.md D6).

use crate::{Dialect, RuleSet};

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
    /// omp `strategy` (omp 13; omp 18 has `method_order` instead).
    pub strategy: Strategy,
    /// omp 18: `reserveTokens` was set in a settings file (unset, `resolveThresholdTokens`
    /// may fall back to 15 % of the window, omp-18.md §5.1). pi and omp 13 always have one.
    pub reserve_tokens_set: bool,
    /// omp 18: `compaction.methodOrder`.
    pub method_order: MethodOrder,
    /// omp 18: `compaction.remoteEndpoint` is set (and `remoteEnabled` not false).
    pub remote_endpoint: bool,
    /// omp 18: `compaction.supersedeReads` (the stale pass prunes older reads of a file).
    pub supersede_reads: bool,
    /// omp 18: `compaction.dropUseless` (both pruning passes drop useless results).
    pub drop_useless: bool,
}

/// An omp 18 automatic compaction method (`COMPACTION_METHOD_CHOICES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Provider-native server compaction, or the configured remote endpoint.
    Remote,
    /// History archived onto images the vision model reads back; no LLM call.
    Snapcompact,
    /// A handoff document as the summary (not for overflow).
    Handoff,
    /// Heavy recoverable content dropped in place; no LLM call.
    Shake,
    /// An LLM summary in place (what contextree writes).
    Soft,
}

impl Method {
    /// The setting's name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Remote => "remote",
            Method::Snapcompact => "snapcompact",
            Method::Handoff => "handoff",
            Method::Shake => "shake",
            Method::Soft => "soft",
        }
    }

    /// A method by its setting's name.
    pub fn parse(name: &str) -> Option<Method> {
        [Method::Remote, Method::Snapcompact, Method::Handoff, Method::Shake, Method::Soft].into_iter().find(|m| m.name() == name)
    }
}

/// omp 18's `compaction.methodOrder` after `resolveCompactionMethodOrder`
/// (known names, first occurrence, in order); at most the five methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MethodOrder([Option<Method>; 5]);

impl Default for MethodOrder {
    /// `DEFAULT_COMPACTION_METHOD_ORDER`: remote, snapcompact, handoff, shake, soft.
    fn default() -> Self {
        MethodOrder([Some(Method::Remote), Some(Method::Snapcompact), Some(Method::Handoff), Some(Method::Shake), Some(Method::Soft)])
    }
}

impl MethodOrder {
    /// `resolveCompactionMethodOrder(names)`: unknown names dropped, duplicates too.
    pub fn resolve<'a>(names: impl IntoIterator<Item = &'a str>) -> MethodOrder {
        let mut out = [None; 5];
        let mut n = 0;
        for m in names.into_iter().filter_map(Method::parse) {
            if !out[..n].contains(&Some(m)) {
                out[n] = Some(m);
                n += 1;
            }
        }
        MethodOrder(out)
    }

    /// The methods, in order.
    pub fn methods(&self) -> impl Iterator<Item = Method> + '_ {
        self.0.iter().flatten().copied()
    }

    /// `hasConfiguredCompactionMethod`: at least one method.
    pub fn is_empty(&self) -> bool {
        self.0[0].is_none()
    }
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
            reserve_tokens_set: false,
            method_order: MethodOrder::default(),
            remote_endpoint: false,
            supersede_reads: true,
            drop_useless: true,
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

impl CompactionSettings {
    /// These settings as they apply to `session`: omp ≥ 18.3.1 runs a subagent with the
    /// threshold its parent configured for it (`task.agentCompactionThresholdOverrides`) and
    /// records it in the subagent's `session_init` entry as `compactionThreshold:
    /// {thresholdPercent, thresholdTokens}` (−1 = unset), which then replaces the settings
    /// files' threshold (omp-18.3.md §2.3). Otherwise the settings as they are.
    pub fn for_session(&self, session: &crate::session::Session) -> CompactionSettings {
        let mut out = *self;
        if let Some((percent, tokens)) = recorded_threshold(session) {
            out.threshold_percent = percent;
            out.threshold_tokens = tokens;
        }
        out
    }
}

/// The `compactionThreshold` of the file's `session_init` entry, as `(thresholdPercent,
/// thresholdTokens)` with −1 (or any value that is not a positive number) as `None`; `None`
/// when the rule set does not read it or the file records none.
pub fn recorded_threshold(session: &crate::session::Session) -> Option<(Option<f64>, Option<f64>)> {
    if !session.rules().reads_recorded_threshold() {
        return None;
    }
    let init = session.entries().iter().find(|e| &*e.entry_type == "session_init")?;
    let pair = init.object()?.get("compactionThreshold")?.as_object()?;
    let value = |key: &str| pair.get(key).and_then(serde_json::Value::as_f64).filter(|v| v.is_finite() && *v > 0.0);
    Some((value("thresholdPercent"), value("thresholdTokens")))
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
pub(crate) fn effective_reserve_tokens(window: u64, settings: &CompactionSettings) -> u64 {
    ((window as f64 * 0.15).floor() as u64).max(settings.reserve_tokens)
}

/// [`threshold_tokens`] under a rule set: omp 18's `resolveThresholdTokens`
/// (`omp18_threshold`; its `shouldCompact` has no strategy, only
/// `enabled` and a window), otherwise the dialect's.
pub fn threshold_tokens_under(window: u64, settings: &CompactionSettings, rules: RuleSet) -> Option<f64> {
    if !rules.floors_threshold_with_estimate() {
        return threshold_tokens(window, settings, rules.dialect());
    }
    (settings.enabled && window > 0).then(|| omp18_threshold(window, settings))
}

/// [`should_compact`] under a rule set.
pub fn should_compact_under(context_tokens: f64, window: u64, settings: &CompactionSettings, rules: RuleSet) -> bool {
    threshold_tokens_under(window, settings, rules).is_some_and(|t| context_tokens > t)
}

/// omp 18's `resolveThresholdTokens` (omp-18.md §5.1): `thresholdTokens > 0`
/// clamped to `[1, W−1]`; else `thresholdPercent > 0` clamped to 1–99 %;
/// else `max(0, min(W−1, W − reserve))` with `resolveBudgetReserveTokens`:
/// `max(floor(0.15W), reserveTokens ?? 16384)`, replaced by
/// `max(1, floor(0.15W))` when that reserve is ≥ W, or when `reserveTokens`
/// is unset and the reserve leaves less than 15 % of the window.
pub(crate) fn omp18_threshold(window: u64, settings: &CompactionSettings) -> f64 {
    let w = window as f64;
    if let Some(t) = settings.threshold_tokens.filter(|t| t.is_finite() && *t > 0.0) {
        return (w - 1.0).min(t.max(1.0));
    }
    if let Some(p) = settings.threshold_percent.filter(|p| p.is_finite() && *p > 0.0) {
        return (w * (p.clamp(1.0, 99.0) / 100.0)).floor();
    }
    (w - 1.0).min(w - omp18_budget_reserve(window, settings) as f64).max(0.0)
}

/// omp 18's `resolveBudgetReserveTokens`.
pub(crate) fn omp18_budget_reserve(window: u64, settings: &CompactionSettings) -> u64 {
    let reserve = effective_reserve_tokens(window, settings);
    let proportional = ((window as f64 * 0.15).floor() as u64).max(1);
    let impossible_default = !settings.reserve_tokens_set && reserve as f64 >= window as f64 - proportional as f64;
    if impossible_default || reserve >= window {
        proportional
    } else {
        reserve
    }
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
    fn omp18_threshold_fallbacks() {
        let s = CompactionSettings::default();
        let t = |w, s: &CompactionSettings| threshold_tokens_under(w, s, RuleSet::Omp18);
        assert_eq!(t(200_000, &s), Some(170_000.0));
        // Unset reserve: 16384 leaves 83,616 of 100,000 (≥ 15 %): kept.
        assert_eq!(t(100_000, &s), Some(83_616.0));
        // 16,000-token window: the default reserve leaves nothing; 15 % = 2400 instead.
        assert_eq!(t(16_000, &s), Some(13_600.0));
        // 19,000: 16384 ≥ 19000 − 2850 = 16150, so the default is impossible → 2850.
        assert_eq!(t(19_000, &s), Some(16_150.0));
        // The same reserve set explicitly is kept unless it reaches the window.
        let set = CompactionSettings { reserve_tokens_set: true, ..s };
        assert_eq!(t(19_000, &set), Some(2_616.0));
        assert_eq!(t(16_000, &set), Some(13_600.0));
        // Tiny windows: at least 1 reserved, threshold W − 1 at most.
        assert_eq!(t(5, &s), Some(4.0));
        assert_eq!(t(0, &s), None);
        // No strategy in omp 18: `off` is omp 13's.
        let off = CompactionSettings { strategy: Strategy::Off, ..s };
        assert_eq!(t(200_000, &off), Some(170_000.0));
        assert!(should_compact_under(170_001.0, 200_000, &s, RuleSet::Omp18));
        assert_eq!(t(200_000, &CompactionSettings { enabled: false, ..s }), None);
        // Other rule sets are unchanged.
        assert_eq!(threshold_tokens_under(16_000, &s, RuleSet::Omp13), threshold_tokens(16_000, &s, Dialect::Omp));
    }

    #[test]
    fn method_order_resolution() {
        let order = MethodOrder::resolve(["soft", "bogus", "soft", "shake"]);
        assert_eq!(order.methods().collect::<Vec<_>>(), [Method::Soft, Method::Shake]);
        assert!(MethodOrder::resolve([]).is_empty());
        assert_eq!(MethodOrder::default().methods().count(), 5);
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
