//! What compacting now would cost once and save per later turn, beside the plan
//! (`contextree compact --dry-run --json --cost`, the plan panel's cost lines).
//!
//! - One-off: the summarizer calls' input (their prompts' `ceil(chars / 4)`) at the summary
//!   model's input price, their output at its output price (at most each call's `maxTokens`:
//!   an upper bound, as the plan's `summaryBudget`), and the next turn writing the compacted
//!   context (`estimatedTokensAfter`) to the prompt cache at the session model's cache-write
//!   price.
//! - Saving per later turn: `tokensBefore - estimatedTokensAfter` fewer prompt tokens, at the
//!   session model's cache-read price (a turn served from the cache) and at its input price
//!   (one that is not).
//! - Pays off after: the one-off cost over the saving per turn, rounded up, both ways.
//!
//! The summary model is the one omp 18's plan names for its transcript, else the session's
//! model (the agents compact with it); `contextree compact` may be told to use another.

use contextree_core::js::utf16_len;
use contextree_core::prices::Prices;
use contextree_host::prices::ModelPrices;
use contextree_ops::compact::DryRun;
use serde::Serialize;
use ts_rs::TS;

/// A model's prices as the report shows them.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PriceReport {
    /// The model (`provider/id`).
    pub model: String,
    /// Dollars per million input tokens.
    pub input: f64,
    /// Per million output tokens.
    pub output: f64,
    /// Per million tokens read from the prompt cache.
    pub cache_read: f64,
    /// Per million tokens written to it.
    pub cache_write: f64,
    /// `agent` (the agent's models file) or `builtIn` (contextree's table).
    pub source: &'static str,
    /// The file, or the table's date.
    pub detail: String,
}

/// The cost lines of a plan. Amounts are US dollars; `None` where a price is unknown.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CostReport {
    /// The session's model and its prices (`prices: null`: unknown).
    pub session_model: Option<String>,
    /// The model that would summarize.
    pub summary_model: Option<String>,
    /// The session model's prices.
    pub session_prices: Option<PriceReport>,
    /// The summary model's prices.
    pub summary_prices: Option<PriceReport>,
    /// The summarizer calls' input, in the agents' estimate.
    pub summarizer_input_tokens: u64,
    /// Their output at most (their `maxTokens`).
    pub summarizer_output_tokens: u64,
    /// The context now (the plan's `tokensBefore`).
    pub tokens_before: u64,
    /// Right after compacting, at most (the plan's `estimatedTokensAfter`).
    pub tokens_after: u64,
    /// The summarizer's input.
    pub summarizer_input_cost: Option<f64>,
    /// Its output, at most.
    pub summarizer_output_cost: Option<f64>,
    /// The next turn writing the compacted context to the cache.
    pub cache_rewrite_cost: Option<f64>,
    /// The three together.
    pub one_off_cost: Option<f64>,
    /// Saved on each later turn served from the cache.
    pub saving_per_cached_turn: Option<f64>,
    /// Saved on each later turn that is not.
    pub saving_per_uncached_turn: Option<f64>,
    /// Turns from the cache after which the saving covers the one-off cost.
    pub pays_off_after_cached_turns: Option<u64>,
    /// The same, for turns not served from the cache.
    pub pays_off_after_uncached_turns: Option<u64>,
}

/// The cost lines of `plan` (`None`: nothing to compact) for a session whose model is
/// `session_model`, with `prices` telling a model's prices.
pub fn plan_cost(plan: &DryRun, session_model: Option<&str>, prices: &dyn Fn(&str) -> Option<ModelPrices>) -> Option<CostReport> {
    let DryRun::Plan(p) = plan else { return None };
    let calls = p.planned.calls.iter().chain(&p.fold_calls);
    let input: u64 = calls.clone().map(|c| ((utf16_len(&c.system_prompt) + utf16_len(&c.prompt)) as u64).div_ceil(4)).sum();
    let output: u64 = calls.map(|c| c.budget_tokens).sum();
    let summary_model = p.transcript.as_ref().and_then(|t| t.model.clone()).or_else(|| session_model.map(str::to_owned));
    let report = |model: &Option<String>| model.as_deref().and_then(|m| prices(m).map(|mp| price_report(m, mp)));
    let (session_prices, summary_prices) = (report(&session_model.map(str::to_owned)), report(&summary_model));
    let numbers = Numbers {
        input,
        output,
        before: p.planned.preview.tokens_before.0.max(0.0) as u64,
        after: p.planned.preview.estimated_tokens_after,
    };
    Some(costs(numbers, session_model.map(str::to_owned), summary_model, session_prices, summary_prices))
}

/// The token numbers the costs are made of.
#[derive(Debug, Clone, Copy)]
struct Numbers {
    input: u64,
    output: u64,
    before: u64,
    after: u64,
}

fn price_report(model: &str, mp: ModelPrices) -> PriceReport {
    let p = mp.prices;
    PriceReport {
        model: model.to_owned(),
        input: p.input,
        output: p.output,
        cache_read: p.cache_read,
        cache_write: p.cache_write,
        source: mp.source,
        detail: mp.detail,
    }
}

fn prices_of(r: &PriceReport) -> Prices {
    Prices { input: r.input, output: r.output, cache_read: r.cache_read, cache_write: r.cache_write }
}

/// Dollars for `tokens` at `per_million`.
fn dollars(tokens: u64, per_million: f64) -> f64 {
    tokens as f64 * per_million / 1_000_000.0
}

fn costs(
    n: Numbers,
    session_model: Option<String>,
    summary_model: Option<String>,
    session_prices: Option<PriceReport>,
    summary_prices: Option<PriceReport>,
) -> CostReport {
    let (session, summary) = (session_prices.as_ref().map(prices_of), summary_prices.as_ref().map(prices_of));
    let summarizer_input_cost = summary.map(|p| dollars(n.input, p.input));
    let summarizer_output_cost = summary.map(|p| dollars(n.output, p.output));
    let cache_rewrite_cost = session.map(|p| dollars(n.after, p.cache_write));
    let one_off_cost = match (summarizer_input_cost, summarizer_output_cost, cache_rewrite_cost) {
        (Some(a), Some(b), Some(c)) => Some(a + b + c),
        _ => None,
    };
    let saved = n.before.saturating_sub(n.after);
    let saving_per_cached_turn = session.map(|p| dollars(saved, p.cache_read));
    let saving_per_uncached_turn = session.map(|p| dollars(saved, p.input));
    let turns = |saving: Option<f64>| match (one_off_cost, saving) {
        (Some(cost), Some(s)) if s > 0.0 => Some((cost / s).ceil() as u64),
        _ => None,
    };
    CostReport {
        session_model,
        summary_model,
        session_prices,
        summary_prices,
        summarizer_input_tokens: n.input,
        summarizer_output_tokens: n.output,
        tokens_before: n.before,
        tokens_after: n.after,
        summarizer_input_cost,
        summarizer_output_cost,
        cache_rewrite_cost,
        one_off_cost,
        pays_off_after_cached_turns: turns(saving_per_cached_turn),
        pays_off_after_uncached_turns: turns(saving_per_uncached_turn),
        saving_per_cached_turn,
        saving_per_uncached_turn,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sonnet() -> PriceReport {
        let p = ModelPrices {
            prices: Prices { input: 3.0, output: 15.0, cache_read: 0.3, cache_write: 3.75 },
            source: "builtIn",
            detail: String::new(),
        };
        price_report("anthropic/claude-sonnet-4-5", p)
    }

    #[test]
    fn costs_by_hand() {
        // 100,000 tokens now, 20,000 after; 80,000 summarizer input, 8,000 output; Sonnet-like
        // prices for both: $3 in, $15 out, $0.30 cache read, $3.75 cache write.
        let n = Numbers { input: 80_000, output: 8_000, before: 100_000, after: 20_000 };
        let c = costs(n, None, None, Some(sonnet()), Some(sonnet()));
        // 0.08 M × 3 = 0.24; 0.008 M × 15 = 0.12; 0.02 M × 3.75 = 0.075: 0.435 in all.
        let near = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-9;
        assert!(near(c.summarizer_input_cost, 0.24));
        assert!(near(c.summarizer_output_cost, 0.12));
        assert!(near(c.cache_rewrite_cost, 0.075));
        assert!(near(c.one_off_cost, 0.435));
        // 80,000 fewer tokens a turn: 0.08 M × 0.3 = 0.024 cached, × 3 = 0.24 uncached.
        assert!(near(c.saving_per_cached_turn, 0.024));
        assert!(near(c.saving_per_uncached_turn, 0.24));
        // 0.435 / 0.024 = 18.1 → 19 turns; 0.435 / 0.24 = 1.8 → 2.
        assert_eq!((c.pays_off_after_cached_turns, c.pays_off_after_uncached_turns), (Some(19), Some(2)));
    }

    #[test]
    fn an_unknown_price_leaves_its_lines_empty() {
        let n = Numbers { input: 10, output: 10, before: 100, after: 50 };
        let c = costs(n, None, None, Some(sonnet()), None);
        assert_eq!((c.summarizer_input_cost, c.one_off_cost, c.pays_off_after_cached_turns), (None, None, None));
        assert!(c.saving_per_cached_turn.is_some());
        // Nothing saved: it never pays off.
        let c = costs(Numbers { after: 100, ..n }, None, None, Some(sonnet()), Some(sonnet()));
        assert_eq!(c.pays_off_after_cached_turns, None);
    }
}
