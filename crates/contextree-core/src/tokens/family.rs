//! Which native tokenizer oh-my-pi 18 counts a model's tokens with
//! (omp-18.md §4.1, `pi-catalog` `resolveModelTokenizer`). For these models
//! the agent's numbers come from BPE tables compiled into its native addon,
//! so contextree can only approximate them (docs/decisions.md D23); for every
//! other model omp counts `(UTF-8 bytes + 3) >> 2` per fragment, which
//! contextree reproduces exactly.
//!
//! The classification follows the catalog's rules on the model id (family
//! and revision); ids the catalog's taxonomy reads differently (aliases,
//! unusual spellings) may be classified differently here.

/// The native tokenizer family of `model` (`provider/id` or a bare id), or
/// None when omp 18 uses its byte estimate for it.
pub fn native_tokenizer(model: &str) -> Option<&'static str> {
    let id = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    let words: Vec<&str> = id.split(|c: char| !c.is_ascii_alphanumeric() && c != '.').filter(|w| !w.is_empty()).collect();
    let has = |name: &str| words.iter().any(|w| w.starts_with(name));
    if has("claude") || has("opus") || has("sonnet") || has("haiku") || has("fable") || has("mythos") {
        let family = ["opus", "sonnet", "fable", "mythos", "haiku"].into_iter().find(|f| has(f));
        let rev = revision(&words);
        return Some(match family {
            Some("opus") if rev >= Some((5, 0)) => "claude-v5",
            Some("opus") if rev >= Some((4, 7)) => "claude-v47",
            Some("sonnet" | "fable" | "mythos") if rev >= Some((5, 0)) => "claude-v5-sonnet",
            _ => "claude-v3",
        });
    }
    if has("deepseek") {
        return Some("deepseek-v3");
    }
    if has("kimi") {
        return Some("kimi-k2");
    }
    if has("qwen") {
        return (revision_after(&id, "qwen") >= Some((3, 5))).then_some("qwen3");
    }
    if has("glm") {
        return (revision_after(&id, "glm") >= Some((5, 0))).then_some("glm5");
    }
    None
}

/// The model revision among the id's words: the first one or two short
/// numbers (`4-7`, `3.5`, `5`), skipping dates and long build numbers.
fn revision(words: &[&str]) -> Option<(u32, u32)> {
    let nums: Vec<&str> = words
        .iter()
        .flat_map(|w| w.split('.'))
        .filter(|w| !w.is_empty() && w.len() <= 2 && w.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    let major = nums.first()?.parse().ok()?;
    let minor = nums.get(1).and_then(|m| m.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

/// The `major.minor` right after `name` in the id (`qwen3.5-…`, `glm-4.6`).
fn revision_after(id: &str, name: &str) -> Option<(u32, u32)> {
    let rest = &id[id.find(name)? + name.len()..];
    let rest = rest.trim_start_matches(['-', '_', ' ']);
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let n = digits(rest);
    let major = rest[..n].parse().ok()?;
    let after = &rest[n..];
    let minor = match after.strip_prefix(['.', '-']) {
        Some(m) if digits(m) > 0 && digits(m) <= 2 => m[..digits(m)].parse().ok()?,
        _ => 0,
    };
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::native_tokenizer;

    #[test]
    fn families_of_common_ids() {
        for (id, want) in [
            ("anthropic/claude-sonnet-4-5", Some("claude-v3")),
            ("claude-opus-4-7", Some("claude-v47")),
            ("claude-opus-4-1-20250805", Some("claude-v3")),
            ("anthropic/claude-opus-5", Some("claude-v5")),
            ("claude-sonnet-5", Some("claude-v5-sonnet")),
            ("claude-3-5-haiku-20241022", Some("claude-v3")),
            ("qwen/qwen3.5-coder", Some("qwen3")),
            ("qwen3-coder-480b", None),
            ("deepseek/deepseek-chat", Some("deepseek-v3")),
            ("moonshot/kimi-k2-instruct", Some("kimi-k2")),
            ("zai/glm-5", Some("glm5")),
            ("zai/glm-4.6", None),
            ("openai/gpt-5", None),
            ("google/gemini-2.5-pro", None),
            ("mock/model", None),
        ] {
            assert_eq!(native_tokenizer(id), want, "{id}");
        }
    }
}
