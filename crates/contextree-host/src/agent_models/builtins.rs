//! pi-ai's built-in providers, copied from its sources: with no `models.json` entry the agent
//! still knows where a provider lives and where its key comes from, and so must contextree.

use super::types::Wire;

/// One built-in provider of pi-ai 1.6.0 (`dist/models.generated.js` and `providers/data/*.json`
/// for api and base URL, `dist/env-api-keys.js` for the variables): the api kind and base URL
/// contextree uses (a provider serving several takes its `openai-completions` endpoint, which
/// serves all its models), and the environment variables pi reads the key from, in order.
/// omp's built-in providers of the same ids are the same services.
pub struct Builtin {
    /// Provider id.
    pub id: &'static str,
    /// Api kind.
    pub api: &'static str,
    /// Base URL (empty: the agent builds it from the user's settings).
    pub base_url: &'static str,
    /// Key variables, in the order pi reads them.
    pub env: &'static [&'static str],
}

macro_rules! builtins {
    ($(($id:literal, $api:literal, $url:literal, [$($env:literal),*]),)*) => {
        &[$(Builtin { id: $id, api: $api, base_url: $url, env: &[$($env),*] },)*]
    };
}

/// pi-ai 1.6.0's built-in providers (see [`Builtin`]).
pub const BUILTINS: &[Builtin] = builtins![
    ("amazon-bedrock", "bedrock-converse-stream", "https://bedrock-runtime.us-east-1.amazonaws.com", []),
    ("ant-ling", "openai-completions", "https://api.ant-ling.com/v1", ["ANT_LING_API_KEY"]),
    (
        "anthropic",
        "anthropic-messages",
        "https://api.anthropic.com",
        ["ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"]
    ),
    ("azure", "azure-openai-responses", "", ["AZURE_OPENAI_API_KEY"]),
    ("azure-openai-responses", "azure-openai-responses", "", ["AZURE_OPENAI_API_KEY"]),
    ("baseten", "openai-completions", "https://inference.baseten.co/v1", ["BASETEN_API_KEY"]),
    ("cerebras", "openai-completions", "https://api.cerebras.ai/v1", ["CEREBRAS_API_KEY"]),
    (
        "cloudflare-ai-gateway",
        "openai-completions",
        "https://gateway.ai.cloudflare.com/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/compat",
        ["CLOUDFLARE_API_KEY"]
    ),
    (
        "cloudflare-workers-ai",
        "openai-completions",
        "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1",
        ["CLOUDFLARE_API_KEY"]
    ),
    ("deepseek", "openai-completions", "https://api.deepseek.com", ["DEEPSEEK_API_KEY"]),
    ("fireworks", "openai-completions", "https://api.fireworks.ai/inference/v1", ["FIREWORKS_API_KEY"]),
    ("github-copilot", "github-copilot", "https://api.individual.githubcopilot.com", []),
    ("google", "google-generative-ai", "https://generativelanguage.googleapis.com/v1beta", ["GEMINI_API_KEY"]),
    ("google-vertex", "google-vertex", "https://{location}-aiplatform.googleapis.com", ["GOOGLE_CLOUD_API_KEY"]),
    ("groq", "openai-completions", "https://api.groq.com/openai/v1", ["GROQ_API_KEY"]),
    ("huggingface", "openai-completions", "https://router.huggingface.co/v1", ["HF_TOKEN"]),
    ("kimi-coding", "openai-completions", "https://api.kimi.com/coding/v1", ["KIMI_API_KEY"]),
    ("meta", "openai-responses", "https://api.meta.ai/v1", ["META_API_KEY"]),
    ("minimax", "anthropic-messages", "https://api.minimax.io/anthropic", ["MINIMAX_API_KEY"]),
    ("minimax-cn", "anthropic-messages", "https://api.minimaxi.com/anthropic", ["MINIMAX_CN_API_KEY"]),
    ("mistral", "mistral-conversations", "https://api.mistral.ai", ["MISTRAL_API_KEY"]),
    ("moonshotai", "openai-completions", "https://api.moonshot.ai/v1", ["MOONSHOT_API_KEY"]),
    ("moonshotai-cn", "openai-completions", "https://api.moonshot.cn/v1", ["MOONSHOT_API_KEY"]),
    ("nvidia", "openai-completions", "https://integrate.api.nvidia.com/v1", ["NVIDIA_API_KEY"]),
    ("openai", "openai-responses", "https://api.openai.com/v1", ["OPENAI_API_KEY"]),
    ("openai-codex", "openai-codex-responses", "https://chatgpt.com/backend-api", []),
    ("opencode", "openai-completions", "https://opencode.ai/inference/openai/v1", ["OPENCODE_API_KEY"]),
    ("opencode-go", "openai-completions", "https://opencode.ai/inference/go/openai/v1", ["OPENCODE_API_KEY"]),
    ("openrouter", "openai-completions", "https://openrouter.ai/api/v1", ["OPENROUTER_API_KEY"]),
    (
        "qwen-token-plan",
        "openai-completions",
        "https://token-plan.maas.qwencloudapi.com/compatible-mode/v1",
        ["QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"]
    ),
    (
        "qwen-token-plan-cn",
        "openai-completions",
        "https://token-plan.maas.qianwenaiapi.com/compatible-mode/v1",
        ["QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"]
    ),
    (
        "qwen-token-plan-individual",
        "openai-completions",
        "https://token-plan.maas.qwencloudapi.com/compatible-mode/v1",
        ["QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"]
    ),
    (
        "qwen-token-plan-individual-cn",
        "openai-completions",
        "https://token-plan.maas.qianwenaiapi.com/compatible-mode/v1",
        ["QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"]
    ),
    ("radius", "pi-messages", "https://radius.pi.dev/v1", ["RADIUS_API_KEY"]),
    ("together", "openai-completions", "https://api.together.ai/v1", ["TOGETHER_API_KEY"]),
    ("vercel-ai-gateway", "anthropic-messages", "https://ai-gateway.vercel.sh", ["AI_GATEWAY_API_KEY"]),
    ("xai", "openai-responses", "https://api.x.ai/v1", ["XAI_API_KEY"]),
    ("xiaomi", "openai-completions", "https://api.xiaomimimo.com/v1", ["XIAOMI_API_KEY"]),
    ("xiaomi-token-plan-ams", "openai-completions", "https://token-plan-ams.xiaomimimo.com/v1", ["XIAOMI_TOKEN_PLAN_AMS_API_KEY"]),
    ("xiaomi-token-plan-cn", "openai-completions", "https://token-plan-cn.xiaomimimo.com/v1", ["XIAOMI_TOKEN_PLAN_CN_API_KEY"]),
    ("xiaomi-token-plan-sgp", "openai-completions", "https://token-plan-sgp.xiaomimimo.com/v1", ["XIAOMI_TOKEN_PLAN_SGP_API_KEY"]),
    ("zai", "openai-completions", "https://api.z.ai/api/coding/paas/v4", ["ZAI_API_KEY"]),
    ("zai-coding-cn", "openai-completions", "https://open.bigmodel.cn/api/coding/paas/v4", ["ZAI_CODING_CN_API_KEY"]),
];

/// Providers that only a subscription login of the agent's own reaches.
pub(super) const LOGIN_ONLY: &[&str] = &["github-copilot", "openai-codex"];

/// The built-in provider `id`, if pi-ai has one.
pub fn builtin(id: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.id == id)
}

/// How contextree would speak `api`, or `None`.
pub fn wire_of(api: &str) -> Option<Wire> {
    match api {
        "anthropic-messages" => Some(Wire::Anthropic),
        "openai-completions" | "openai-responses" => Some(Wire::OpenAiCompatible),
        _ => None,
    }
}
