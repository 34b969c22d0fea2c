//! The parsing and the resolution over inline files, and one read of an omp folder on disk.

use std::collections::BTreeMap;
use std::path::Path;

use contextree_core::Dialect;
use serde_json::json;

use super::key::{resolve_value, Resolved};
use super::*;

fn places() -> Places {
    Places { auth: "~/.pi/agent/auth.json".into(), models: "~/.pi/agent/models.json".into() }
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn r(provider: &str, model: &str) -> ModelRef {
    ModelRef { provider: provider.into(), model: model.into(), setting: "defaultProvider/defaultModel".into() }
}

#[test]
fn pi_settings_name_provider_and_model() {
    assert_eq!(
        pi_model_ref(&json!({"defaultProvider": "anthropic", "defaultModel": "claude-sonnet-4-5"})),
        Some(r("anthropic", "claude-sonnet-4-5"))
    );
    assert_eq!(pi_model_ref(&json!({"defaultProvider": "anthropic"})), None, "no model: pi picks from its catalog");
    assert_eq!(pi_model_ref(&json!({"defaultModel": 3, "defaultProvider": "x"})), None);
}

#[test]
fn omp_roles_default_first_aliases_and_thinking_suffixes() {
    let s = json!({"modelRoles": {"smol": "openrouter/qwen/qwen3:low", "default": "anthropic/claude-opus-4-5:high", "slow": "@default", "plan": "bare-id", "commit": "openrouter/qwen/qwen3"}});
    let refs = omp_model_refs(&s);
    let got: Vec<(&str, &str, &str)> = refs.iter().map(|r| (r.provider.as_str(), r.model.as_str(), r.setting.as_str())).collect();
    assert_eq!(got, vec![("anthropic", "claude-opus-4-5", "modelRoles.default"), ("openrouter", "qwen/qwen3", "modelRoles.smol")]);
    assert!(omp_model_refs(&json!({})).is_empty());
}

#[test]
fn models_json_comments_and_trailing_commas_are_stripped_outside_strings() {
    let text = "\u{feff}{\n // mine\n \"providers\": {\"local\": {\"baseUrl\": \"http://h//x\", \"apiKey\": \"a,}\", \"models\": [{\"id\": \"m\",},],},},\n}";
    let m = parse_pi_models_json(text).unwrap();
    let p = m.provider("local").unwrap();
    assert_eq!(p["baseUrl"], "http://h//x");
    assert_eq!(p["apiKey"], "a,}");
    assert_eq!(parse_pi_models_json("{\"providers\": [1]}"), Err(AgentFileError::ProvidersNotAnObject));
    let err = parse_pi_models_json("{\"providers\": {\"x\": {\"apiKey\": \"sk-secret-value\" oops}}}").unwrap_err();
    assert_eq!(err, AgentFileError::Json { line: 1, column: 50 });
    assert!(!err.to_string().contains("sk-secret"), "{err}");
}

#[test]
fn auth_json_entries() {
    let a = parse_pi_auth_json(r#"{"anthropic": {"type": "api_key", "key": "sk-ant-x"}, "openai-codex": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1}, "odd": {"type": "magic"}}"#).unwrap();
    assert_eq!(a["anthropic"], Credential::ApiKey { key: Some(Secret::new("sk-ant-x")), env: BTreeMap::new() });
    assert_eq!(a["openai-codex"], Credential::OAuth);
    assert_eq!(a["odd"], Credential::Other);
    assert!(format!("{a:?}").contains("Secret(<redacted>)") && !format!("{a:?}").contains("sk-ant-x"));
    assert!(parse_pi_auth_json("[]").is_err());
}

#[test]
fn config_values_literal_env_template_and_command() {
    let env = |k: &str| match k {
        "MY_KEY" => Some("from-env".to_owned()),
        "A" => Some("aa".to_owned()),
        _ => None,
    };
    let none = BTreeMap::new();
    assert_eq!(resolve_value("sk-literal", &none, &env), Resolved::Key(Secret::new("sk-literal"), None));
    assert_eq!(resolve_value("MY_KEY", &none, &env), Resolved::Key(Secret::new("from-env"), Some("MY_KEY".into())));
    assert_eq!(resolve_value("$MY_KEY", &none, &env), Resolved::Key(Secret::new("from-env"), Some("MY_KEY".into())));
    assert_eq!(resolve_value("${A}-$A$$x$!y", &none, &env), Resolved::Key(Secret::new("aa-aa$x!y"), None));
    assert_eq!(resolve_value("${NOPE}", &none, &env), Resolved::Missing(vec!["NOPE".into()]));
    assert_eq!(resolve_value("!pass show key", &none, &env), Resolved::Command);
    let extra: BTreeMap<String, Secret> = [("NOPE".to_owned(), Secret::new("given"))].into();
    assert_eq!(resolve_value("$NOPE", &extra, &env), Resolved::Key(Secret::new("given"), Some("NOPE".into())));
}

#[test]
fn a_custom_provider_with_a_stored_key_is_usable() {
    let models = parse_pi_models_json(r#"{"providers": {"local": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "unused", "models": [{"id": "m1"}]}}}"#).unwrap();
    let auth = parse_pi_auth_json(r#"{"local": {"type": "api_key", "key": "sk-canary-123"}}"#).unwrap();
    let m = resolve_model(Dialect::Pi, &r("local", "m1"), &models, &auth, &places(), &no_env);
    assert_eq!((m.wire, m.base_url.as_str(), m.unavailable.as_deref()), (Some(Wire::OpenAiCompatible), "http://127.0.0.1:9/v1", None));
    assert_eq!(m.key, Some(Secret::new("sk-canary-123")));
    assert_eq!(m.key_source, "~/.pi/agent/auth.json");
    assert_eq!(m.label(), "pi's own: local/m1");
    assert!(!format!("{m:?}").contains("canary"));
}

#[test]
fn oauth_and_commands_are_unavailable_with_the_reason() {
    let models = parse_pi_models_json(r#"{"providers": {"vault": {"baseUrl": "https://v.example/v1", "api": "openai-completions", "apiKey": "!touch /tmp/contextree-must-not-run", "models": [{"id": "m"}]}}}"#).unwrap();
    let auth = parse_pi_auth_json(r#"{"anthropic": {"type": "oauth", "access": "sk-ant-oat-1", "refresh": "r", "expires": 1}}"#).unwrap();
    let oauth =
        resolve_model(Dialect::Pi, &r("anthropic", "claude-sonnet-4-5"), &models, &auth, &places(), &|_| Some("sk-env-unused".into()));
    assert!(oauth.unavailable.as_deref().unwrap().contains("subscription (OAuth in ~/.pi/agent/auth.json)"), "{oauth:?}");
    assert_eq!(oauth.key, None, "a stored login owns the provider: no fallback to the environment");
    let cmd = resolve_model(Dialect::Pi, &r("vault", "m"), &models, &auth, &places(), &no_env);
    assert!(cmd.unavailable.as_deref().unwrap().contains("output of a command"), "{cmd:?}");
    assert!(!Path::new("/tmp/contextree-must-not-run").exists());
}

#[test]
fn builtins_keys_from_the_environment_and_what_contextree_cannot_speak() {
    let models = ModelsFile::default();
    let auth = BTreeMap::new();
    let env = |k: &str| (k == "ANTHROPIC_API_KEY").then(|| "sk-ant-api03-x".to_owned());
    let a = resolve_model(Dialect::Pi, &r("anthropic", "claude-sonnet-4-5"), &models, &auth, &places(), &env);
    assert_eq!(
        (a.wire, a.base_url.as_str(), a.key_source.as_str()),
        (Some(Wire::Anthropic), "https://api.anthropic.com", "environment variable ANTHROPIC_API_KEY")
    );
    assert!(a.unavailable.is_none());
    let g = resolve_model(Dialect::Pi, &r("google", "gemini-2.5-pro"), &models, &auth, &places(), &no_env);
    assert_eq!(g.unavailable.as_deref(), Some("contextree cannot speak google-generative-ai yet"));
    let none = resolve_model(Dialect::Pi, &r("openrouter", "x/y"), &models, &auth, &places(), &no_env);
    assert_eq!((none.key.is_none(), none.unavailable.is_none()), (true, true), "no key: the caller decides whether one is needed");
    assert!(none.key_source.contains("$OPENROUTER_API_KEY"), "{}", none.key_source);
    let unknown = resolve_model(Dialect::Pi, &r("nowhere", "m"), &models, &auth, &places(), &no_env);
    assert!(unknown.unavailable.unwrap().contains("knows no provider"));
    let tok = resolve_model(Dialect::Pi, &r("anthropic", "m"), &models, &auth, &places(), &|k| {
        (k == "ANTHROPIC_OAUTH_TOKEN").then(|| "sk-ant-oat01-x".into())
    });
    assert!(tok.unavailable.unwrap().contains("subscription token"));
    let codex = resolve_model(Dialect::Pi, &r("openai-codex", "gpt-5"), &models, &auth, &places(), &no_env);
    assert!(codex.unavailable.unwrap().contains("subscription login"));
}

#[test]
fn a_models_json_base_url_overrides_a_builtin() {
    let models =
        parse_pi_models_json(r#"{"providers": {"anthropic": {"baseUrl": "http://127.0.0.1:1", "headers": {"x-a": "b"}}}}"#).unwrap();
    let m = resolve_model(Dialect::Pi, &r("anthropic", "claude"), &models, &BTreeMap::new(), &places(), &|k| {
        (k == "ANTHROPIC_API_KEY").then(|| "sk-ant-api03-y".into())
    });
    assert_eq!((m.api.as_str(), m.base_url.as_str()), ("anthropic-messages", "http://127.0.0.1:1"));
    assert!(m.notes.iter().any(|n| n.contains("headers")), "{:?}", m.notes);
}

#[test]
fn omp_reads_models_yml_keys_and_says_what_it_cannot_see() {
    let tmp = tempfile::Builder::new().prefix("contextree-agent-models-").tempdir().unwrap();
    let t = tmp.path().to_path_buf();
    let dir = t.join(".omp/agent");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("models.yml"), "providers:\n  box:\n    baseUrl: http://127.0.0.1:7/v1\n    api: openai-completions\n    apiKey: BOX_KEY\n    models:\n      - id: m\n").unwrap();
    let refs = vec![
        ModelRef { provider: "box".into(), model: "m".into(), setting: "modelRoles.default".into() },
        ModelRef { provider: "anthropic".into(), model: "c".into(), setting: "modelRoles.smol".into() },
    ];
    let env = |k: &str| (k == "BOX_KEY").then(|| "sk-box-key-0000".to_owned());
    let got = read_agent_models(Dialect::Omp, &dir, Some(&t), &refs, &env);
    assert!(got.warnings.is_empty(), "{:?}", got.warnings);
    assert_eq!(got.models[0].key, Some(Secret::new("sk-box-key-0000")));
    assert_eq!(got.models[0].key_source, "environment variable BOX_KEY (named in `apiKey` in ~/.omp/agent/models.yml)");
    assert!(got.models[1].key_source.contains("agent.db"), "{}", got.models[1].key_source);
    let _ = std::fs::remove_dir_all(&t);
}
