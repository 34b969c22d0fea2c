//! Records → a [`Session`]: the dialect's reading of every line, the header,
//! migration to version 3, parent links, labels and the tree.

use serde_json::{Map, Value};

use super::detect::{detect, Detection};
use super::diagnostic::Diagnostic;
use super::entry::{Entry, EntryKind, Role};
use super::idmap::IdIndex;
use super::name::Name;
use super::probe::{is_falsy_kind, Parent, Probe};
use super::record::{ChunkIndex, LineRecord, OmpReading, Reading};
use super::source::Span;
use super::tree::{Link, NodeId, SessionTree};
use crate::dialect::{choose_rules, RuleChoice, RuleRequest, RuleSet};
use crate::session::probe::ProbeError;
use crate::Dialect;

/// How the rule set of a file is chosen (docs/decisions.md D22): the user's
/// request, and the version of each agent installed on the machine (found by
/// the host; the core does no IO).
#[derive(Clone, Copy, Default)]
pub struct RulePolicy<'a> {
    /// `--dialect` or the app's switch.
    pub request: Option<RuleRequest>,
    /// The installed version of an agent, if any.
    pub installed: Option<&'a dyn Fn(Dialect) -> Option<String>>,
}

impl<'a> RulePolicy<'a> {
    /// Exactly these rules, whatever the file or the machine say.
    pub fn exact(rules: RuleSet) -> RulePolicy<'static> {
        RulePolicy { request: Some(RuleRequest::Exact(rules)), installed: None }
    }
}

/// A parsed session file in one dialect's reading.
#[derive(Debug, Clone)]
pub struct Session {
    rules: RuleChoice,
    detection: Detection,
    header: Option<Map<String, Value>>,
    original_version: u32,
    entries: Vec<Entry>,
    ids: IdIndex,
    tree: SessionTree,
    labels: Vec<(NodeId, String)>,
    diagnostics: Vec<Diagnostic>,
    n_lines: u32,
    title_slot: Option<TitleSlot>,
    /// [`Session::parent_ids_follow_tree`], worked out the first time it is asked.
    ids_follow_tree: std::sync::OnceLock<bool>,
}

/// omp 18's fixed-width title slot: the physical first line before the
/// header (omp-18.md §1.1). It is not an entry; its bytes are never
/// rewritten by reading (the slot line is left as it is on every write).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleSlot {
    /// The slot's title (empty: the session has no title).
    pub title: String,
    /// `auto` or `user`, when given.
    pub source: Option<String>,
    /// When the title was last set.
    pub updated_at: String,
    /// Where the line is in the file (its bytes, without the newline).
    pub span: Span,
}

impl TitleSlot {
    /// `parseTitleSlotObject`: `type:"title"`, `v:1`, string `title`,
    /// `updatedAt` and `pad`, `source` absent or `auto`/`user`.
    fn read(map: &Map<String, Value>, span: Span) -> Option<TitleSlot> {
        let s = |k: &str| map.get(k).and_then(Value::as_str);
        if s("type") != Some("title") || map.get("v").and_then(Value::as_f64) != Some(1.0) || s("pad").is_none() {
            return None;
        }
        let source = match map.get("source") {
            None => None,
            Some(Value::String(v)) if v == "auto" || v == "user" => Some(v.clone()),
            Some(_) => return None,
        };
        Some(TitleSlot { title: s("title")?.to_owned(), source, updated_at: s("updatedAt")?.to_owned(), span })
    }
}

/// One entry as a flat row (file order), for lists and simple views.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Entry id.
    pub id: String,
    /// Parent id as resolved (None for roots).
    pub parent_id: Option<String>,
    /// The entry `type`.
    pub entry_type: String,
    /// Message role, for message entries.
    pub role: Option<String>,
    /// 1-based file line.
    pub line: u32,
    /// The dialect's token estimate of the message the entry produces.
    pub tokens: u64,
}

impl Session {
    /// Parses a whole file held in memory (tests, small files) under `rules`,
    /// or, when `None`, the rules the file shows (no installed agent is asked).
    /// Large files go through [`super::index_chunk`] in parallel chunks and
    /// [`Session::assemble`].
    pub fn parse(bytes: &[u8], rules: Option<RuleSet>) -> Session {
        let policy = RulePolicy { request: rules.map(RuleRequest::Exact), installed: None };
        Session::assemble(vec![super::index_chunk(bytes, 0, 1)], &policy, None)
    }

    /// Builds the session from the chunk indexes of a file, in file order.
    /// `policy` picks the agent and rule set; `hint` is what the file's
    /// location says (`~/.omp/...` → omp) and breaks ties between the file's
    /// own signals.
    pub fn assemble(chunks: Vec<ChunkIndex>, policy: &RulePolicy<'_>, hint: Option<Dialect>) -> Session {
        let n_lines = chunks.iter().map(|c| c.n_lines).sum();
        let detection = detect(&chunks, hint);
        let dialect = match policy.request {
            Some(RuleRequest::Exact(r)) => r.dialect(),
            Some(RuleRequest::Agent(d)) => d,
            None => detection.detected,
        };
        let installed = match policy.request {
            Some(RuleRequest::Exact(_)) => None,
            _ => policy.installed.and_then(|f| f(dialect)),
        };
        let rules = choose_rules(policy.request, dialect, installed.as_deref(), detection.newer.of(dialect));
        let mut values = Values::new(chunks, rules.rules);

        let mut session = Session {
            rules,
            detection,
            header: None,
            original_version: 0,
            entries: Vec::new(),
            ids: IdIndex::default(),
            tree: SessionTree::default(),
            labels: Vec::new(),
            diagnostics: Vec::new(),
            n_lines,
            title_slot: None,
            ids_follow_tree: std::sync::OnceLock::new(),
        };
        let mut first = values.next();
        if session.rules.rules.reads_title_slot() && n_lines > 1 {
            // omp ≥ 18 strips a title slot on line 1 before reading the header.
            if let Some((1, span, Probe { kind: EntryKind::Other(map), .. })) = &first {
                if let Some(slot) = TitleSlot::read(map, *span) {
                    session.title_slot = Some(slot);
                    first = values.next();
                }
            }
        }
        let Some((line, _, first)) = first else {
            session.diagnostics = values.finish();
            session.diagnostics.push(Diagnostic::error(0, "the file holds no session header (it is empty)"));
            return session;
        };
        match header_of(first) {
            Ok(mut header) => {
                if let Some(slot) = &session.title_slot {
                    // `applyTitleSlot`: the slot's title and source replace the header's.
                    match slot.title.is_empty() {
                        false => header.insert("title".into(), slot.title.clone().into()),
                        true => header.remove("title"),
                    };
                    match &slot.source {
                        Some(src) => header.insert("titleSource".into(), src.clone().into()),
                        None => header.remove("titleSource"),
                    };
                }
                session.header = Some(header)
            }
            Err(what) => {
                let agents = if session.rules().loads_streamed() {
                    "pi rejects the file (\"Session file is not a valid pi session\")"
                } else {
                    "the agents would replace this file with a new session"
                };
                session.diagnostics = values.finish();
                session.diagnostics.push(Diagnostic::error(
                    line,
                    format!("not a session file: the first value {what}; {agents}, contextree leaves it untouched"),
                ));
                return session;
            }
        }
        let version = session.header.as_ref().and_then(|h| h.get("version")).and_then(Value::as_f64);
        session.original_version = version.map_or(1, |v| v as u32);
        let mut entries: Vec<Entry> = Vec::with_capacity(values.remaining);
        values.entries_into(&mut entries);
        session.diagnostics = values.finish();
        if version.is_none_or(|v| v < 2.0) {
            migrate_v1(&mut entries, &mut session.diagnostics);
        }
        if version.is_none_or(|v| v < 3.0) {
            migrate_v2(&mut entries);
        }
        session.entries = entries;
        session.link();
        session
    }

    fn link(&mut self) {
        let (ids, repeats) = IdIndex::build(&self.entries);
        self.ids = ids;
        for e in &self.entries {
            if e.id.is_empty() && e.object().is_some_and(|m| !m.is_empty()) {
                self.diagnostics.push(Diagnostic::warning(e.line, "entry has no string `id`; nothing can name it as a parent"));
            }
        }
        for (node, prev) in repeats {
            let e = &self.entries[node.index()];
            self.diagnostics.push(Diagnostic::warning(
                e.line,
                format!(
                    "duplicate id `{}` (also on line {}); the agents resolve the id to this later entry",
                    e.id,
                    self.entries[prev.index()].line
                ),
            ));
        }
        let mut links = Vec::with_capacity(self.entries.len());
        for (i, e) in self.entries.iter().enumerate() {
            // By name: an id read as `&str` is checked as UTF-8 again, once per entry.
            let link = match &e.parent_id {
                None => Link::Root,
                Some(pid) => match self.ids.get_name(&self.entries, pid) {
                    Some(p) if p.index() == i => Link::SelfParent,
                    Some(p) => Link::Parent(p),
                    None => Link::Orphan,
                },
            };
            match link {
                Link::Orphan => self.diagnostics.push(Diagnostic::warning(
                    e.line,
                    format!("parent `{}` of entry `{}` does not exist; shown as a root", e.parent_id.as_deref().unwrap_or(""), e.id),
                )),
                Link::SelfParent => {
                    self.diagnostics.push(Diagnostic::warning(e.line, format!("entry `{}` is its own parent; shown as a root", e.id)))
                }
                _ => {}
            }
            links.push(link);
        }
        let timestamps: Vec<Option<f64>> = self.entries.iter().map(|e| e.timestamp_ms.get()).collect();
        self.tree = SessionTree::build(links, &timestamps);
        for i in 0..self.entries.len() {
            if let Link::Cycle(p) = self.tree.link(NodeId(i as u32)) {
                let e = &self.entries[i];
                self.diagnostics.push(Diagnostic::warning(
                    e.line,
                    format!(
                        "parent links of `{}` run in a cycle back through `{}`; the link is cut and the entry shown as a root",
                        e.id,
                        self.entries[p.index()].id
                    ),
                ));
            }
        }
        self.resolve_labels();
        self.diagnostics.sort_by_key(|d| d.line);
    }

    fn resolve_labels(&mut self) {
        let mut labels: Vec<(NodeId, String)> = Vec::new();
        for e in &self.entries {
            if e.entry_type != "label" {
                continue;
            }
            let Some(target) = e.str_field("targetId").and_then(|t| self.ids.get(&self.entries, t)) else { continue };
            labels.retain(|(n, _)| *n != target);
            match e.str_field("label") {
                Some(label) if !label.is_empty() => labels.push((target, label.to_owned())),
                _ => {}
            }
        }
        labels.sort_by_key(|(n, _)| *n);
        self.labels = labels;
    }

    /// The agent whose rules this reading follows.
    pub fn dialect(&self) -> Dialect {
        self.rules.rules.dialect()
    }

    /// The agent's rule set this reading follows.
    pub fn rules(&self) -> RuleSet {
        self.rules.rules
    }

    /// The rule set and why it was chosen.
    pub fn rule_choice(&self) -> &RuleChoice {
        &self.rules
    }

    /// What the file's own signals say.
    pub fn detection(&self) -> &Detection {
        &self.detection
    }

    /// The header object, or None when the file is not a valid session.
    pub fn header(&self) -> Option<&Map<String, Value>> {
        self.header.as_ref()
    }

    /// omp 18's title slot on line 1, when the rule set reads one and the
    /// file has it.
    pub fn title_slot(&self) -> Option<&TitleSlot> {
        self.title_slot.as_ref()
    }

    /// The format version written in the header (1 when absent).
    pub fn original_version(&self) -> u32 {
        self.original_version
    }

    /// The format version after migration (3), or 0 for an invalid file.
    pub fn version(&self) -> u32 {
        if self.header.is_some() {
            3
        } else {
            0
        }
    }

    /// Entries in file order (header excluded).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry at `node`.
    pub fn entry(&self, node: NodeId) -> &Entry {
        &self.entries[node.index()]
    }

    /// The entry with this id (the last one, when ids repeat).
    pub fn node(&self, id: &str) -> Option<NodeId> {
        self.ids.get(&self.entries, id)
    }

    /// The tree.
    pub fn tree(&self) -> &SessionTree {
        &self.tree
    }

    /// Whether walking up the stored parent ids from any entry, stopping at an id seen before
    /// (omp ≥ 18's path, `context::path_to`), meets exactly the entries of the tree's path: no
    /// parent cycle was cut, every entry's id names it alone, and no empty parent id links to
    /// an entry. Then a path costs no id lookup per step. Worked out once, a lookup an entry.
    pub fn parent_ids_follow_tree(&self) -> bool {
        *self.ids_follow_tree.get_or_init(|| {
            self.entries.iter().enumerate().all(|(i, e)| {
                let n = NodeId(i as u32);
                let linked = match self.tree.link(n) {
                    Link::Cycle(_) => false,
                    Link::Parent(_) => e.parent_id.as_ref().is_some_and(|p| !p.is_empty()),
                    Link::Root | Link::Orphan | Link::SelfParent => true,
                };
                linked && self.ids.get_name(&self.entries, &e.id) == Some(n)
            })
        })
    }

    /// The leaf the agents open the file on: its last entry.
    pub fn leaf(&self) -> Option<NodeId> {
        self.tree.last()
    }

    /// Resolved labels, by entry, in file order of the targets.
    pub fn labels(&self) -> &[(NodeId, String)] {
        &self.labels
    }

    /// The label of an entry.
    pub fn label(&self, node: NodeId) -> Option<&str> {
        self.labels.iter().find(|(n, _)| *n == node).map(|(_, l)| l.as_str())
    }

    /// Every problem found, by line.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Physical lines in the file.
    pub fn n_lines(&self) -> u32 {
        self.n_lines
    }

    /// The dialect's estimate of the message an entry produces in the context
    /// (0 for entries that produce none).
    pub fn entry_tokens(&self, node: NodeId) -> u64 {
        crate::context::entry_estimate(self.entry(node), self.rules())
    }

    /// Every entry as a flat row, file order.
    pub fn rows(&self) -> Vec<Row> {
        (0..self.entries.len() as u32)
            .map(NodeId)
            .map(|n| {
                let e = self.entry(n);
                Row {
                    id: e.id.to_string(),
                    parent_id: self.tree.parent(n).map(|p| self.entry(p).id.to_string()),
                    entry_type: e.entry_type.to_string(),
                    role: e.message().map(|m| m.role.as_str().to_owned()),
                    line: e.line,
                    tokens: self.entry_tokens(n),
                }
            })
            .collect()
    }
}

/// Each kept value: its line, span and facts, in the rule set's reading, one record at a
/// time: the records move straight into the entries, with no list of all values between
/// (5 MB on a 100 MB file, and a copy of every record).
struct Values {
    /// The records left of the chunk being read; `chunks`, those after it. Read a chunk's
    /// list at a time by [`Values::entries_into`]: a `Flatten` over the lists cost ~30
    /// instructions a record on the serial part (the main thread, after the scan).
    current: std::vec::IntoIter<LineRecord>,
    chunks: std::vec::IntoIter<Vec<LineRecord>>,
    rules: RuleSet,
    /// The line of the byte order mark pi ≥ 0.80.3 reads as part of the first line.
    bom_line: Option<u32>,
    diags: Vec<Diagnostic>,
    /// Records not read yet (an upper bound of the values left).
    remaining: usize,
}

impl Values {
    fn new(chunks: Vec<ChunkIndex>, rules: RuleSet) -> Values {
        // pi ≥ 0.80.3 reads the byte order mark as part of the first line, which then is no JSON.
        // The first record of the file, whichever chunk holds it (a chunk may end right after the mark).
        let starts_with_bom = chunks.first().is_some_and(|c| c.bom) && rules.loads_streamed();
        let bom_line =
            chunks.iter().flat_map(|c| c.records.first()).next().filter(|r| starts_with_bom && r.span.start == 3).map(|r| r.line);
        let remaining = chunks.iter().map(|c| c.records.len()).sum();
        let chunks = chunks.into_iter().map(|c| c.records).collect::<Vec<_>>().into_iter();
        Values { current: Vec::new().into_iter(), chunks, rules, bom_line, diags: Vec::new(), remaining }
    }

    /// The next record, of whichever chunk holds it.
    fn next_record(&mut self) -> Option<LineRecord> {
        loop {
            if let Some(rec) = self.current.next() {
                self.remaining -= 1;
                return Some(rec);
            }
            self.current = self.chunks.next()?.into_iter();
        }
    }

    /// The entries of the values left, appended to `out`. A clean object record (nearly
    /// every one) goes straight into its entry: through [`Values::next`] each record was
    /// moved three times (out of the list, out of the reading, into the entry).
    fn entries_into(&mut self, out: &mut Vec<Entry>) {
        loop {
            let records = std::mem::take(&mut self.current);
            self.remaining -= records.len();
            for rec in records {
                match rec {
                    LineRecord { line, span, reading: Reading::Object(probe), omp_swallowed: false } if Some(line) != self.bom_line => {
                        out.push(to_entry(line, span, probe))
                    }
                    rec => out.extend(self.read(rec).map(|(line, span, probe)| to_entry(line, span, probe))),
                }
            }
            match self.chunks.next() {
                Some(records) => self.current = records.into_iter(),
                None => break,
            }
        }
    }

    /// Reads what is left (for its diagnostics) and gives the diagnostics, in file order.
    fn finish(mut self) -> Vec<Diagnostic> {
        self.by_ref().for_each(drop);
        self.diags
    }

    /// The value a record keeps, if any, with the diagnostics it gives.
    fn read(&mut self, rec: LineRecord) -> Option<(u32, Span, Probe)> {
        let (rules, diags) = (self.rules, &mut self.diags);
        let dialect = rules.dialect();
        if Some(rec.line) == self.bom_line {
            diags.push(Diagnostic::error(
                rec.line,
                "the file starts with a UTF-8 byte order mark: pi ≥ 0.80.3 no longer strips it, so this line is not JSON and pi drops it",
            ));
            return None;
        }
        if dialect == Dialect::Omp && rec.omp_swallowed {
            diags.push(Diagnostic::error(
                rec.line,
                "omp's reader skips this line: it was consumed while recovering from a malformed line above",
            ));
            return None;
        }
        match rec.reading {
            Reading::Object(probe) => Some((rec.line, rec.span, probe)),
            Reading::Malformed { problem, omp } => {
                let what = describe(&problem);
                match (dialect, omp) {
                    // pi ≥ 0.80.3 keeps only truthy values (`if (entry) entries.push(entry)`).
                    (Dialect::Pi, _) if matches!(problem, ProbeError::NotObject(kind) if is_falsy_kind(kind)) && rules.loads_streamed() => {
                        diags.push(Diagnostic::error(rec.line, format!("{what}; pi drops the line")));
                        None
                    }
                    (Dialect::Pi, _) if matches!(problem, ProbeError::NotObject(_)) => {
                        diags.push(Diagnostic::error(
                            rec.line,
                            format!("{what}; pi keeps it as an entry without type or id (the agent may crash on it)"),
                        ));
                        Some((rec.line, rec.span, opaque()))
                    }
                    (Dialect::Pi, _) => {
                        diags.push(Diagnostic::error(rec.line, format!("{what}; pi drops the whole line")));
                        None
                    }
                    (Dialect::Omp, OmpReading::Object(probe, span)) => {
                        diags.push(Diagnostic::error(
                            rec.line,
                            format!("{what}; omp keeps the first JSON value and ignores the rest of the line"),
                        ));
                        Some((rec.line, span, *probe))
                    }
                    (Dialect::Omp, OmpReading::NotObject(kind)) => {
                        diags.push(Diagnostic::error(
                            rec.line,
                            format!(
                                "{what}; omp reads {kind} there and keeps it as an entry without type or id (the agent may crash on it)"
                            ),
                        ));
                        Some((rec.line, rec.span, opaque()))
                    }
                    (Dialect::Omp, OmpReading::Nothing) => {
                        diags.push(Diagnostic::error(rec.line, format!("{what}; omp skips to the next line after the error")));
                        None
                    }
                }
            }
        }
    }
}

impl Iterator for Values {
    type Item = (u32, Span, Probe);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let rec = self.next_record()?;
            if let Some(value) = self.read(rec) {
                return Some(value);
            }
        }
    }
}

/// A JSON value that is not an object: the agents keep it in their entry
/// list, where it has no type, id or parent.
fn opaque() -> Probe {
    Probe {
        entry_type: None,
        id: None,
        parent: Parent::Absent,
        timestamp_ms: super::entry::Timestamp::NONE,
        kind: EntryKind::Other(Box::default()),
    }
}

fn describe(problem: &ProbeError) -> String {
    match problem {
        ProbeError::Syntax { message, offset } => format!("malformed JSON at byte {} of the line: {message}", offset + 1),
        ProbeError::NotObject(kind) => format!("the line holds {kind}, not an entry object"),
    }
}

fn header_of(probe: Probe) -> Result<Map<String, Value>, &'static str> {
    match (probe.entry_type.as_deref(), probe.id, probe.kind) {
        (Some("session"), Some(_), EntryKind::Other(map)) => Ok(*map),
        (Some("session"), _, _) => Err("has no string `id`"),
        _ => Err("is not a `session` header"),
    }
}

fn to_entry(line: u32, span: Span, probe: Probe) -> Entry {
    let parent_id = match probe.parent {
        Parent::Id(p) => Some(p),
        Parent::Absent | Parent::Null | Parent::Invalid => None,
    };
    Entry {
        id: probe.id.unwrap_or_default(),
        parent_id,
        entry_type: probe.entry_type.unwrap_or_default(),
        line,
        span,
        timestamp_ms: probe.timestamp_ms,
        kind: probe.kind,
        migrated: false,
    }
}

/// v1 → v2 (session-format.md §10): deterministic ids `0000000n` (docs/decisions.md
/// D13), one linear chain, `firstKeptEntryIndex` resolved against ids already
/// assigned (index 0 is the header).
fn migrate_v1(entries: &mut [Entry], diags: &mut Vec<Diagnostic>) {
    for i in 0..entries.len() {
        let id: Name = format!("{:08x}", i + 1).into();
        let parent = (i > 0).then(|| entries[i - 1].id.clone());
        let e = &mut entries[i];
        e.id = id.clone();
        e.parent_id = parent.clone();
        e.migrated = true;
        if let EntryKind::Other(map) = &mut e.kind {
            map.insert("id".into(), Value::String(id.into()));
            map.insert("parentId".into(), parent.map_or(Value::Null, |p| Value::String(p.into())));
            if &*e.entry_type == "compaction" {
                if let Some(index) = map.remove("firstKeptEntryIndex") {
                    // Only an integer naming an entry before this one had an id yet.
                    let target = index.as_f64().filter(|f| f.fract() == 0.0 && *f >= 1.0 && *f <= i as f64);
                    match target {
                        Some(t) => {
                            map.insert("firstKeptEntryId".into(), Value::String(format!("{:08x}", t as usize)));
                        }
                        None => diags.push(Diagnostic::warning(
                            e.line,
                            format!("`firstKeptEntryIndex` {index} names no earlier entry; this compaction keeps nothing"),
                        )),
                    }
                }
            }
        }
    }
}

/// v2 → v3: `hookMessage` becomes `custom`.
fn migrate_v2(entries: &mut [Entry]) {
    for e in entries {
        if let EntryKind::Message(m) = &mut e.kind {
            if m.role == Role::HookMessage {
                m.role = Role::Custom;
                e.migrated = true;
            }
        }
    }
}
