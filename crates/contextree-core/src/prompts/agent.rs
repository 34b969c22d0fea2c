//! Reading a prompt pack out of an installed agent package, as a pure
//! function over file contents (the host crate does the file reads).
//!
//! omp ships its prompts as Markdown templates (`src/prompts/...`); they are
//! parsed as templates. pi compiles them into JavaScript string constants;
//! those are extracted by [`super::js_literal`] and used as literal text, a
//! context wrapper becoming `PREFIX{{summary}}SUFFIX`.

use std::collections::BTreeMap;
use std::path::Path;

use super::js_literal::{find_string_constant, JsLiteralError};
use super::known::{known_texts, known_texts_of, recorded_rule_sets, sha256_hex, HashedForm, KnownText};
use super::{PackOrigin, PromptError, PromptId, PromptPack, Segment, Template, TemplateError};
use crate::{Dialect, RuleSet};

/// The npm package of each dialect's agent.
pub fn agent_package_name(dialect: Dialect) -> &'static str {
    agent_package_names(dialect)[0]
}

/// Every npm name the agent was published under, newest first: pi moved to
/// `@earendil-works/pi-coding-agent` at 1.x (the old name stopped at 0.73.1).
pub fn agent_package_names(dialect: Dialect) -> &'static [&'static str] {
    match dialect {
        Dialect::Pi => &["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"],
        Dialect::Omp => &["@oh-my-pi/pi-coding-agent"],
    }
}

/// The compiled pi files that hold the prompt constants (0.73.1 layout).
/// Each constant is looked up in its usual file first, then in the others,
/// so that a release that moves a constant between them still loads.
pub const PI_SOURCE_FILES: &[&str] = &[
    "dist/core/messages.js",
    "dist/core/compaction/utils.js",
    "dist/core/compaction/compaction.js",
    "dist/core/compaction/branch-summarization.js",
];

/// The omp template file of `id`, relative to the package root.
fn omp_file(id: PromptId) -> String {
    let dir = if id == PromptId::SummarizationSystem { "system" } else { "compaction" };
    format!("src/prompts/{dir}/{}.md", id.name())
}

/// Where omp ≥ 18 keeps its compaction prompts: in `@oh-my-pi/pi-agent-core`
/// (`src/compaction/prompts/`), nested in the coding agent's package or
/// beside it in the same scope folder (omp-18.md §0).
const OMP18_CORE_DIRS: &[&str] = &["node_modules/@oh-my-pi/pi-agent-core", "../pi-agent-core"];

/// The omp ≥ 18 template file of `id`, relative to the agent core's root.
fn omp18_file(id: PromptId) -> String {
    format!("src/compaction/prompts/{}.md", id.name())
}

/// Whether an omp package of `version` keeps its prompts in the agent core
/// (omp ≥ 15.1, where compaction moved there; read as major ≥ 18 here, the
/// release the rules reproduce).
fn omp_prompts_in_core(version: &str) -> bool {
    version.split('.').next().and_then(|m| m.parse::<u32>().ok()).is_some_and(|m| m >= 18)
}

/// pi's constants for `id`: the whole text, or (wrappers) prefix and suffix;
/// with the index in [`PI_SOURCE_FILES`] of the file that usually holds them.
fn pi_constants(id: PromptId) -> Option<(usize, &'static [&'static str])> {
    Some(match id {
        PromptId::CompactionSummaryContext => (0, &["COMPACTION_SUMMARY_PREFIX", "COMPACTION_SUMMARY_SUFFIX"]),
        PromptId::BranchSummaryContext => (0, &["BRANCH_SUMMARY_PREFIX", "BRANCH_SUMMARY_SUFFIX"]),
        PromptId::SummarizationSystem => (1, &["SUMMARIZATION_SYSTEM_PROMPT"]),
        PromptId::CompactionSummary => (2, &["SUMMARIZATION_PROMPT"]),
        PromptId::CompactionUpdateSummary => (2, &["UPDATE_SUMMARIZATION_PROMPT"]),
        PromptId::CompactionTurnPrefix => (2, &["TURN_PREFIX_SUMMARIZATION_PROMPT"]),
        PromptId::CompactionShortSummary => return None,
        PromptId::BranchSummary => (3, &["BRANCH_SUMMARY_PROMPT"]),
        PromptId::BranchSummaryPreamble => (3, &["BRANCH_SUMMARY_PREAMBLE"]),
        PromptId::HandoffSummaryContext => return None,
    })
}

/// One text of a loaded agent pack compared with the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextCheck {
    /// The text.
    pub id: PromptId,
    /// Which form was hashed (a pi wrapper has a prefix and a suffix check).
    pub form: HashedForm,
    /// File (omp) or constant name (pi) the text came from.
    pub source: String,
    /// Length of the hashed form, UTF-16 units.
    pub utf16_len: usize,
    /// sha256 of the hashed form.
    pub sha256: String,
    /// The spec's row for this text, if it has one: of the rule set the
    /// pack fits ([`PromptPack::rules`]).
    pub expected: Option<KnownText>,
}

impl TextCheck {
    /// Whether the text is the reference agent's own.
    pub fn matches(&self) -> bool {
        self.expected.is_some_and(|k| k.sha256 == self.sha256 && k.utf16_len == self.utf16_len)
    }
}

/// Why an agent package could not be read as a prompt pack.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentPackError {
    /// A file the pack needs is missing or unreadable.
    #[error("missing file `{0}` in the agent package")]
    MissingFile(String),
    /// `package.json` is not JSON or lacks a string `version`.
    #[error("`package.json`: {0}")]
    PackageJson(String),
    /// The directory holds another package.
    #[error("expected package `{expected}`, found `{found}`")]
    WrongPackage {
        /// The dialect's package.
        expected: &'static str,
        /// `name` from `package.json`.
        found: String,
    },
    /// A pi constant was not declared in any of the searched files.
    #[error("constant `{name}` not found in {searched:?}")]
    MissingConstant {
        /// The constant.
        name: &'static str,
        /// The files searched.
        searched: Vec<String>,
    },
    /// A pi constant's value could not be read.
    #[error("`{file}`: {source}")]
    Js {
        /// The file.
        file: String,
        /// What went wrong.
        source: JsLiteralError,
    },
    /// An omp template uses constructs contextree does not render.
    #[error("`{file}`: {source}")]
    Template {
        /// The file.
        file: String,
        /// What went wrong.
        source: TemplateError,
    },
    /// The texts do not form a valid pack.
    #[error(transparent)]
    Pack(#[from] PromptError),
}

impl PromptPack {
    /// Reads the prompt texts of the `dialect` agent package at `path`.
    ///
    /// `files` returns the content of a file given its path relative to the
    /// package root (`package.json`, `src/prompts/compaction/...md`,
    /// `dist/core/messages.js`, ...), or `None` when it does not exist.
    /// Each text is checked against the spec's digests
    /// ([`PromptPack::checks`]); the origin is
    /// [`PackOrigin::Agent`] with `verified` true when every text matched the
    /// rows of one rule set, which the pack then fits ([`PromptPack::rules`]).
    /// A package whose texts differ (another release, a local edit) still
    /// loads, unverified, fitting the rule set its version maps to.
    pub fn from_agent_files(dialect: Dialect, path: &Path, files: &dyn Fn(&str) -> Option<String>) -> Result<PromptPack, AgentPackError> {
        let version = package_version(dialect, files)?;
        let release = known_release(dialect, &version);
        let (texts, checks) = match dialect {
            Dialect::Pi => read_pi(files)?,
            Dialect::Omp if omp_prompts_in_core(&version) => read_omp18(files, release)?,
            Dialect::Omp => read_omp(files, release)?,
        };
        let pack = PromptPack::from_parsed(dialect, PackOrigin::Custom(String::new()), texts)?
            .with_omp18_format(dialect == Dialect::Omp && omp_prompts_in_core(&version));
        let mut checks: Vec<TextCheck> = match dialect {
            Dialect::Pi => checks,
            Dialect::Omp => checks.into_iter().map(|c| check_omp(&pack, c, release)).collect::<Result<_, _>>()?,
        };
        let rules = assign_expected(dialect, &version, &mut checks);
        let verified = !checks.is_empty() && checks.iter().all(TextCheck::matches);
        let origin = PackOrigin::Agent { dialect, version, verified, path: path.to_owned() };
        Ok(pack.with_origin(origin, checks).with_rules(rules))
    }
}

/// Fills each check's `expected` row and returns the rule set the pack fits:
/// the newest recorded rule set all of whose rows the texts match; failing
/// that, the rule set of the package's version (its rows are then the
/// expectation), else the newest recorded one.
fn assign_expected(dialect: Dialect, version: &str, checks: &mut [TextCheck]) -> Option<RuleSet> {
    let row = |rules: RuleSet, c: &TextCheck| known_texts_of(rules).find(|k| k.id == c.id && k.form == c.form).copied();
    let recorded: Vec<RuleSet> = recorded_rule_sets(dialect).collect();
    let fits = |rules: RuleSet, checks: &[TextCheck]| {
        !checks.is_empty() && checks.iter().all(|c| row(rules, c).is_some_and(|k| k.sha256 == c.sha256 && k.utf16_len == c.utf16_len))
    };
    let matched = recorded.iter().rev().copied().find(|&r| fits(r, checks));
    let by_version = RuleSet::for_version(dialect, version);
    let expect_from = matched.or(by_version.filter(|r| recorded.contains(r))).or(recorded.last().copied());
    for c in checks.iter_mut() {
        c.expected = expect_from.and_then(|r| row(r, c));
    }
    matched.or(by_version)
}

fn package_version(dialect: Dialect, files: &dyn Fn(&str) -> Option<String>) -> Result<String, AgentPackError> {
    let raw = files("package.json").ok_or_else(|| AgentPackError::MissingFile("package.json".into()))?;
    let json: serde_json::Value = serde_json::from_str(&raw).map_err(|e| AgentPackError::PackageJson(e.to_string()))?;
    let expected = agent_package_name(dialect);
    match json.get("name").and_then(|n| n.as_str()) {
        Some(name) if agent_package_names(dialect).contains(&name) => {}
        found => return Err(AgentPackError::WrongPackage { expected, found: found.unwrap_or("(no name)").to_owned() }),
    }
    json.get("version").and_then(|v| v.as_str()).map(str::to_owned).ok_or_else(|| AgentPackError::PackageJson("no string `version`".into()))
}

type Read = (BTreeMap<PromptId, Template>, Vec<TextCheck>);

/// The reference release whose digests a package of `version` is checked
/// against: omp ≥ 18 → 18.2.3, else the seed's release.
fn known_release(dialect: Dialect, version: &str) -> &'static str {
    match dialect {
        Dialect::Omp if omp_prompts_in_core(version) => super::known::OMP18,
        Dialect::Omp => super::known::OMP,
        Dialect::Pi => super::known::PI,
    }
}

/// omp ≥ 18: every text from the agent core's `src/compaction/prompts/`
/// (the first of [`OMP18_CORE_DIRS`] that has it).
fn read_omp18(files: &dyn Fn(&str) -> Option<String>, release: &'static str) -> Result<Read, AgentPackError> {
    let mut texts = BTreeMap::new();
    let mut checks = Vec::new();
    for &id in PromptId::ALL {
        let rel = omp18_file(id);
        let found = OMP18_CORE_DIRS.iter().find_map(|dir| {
            let path = format!("{dir}/{rel}");
            files(&path).map(|raw| (path, raw))
        });
        let (file, raw) = found.ok_or_else(|| AgentPackError::MissingFile(format!("{}/{rel}", OMP18_CORE_DIRS[0])))?;
        let template = Template::parse(&raw).map_err(|source| AgentPackError::Template { file: file.clone(), source })?;
        texts.insert(id, template);
        let form = if id.is_context_wrapper() { HashedForm::Raw } else { HashedForm::Rendered };
        checks.push(check(Dialect::Omp, release, id, form, file, &raw));
    }
    // The handoff wrapper is new in 18 (omp-18.md §3); a core without it still loads.
    let id = PromptId::HandoffSummaryContext;
    let rel = omp18_file(id);
    if let Some((file, raw)) =
        OMP18_CORE_DIRS.iter().find_map(|dir| files(&format!("{dir}/{rel}")).map(|raw| (format!("{dir}/{rel}"), raw)))
    {
        let template = Template::parse(&raw).map_err(|source| AgentPackError::Template { file: file.clone(), source })?;
        texts.insert(id, template);
        checks.push(check(Dialect::Omp, release, id, HashedForm::Raw, file, &raw));
    }
    Ok((texts, checks))
}

fn read_omp(files: &dyn Fn(&str) -> Option<String>, release: &'static str) -> Result<Read, AgentPackError> {
    let mut texts = BTreeMap::new();
    let mut checks = Vec::new();
    for &id in PromptId::ALL {
        let file = omp_file(id);
        let raw = files(&file).ok_or_else(|| AgentPackError::MissingFile(file.clone()))?;
        let template = Template::parse(&raw).map_err(|source| AgentPackError::Template { file: file.clone(), source })?;
        texts.insert(id, template);
        // The spec hashes the wrappers raw (they are rendered per summary) and
        // the other texts rendered (omp renders those once, at load).
        let form = if id.is_context_wrapper() { HashedForm::Raw } else { HashedForm::Rendered };
        checks.push(check(Dialect::Omp, release, id, form, file, &raw));
    }
    Ok((texts, checks))
}

/// Replaces the placeholder digest of a `Rendered` check by the digest of
/// the rendered text.
fn check_omp(pack: &PromptPack, c: TextCheck, release: &'static str) -> Result<TextCheck, AgentPackError> {
    if c.form != HashedForm::Rendered {
        return Ok(c);
    }
    let rendered = pack.prompt(c.id)?;
    Ok(check(Dialect::Omp, release, c.id, c.form, c.source, &rendered))
}

fn read_pi(files: &dyn Fn(&str) -> Option<String>) -> Result<Read, AgentPackError> {
    let sources: Vec<Option<String>> = PI_SOURCE_FILES.iter().map(|f| files(f)).collect();
    let mut texts = BTreeMap::new();
    let mut checks = Vec::new();
    for &id in PromptId::ALL {
        let Some((home, names)) = pi_constants(id) else {
            continue;
        };
        let mut values = Vec::new();
        for &name in names {
            let value = find_pi_constant(&sources, home, name)?;
            let form = match (names.len(), values.len()) {
                (1, _) => HashedForm::Constant,
                (_, 0) => HashedForm::Prefix,
                _ => HashedForm::Suffix,
            };
            checks.push(check(Dialect::Pi, super::known::PI, id, form, name.to_owned(), &value));
            values.push(value);
        }
        let template = match <[String; 2]>::try_from(values) {
            Ok([prefix, suffix]) => {
                Template::from_segments([Segment::Literal(prefix), Segment::Var("summary".into()), Segment::Literal(suffix)])
            }
            Err(values) => Template::from_segments(values.into_iter().map(Segment::Literal)),
        };
        texts.insert(id, template);
    }
    Ok((texts, checks))
}

fn find_pi_constant(sources: &[Option<String>], home: usize, name: &'static str) -> Result<String, AgentPackError> {
    let order = std::iter::once(home).chain((0..sources.len()).filter(|&i| i != home));
    for i in order {
        let Some(source) = &sources[i] else { continue };
        let found =
            find_string_constant(source, name).map_err(|source| AgentPackError::Js { file: PI_SOURCE_FILES[i].to_owned(), source })?;
        if let Some(value) = found {
            return Ok(value);
        }
    }
    Err(AgentPackError::MissingConstant { name, searched: PI_SOURCE_FILES.iter().map(|s| (*s).to_owned()).collect() })
}

fn check(dialect: Dialect, release: &'static str, id: PromptId, form: HashedForm, source: String, text: &str) -> TextCheck {
    TextCheck {
        id,
        form,
        source,
        utf16_len: text.encode_utf16().count(),
        sha256: sha256_hex(text),
        // The row of the release the text was read from when recorded, else any of the agent's;
        // `assign_expected` settles it once every text is read.
        expected: known_texts(dialect)
            .find(|k| k.version == release && k.id == id && k.form == form)
            .or_else(|| known_texts(dialect).find(|k| k.id == id && k.form == form))
            .copied(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn pi_files(messages: &str) -> HashMap<&'static str, String> {
        HashMap::from([
            ("package.json", r#"{"name":"@mariozechner/pi-coding-agent","version":"9.9.9"}"#.to_owned()),
            ("dist/core/messages.js", messages.to_owned()),
            ("dist/core/compaction/utils.js", "export const SUMMARIZATION_SYSTEM_PROMPT = `sys`;".to_owned()),
            (
                "dist/core/compaction/compaction.js",
                "const SUMMARIZATION_PROMPT = `first`;\nconst UPDATE_SUMMARIZATION_PROMPT = `upd`;\n\
                 const TURN_PREFIX_SUMMARIZATION_PROMPT = `turn`;\n\
                 const BRANCH_SUMMARY_PREAMBLE = `moved here\\n\\n`;"
                    .to_owned(),
            ),
            ("dist/core/compaction/branch-summarization.js", "const BRANCH_SUMMARY_PROMPT = `br`;".to_owned()),
        ])
    }

    const MESSAGES: &str = "export const COMPACTION_SUMMARY_PREFIX = `C {{x}}\n\n<summary>\n`;\n\
        export const COMPACTION_SUMMARY_SUFFIX = `\n</summary>`;\n\
        export const BRANCH_SUMMARY_PREFIX = \"B\\n\\n<summary>\\n\";\n\
        export const BRANCH_SUMMARY_SUFFIX = `</summary>`;";

    fn load(dialect: Dialect, files: &HashMap<&'static str, String>) -> Result<PromptPack, AgentPackError> {
        PromptPack::from_agent_files(dialect, Path::new("/pkg"), &|p| files.get(p).cloned())
    }

    #[test]
    fn pi_constants_become_literal_templates() {
        let pack = load(Dialect::Pi, &pi_files(MESSAGES)).unwrap();
        assert_eq!(pack.wrap_compaction_summary("S"), "C {{x}}\n\n<summary>\nS\n</summary>");
        assert_eq!(pack.wrap_branch_summary("S"), "B\n\n<summary>\nS</summary>");
        assert_eq!(pack.prompt(PromptId::BranchSummaryPreamble).unwrap(), "moved here\n\n");
        assert_eq!(pack.prompt(PromptId::SummarizationSystem).unwrap(), "sys");
        assert!(pack.template(PromptId::CompactionShortSummary).is_none());
        assert_eq!(
            pack.origin(),
            &PackOrigin::Agent { dialect: Dialect::Pi, version: "9.9.9".into(), verified: false, path: "/pkg".into() }
        );
        let sources: Vec<_> = pack.checks().iter().map(|c| (c.source.as_str(), c.form)).collect();
        assert_eq!(sources[..2], [("COMPACTION_SUMMARY_PREFIX", HashedForm::Prefix), ("COMPACTION_SUMMARY_SUFFIX", HashedForm::Suffix)]);
        assert_eq!(pack.checks().len(), 10);
        // Its texts match no release, so its version decides (9.9.9 ≥ 0.86).
        assert_eq!(pack.rules(), Some(crate::RuleSet::Pi16));
        assert!(pack.checks().iter().all(|c| c.expected.is_some()));
        // The two suffixes are pure markup, so they equal pi's real constants.
        let matching: Vec<_> = pack.checks().iter().filter(|c| c.matches()).map(|c| c.form).collect();
        assert_eq!(matching, [HashedForm::Suffix, HashedForm::Suffix]);
        let suffix = &pack.checks()[3];
        assert_eq!((suffix.source.as_str(), suffix.utf16_len), ("BRANCH_SUMMARY_SUFFIX", 10));
        assert_eq!(suffix.sha256, "7b6935dd2809d39329dd45e593833189975947c2cfb1fb37dbdb098666738420");
        assert!(suffix.matches());
    }

    #[test]
    fn pi_errors() {
        let mut files = pi_files(MESSAGES);
        files.insert("dist/core/messages.js", "const X = 1;".into());
        assert!(matches!(
            load(Dialect::Pi, &files).unwrap_err(),
            AgentPackError::MissingConstant { name: "COMPACTION_SUMMARY_PREFIX", .. }
        ));
        files.insert("dist/core/messages.js", "const COMPACTION_SUMMARY_PREFIX = `a${b}`;".into());
        assert!(matches!(load(Dialect::Pi, &files).unwrap_err(), AgentPackError::Js { .. }));
        assert!(matches!(
            load(Dialect::Omp, &pi_files(MESSAGES)).unwrap_err(),
            AgentPackError::WrongPackage { expected: "@oh-my-pi/pi-coding-agent", .. }
        ));
        files.remove("package.json");
        assert_eq!(load(Dialect::Pi, &files).unwrap_err(), AgentPackError::MissingFile("package.json".into()));
    }

    fn omp_files() -> HashMap<String, String> {
        let mut files: HashMap<String, String> = PromptId::ALL
            .iter()
            .map(|&id| {
                let text = if id.is_context_wrapper() { "L\n\n<summary>\n{{summary}}\n</summary>\n" } else { "T\n" };
                (omp_file(id), text.to_owned())
            })
            .collect();
        files.insert("package.json".into(), r#"{"name":"@oh-my-pi/pi-coding-agent","version":"13.19.0"}"#.into());
        files
    }

    #[test]
    fn omp_templates_are_read_and_rendered() {
        let files = omp_files();
        let pack = PromptPack::from_agent_files(Dialect::Omp, Path::new("/o"), &|p| files.get(p).cloned()).unwrap();
        assert_eq!(pack.wrap_branch_summary("S  "), "L\n\n<summary>\nS\n</summary>");
        assert_eq!(pack.prompt(PromptId::CompactionShortSummary).unwrap(), "T");
        assert_eq!(pack.checks().len(), 9);
        let system = pack.checks().iter().find(|c| c.id == PromptId::SummarizationSystem).unwrap();
        assert_eq!(
            (system.form, system.utf16_len, system.source.as_str()),
            (HashedForm::Rendered, 1, "src/prompts/system/summarization-system.md")
        );
        assert!(matches!(pack.origin(), PackOrigin::Agent { verified: false, .. }));
    }

    #[test]
    fn omp_errors() {
        let mut files = omp_files();
        files.insert(omp_file(PromptId::BranchSummary), "{{#if a}}x{{/if}}".into());
        let err = PromptPack::from_agent_files(Dialect::Omp, Path::new("/o"), &|p| files.get(p).cloned()).unwrap_err();
        assert!(matches!(err, AgentPackError::Template { .. }), "{err}");
        files.insert(omp_file(PromptId::BranchSummary), "{{summary}}".into());
        let err = PromptPack::from_agent_files(Dialect::Omp, Path::new("/o"), &|p| files.get(p).cloned()).unwrap_err();
        assert!(matches!(err, AgentPackError::Pack(PromptError::UnknownPlaceholder { .. })), "{err}");
        files.remove(&omp_file(PromptId::BranchSummaryPreamble));
        let err = PromptPack::from_agent_files(Dialect::Omp, Path::new("/o"), &|p| files.get(p).cloned()).unwrap_err();
        assert_eq!(err, AgentPackError::MissingFile("src/prompts/compaction/branch-summary-preamble.md".into()));
    }

    #[test]
    fn omp_files_match_the_spec_table() {
        for k in known_texts_of(RuleSet::Omp13) {
            assert_eq!(omp_file(k.id), k.source);
        }
        for k in known_texts_of(RuleSet::Omp18) {
            assert_eq!(omp18_file(k.id), k.source);
        }
        for k in known_texts_of(RuleSet::Pi073) {
            assert!(pi_constants(k.id).unwrap().1.contains(&k.source));
        }
    }
}
