//! The library's listing kept current by the kernel's file events (inotify), for a process that
//! runs a while (the app, `contextree serve`): after the first listing, a query re-lists only
//! the folders something happened in, instead of `stat`ing every session file (about 50 ms at
//! 10,000 files). The answer is always [`crate::library_files`]'s: when events cannot be had
//! (no inotify, too many watches) or some were lost (the kernel's queue overflowed), the whole
//! library is listed again.
//!
//! A folder is watched before it is listed, so a change made while it is listed comes as an
//! event and is listed again at the next look.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use contextree_host::library::{RootOverrides, SessionRoot};
use contextree_host::HostEnv;
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use rustix::io::Errno;

use crate::{folder_files, root_folders, roots, SessionFile};

/// A folder of the library: its root's place among the roots, and its name there (`""` for
/// the root itself). Ordered as [`crate::library_files`] lists them.
type FolderKey = (usize, String);

/// The library's session files, kept listed.
pub struct LiveLibrary {
    roots: Vec<SessionRoot>,
    /// `None`: no events; every look lists the whole library.
    events: Option<OwnedFd>,
    /// Watch descriptor → the folder it watches.
    watches: HashMap<i32, FolderKey>,
    folders: BTreeMap<FolderKey, Folder>,
    /// Folders to list again at the next look.
    stale: HashSet<FolderKey>,
    /// Roots whose project folders to list again (one was made, removed or renamed).
    stale_roots: HashSet<usize>,
    /// Events were lost: list everything again.
    lost: bool,
}

struct Folder {
    dir: PathBuf,
    files: Vec<SessionFile>,
}

/// What a folder is watched for: its files' writes, their arrival and departure (renames
/// included: a rewrite lands by `rename`), and the folder's own end.
fn watch_flags() -> WatchFlags {
    WatchFlags::MODIFY
        | WatchFlags::CLOSE_WRITE
        | WatchFlags::ATTRIB
        | WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
        | WatchFlags::ONLYDIR
}

impl LiveLibrary {
    /// Lists the library of `overrides` (as [`crate::library_files`] takes them) and watches
    /// its folders.
    pub fn new(env: &HostEnv, overrides: &RootOverrides) -> Self {
        let events = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC).ok();
        Self::listed(roots(env, overrides), events)
    }

    /// [`LiveLibrary::new`] without events: every look lists the whole library (what happens
    /// when the kernel gives none).
    pub fn without_events(env: &HostEnv, overrides: &RootOverrides) -> Self {
        Self::listed(roots(env, overrides), None)
    }

    fn listed(roots: Vec<SessionRoot>, events: Option<OwnedFd>) -> Self {
        let mut live = Self {
            roots,
            events,
            watches: HashMap::new(),
            folders: BTreeMap::new(),
            stale: HashSet::new(),
            stale_roots: HashSet::new(),
            lost: false,
        };
        live.list_all();
        live
    }

    /// Whether this listing is of the library of `overrides` (its folders are the same ones:
    /// settings may have changed them, or a default folder may have appeared).
    pub fn is_of(&self, env: &HostEnv, overrides: &RootOverrides) -> bool {
        roots(env, overrides) == self.roots
    }

    /// Whether the kernel's events keep this listing (else each look lists everything).
    pub fn has_events(&self) -> bool {
        self.events.is_some()
    }

    /// The library's files as [`crate::library_files`] would list them now. Reads the events
    /// that came since the last look and lists again only the folders they name.
    pub fn files(&mut self) -> Vec<SessionFile> {
        self.look();
        self.folders.values().flat_map(|f| f.files.iter().cloned()).collect()
    }

    /// Reads the pending events and lists again what they name; whether anything was listed
    /// again (the background keeper updates the index only then).
    pub fn look(&mut self) -> bool {
        if self.events.is_none() {
            self.list_all();
            return true;
        }
        self.read_events();
        if self.lost {
            self.list_all();
            return true;
        }
        let changed = !self.stale.is_empty() || !self.stale_roots.is_empty();
        for root in std::mem::take(&mut self.stale_roots) {
            self.list_root(root);
        }
        for key in std::mem::take(&mut self.stale) {
            if let Some(folder) = self.folders.get_mut(&key) {
                folder.files = folder_files(&self.roots[key.0], &folder.dir, &key.1);
            }
        }
        changed
    }

    /// Tells the listing that events were lost (as a queue overflow does): the next look lists
    /// everything.
    pub fn forget(&mut self) {
        self.lost = true;
    }

    fn read_events(&mut self) {
        let Some(fd) = &self.events else { return };
        let mut buf = [MaybeUninit::<u8>::uninit(); 8192];
        let mut reader = inotify::Reader::new(fd, &mut buf);
        loop {
            match reader.next() {
                Ok(event) => {
                    let flags = event.events();
                    if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
                        self.lost = true;
                        continue;
                    }
                    let Some(key) = self.watches.get(&event.wd()).cloned() else { continue };
                    if flags.intersects(ReadFlags::IGNORED | ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF) {
                        // The folder went away (or its watch ended): forget it, and its root
                        // lists its folders again (a folder made again under the same name is
                        // then watched and listed anew).
                        if let Some(wd) = self.watches.remove(&event.wd()).map(|_| event.wd()) {
                            if !flags.contains(ReadFlags::IGNORED) {
                                let _ = inotify::remove_watch(fd, wd);
                            }
                        }
                        if !key.1.is_empty() {
                            self.folders.remove(&key);
                        }
                        self.stale_roots.insert(key.0);
                        continue;
                    }
                    if key.1.is_empty() && flags.contains(ReadFlags::ISDIR) {
                        // A project folder made, removed or renamed in a root.
                        self.stale_roots.insert(key.0);
                        continue;
                    }
                    self.stale.insert(key);
                }
                Err(Errno::AGAIN) => return,
                Err(Errno::INTR) => continue,
                Err(_) => {
                    // Events cannot be read any more: list everything from now on.
                    self.events = None;
                    self.lost = true;
                    return;
                }
            }
        }
    }

    fn list_all(&mut self) {
        self.folders.clear();
        self.stale.clear();
        self.stale_roots.clear();
        self.lost = false;
        for root in 0..self.roots.len() {
            self.list_root(root);
        }
    }

    /// Lists the folders of root `root` again: new ones watched and listed, gone ones dropped;
    /// folders already known keep their listing (their own events say when they change).
    fn list_root(&mut self, root: usize) {
        let path = self.roots[root].path.clone();
        self.watch(&path, (root, String::new()));
        let now = root_folders(&path);
        let names: HashSet<&str> = now.iter().map(|(_, name)| name.as_str()).collect();
        self.folders.retain(|(r, name), _| *r != root || names.contains(name.as_str()));
        for (dir, name) in &now {
            let key = (root, name.clone());
            if self.folders.get(&key).is_some_and(|f| &f.dir == dir) {
                continue;
            }
            self.watch(dir, key.clone());
            let files = folder_files(&self.roots[root], dir, name);
            self.folders.insert(key, Folder { dir: dir.clone(), files });
        }
    }

    /// Watches `dir` as folder `key`; without a watch (too many, or no events) every look
    /// lists everything, as events would be missed.
    fn watch(&mut self, dir: &Path, key: FolderKey) {
        let Some(fd) = &self.events else { return };
        match inotify::add_watch(fd, dir, watch_flags()) {
            Ok(wd) => {
                self.watches.insert(wd, key);
            }
            Err(_) if !dir.is_dir() => {} // gone meanwhile: its root's events say so
            Err(_) => self.events = None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use crate::library_files;

    fn header(id: &str) -> String {
        format!("{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}}\n")
    }

    fn paths_and_stamps(files: &[SessionFile]) -> Vec<(PathBuf, Option<crate::Stamp>, Option<String>)> {
        files.iter().map(|f| (f.path.clone(), f.listed, f.agent.clone())).collect()
    }

    /// After every kind of change, the kept listing is the full listing's.
    #[test]
    fn the_kept_listing_is_always_the_full_one() {
        let dir = contextree_testkit::Scratch::new("live-library");
        let root = dir.path().join("sessions");
        let project = root.join("--home-u-p--");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("a.jsonl"), header("a")).unwrap();
        std::fs::write(root.join("top.jsonl"), header("t")).unwrap();
        let env = HostEnv::default();
        let overrides = RootOverrides { only: vec![root.clone()], ..Default::default() };
        let mut live = LiveLibrary::new(&env, &overrides);
        assert!(live.has_events(), "inotify on this machine");
        // Each change arrives as an event (not as a listing of everything), and the listing
        // kept is then the full one.
        let same = |live: &mut LiveLibrary, what: &str| {
            assert!(live.look(), "{what}: seen by its events");
            assert!(!live.look(), "{what}: nothing more");
            assert_eq!(paths_and_stamps(&live.files()), paths_and_stamps(&library_files(&env, &overrides)), "{what}");
            assert!(live.has_events(), "{what}: still kept by events");
        };
        assert_eq!(paths_and_stamps(&live.files()), paths_and_stamps(&library_files(&env, &overrides)), "first listing");
        assert!(!live.look(), "nothing happened");

        // An agent appends.
        let mut f = std::fs::OpenOptions::new().append(true).open(project.join("a.jsonl")).unwrap();
        writeln!(f, "{{\"type\":\"message\",\"id\":\"m1\",\"parentId\":null}}").unwrap();
        drop(f);
        same(&mut live, "an append");
        // A new session, a new project folder with one, a session in the root.
        std::fs::write(project.join("b.jsonl"), header("b")).unwrap();
        let other = root.join("--home-u-q--");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("c.jsonl"), header("c")).unwrap();
        same(&mut live, "new files and a new folder");
        // A file in the new folder after it was first seen (its watch is in place).
        std::fs::write(other.join("d.jsonl"), header("d")).unwrap();
        same(&mut live, "a file in the new folder");
        // A rewrite that lands by rename (as a prune does), a deletion, a folder removed.
        std::fs::write(project.join(".a.tmp"), header("a2")).unwrap();
        std::fs::rename(project.join(".a.tmp"), project.join("a.jsonl")).unwrap();
        std::fs::remove_file(project.join("b.jsonl")).unwrap();
        same(&mut live, "a rename over a file and a deletion");
        std::fs::remove_dir_all(&other).unwrap();
        same(&mut live, "a folder removed");
        std::fs::create_dir(&other).unwrap();
        same(&mut live, "the folder made again");
        std::fs::write(other.join("f.jsonl"), header("f")).unwrap();
        same(&mut live, "a file in the folder made again (watched anew)");
        std::fs::remove_file(root.join("top.jsonl")).unwrap();
        same(&mut live, "a file of the root removed");
        // Lost events: everything listed again.
        std::fs::write(project.join("e.jsonl"), header("e")).unwrap();
        live.forget();
        same(&mut live, "after lost events");
    }

    #[test]
    fn without_events_every_look_lists_everything() {
        let dir = contextree_testkit::Scratch::new("live-library-none");
        let root = dir.path().join("sessions");
        std::fs::create_dir_all(root.join("p")).unwrap();
        let env = HostEnv::default();
        let overrides = RootOverrides { only: vec![root.clone()], ..Default::default() };
        let mut live = LiveLibrary::without_events(&env, &overrides);
        assert!(live.files().is_empty());
        std::fs::write(root.join("p").join("a.jsonl"), header("a")).unwrap();
        assert_eq!(paths_and_stamps(&live.files()), paths_and_stamps(&library_files(&env, &overrides)));
        assert_eq!(live.files().len(), 1);
    }

    #[test]
    fn another_library_is_not_this_one() {
        let dir = contextree_testkit::Scratch::new("live-library-roots");
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let env = HostEnv::default();
        let live = LiveLibrary::new(&env, &RootOverrides { only: vec![a.clone()], ..Default::default() });
        assert!(live.is_of(&env, &RootOverrides { only: vec![a], ..Default::default() }));
        assert!(!live.is_of(&env, &RootOverrides { only: vec![b], ..Default::default() }));
    }
}
