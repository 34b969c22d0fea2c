//! Each hit's session states, kept between queries. Knowing a hit's state means loading its
//! whole session (0.5 MB, say) and walking its tree for the current leaf: most of a warm
//! query's time when its 20 hits are in 20 sessions. What the hits need of a session is small
//! (per entry: where its line starts, its line number, id and state), so it is kept: in
//! memory for the process (the app, the server), and in a file per session beside the index
//! for the CLI, whose every query is a new process.
//!
//! An answer is reused only for the same key: the file's length, mtime and inode (a grown,
//! rewritten or replaced file differs) and the rule choice's inputs (the installed agents'
//! versions, which `--prompts auto` reads at run time, and this build's rule tables). The
//! file's stamp is taken before it is loaded, so a write during the load leaves states keyed
//! by the older stamp, which the next query's `stat` no longer matches.
//!
//! On disk, a file is written whole under a temporary name and renamed over the old one, so a
//! reader sees one writer's whole file or none; each file names its own key and ends with a
//! mark, so a cut, torn or foreign file (a kill, a crash, two processes racing) fails to read
//! and is computed again. Nothing is fsynced: a lost write costs a recomputation, never a
//! wrong state.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use contextree_core::context::EntryState;
use contextree_core::session::NodeId;
use contextree_core::Dialect;
use contextree_core::RuleSet;
use contextree_host::HostEnv;
use contextree_search::Stamp;
use serde::{Deserialize, Serialize};

/// Sessions kept in memory; past it the memory is emptied (the disk copy stays).
const MEMORY: usize = 4096;
/// Bumped when what is stored, or how core computes it, changes shape.
const FORMAT: &str = "states-v1";
/// The last line of a whole file.
const END: &str = "end";

/// What a query needs of one session for its current leaf.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HitStates {
    /// Each entry's line start, in file order.
    pub starts: Vec<u64>,
    /// Each entry's 1-based line.
    pub lines: Vec<u32>,
    /// Each entry's id as the session reads it.
    pub ids: Vec<Option<String>>,
    /// Each entry's state, as [`code`] numbers it.
    pub states: Vec<u8>,
    /// Off-path entries a branch summary on the path stands for (entry index, summary id).
    pub branch_summarized: HashMap<u32, String>,
    /// The active compaction's id.
    pub compaction: Option<String>,
    /// The leaf's id.
    pub leaf: Option<String>,
    /// The rule set's name.
    pub rule_set: String,
}

impl HitStates {
    /// The entry whose line starts at `offset` (entries are in file order).
    pub fn node_at(&self, offset: u64, line_len: u64) -> Option<NodeId> {
        let i = self.starts.partition_point(|&s| s < offset);
        let start = *self.starts.get(i)?;
        (start <= offset + line_len).then_some(NodeId(i as u32))
    }

    /// The state of entry `n`.
    pub fn state(&self, n: NodeId) -> Option<EntryState> {
        self.states.get(n.index()).and_then(|&c| state_of(c))
    }

    /// The rule set's name, as core spells it.
    pub fn rule_set(&self) -> Option<&'static str> {
        RuleSet::ALL.iter().map(|r| r.name()).find(|n| *n == self.rule_set)
    }
}

/// The number a state is stored as (its place in `EntryState::ALL`, as the tree table sends
/// it); [`state_of`] reads it back.
pub fn code(s: EntryState) -> u8 {
    s as u8
}

fn state_of(c: u8) -> Option<EntryState> {
    EntryState::ALL.get(usize::from(c)).copied()
}

/// When states computed once may be given again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    /// The session file.
    pub path: String,
    /// Its length, taken before it was loaded (as the two below).
    pub len: u64,
    /// Its mtime, ns since the epoch.
    pub mtime_ns: i128,
    /// Its inode.
    pub inode: u64,
    /// The rule choice's inputs ([`rules_key`]).
    pub rules: String,
}

impl Key {
    /// The key of `path` as it is now under `rules`; `None` when it cannot be `stat`ed.
    pub fn of(path: &Path, rules: &str) -> Option<Key> {
        let Stamp { len, mtime_ns, inode } = Stamp::of_path(path).ok()?;
        Some(Key { path: path.to_string_lossy().into_owned(), len, mtime_ns, inode, rules: rules.to_owned() })
    }
}

/// What the rule set of a session loaded with `--prompts auto` depends on besides the file:
/// each agent's installed version (found at run time), and this build (its rule tables).
pub fn rules_key(env: &HostEnv) -> String {
    let mut key = format!("{FORMAT} contextree-{} auto", env!("CARGO_PKG_VERSION"));
    for d in Dialect::ALL {
        let v = contextree_host::installed_version(env, d);
        key.push_str(&format!(" {}={}", d.name(), v.as_deref().unwrap_or("-")));
    }
    key
}

/// The states of the sessions queries have loaded.
#[derive(Debug, Default)]
pub struct StateCache {
    memory: Mutex<HashMap<String, (Key, Arc<HitStates>)>>,
    disk: Option<PathBuf>,
}

impl StateCache {
    /// Kept in memory only (a process that answers many queries).
    pub fn in_memory() -> StateCache {
        StateCache::default()
    }

    /// Kept in memory and in `dir` (made when first written).
    pub fn on_disk(dir: PathBuf) -> StateCache {
        StateCache { disk: Some(dir), ..StateCache::default() }
    }

    /// Kept in memory and beside `index` (its folder's sibling `states`: a new index format
    /// leaves it, the key names the build).
    pub fn beside(index: &contextree_search::SearchIndex) -> StateCache {
        let dir = index.dir();
        StateCache::on_disk(dir.parent().unwrap_or(dir).join("states"))
    }

    /// The states of `path` under `rules`: kept ones when their key is the file's current
    /// one, else `compute`d (and kept). A file that cannot be `stat`ed is computed, not kept.
    pub fn get(&self, path: &Path, rules: &str, compute: &dyn Fn(&Path) -> Result<HitStates, String>) -> Result<Arc<HitStates>, String> {
        let Some(key) = Key::of(path, rules) else { return compute(path).map(Arc::new) };
        if let Some((k, s)) = self.memory.lock().unwrap_or_else(|e| e.into_inner()).get(&key.path) {
            if *k == key {
                return Ok(Arc::clone(s));
            }
        }
        let states = match self.disk.as_deref().and_then(|d| read(d, &key)) {
            Some(s) => Arc::new(s),
            None => {
                let s = Arc::new(compute(path)?);
                if let Some(dir) = &self.disk {
                    // A copy that cannot be written costs the next process a recomputation.
                    let _ = write(dir, &key, &s);
                }
                s
            }
        };
        let mut memory = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        if memory.len() >= MEMORY {
            memory.clear();
        }
        memory.insert(key.path.clone(), (key, Arc::clone(&states)));
        Ok(states)
    }
}

/// The file a session's states are kept in: FNV-1a of the path (names need only be stable
/// for one build; a collision is two paths taking turns, each file naming its own).
fn file_name(path: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}.json")
}

/// The stored line: the key, then the states.
#[derive(Serialize, Deserialize)]
struct Stored {
    key: Key,
    states: HitStates,
}

fn read(dir: &Path, key: &Key) -> Option<HitStates> {
    let text = std::fs::read_to_string(dir.join(file_name(&key.path))).ok()?;
    let body = text.strip_suffix(&format!("\n{END}\n"))?;
    let stored: Stored = serde_json::from_str(body).ok()?;
    (stored.key == *key && stored.states.states.len() == stored.states.starts.len()).then_some(stored.states)
}

fn write(dir: &Path, key: &Key, states: &HitStates) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let stored = Stored { key: key.clone(), states: states.clone() };
    let mut text = serde_json::to_string(&stored).map_err(std::io::Error::other)?;
    text.push_str(&format!("\n{END}\n"));
    contextree_host::atomic::replace_unsynced(&dir.join(file_name(&key.path)), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn states(rule_set: &str, state: EntryState) -> HitStates {
        HitStates {
            starts: vec![0, 30],
            lines: vec![1, 2],
            ids: vec![None, Some("u".into())],
            states: vec![code(EntryState::Metadata), code(state)],
            branch_summarized: HashMap::new(),
            compaction: None,
            leaf: Some("u".into()),
            rule_set: rule_set.into(),
        }
    }

    #[test]
    fn every_state_reads_back() {
        for s in EntryState::ALL {
            assert_eq!(state_of(code(s)), Some(s));
        }
    }

    #[test]
    fn a_changed_file_or_another_rule_set_is_computed_again() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        std::fs::write(&file, "{}\n").unwrap();
        for cache in [StateCache::in_memory(), StateCache::on_disk(dir.path().join("states"))] {
            let calls = Cell::new(0);
            let compute = |_: &Path| {
                calls.set(calls.get() + 1);
                Ok(states("pi-1.6", EntryState::Kept))
            };
            let a = cache.get(&file, "rules-a", &compute).unwrap();
            assert_eq!(cache.get(&file, "rules-a", &compute).unwrap(), a);
            assert_eq!(calls.get(), 1, "the same file and rules: kept");
            cache.get(&file, "rules-b", &compute).unwrap();
            assert_eq!(calls.get(), 2, "another rule choice is not served from the cache");
            std::fs::write(&file, "{}\n{}\n").unwrap();
            cache.get(&file, "rules-b", &compute).unwrap();
            assert_eq!(calls.get(), 3, "a grown file");
        }
    }

    #[test]
    fn the_disk_copy_serves_another_process_and_a_bad_one_is_recomputed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        std::fs::write(&file, "{}\n").unwrap();
        let at = dir.path().join("states");
        let calls = Cell::new(0);
        let compute = |_: &Path| {
            calls.set(calls.get() + 1);
            Ok(states("omp-13", EntryState::Summarized))
        };
        StateCache::on_disk(at.clone()).get(&file, "r", &compute).unwrap();
        // A new process (a new cache) reads the copy.
        let got = StateCache::on_disk(at.clone()).get(&file, "r", &compute).unwrap();
        assert_eq!((calls.get(), got.state(NodeId(1))), (1, Some(EntryState::Summarized)));
        // Every cut of the copy (a kill mid-write, a crash) is computed again, never read.
        let copy = at.join(file_name(&file.to_string_lossy()));
        let whole = std::fs::read(&copy).unwrap();
        for cut in 0..whole.len() {
            std::fs::write(&copy, &whole[..cut]).unwrap();
            assert_eq!(read(&at, &Key::of(&file, "r").unwrap()), None, "cut at {cut}");
        }
        // Another file's copy under this name (a collision, a rename race) is not its.
        let other = dir.path().join("t.jsonl");
        std::fs::write(&other, "{}\n").unwrap();
        write(&at, &Key::of(&other, "r").unwrap(), &states("omp-13", EntryState::Kept)).unwrap();
        std::fs::rename(at.join(file_name(&other.to_string_lossy())), &copy).unwrap();
        assert_eq!(read(&at, &Key::of(&file, "r").unwrap()), None);
        assert_eq!(std::fs::read_dir(&at).unwrap().count(), 1, "no temporary file left");
    }

    #[test]
    fn a_hit_finds_its_entry_by_offset() {
        let s = states("pi-1.6", EntryState::Pruned);
        assert_eq!(s.node_at(0, 29), Some(NodeId(0)));
        assert_eq!(s.node_at(30, 40), Some(NodeId(1)));
        assert_eq!(s.node_at(31, 2), None, "no entry starts there");
        assert_eq!(s.state(NodeId(1)), Some(EntryState::Pruned));
    }
}

#[cfg(test)]
mod rule_tests {
    use std::collections::BTreeMap;

    use contextree_host::library::RootOverrides;
    use contextree_search::{library_files, SearchIndex};

    use super::*;
    use crate::search::search_library;

    /// The installed pi is found at run time (here through its package variable); the rule set
    /// a session is read under follows it, and so must a kept answer.
    #[test]
    fn another_installed_agent_version_is_not_answered_from_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        std::fs::create_dir_all(root.join("--home-dev-app--")).unwrap();
        let session = root.join("--home-dev-app--").join("2026-01-01T00-00-00-000Z_s.jsonl");
        std::fs::write(
            &session,
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/home/dev/app\"}\n\
             {\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"marmalade\"}}\n",
        )
        .unwrap();
        let package = dir.path().join("pi-package");
        std::fs::create_dir_all(&package).unwrap();
        let env = contextree_host::HostEnv::with_vars(
            BTreeMap::from([
                ("HOME".to_owned(), dir.path().display().to_string()),
                ("CONTEXTREE_PI_PACKAGE".to_owned(), package.display().to_string()),
            ]),
            dir.path().to_owned(),
        );
        let index = SearchIndex::open(&dir.path().join("index")).unwrap();
        let cache = StateCache::beside(&index);
        let only = RootOverrides { only: vec![root], ..RootOverrides::default() };
        let rule_set = |version: &str| {
            std::fs::write(package.join("package.json"), format!("{{\"version\":\"{version}\"}}")).unwrap();
            let report = search_library(&env, &index, &library_files(&env, &only), "marmalade", 10, &cache).unwrap();
            assert_eq!(report.hits.len(), 1);
            report.hits[0].rule_set
        };
        let old = rule_set("0.73.1");
        assert_eq!(old, Some("pi@0.73"));
        assert_eq!(rule_set("0.73.1"), old, "kept");
        let new = rule_set("1.6.0");
        assert_eq!(new, Some("pi@1.6"), "pi 1.6 installed: its rule set, not the kept one");
        assert_eq!(new, StateCache::beside(&index).get(&session, &rules_key(&env), &|_| Err("kept on disk".into())).unwrap().rule_set());
    }
}
