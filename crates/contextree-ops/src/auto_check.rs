//! The automatic compaction check as a JSON document (`contextree cut --window`, `contextree
//! compact --dry-run`): what the agent of the session's rule set would do after its last run,
//! and under omp 18 its stale pass, stored estimate and compaction method (omp-18.md §5.1,
//! §5.2, §6).

use contextree_core::compaction::{AutoCheck, MethodChoice, Overflow, Usable};
use contextree_core::js::json_number;
use contextree_core::session::Session;
use serde_json::{json, Value};

/// compaction.md §1.2 for the last assistant message (see `AutoCheck`).
pub fn auto_check_json(s: &Session, c: &AutoCheck) -> Value {
    let overflow = c.overflow.as_ref().map_or(Value::Null, |o| match o {
        Overflow::ErrorMessage { pattern } => json!({"kind": "errorMessage", "pattern": pattern}),
        Overflow::ErrorId { error_id } => json!({"kind": "errorId", "errorId": error_id}),
        Overflow::Usage { input_tokens, rule } => json!({"kind": "usage", "inputTokens": json_number(*input_tokens), "rule": rule}),
    });
    let mut doc = json!({
        "ruleSet": c.rules.name(),
        "assistantId": c.assistant.map(|n| s.entry(n).id.to_string()),
        "stopReason": c.stop_reason,
        "decision": c.decision.name(),
        "skipped": c.skipped.map(|k| k.name()),
        "reason": c.reason,
        "sameModel": c.same_model,
        "modelAssumed": c.model_assumed,
        "stale": c.stale,
        "overflow": overflow,
        "usageTokens": c.usage_tokens.map(json_number),
        "pruningSavings": c.pruning_savings,
        "prunedCount": c.pruned_count,
        "contextTokens": c.context_tokens.map(json_number),
        "thresholdTokens": c.threshold.map(json_number),
        "window": c.window,
        "willRetry": c.will_retry,
        "contextPromotion": c.context_promotion,
        "notes": c.notes,
    });
    if c.rules.floors_threshold_with_estimate() {
        // omp 18: the stale pass, the stored estimate, the method; savings are not subtracted.
        doc["stalePrunedCount"] = c.stale_pruned_count.into();
        doc["staleSavings"] = c.stale_savings.into();
        doc["storedEstimate"] = c.stored_estimate.into();
        doc["method"] = c.method.as_ref().map_or(Value::Null, method_json);
    }
    doc
}

/// omp 18's method choice: the first surely usable method of `methodOrder`, the methods
/// looked at on the way, and what contextree writes instead (an LLM summary, `soft`).
pub fn method_json(m: &MethodChoice) -> Value {
    let steps: Vec<Value> = m
        .steps
        .iter()
        .map(|(method, usable)| match usable {
            Usable::Yes => json!({"method": method.name(), "usable": true}),
            Usable::No(why) => json!({"method": method.name(), "usable": false, "why": why}),
            Usable::Unknown(cond) => json!({"method": method.name(), "usable": null, "if": cond}),
        })
        .collect();
    json!({
        "reason": m.reason,
        "agentMethod": m.method.map(|x| x.name()),
        "order": steps,
        "contextreeWrites": "soft",
        "text": m.describe(),
    })
}
