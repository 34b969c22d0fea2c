//! The agents' own settings for `compaction.*` and `branchSummary.*`
//! (hooks-and-settings.md §4), read to pre-fill contextree's, and the model the
//! agent compacts with (pi `defaultProvider` / `defaultModel`, omp `modelRoles`,
//! resolved by [`crate::agent_models`]). Read only: the spec forbids writing the
//! agents' settings files (§4.3).
//!
//! Files, later ones deep-merged over earlier ones (objects key by key):
//! - pi: `$PI_CODING_AGENT_DIR/settings.json` (else `~/.pi/agent/settings.json`),
//!   then `<cwd>/.pi/settings.json`;
//! - omp: `~/.omp/agent/config.yml` (YAML; when it is absent, the legacy
//!   `~/.omp/agent/settings.json` omp would migrate into it), then
//!   `<cwd>/.omp/settings.json`.
//!
//! A missing file is normal and silent. An unreadable or malformed file, or a
//! value of the wrong type, is a warning naming the file (or key) and the
//! reason; that file (or key) is then ignored and the defaults stand.

use std::path::{Path, PathBuf};

use contextree_core::compaction::{CompactionSettings, MethodOrder, Strategy};
use contextree_core::Dialect;
use serde_json::{Map, Value};
use yaml_rust2::{Yaml, YamlLoader};

use crate::agent_models::{self, AgentModels};
use crate::library::{expand_tilde, RootOrigin};

/// Both agents' `branchSummary.reserveTokens` default.
pub const DEFAULT_BRANCH_SUMMARY_RESERVE_TOKENS: u64 = 16_384;

/// What the agent's settings say about compaction, with the dialect's defaults
/// for everything unset.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSettings {
    /// `compaction.enabled`, `keepRecentTokens`, `reserveTokens` (both), and
    /// omp's `strategy`, `thresholdPercent`, `thresholdTokens`.
    pub compaction: CompactionSettings,
    /// `branchSummary.reserveTokens`.
    pub branch_summary_reserve_tokens: u64,
    /// omp `compaction.remoteEndpoint`, `None` when unset or when
    /// `compaction.remoteEnabled` is false (omp then does not use it). pi: always `None`.
    pub remote_endpoint: Option<String>,
    /// The files that were read, in merge order (later ones win).
    pub sources: Vec<PathBuf>,
    /// Files or keys that were ignored, and why.
    pub warnings: Vec<String>,
    /// The models the agent itself compacts with (pi: `defaultProvider` / `defaultModel`;
    /// omp: `modelRoles`), with their keys, read from its own files
    /// ([`crate::agent_models`]). Empty when the settings name none.
    pub models: AgentModels,
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            compaction: CompactionSettings::default(),
            branch_summary_reserve_tokens: DEFAULT_BRANCH_SUMMARY_RESERVE_TOKENS,
            remote_endpoint: None,
            sources: Vec::new(),
            warnings: Vec::new(),
            models: AgentModels::default(),
        }
    }
}

/// The settings file format, by how the agent reads it.
#[derive(Clone, Copy)]
enum Format {
    Json,
    Yaml,
}

/// The agent's settings as seen from `cwd`, with `home` as the home folder and
/// `env` for environment variables (parameters so tests need no real HOME).
pub fn agent_settings(dialect: Dialect, home: &Path, env: &dyn Fn(&str) -> Option<String>, cwd: &Path) -> AgentSettings {
    let agent_dir = match dialect {
        Dialect::Pi => pi_agent_dir(Some(home), env).map(|(dir, _)| dir),
        Dialect::Omp => Some(agent_models::omp_agent_dir(home)),
    };
    let files: Vec<(PathBuf, Format)> = match dialect {
        Dialect::Pi => {
            let global = pi_agent_dir(Some(home), env).map(|(dir, _)| (dir.join("settings.json"), Format::Json));
            global.into_iter().chain([(cwd.join(".pi/settings.json"), Format::Json)]).collect()
        }
        Dialect::Omp => {
            let yml = home.join(".omp/agent/config.yml");
            // omp migrates the legacy JSON file into config.yml once; until it
            // has, the JSON file is what it would use.
            let global = if yml.exists() { (yml, Format::Yaml) } else { (home.join(".omp/agent/settings.json"), Format::Json) };
            vec![global, (cwd.join(".omp/settings.json"), Format::Json)]
        }
    };
    let mut out = AgentSettings::default();
    let mut merged = Value::Object(Map::new());
    for (path, format) in files {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                out.warnings.push(format!("{}: cannot read: {e}", path.display()));
                continue;
            }
        };
        match parse(&text, format) {
            Ok(Value::Object(map)) => {
                deep_merge(&mut merged, Value::Object(map));
                out.sources.push(path);
            }
            // An empty YAML document is an empty settings file, not an error.
            Ok(Value::Null) => out.sources.push(path),
            Ok(_) => out.warnings.push(format!("{}: not an object at the top level; ignored", path.display())),
            Err(reason) => out.warnings.push(format!("{}: {reason}; ignored", path.display())),
        }
    }
    apply(dialect, &merged, &mut out);
    let refs = match dialect {
        Dialect::Pi => agent_models::pi_model_ref(&merged).into_iter().collect(),
        Dialect::Omp => agent_models::omp_model_refs(&merged),
    };
    if let Some(dir) = agent_dir {
        out.models = agent_models::read_agent_models(dialect, &dir, Some(home), &refs, env);
    }
    out
}

/// pi's agent folder, as its `getAgentDir` finds it: `$PI_CODING_AGENT_DIR`
/// with a leading `~` expanded, else `~/.pi/agent` (None without a home).
/// Sessions and settings both live there, so both must derive it here.
pub fn pi_agent_dir(home: Option<&Path>, env: &dyn Fn(&str) -> Option<String>) -> Option<(PathBuf, RootOrigin)> {
    match env("PI_CODING_AGENT_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => Some((expand_tilde(&dir, home), RootOrigin::Environment)),
        None => home.map(|h| (h.join(".pi/agent"), RootOrigin::Default)),
    }
}

fn parse(text: &str, format: Format) -> Result<Value, String> {
    match format {
        Format::Json => serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}")),
        Format::Yaml => parse_yaml(text),
    }
}

/// The first document of a YAML text as JSON (an empty text is `null`).
pub(crate) fn parse_yaml(text: &str) -> Result<Value, String> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| format!("invalid YAML: {e}"))?;
    docs.into_iter().next().map_or(Ok(Value::Null), |d| yaml_to_json(&d))
}

fn yaml_to_json(y: &Yaml) -> Result<Value, String> {
    Ok(match y {
        Yaml::Null | Yaml::BadValue => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => Value::from(*i),
        // `.inf` / `.nan` have no JSON form; they become null (and so a warning if used).
        Yaml::Real(r) => y.as_f64().and_then(serde_json::Number::from_f64).map_or_else(|| Value::String(r.clone()), Value::Number),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(a) => Value::Array(a.iter().map(yaml_to_json).collect::<Result<_, _>>()?),
        Yaml::Hash(h) => {
            let mut map = Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    Yaml::Real(r) => r.clone(),
                    _ => return Err("a mapping key is not a scalar".to_owned()),
                };
                map.insert(key, yaml_to_json(v)?);
            }
            Value::Object(map)
        }
        Yaml::Alias(_) => return Err("YAML aliases are not supported".to_owned()),
    })
}

/// Objects merge key by key; anything else is replaced (the agents' deepMerge).
fn deep_merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(slot) if slot.is_object() && v.is_object() => deep_merge(slot, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

/// Reads the typed keys out of the merged document.
fn apply(dialect: Dialect, merged: &Value, out: &mut AgentSettings) {
    let mut warn = |key: &str, want: &str, v: &Value| out.warnings.push(format!("{key}: expected {want}, found {v}; the default is used"));
    let get = |section: &str, key: &str| merged.get(section).and_then(|s| s.get(key)).filter(|v| !v.is_null());
    let c = &mut out.compaction;
    if let Some(v) = get("compaction", "enabled") {
        match v.as_bool() {
            Some(b) => c.enabled = b,
            None => warn("compaction.enabled", "true or false", v),
        }
    }
    for (key, slot) in [("keepRecentTokens", &mut c.keep_recent_tokens), ("reserveTokens", &mut c.reserve_tokens)] {
        if let Some(v) = get("compaction", key) {
            match count(v) {
                Some(n) => *slot = n,
                None => warn(&format!("compaction.{key}"), "a whole number ≥ 0", v),
            }
        }
    }
    // omp 18 tells a configured reserve from its default (resolveBudgetReserveTokens).
    c.reserve_tokens_set = get("compaction", "reserveTokens").and_then(count).is_some();
    if let Some(v) = get("branchSummary", "reserveTokens") {
        match count(v) {
            Some(n) => out.branch_summary_reserve_tokens = n,
            None => warn("branchSummary.reserveTokens", "a whole number ≥ 0", v),
        }
    }
    // pi has no strategy, thresholds or remote endpoint (§4.2): its keys of
    // those names, if any, mean nothing to it.
    if dialect == Dialect::Pi {
        return;
    }
    if let Some(v) = get("compaction", "strategy") {
        match v.as_str() {
            Some("context-full") => c.strategy = Strategy::ContextFull,
            Some("handoff") => c.strategy = Strategy::Handoff,
            Some("off") => c.strategy = Strategy::Off,
            _ => warn("compaction.strategy", "\"context-full\", \"handoff\" or \"off\"", v),
        }
    }
    // −1 (the default) and other values ≤ 0 mean unset; the threshold rule
    // ignores them the same way, so they are kept as given.
    for (key, slot) in [("thresholdPercent", &mut c.threshold_percent), ("thresholdTokens", &mut c.threshold_tokens)] {
        if let Some(v) = get("compaction", key) {
            match v.as_f64() {
                Some(x) => *slot = (x > 0.0).then_some(x),
                None => warn(&format!("compaction.{key}"), "a number", v),
            }
        }
    }
    let remote_enabled = match get("compaction", "remoteEnabled") {
        Some(v) => v.as_bool().unwrap_or_else(|| {
            warn("compaction.remoteEnabled", "true or false", v);
            true
        }),
        None => true,
    };
    if let Some(v) = get("compaction", "remoteEndpoint") {
        match v.as_str() {
            Some(url) if !url.trim().is_empty() => out.remote_endpoint = remote_enabled.then(|| url.trim().to_owned()),
            Some(_) => {}
            None => warn("compaction.remoteEndpoint", "a URL string", v),
        }
    }
    let c = &mut out.compaction;
    c.remote_endpoint = out.remote_endpoint.is_some();
    // omp 18 (omp-18.md §5.1): the method order, read as resolveCompactionMethodOrder does (not a
    // list: no method at all), and the per-turn stale pass's switches.
    if let Some(v) = get("compaction", "methodOrder") {
        let names: Vec<&str> = v.as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        c.method_order = MethodOrder::resolve(names);
        if !v.is_array() {
            out.warnings
                .push(format!("compaction.methodOrder: expected a list of methods, found {v}; omp 18 then has no automatic method"));
        }
    }
    for (key, slot) in [("supersedeReads", &mut c.supersede_reads), ("dropUseless", &mut c.drop_useless)] {
        if let Some(v) = get("compaction", key) {
            match v.as_bool() {
                Some(b) => *slot = b,
                None => out.warnings.push(format!("compaction.{key}: expected true or false, found {v}; the default is used")),
            }
        }
    }
}

/// A token count: a whole, non-negative JSON number (YAML `16384` and JSON
/// `16384.0` alike).
fn count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_f64().filter(|x| x.is_finite() && *x >= 0.0 && x.fract() == 0.0 && *x < 9.007e15).map(|x| x as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary folder (`tempfile`), removed when dropped.
    struct TempDir(tempfile::TempDir);

    impl TempDir {
        fn new() -> TempDir {
            TempDir(tempfile::Builder::new().prefix("contextree-settings-").tempdir().unwrap())
        }

        fn path(&self) -> &Path {
            self.0.path()
        }

        fn write(&self, rel: &str, text: &str) -> PathBuf {
            let p = self.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            p
        }
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn omp18_method_order_and_stale_switches() {
        let t = TempDir::new();
        t.write("home/.omp/agent/config.yml", "compaction:\n  methodOrder: [soft, bogus, shake]\n  reserveTokens: 16384\n  supersedeReads: false\n  dropUseless: 1\n  remoteEndpoint: https://c.example\n");
        let s = agent_settings(Dialect::Omp, &t.path().join("home"), &no_env, &t.path().join("proj"));
        let c = s.compaction;
        assert_eq!(c.method_order, MethodOrder::resolve(["soft", "shake"]));
        assert!(c.reserve_tokens_set && c.remote_endpoint && !c.supersede_reads && c.drop_useless);
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
        let d = agent_settings(Dialect::Omp, &t.path().join("nohome"), &no_env, &t.path().join("proj")).compaction;
        assert!(!d.reserve_tokens_set && d.method_order == MethodOrder::default());
    }

    #[test]
    fn defaults_when_no_file_exists() {
        let t = TempDir::new();
        for d in [Dialect::Pi, Dialect::Omp] {
            let s = agent_settings(d, &t.path().join("home"), &no_env, &t.path().join("proj"));
            assert_eq!(s, AgentSettings::default());
        }
    }

    #[test]
    fn pi_global_and_project_deep_merge() {
        let t = TempDir::new();
        let g = t.write("home/.pi/agent/settings.json", r#"{"compaction": {"reserveTokens": 8000, "keepRecentTokens": 1000}, "branchSummary": {"reserveTokens": 4000}, "theme": "dark"}"#);
        let p = t.write("proj/.pi/settings.json", r#"{"compaction": {"keepRecentTokens": 500, "enabled": false, "strategy": "off"}}"#);
        let s = agent_settings(Dialect::Pi, &t.path().join("home"), &no_env, &t.path().join("proj"));
        assert_eq!(s.sources, vec![g, p]);
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert_eq!(s.compaction.reserve_tokens, 8000, "global value survives the project's partial object");
        assert_eq!(s.compaction.keep_recent_tokens, 500, "project wins");
        assert!(!s.compaction.enabled);
        assert_eq!(s.compaction.strategy, Strategy::ContextFull, "pi has no strategy");
        assert_eq!(s.branch_summary_reserve_tokens, 4000);
    }

    #[test]
    fn pi_agent_dir_from_the_environment() {
        let t = TempDir::new();
        t.write("home/.pi/agent/settings.json", r#"{"compaction": {"reserveTokens": 1}}"#);
        let other = t.write("elsewhere/settings.json", r#"{"compaction": {"reserveTokens": 2}}"#);
        let dir = t.path().join("elsewhere").display().to_string();
        let env = move |k: &str| (k == "PI_CODING_AGENT_DIR").then(|| dir.clone());
        let s = agent_settings(Dialect::Pi, &t.path().join("home"), &env, &t.path().join("proj"));
        assert_eq!(s.compaction.reserve_tokens, 2);
        assert_eq!(s.sources, vec![other]);
    }

    #[test]
    fn pi_agent_dir_expands_a_tilde_for_settings_too() {
        let t = TempDir::new();
        t.write("home/.pi/agent/settings.json", r#"{"compaction": {"reserveTokens": 1}}"#);
        let other = t.write("home/x/settings.json", r#"{"compaction": {"reserveTokens": 2}}"#);
        let env = |k: &str| (k == "PI_CODING_AGENT_DIR").then(|| "~/x".to_owned());
        let s = agent_settings(Dialect::Pi, &t.path().join("home"), &env, &t.path().join("proj"));
        assert_eq!(s.compaction.reserve_tokens, 2);
        assert_eq!(s.sources, vec![other]);
        // The session library finds the same folder.
        let roots = crate::library::default_roots(Some(&t.path().join("home")), &env, &|_| false, &Default::default());
        assert_eq!(roots[0].path, t.path().join("home/x/sessions"));
    }

    #[test]
    fn omp_yaml_with_project_json() {
        let t = TempDir::new();
        let yml = t.write(
            "home/.omp/agent/config.yml",
            "# global\ncompaction:\n  reserveTokens: 20000   # floor\n  strategy: \"handoff\"\n  thresholdPercent: 80\n  remoteEndpoint: 'https://x.example/compact'\nbranchSummary:\n  enabled: true\n  reserveTokens: 9000\n",
        );
        // The legacy file is not read while config.yml exists.
        t.write("home/.omp/agent/settings.json", r#"{"compaction": {"reserveTokens": 1}}"#);
        let p = t.write("proj/.omp/settings.json", r#"{"compaction": {"thresholdTokens": 150000, "keepRecentTokens": 3000}}"#);
        let s = agent_settings(Dialect::Omp, &t.path().join("home"), &no_env, &t.path().join("proj"));
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert_eq!(s.sources, vec![yml, p]);
        let c = s.compaction;
        assert_eq!((c.reserve_tokens, c.keep_recent_tokens, c.strategy), (20000, 3000, Strategy::Handoff));
        assert_eq!((c.threshold_percent, c.threshold_tokens), (Some(80.0), Some(150000.0)));
        assert_eq!(s.branch_summary_reserve_tokens, 9000);
        assert_eq!(s.remote_endpoint.as_deref(), Some("https://x.example/compact"));
    }

    #[test]
    fn omp_legacy_json_and_disabled_remote() {
        let t = TempDir::new();
        let legacy = t.write(
            "home/.omp/agent/settings.json",
            r#"{"compaction": {"thresholdPercent": -1, "remoteEnabled": false, "remoteEndpoint": "https://x"}}"#,
        );
        let s = agent_settings(Dialect::Omp, &t.path().join("home"), &no_env, &t.path().join("proj"));
        assert_eq!(s.sources, vec![legacy]);
        assert_eq!(s.compaction.threshold_percent, None, "-1 means unset");
        assert_eq!(s.remote_endpoint, None, "remoteEnabled: false turns the endpoint off");
    }

    #[test]
    fn bad_files_and_values_are_warnings_and_defaults_stand() {
        let t = TempDir::new();
        t.write("home/.omp/agent/config.yml", "compaction:\n  reserveTokens: [1, 2\n");
        t.write(
            "proj/.omp/settings.json",
            r#"{"compaction": {"keepRecentTokens": "many", "enabled": "yes", "strategy": "sometimes", "reserveTokens": 12.5}}"#,
        );
        let s = agent_settings(Dialect::Omp, &t.path().join("home"), &no_env, &t.path().join("proj"));
        assert_eq!(s.compaction, CompactionSettings::default());
        assert_eq!(s.sources.len(), 1, "only the valid project file counts as read");
        let all = s.warnings.join("\n");
        assert!(all.contains("config.yml: invalid YAML"), "{all}");
        for key in ["compaction.keepRecentTokens", "compaction.enabled", "compaction.strategy", "compaction.reserveTokens"] {
            assert!(all.contains(key), "{key} missing in {all}");
        }

        let t = TempDir::new();
        t.write("home/.pi/agent/settings.json", "{not json");
        t.write("proj/.pi/settings.json", "[1]");
        let s = agent_settings(Dialect::Pi, &t.path().join("home"), &no_env, &t.path().join("proj"));
        assert_eq!(s.compaction, CompactionSettings::default());
        assert!(s.sources.is_empty());
        assert!(s.warnings[0].contains("settings.json: invalid JSON"), "{:?}", s.warnings);
        assert!(s.warnings[1].contains("not an object"), "{:?}", s.warnings);
    }

    #[test]
    fn an_empty_yaml_file_is_empty_settings() {
        let t = TempDir::new();
        let yml = t.write("home/.omp/agent/config.yml", "# nothing yet\n");
        let s = agent_settings(Dialect::Omp, &t.path().join("home"), &no_env, &t.path().join("proj"));
        assert_eq!(s.sources, vec![yml]);
        assert!(s.warnings.is_empty());
    }
}
