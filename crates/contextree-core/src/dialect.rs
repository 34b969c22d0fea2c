//! Which agent's rules apply to a session file (docs/decisions.md D1, D22).
//!
//! A dialect is two things: the **agent** ([`Dialect`]: pi or oh-my-pi) and
//! the **rule set** ([`RuleSet`]: which release's behaviour, `pi@0.73`,
//! `pi@1.6`, `omp@13`, `omp@18`). Most code only asks which agent it is;
//! where a newer release changed a rule, the code asks the rule set through a
//! named predicate ([`RuleSet::projects_context_edits`] and its siblings), so
//! a newer set is its predecessor plus a list of differences, not a copy.

use std::fmt;
use std::str::FromStr;

/// The agent whose behaviour is reproduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// pi: `@mariozechner/pi-coding-agent`, since 1.x `@earendil-works/pi-coding-agent`.
    Pi,
    /// oh-my-pi: `@oh-my-pi/pi-coding-agent`.
    Omp,
}

impl Dialect {
    /// Every dialect, in a stable order.
    pub const ALL: [Dialect; 2] = [Dialect::Pi, Dialect::Omp];

    /// The field marking a compaction or branch summary an extension made, whose `details`
    /// are not carried over into the next one.
    pub fn extension_flag(self) -> &'static str {
        match self {
            Dialect::Pi => "fromHook",
            Dialect::Omp => "fromExtension",
        }
    }

    /// Short name used on the command line and in JSON (`pi`, `omp`).
    pub const fn name(self) -> &'static str {
        match self {
            Dialect::Pi => "pi",
            Dialect::Omp => "omp",
        }
    }

    /// The release the seed rule set of this agent reproduces (the oldest).
    pub fn reference(self) -> &'static str {
        RuleSet::oldest(self).reference()
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown dialect or rule-set name.
#[derive(Debug, thiserror::Error)]
#[error("unknown dialect `{0}` (expected pi, omp, {names})", names = RuleSet::names_joined())]
pub struct UnknownDialect(pub String);

impl FromStr for Dialect {
    type Err = UnknownDialect;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "pi" => Ok(Dialect::Pi),
            "omp" | "oh-my-pi" => Ok(Dialect::Omp),
            other => Err(UnknownDialect(other.to_owned())),
        }
    }
}

/// One release's rules of one agent (docs/decisions.md D22). Ordered oldest
/// first within an agent; everything else about a rule set is its row of
/// [`RULE_SETS`], so adding one is a variant, a row and its differences
/// (ARCHITECTURE.md, "A new rule set").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleSet {
    /// pi 0.73.1 (`@mariozechner/pi-coding-agent`); stands for pi ≤ 0.85.
    Pi073,
    /// pi 1.6.0 (`@earendil-works/pi-coding-agent`); stands for pi ≥ 0.86.
    Pi16,
    /// oh-my-pi 13.19.0; stands for omp < 18.
    Omp13,
    /// oh-my-pi 18.2.3; stands for omp 18.0 – 18.2.
    Omp18,
    /// oh-my-pi 18.3.4; stands for omp ≥ 18.3 (omp-18.3.md).
    Omp183,
}

/// What a rule set is, besides its rules: one row per [`RuleSet`], in its order.
#[derive(Debug, Clone, Copy)]
pub struct RuleSetInfo {
    /// The rule set.
    pub rules: RuleSet,
    /// Its agent.
    pub dialect: Dialect,
    /// `pi@1.6`: the name on the command line, in JSON and in the app.
    pub name: &'static str,
    /// The release whose code these rules were taken from and are tested against.
    pub reference: &'static str,
    /// The first release (`major.minor`) these rules stand for: an installed agent at or above
    /// it and below the next set's gets them.
    pub since: (u32, u32),
    /// The releases these rules stand for, in words (the app's list).
    pub stands_for: &'static str,
    /// Other spellings accepted for `name`.
    pub aliases: &'static [&'static str],
}

/// Every rule set, agents in [`Dialect::ALL`] order, oldest first within an agent.
pub const RULE_SETS: [RuleSetInfo; 5] = [
    RuleSetInfo {
        rules: RuleSet::Pi073,
        dialect: Dialect::Pi,
        name: "pi@0.73",
        reference: "pi 0.73.1",
        since: (0, 0),
        stands_for: "pi ≤ 0.85",
        aliases: &["pi@0.73.1"],
    },
    RuleSetInfo {
        rules: RuleSet::Pi16,
        dialect: Dialect::Pi,
        name: "pi@1.6",
        reference: "pi 1.6.0",
        since: (0, 86),
        stands_for: "pi ≥ 0.86",
        aliases: &["pi@1.6.0"],
    },
    RuleSetInfo {
        rules: RuleSet::Omp13,
        dialect: Dialect::Omp,
        name: "omp@13",
        reference: "oh-my-pi 13.19.0",
        since: (0, 0),
        stands_for: "oh-my-pi < 18",
        aliases: &["omp@13.19", "omp@13.19.0", "omp13"],
    },
    RuleSetInfo {
        rules: RuleSet::Omp18,
        dialect: Dialect::Omp,
        name: "omp@18",
        reference: "oh-my-pi 18.2.3",
        since: (18, 0),
        stands_for: "oh-my-pi 18.0 – 18.2",
        aliases: &["omp@18.2", "omp@18.2.3", "omp18"],
    },
    RuleSetInfo {
        rules: RuleSet::Omp183,
        dialect: Dialect::Omp,
        name: "omp@18.3",
        reference: "oh-my-pi 18.3.4",
        since: (18, 3),
        stands_for: "oh-my-pi ≥ 18.3",
        aliases: &["omp@18.3.4", "omp183"],
    },
];

impl RuleSet {
    /// Every rule set, agents in [`Dialect::ALL`] order, oldest first.
    pub const ALL: [RuleSet; RULE_SETS.len()] = {
        let mut all = [RuleSet::Pi073; RULE_SETS.len()];
        let mut i = 0;
        while i < all.len() {
            all[i] = RULE_SETS[i].rules;
            i += 1;
        }
        all
    };

    /// This rule set's row of [`RULE_SETS`].
    pub const fn info(self) -> &'static RuleSetInfo {
        &RULE_SETS[self as usize]
    }

    /// The agent these rules belong to.
    pub const fn dialect(self) -> Dialect {
        self.info().dialect
    }

    /// `pi@0.73`, `pi@1.6`, `omp@13`, `omp@18`.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The release whose code these rules were taken from and are tested against.
    pub const fn reference(self) -> &'static str {
        self.info().reference
    }

    /// The rule sets of one agent, oldest first.
    pub fn of(dialect: Dialect) -> impl Iterator<Item = RuleSet> {
        RuleSet::ALL.into_iter().filter(move |r| r.dialect() == dialect)
    }

    /// The agent's first rule set (the seed's).
    pub fn oldest(dialect: Dialect) -> RuleSet {
        RuleSet::of(dialect).next().expect("every agent has a rule set")
    }

    /// The agent's newest rule set.
    pub fn newest(dialect: Dialect) -> RuleSet {
        RuleSet::of(dialect).last().expect("every agent has a rule set")
    }

    /// These rules are `release`'s or a later release's of the same agent: how a rule that a
    /// release changed is switched on (every later rule set keeps it). An agent's rules never
    /// apply to the other agent, whatever the versions.
    pub fn at_least(self, release: RuleSet) -> bool {
        self.dialect() == release.dialect() && self >= release
    }

    /// The rule set for an installed release of `dialect`: the newest set
    /// whose first version is at or below `version` (pi ≥ 0.86 → `pi@1.6`,
    /// where the system-message transcript began; omp ≥ 18 → `omp@18`).
    /// `None` when the version cannot be read.
    pub fn for_version(dialect: Dialect, version: &str) -> Option<RuleSet> {
        let v = parse_version(version)?;
        RuleSet::of(dialect).filter(|r| r.info().since <= v).last()
    }

    /// Every name, as an error message lists them.
    fn names_joined() -> String {
        let names: Vec<&str> = RULE_SETS.iter().map(|r| r.name).collect();
        names.join(", ")
    }

    /// pi ≥ 0.86: the context is built entries → projection → messages;
    /// `context_edit` entries hide or replace messages, system messages are
    /// part of the transcript, compactions carry a system checkpoint
    /// (pi-1.6.md §2).
    pub fn projects_context_edits(self) -> bool {
        self.at_least(RuleSet::Pi16)
    }

    /// pi ≥ 0.76: images in user messages count 4800 characters each, as in
    /// tool results (pi-1.6.md §3.1).
    pub fn counts_user_images(self) -> bool {
        self.at_least(RuleSet::Pi16)
    }

    /// pi ≥ 0.80: an assistant whose usage sums to 0 has no usage for the
    /// estimates (pi-1.6.md §3.2).
    pub fn ignores_zero_usage(self) -> bool {
        self.at_least(RuleSet::Pi16)
    }

    /// pi ≥ 1.2: `serializeConversation` leaves thinking blocks out, and
    /// cuts tool results without splitting a surrogate pair (pi-1.6.md §4.5).
    pub fn serializes_without_thinking(self) -> bool {
        self.at_least(RuleSet::Pi16)
    }

    /// pi ≥ 0.87: `prepareCompaction` works on the projected context entries
    /// (`buildSessionProjection(path).entries`): the boundary starts after
    /// the projected compaction, `tokensBefore` is
    /// `estimateProjectedContextTokens`, the cut is `findProjectedCutPoint`
    /// (fallback to the last cut point, recovery-omission suffix, projected
    /// messages decide cut points and turn starts), and the messages to
    /// summarize are the projected ones without system messages
    /// (pi-1.6.md §4.2–4.3).
    pub fn cuts_projected_entries(self) -> bool {
        self.at_least(RuleSet::Pi16)
    }

    /// pi ≥ 0.79.8: with nothing to summarize (no history, no turn prefix)
    /// `prepareCompaction` returns nothing; pi ≤ 0.79 asked the model to
    /// summarize an empty conversation (pi-1.6.md §4.2 step 6).
    pub fn refuses_empty_compaction(self) -> bool {
        self.at_least(RuleSet::Pi16)
    }

    /// pi ≥ 1.0 (codemode): file tracking also reads the `read` / `write` /
    /// `edit` calls a tool result records in `nestedCalls.calls`
    /// (pi-1.6.md §1.4, §4.5).
    pub fn reads_nested_file_ops(self) -> bool {
        self.at_least(RuleSet::Pi16)
    }

    /// pi ≥ 0.87: the automatic threshold check measures a context that
    /// contains a `context_edit` with `estimateProjectedContextTokens`
    /// (pi-1.6.md §4.1, §3.3).
    pub fn thresholds_projected_context(self) -> bool {
        self.at_least(RuleSet::Pi16)
    }

    /// pi ≥ 0.79: an overflow of a successful (`stop`) reply compacts without a
    /// retry, and a `length` stop below the model's output limit is recovered
    /// like an overflow (compact and retry once); pi 1.6's own overflow
    /// patterns (pi-1.6.md §4.1).
    pub fn recovers_length_stops(self) -> bool {
        self.at_least(RuleSet::Pi16)
    }

    /// pi 1.6's `loadEntriesFromFile` streams the file line by line
    /// (pi-1.6.md §1.1; the release that began it is not known): a UTF-8
    /// byte order mark is no longer stripped, so the header line fails to
    /// parse (§1.1.2); a line whose JSON value is falsy (`null`, `false`,
    /// `0`, `""`) is skipped (`if (entry)`); a non-empty file without a
    /// valid header is rejected, never rewritten (0.80.3, §1.1.4).
    pub fn loads_streamed(self) -> bool {
        self.at_least(RuleSet::Pi16)
    }

    /// omp ≥ 18: a fixed-width `{"type":"title",…}` slot line may stand
    /// before the header; it is not an entry and folds its title into the
    /// header (omp-18.md §1.1).
    pub fn reads_title_slot(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 17.4: the estimate is omp's `Tokenizer` without a model: Σ over
    /// text fragments of `(UTF-8 bytes + 3) >> 2`, images 1200, custom and
    /// developer messages counted (omp-18.md §4.1–4.2).
    pub fn counts_utf8_fragments(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 18: `reset_boundary` entries (`/clear`) end what the context
    /// sees of the path before them (omp-18.md §2.2).
    pub fn honours_reset_boundary(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 18: the context leaves out retry-recovery and empty error
    /// turns, tool calls without a result, and aborted or failed replies with
    /// their tool results (omp-18.md §2.3, §2.4).
    pub fn drops_unfinished_turns(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 14: an assistant sets the default model only until an explicit
    /// `default` `model_change` was seen on the path (omp-18.md §2.1).
    pub fn keeps_explicit_default_model(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 18: `custom` / `hookMessage` messages reach the model as
    /// `developer` messages; file mentions too (omp-18.md §3).
    pub fn sends_custom_as_developer(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 18.2.1: compaction works on the message entries only and keeps
    /// the oldest complete suffix that fits (`> K` stops); a previous local
    /// compaction's kept messages are summarized again (omp-18.md §5.3, §5.4).
    pub fn cuts_oldest_fitting_suffix(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 15: `serializeConversation` labels (`[Think]:`, `[Tool Call]:`,
    /// …), useless results skipped, `developer` ignored (omp-18.md §5.6).
    pub fn serializes_with_omp18_labels(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 18: the output notices of command and tool output reworded
    /// (`Use :N to continue`, middle and partial-line truncation, the report
    /// source, artifact errors, column units) and diagnostics grouped as a
    /// prefix-folded path tree (`tools/output-meta.ts` `formatOutputNotice`).
    pub fn words_omp18_output_notices(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 17: the summarizer input (compaction, turn prefix, short and branch summaries) is
    /// a transcript in the summary model's chat format, its boundary tags neutralised, the
    /// output capped at 16384 tokens, an oversized input folded over windows (omp-18.md §5.5,
    /// §7; `compaction::transcript`).
    pub fn summarizes_with_model_transcript(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 18: branch summaries include tool results (not useless ones),
    /// counted on their 2000-unit truncated text (omp-18.md §7).
    pub fn summarizes_branch_tool_results(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 15: pruning with `keepBoundaryId`, the cache-warm guard,
    /// useless results, `MIN_PRUNE_TOKENS` 50 and only `skill` protected
    /// (omp-18.md §6.1).
    pub fn prunes_with_cache_guard(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp 18: every turn, before the compaction gate, the stale-result pass
    /// `pruneSupersededToolResults` rewrites superseded reads and useless
    /// results (omp-18.md §6.2).
    pub fn prunes_stale_results(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp 18: the auto-compaction threshold compares
    /// `max(usage, stored estimate)` without subtracting pruning savings,
    /// with `resolveThresholdTokens`' reserve fallbacks, and picks a method
    /// from `methodOrder` (omp-18.md §5.1–5.2).
    pub fn floors_threshold_with_estimate(self) -> bool {
        self.at_least(RuleSet::Omp18)
    }

    /// omp ≥ 18.3: a compaction with an Anthropic-native payload, `firstKeptEntryId` `""` and a
    /// `providerReplayThroughEntryId` before it keeps the entries after that one, in the
    /// context and as the start of what the next compaction summarizes (omp-18.3.md §1.1, §2.1).
    pub fn keeps_snapshot_replay_tail(self) -> bool {
        self.at_least(RuleSet::Omp183)
    }

    /// omp ≥ 18.3: the summary message of an Anthropic-native compaction keeps the
    /// compaction's time as `timestamp` and carries the rewrite time (first retained entry's
    /// time − 1 ms) as `historyRewriteAt` (omp-18.3.md §1.2).
    pub fn dates_native_rewrites_separately(self) -> bool {
        self.at_least(RuleSet::Omp183)
    }

    /// omp ≥ 18.3: a `length` stop below the threshold keeps a delivered turn or retries an
    /// empty one without compacting; only an exhausted window recovers by compaction
    /// (omp-18.3.md §2.2).
    pub fn keeps_length_stops_below_threshold(self) -> bool {
        self.at_least(RuleSet::Omp183)
    }

    /// omp ≥ 18.3: the live agent adds messages to a rebuilt context that the file never holds:
    /// an `eval-state-context` notice once the eval tool ran, a retry note after an empty
    /// `length` stop (omp-18.3.md §1.4).
    pub fn adds_live_context_notices(self) -> bool {
        self.at_least(RuleSet::Omp183)
    }

    /// omp ≥ 18.3.1: a subagent's threshold is the one recorded in its `session_init`
    /// entry (`compactionThreshold`), not the settings files' (omp-18.3.md §2.3).
    pub fn reads_recorded_threshold(self) -> bool {
        self.at_least(RuleSet::Omp183)
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RuleSet {
    type Err = UnknownDialect;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RULE_SETS.iter().find(|r| r.name == s || r.aliases.contains(&s)).map(|r| r.rules).ok_or_else(|| UnknownDialect(s.to_owned()))
    }
}

/// `major.minor` of a semver-like version (`1.6.0`, `0.73.1-beta.2`).
fn parse_version(v: &str) -> Option<(u32, u32)> {
    let mut parts = v.trim().trim_start_matches('v').split(['.', '-', '+']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().map_or(Some(0), |m| m.parse().ok())?;
    Some((major, minor))
}

/// What the user asked for: an agent (its rule set then follows D22), or one
/// rule set exactly (`--dialect pi@1.6`, the app's switch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleRequest {
    /// `pi` or `omp`.
    Agent(Dialect),
    /// `pi@0.73`, `pi@1.6`, `omp@13`, `omp@18`, `omp@18.3`.
    Exact(RuleSet),
}

impl From<Dialect> for RuleRequest {
    fn from(d: Dialect) -> Self {
        RuleRequest::Agent(d)
    }
}

impl From<RuleSet> for RuleRequest {
    fn from(r: RuleSet) -> Self {
        RuleRequest::Exact(r)
    }
}

impl FromStr for RuleRequest {
    type Err = UnknownDialect;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.parse::<Dialect>() {
            Ok(agent) => Ok(RuleRequest::Agent(agent)),
            Err(_) => s.parse().map(RuleRequest::Exact),
        }
    }
}

impl fmt::Display for RuleRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleRequest::Agent(d) => d.fmt(f),
            RuleRequest::Exact(r) => r.fmt(f),
        }
    }
}

/// Why a rule set was used: the first of D22's sources that applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleReason {
    /// Asked for explicitly (`--dialect pi@1.6`, the app's switch).
    Flag,
    /// The version of the agent installed on this machine.
    Installed {
        /// Its `package.json` version.
        version: String,
    },
    /// What the file shows (entries only a newer release writes).
    File {
        /// The evidence, e.g. "system messages in the transcript".
        evidence: String,
    },
    /// Nothing decided it: the agent's newest rule set.
    Newest,
}

/// The rule set used for a file and why (every JSON document's `ruleSet`, the app's title
/// bar): serialized as `{name, reference, why}` (`pi@1.6`, the release, [`RuleChoice::why`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleChoice {
    /// The rules that ran.
    pub rules: RuleSet,
    /// Why.
    pub reason: RuleReason,
}

impl RuleChoice {
    /// One sentence for JSON and the app: "installed pi 1.6.0", "the file: …".
    pub fn why(&self) -> String {
        let agent = match self.rules.dialect() {
            Dialect::Pi => "pi",
            Dialect::Omp => "oh-my-pi",
        };
        match &self.reason {
            RuleReason::Flag => "asked for explicitly".to_owned(),
            RuleReason::Installed { version } => format!("the installed {agent} is {version}"),
            RuleReason::File { evidence } => format!("the file shows {evidence}"),
            RuleReason::Newest => format!("no installed {agent} and nothing in the file tells the version: the newest rules"),
        }
    }
}

/// [`RuleChoice`] as JSON and the UI see it.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "RuleChoice"))]
pub struct RuleChoiceWire {
    /// `pi@1.6`.
    pub name: &'static str,
    /// The release the rules follow (`pi 1.6.0`).
    pub reference: &'static str,
    /// [`RuleChoice::why`].
    pub why: String,
}

impl serde::Serialize for RuleChoice {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RuleChoiceWire { name: self.rules.name(), reference: self.rules.reference(), why: self.why() }.serialize(serializer)
    }
}

/// Chooses the rule set for a file of `dialect` (docs/decisions.md D22, first
/// that applies): an exact request › the installed agent's version › what
/// the file shows (`evidence` for the newer set, if any) › the newest.
pub fn choose_rules(request: Option<RuleRequest>, dialect: Dialect, installed: Option<&str>, evidence: Option<&str>) -> RuleChoice {
    if let Some(RuleRequest::Exact(rules)) = request {
        return RuleChoice { rules, reason: RuleReason::Flag };
    }
    if let Some(version) = installed {
        if let Some(rules) = RuleSet::for_version(dialect, version) {
            return RuleChoice { rules, reason: RuleReason::Installed { version: version.to_owned() } };
        }
    }
    if let Some(evidence) = evidence {
        return RuleChoice { rules: RuleSet::newest(dialect), reason: RuleReason::File { evidence: evidence.to_owned() } };
    }
    RuleChoice { rules: RuleSet::newest(dialect), reason: RuleReason::Newest }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for r in RuleSet::ALL {
            assert_eq!(r.name().parse::<RuleSet>().unwrap(), r);
            assert_eq!(r.name().parse::<RuleRequest>().unwrap(), RuleRequest::Exact(r));
        }
        assert_eq!("pi".parse::<RuleRequest>().unwrap(), RuleRequest::Agent(Dialect::Pi));
        assert_eq!("omp".parse::<RuleRequest>().unwrap(), RuleRequest::Agent(Dialect::Omp));
        assert_eq!("omp13".parse::<RuleRequest>().unwrap(), RuleRequest::Exact(RuleSet::Omp13));
        assert!("pi@2".parse::<RuleRequest>().is_err());
    }

    #[test]
    fn the_table_is_in_the_enums_order_and_names_are_unique() {
        for (i, row) in RULE_SETS.iter().enumerate() {
            assert_eq!(row.rules as usize, i, "{} is not at its variant's place", row.name);
            assert_eq!(row.rules.info().name, row.name);
            assert!(row.name.starts_with(&format!("{}@", row.dialect.name())), "{}", row.name);
        }
        for d in Dialect::ALL {
            let sets: Vec<_> = RuleSet::of(d).collect();
            assert!(sets.windows(2).all(|w| w[0].info().since < w[1].info().since), "{d}: versions must grow");
            assert_eq!(sets[0].info().since, (0, 0), "{d}: the oldest set stands for every older release");
        }
        let mut names: Vec<&str> = RULE_SETS.iter().flat_map(|r| std::iter::once(r.name).chain(r.aliases.iter().copied())).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a name or alias is used twice");
    }

    #[test]
    fn a_later_release_keeps_the_earlier_ones_rules_and_agents_never_mix() {
        for a in RuleSet::ALL {
            for b in RuleSet::ALL {
                let expect = a.dialect() == b.dialect() && a >= b;
                assert_eq!(a.at_least(b), expect, "{a} at least {b}");
            }
        }
        // Each predicate holds from the release that changed the rule on, and never for the other agent.
        assert!(RuleSet::Pi16.projects_context_edits() && !RuleSet::Pi073.projects_context_edits());
        assert!(!RuleSet::Omp18.projects_context_edits());
        assert!(RuleSet::Omp18.reads_title_slot() && !RuleSet::Omp13.reads_title_slot() && !RuleSet::Pi16.reads_title_slot());
        assert!(RuleSet::Omp183.reads_title_slot() && RuleSet::Omp183.keeps_snapshot_replay_tail());
        assert!(!RuleSet::Omp18.keeps_snapshot_replay_tail() && !RuleSet::Pi16.reads_recorded_threshold());
    }

    /// Rules switch with `at_least` (a later rule set keeps them), never by naming one rule
    /// set: outside this file and tests, no code compares or matches a `RuleSet` variant.
    #[test]
    fn no_rule_switch_names_one_rule_set() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut found = Vec::new();
        let mut dirs = vec![root.join("crates"), root.join("src-tauri/src")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                if path.is_dir() {
                    // Tests pick a rule set on purpose.
                    if !matches!(name, "tests" | "target" | "snapshots") {
                        dirs.push(path);
                    }
                } else if name.ends_with(".rs") && name != "dialect.rs" && !name.contains("test") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    // Code after a `#[cfg(test)] mod` is a test.
                    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                    for (i, line) in code.lines().enumerate() {
                        let t = line.trim_start();
                        let compares = (line.contains("== RuleSet::") || line.contains("!= RuleSet::")) && !t.starts_with("//");
                        // A match arm on a variant: `RuleSet::X =>`, `RuleSet::X | …`, `(RuleSet::X, …) =>`.
                        let arm = (t.starts_with("RuleSet::") || t.starts_with("(RuleSet::")) && line.contains("=>");
                        if compares || arm {
                            found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                        }
                    }
                }
            }
        }
        assert!(found.is_empty(), "rule switches must use at_least:\n{}", found.join("\n"));
    }

    #[test]
    fn installed_versions_map_to_the_nearest_set_at_or_below() {
        let at = |d, v| RuleSet::for_version(d, v);
        assert_eq!(at(Dialect::Pi, "0.73.1"), Some(RuleSet::Pi073));
        assert_eq!(at(Dialect::Pi, "0.85.9"), Some(RuleSet::Pi073));
        assert_eq!(at(Dialect::Pi, "0.86.0"), Some(RuleSet::Pi16));
        assert_eq!(at(Dialect::Pi, "1.6.0"), Some(RuleSet::Pi16));
        assert_eq!(at(Dialect::Pi, "2.0.0-beta.1"), Some(RuleSet::Pi16));
        assert_eq!(at(Dialect::Omp, "13.19.0"), Some(RuleSet::Omp13));
        assert_eq!(at(Dialect::Omp, "18.2.9"), Some(RuleSet::Omp18));
        assert_eq!(at(Dialect::Omp, "18.3.0"), Some(RuleSet::Omp183));
        assert_eq!(at(Dialect::Omp, "18.3.4"), Some(RuleSet::Omp183));
        assert_eq!(at(Dialect::Omp, "19.0.0"), Some(RuleSet::Omp183));
        assert_eq!(at(Dialect::Omp, "garbage"), None);
    }

    #[test]
    fn the_first_source_that_applies_wins() {
        let c = choose_rules(Some(RuleSet::Pi073.into()), Dialect::Pi, Some("1.6.0"), Some("x"));
        assert_eq!((c.rules, c.reason), (RuleSet::Pi073, RuleReason::Flag));
        let c = choose_rules(Some(Dialect::Pi.into()), Dialect::Pi, Some("0.73.1"), Some("system messages"));
        assert_eq!(c.rules, RuleSet::Pi073);
        assert_eq!(c.why(), "the installed pi is 0.73.1");
        let c = choose_rules(None, Dialect::Pi, Some("not a version"), Some("system messages"));
        assert_eq!((c.rules, c.why()), (RuleSet::Pi16, "the file shows system messages".to_owned()));
        let c = choose_rules(None, Dialect::Omp, None, None);
        assert_eq!((c.rules, c.reason), (RuleSet::Omp183, RuleReason::Newest));
    }
}
