//! [`PromptPack`]: validated templates for one dialect, and rendering.

use std::collections::BTreeMap;

use super::agent::TextCheck;
use super::{PackOrigin, PromptError, PromptId, Template};
use crate::context::omp_format;
use crate::{Dialect, RuleSet};

/// A set of prompt texts for one dialect.
///
/// Invariant: every template only uses the placeholders its id allows, and
/// both context wrappers are present and contain `{{summary}}`. So wrapping a
/// summary cannot fail, and rendering fails only when a caller leaves out a
/// variable or asks for a text the pack lacks.
#[derive(Debug, Clone)]
pub struct PromptPack {
    dialect: Dialect,
    origin: PackOrigin,
    texts: BTreeMap<PromptId, Template>,
    checks: Vec<TextCheck>,
    rules: Option<RuleSet>,
    /// omp ≥ 18's post-render formatter ([`omp_format::format18`]) instead
    /// of 13's: set for packs read from an omp ≥ 18 package.
    omp18_format: bool,
}

impl PromptPack {
    /// contextree's own wording (`prompts/`) for `dialect`'s oldest rule set.
    pub fn own(dialect: Dialect) -> PromptPack {
        super::own::own_pack(RuleSet::oldest(dialect))
    }

    /// contextree's own wording (`prompts/`) for one rule set: pi 1.6's
    /// changed texts have their own files (pi-1.6.md §4.6).
    pub fn own_for(rules: RuleSet) -> PromptPack {
        super::own::own_pack(rules)
    }

    /// The tokens the golden fixtures stand in for the agents' texts
    /// (`fixtures/README.md`: `<<omp:PATH>>`, `<<pi:NAME>>`, `...#lead`), laid
    /// out like the agent's own texts, so that outputs can be compared with
    /// `fixtures/synthetic/expected/` byte for byte.
    pub fn placeholders(dialect: Dialect) -> PromptPack {
        super::own::placeholder_pack(dialect)
    }

    /// A pack made of the given template texts.
    ///
    /// # Panics
    /// When a text is not a valid template for its id or a context wrapper is
    /// missing (see [`PromptPack::try_from_templates`], which reports it).
    /// Meant for tests and built-in texts; use `try_from_templates` for texts
    /// a user supplies.
    pub fn from_templates(dialect: Dialect, origin: PackOrigin, texts: impl IntoIterator<Item = (PromptId, String)>) -> PromptPack {
        PromptPack::try_from_templates(dialect, origin, texts).unwrap_or_else(|e| panic!("invalid prompt pack: {e}"))
    }

    /// A pack made of the given template texts, checked.
    pub fn try_from_templates(
        dialect: Dialect,
        origin: PackOrigin,
        texts: impl IntoIterator<Item = (PromptId, String)>,
    ) -> Result<PromptPack, PromptError> {
        let texts = texts
            .into_iter()
            .map(|(id, text)| Template::parse(&text).map(|t| (id, t)).map_err(|source| PromptError::Template { id, source }))
            .collect::<Result<BTreeMap<_, _>, _>>()?;
        PromptPack::from_parsed(dialect, origin, texts)
    }

    /// A pack of already parsed templates, checked.
    pub(super) fn from_parsed(
        dialect: Dialect,
        origin: PackOrigin,
        texts: BTreeMap<PromptId, Template>,
    ) -> Result<PromptPack, PromptError> {
        for (&id, template) in &texts {
            let allowed = id.variables();
            if let Some(name) = template.placeholders().find(|name| !allowed.contains(name)) {
                return Err(PromptError::UnknownPlaceholder { id, name: name.to_owned(), allowed });
            }
            for &name in allowed {
                if !template.placeholders().any(|p| p == name) {
                    return Err(PromptError::MissingPlaceholder { id, name });
                }
            }
        }
        for id in [PromptId::CompactionSummaryContext, PromptId::BranchSummaryContext] {
            if !texts.contains_key(&id) {
                return Err(PromptError::NotInPack { id, dialect });
            }
        }
        Ok(PromptPack { dialect, origin, texts, checks: Vec::new(), rules: None, omp18_format: false })
    }

    /// The same pack, declared to fit `rules` (`None`: no particular one).
    pub fn with_rules(self, rules: Option<RuleSet>) -> PromptPack {
        debug_assert!(rules.is_none_or(|r| r.dialect() == self.dialect));
        PromptPack { rules, ..self }
    }

    /// The rule set whose texts and layout this pack holds: for an agent's
    /// pack the release its texts match (else the one its version maps to),
    /// for contextree's own wording the rule set it was written for; `None`
    /// for texts given by a caller.
    pub fn rules(&self) -> Option<RuleSet> {
        self.rules
    }

    /// Whether this pack's texts are the ones `rules` sends: true when the pack fits `rules`,
    /// or the release whose texts `rules` kept (a rule set that changed no text, as omp@18.3,
    /// sends its predecessor's), or no particular rule set.
    pub fn fits(&self, rules: RuleSet) -> bool {
        self.rules.is_none_or(|r| r == rules || r == super::known::texts_of_rules(rules))
    }

    /// The same texts, attributed to `origin` with the given checks.
    pub(super) fn with_origin(self, origin: PackOrigin, checks: Vec<TextCheck>) -> PromptPack {
        PromptPack { origin, checks, ..self }
    }

    /// The dialect whose layout this pack follows.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Where the texts come from.
    pub fn origin(&self) -> &PackOrigin {
        &self.origin
    }

    /// For a pack read from an installed agent: each text compared with the
    /// spec's digests. Empty for other packs.
    pub fn checks(&self) -> &[TextCheck] {
        &self.checks
    }

    /// The template of `id`, if the pack has one. Its `Display` is the
    /// template text.
    pub fn template(&self, id: PromptId) -> Option<&Template> {
        self.texts.get(&id)
    }

    /// The ids this pack has texts for.
    pub fn ids(&self) -> impl Iterator<Item = PromptId> + '_ {
        self.texts.keys().copied()
    }

    /// Renders `id` with `vars`, then (omp) applies omp's post-render
    /// formatter to the whole result.
    pub fn render(&self, id: PromptId, vars: &[(&str, &str)]) -> Result<String, PromptError> {
        let template = self.texts.get(&id).ok_or(PromptError::NotInPack { id, dialect: self.dialect })?;
        let text = template.render(vars).map_err(|source| PromptError::Render { id, source })?;
        Ok(self.post_render(text))
    }

    /// A text without placeholders (system prompt, instructions, preamble),
    /// exactly as the agent sends or stores it.
    pub fn prompt(&self, id: PromptId) -> Result<String, PromptError> {
        self.render(id, &[])
    }

    /// The user-message text that carries a compaction summary in the context
    /// (pi: prefix + summary + suffix; omp: rendered template after the formatter).
    pub fn wrap_compaction_summary(&self, summary: &str) -> String {
        self.wrap(PromptId::CompactionSummaryContext, summary)
    }

    /// omp ≥ 18: the user-message text that carries a handoff document; a
    /// pack without the text (omp 13, pi) uses contextree's own wording.
    pub fn wrap_handoff_summary(&self, summary: &str) -> String {
        match self.texts.contains_key(&PromptId::HandoffSummaryContext) {
            true => self.wrap(PromptId::HandoffSummaryContext, summary),
            false => super::own::own_handoff_wrapper(summary),
        }
    }

    /// The user-message text that carries a branch summary in the context.
    pub fn wrap_branch_summary(&self, summary: &str) -> String {
        self.wrap(PromptId::BranchSummaryContext, summary)
    }

    fn wrap(&self, id: PromptId, summary: &str) -> String {
        // Infallible by the construction invariant: the wrapper exists and
        // only uses `summary`.
        let template = &self.texts[&id];
        let text = template.render(&[("summary", summary)]).unwrap_or_default();
        self.post_render(text)
    }

    fn post_render(&self, text: String) -> String {
        match self.dialect {
            Dialect::Pi => text,
            Dialect::Omp if self.omp18_format => omp_format::format18(&text),
            Dialect::Omp => omp_format::format(&text),
        }
    }

    /// The same texts, formatted as omp ≥ 18 formats them (`true`) or as
    /// omp 13 does.
    pub fn with_omp18_format(mut self, on: bool) -> PromptPack {
        self.omp18_format = on;
        self
    }

    /// Whether rendering uses omp ≥ 18's formatter.
    pub fn omp18_format(&self) -> bool {
        self.omp18_format
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(dialect: Dialect, texts: &[(PromptId, &str)]) -> Result<PromptPack, PromptError> {
        let base = [
            (PromptId::CompactionSummaryContext, "C\n\n<summary>\n{{summary}}\n</summary>"),
            (PromptId::BranchSummaryContext, "B\n\n<summary>\n{{summary}}</summary>"),
        ];
        PromptPack::try_from_templates(
            dialect,
            PackOrigin::Custom("test".into()),
            base.iter().chain(texts).map(|&(id, t)| (id, t.to_owned())),
        )
    }

    #[test]
    fn pi_wraps_by_plain_substitution() {
        let p = pack(Dialect::Pi, &[]).unwrap();
        assert_eq!(p.wrap_compaction_summary("S  \n\n\n- x"), "C\n\n<summary>\nS  \n\n\n- x\n</summary>");
        assert_eq!(p.wrap_branch_summary("S"), "B\n\n<summary>\nS</summary>");
    }

    #[test]
    fn validation() {
        assert_eq!(
            pack(Dialect::Pi, &[(PromptId::BranchSummaryContext, "no slot")]).unwrap_err(),
            PromptError::MissingPlaceholder { id: PromptId::BranchSummaryContext, name: "summary" }
        );
        assert!(matches!(
            pack(Dialect::Pi, &[(PromptId::SummarizationSystem, "{{summary}}")]).unwrap_err(),
            PromptError::UnknownPlaceholder { id: PromptId::SummarizationSystem, .. }
        ));
        assert!(matches!(
            pack(Dialect::Omp, &[(PromptId::BranchSummary, "{{#if x}}a{{/if}}")]).unwrap_err(),
            PromptError::Template { id: PromptId::BranchSummary, .. }
        ));
        let only_one =
            PromptPack::try_from_templates(Dialect::Pi, PackOrigin::Own, [(PromptId::CompactionSummaryContext, "{{summary}}".to_owned())]);
        assert_eq!(only_one.unwrap_err(), PromptError::NotInPack { id: PromptId::BranchSummaryContext, dialect: Dialect::Pi });
    }

    #[test]
    fn rendering_errors() {
        let p = pack(Dialect::Pi, &[(PromptId::SummarizationSystem, "sys")]).unwrap();
        assert_eq!(p.prompt(PromptId::SummarizationSystem).unwrap(), "sys");
        assert_eq!(p.prompt(PromptId::BranchSummary), Err(PromptError::NotInPack { id: PromptId::BranchSummary, dialect: Dialect::Pi }));
        assert!(matches!(
            p.render(PromptId::CompactionSummaryContext, &[]),
            Err(PromptError::Render { id: PromptId::CompactionSummaryContext, .. })
        ));
    }

    #[test]
    fn omp_formats_the_whole_result() {
        // context.md §2.4's example: the formatter rewrites the inserted summary too.
        let p = pack(Dialect::Omp, &[]).unwrap();
        assert_eq!(p.wrap_compaction_summary("A\n\n- b\n\n\n| x |  y |\nend   "), "C\n\n<summary>\nA\n- b\n\n|x|y|\nend\n</summary>");
    }
}
