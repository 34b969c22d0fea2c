//! List prices of common models, for what compacting costs and saves when the agent's own
//! models file gives none, matched by model-id prefix like the windows of `models.rs`.
//! Sessions record what each reply cost, never the price per token, and prices change: the
//! table carries the date it was checked, and every face that uses it says so.

/// When the table's prices were current. On 2026-12-05 every row but `deepseek-` was checked
/// against the model catalogue pi-ai 0.73 ships (input, output and cache-read prices equal; its
/// two cache-read figures rounded to cents, 0.28 and 0.08, are the providers' 0.275 and 0.075).
/// Where that catalogue gives no cache-write price (OpenAI, Google, xAI), the table has the
/// input price: those providers bill a prompt written to the cache as ordinary input.
pub const PRICES_DATE: &str = "2025-11";

/// Prices of one model, in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    /// Prompt tokens not served from the cache.
    pub input: f64,
    /// Completion tokens.
    pub output: f64,
    /// Prompt tokens read from the cache.
    pub cache_read: f64,
    /// Prompt tokens written to the cache (providers that charge no write: the input price).
    pub cache_write: f64,
}

const fn p(input: f64, output: f64, cache_read: f64, cache_write: f64) -> Prices {
    Prices { input, output, cache_read, cache_write }
}

/// Model-id prefixes and their prices; the longest matching prefix wins.
const PRICES: &[(&str, Prices)] = &[
    ("claude-opus-4", p(15.0, 75.0, 1.5, 18.75)),
    ("claude-opus-4-5", p(5.0, 25.0, 0.5, 6.25)),
    ("claude-sonnet-4", p(3.0, 15.0, 0.3, 3.75)),
    ("claude-haiku-4", p(1.0, 5.0, 0.1, 1.25)),
    ("claude-3-5-haiku", p(0.8, 4.0, 0.08, 1.0)),
    ("gpt-5", p(1.25, 10.0, 0.125, 1.25)),
    ("gpt-5-mini", p(0.25, 2.0, 0.025, 0.25)),
    ("gpt-5-nano", p(0.05, 0.4, 0.005, 0.05)),
    ("gpt-4.1", p(2.0, 8.0, 0.5, 2.0)),
    ("gpt-4.1-mini", p(0.4, 1.6, 0.1, 0.4)),
    ("gpt-4o", p(2.5, 10.0, 1.25, 2.5)),
    ("gpt-4o-mini", p(0.15, 0.6, 0.075, 0.15)),
    ("o3", p(2.0, 8.0, 0.5, 2.0)),
    ("o4-mini", p(1.1, 4.4, 0.275, 1.1)),
    ("gemini-2.5-pro", p(1.25, 10.0, 0.125, 1.25)),
    ("gemini-2.5-flash", p(0.3, 2.5, 0.03, 0.3)),
    ("grok-4", p(3.0, 15.0, 0.75, 3.0)),
    ("deepseek-", p(0.28, 0.42, 0.028, 0.28)),
];

/// The table's prices for `model_id` (a bare id, or `provider/id`), `None` when unknown.
pub fn known_prices(model_id: &str) -> Option<Prices> {
    let id = model_id.rsplit('/').next().unwrap_or(model_id).to_ascii_lowercase();
    PRICES.iter().filter(|(prefix, _)| id.starts_with(prefix)).max_by_key(|(prefix, _)| prefix.len()).map(|&(_, prices)| prices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_prefix_wins() {
        assert_eq!(known_prices("anthropic/claude-opus-4-5-20251101").map(|p| p.input), Some(5.0));
        assert_eq!(known_prices("claude-opus-4-1").map(|p| p.input), Some(15.0));
        assert_eq!(known_prices("openai/gpt-5-mini").map(|p| p.output), Some(2.0));
        assert_eq!(known_prices("GPT-5.1-codex").map(|p| p.cache_read), Some(0.125));
        assert_eq!(known_prices("my-local-model"), None);
    }
}
