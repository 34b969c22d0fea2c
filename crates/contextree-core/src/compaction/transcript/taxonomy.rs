//! The model taxonomy `preferredDialect` classifies with: the facts of
//! @oh-my-pi/pi-catalog 18.2.3's `src/compat/rules.json` it needs (taxonomy classes and their id
//! matchers, provider-agnostic identity overrides, collapsed variant suffixes).

use super::identity::Matcher;

/// Every model class with its id matchers, in the catalog's order (the order decides nothing
/// but which of two equal-rank classes is named first).
pub(super) const CLASSES: &[(&str, &[Matcher])] = &[
    ("ai21", &[Matcher::Bounded("jamba"), Matcher::Namespace("ai21", false)]),
    ("amazon", &[Matcher::Bounded("nova"), Matcher::Bounded("titan"), Matcher::Namespace("amazon", true)]),
    ("anthropic", &[Matcher::Namespace("anthropic", true), Matcher::Bounded("anthropic"), Matcher::Bounded("claude")]),
    ("baidu", &[Matcher::Bounded("ernie")]),
    ("bytedance", &[Matcher::Bounded("doubao")]),
    ("cohere", &[Matcher::Bounded("command"), Matcher::Namespace("cohere", false)]),
    ("deepseek", &[Matcher::Namespace("deepseek", true), Matcher::Bounded("deepseek")]),
    ("gemini", &[Matcher::Bounded("gemini")]),
    ("gemma", &[Matcher::Bounded("gemma")]),
    ("glm", &[Matcher::Bounded("glm"), Matcher::Bounded("zai-glm")]),
    ("gpt-oss", &[Matcher::Namespace("gpt-oss", true), Matcher::Bounded("gpt-oss")]),
    ("kimi", &[Matcher::Namespace("moonshotai", false), Matcher::Bounded("kimi")]),
    ("meta", &[Matcher::Bounded("muse-spark"), Matcher::Bounded("llama"), Matcher::Namespace("meta-llama", false)]),
    ("mimo", &[Matcher::Bounded("mimo")]),
    ("minimax", &[Matcher::Namespace("minimax", false), Matcher::Bounded("minimax"), Matcher::Bounded("hailuo")]),
    ("mistral", &[Matcher::Bounded("mistral"), Matcher::Bounded("mixtral")]),
    (
        "openai",
        &[
            Matcher::Namespace("openai", false),
            Matcher::Namespace("openai", true),
            Matcher::Prefix("gpt-"),
            Matcher::Prefix("chatgpt-"),
            Matcher::Prefix("codex-"),
            Matcher::Exact("o1"),
            Matcher::Prefix("o1-"),
            Matcher::Prefix("o1."),
            Matcher::Exact("o3"),
            Matcher::Prefix("o3-"),
            Matcher::Prefix("o3."),
            Matcher::Exact("o4"),
            Matcher::Prefix("o4-"),
            Matcher::Prefix("o4."),
        ],
    ),
    ("qwen", &[Matcher::Bounded("qwen"), Matcher::Bounded("deepseek-r1-distill-qwen"), Matcher::Glob("*distill-qwen*")]),
    ("stepfun", &[Matcher::Bounded("step")]),
    ("unknown", &[]),
    (
        "xai",
        &[Matcher::Prefix("cursor-grok-"), Matcher::Bounded("grok"), Matcher::Namespace("x-ai", false), Matcher::Namespace("xai", false)],
    ),
];

/// Provider-agnostic overrides: (bare model id, lowercase; logical id; class).
pub(super) const OVERRIDES: &[(&str, &str, &str)] = &[
    ("daybreak-blue-latest", "daybreak-blue-latest", "unknown"),
    ("daybreak-red-latest", "daybreak-red-latest", "unknown"),
    ("gpt-daybreak-blue-latest", "gpt-daybreak-blue-latest", "openai"),
    ("gpt-daybreak-red-latest", "gpt-daybreak-red-latest", "openai"),
];

/// Variant suffixes collapsed before classifying: (suffix, bare prefix that keeps it).
pub(super) const SUFFIXES: &[(&str, Option<&str>)] = &[
    ("-thinking", None),
    ("-extra-high", None),
    ("-none", None),
    ("-minimal", None),
    ("-medium", None),
    ("-xhigh", None),
    ("-high", None),
    ("-low", None),
    ("-max", Some("qwen")),
];
