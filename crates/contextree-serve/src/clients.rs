//! One open session per browser tab: the app has one window and one `AppState`; here each tab
//! sends the id it made (`X-Contextree-Client`, `?client=` for the event stream) and gets a
//! state of its own, so two tabs never change each other's session. At most [`MAX`] are kept;
//! a new tab beyond that drops the one used least recently (its watcher stops).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use contextree_face::watch::{Watched, SESSION_CHANGED};
use contextree_face::AppState;
use contextree_read::SessionReport;
use tokio::sync::broadcast;

/// Tabs kept at once.
pub const MAX: usize = 16;

/// Events waiting for a slow tab; beyond that it misses the oldest (a reload is sent again on
/// the next change; progress lines are only shown).
const BACKLOG: usize = 256;

/// One server-sent event.
#[derive(Debug, Clone)]
pub struct Event {
    /// `session-changed` or `progress`.
    pub name: &'static str,
    /// Its JSON.
    pub data: String,
}

/// One tab's state and the stream its events go to.
#[derive(Debug, Clone)]
pub struct Client {
    pub state: Arc<AppState>,
    pub events: broadcast::Sender<Event>,
}

impl Client {
    /// Sends `data` as event `name` (nobody listening is not an error).
    pub fn send(&self, name: &'static str, data: String) {
        let _ = self.events.send(Event { name, data });
    }
}

impl Watched for Client {
    fn state(&self) -> &AppState {
        &self.state
    }

    fn session_changed(&self, report: SessionReport) {
        if let Ok(json) = serde_json::to_string(&report) {
            self.send(SESSION_CHANGED, json);
        }
    }
}

/// Whether `id` can be a tab's id: 8 to 64 letters, digits or `-`.
pub fn valid_id(id: &str) -> bool {
    (8..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// The tabs' states.
#[derive(Debug, Default)]
pub struct Clients {
    map: Mutex<HashMap<String, (Client, Instant)>>,
}

impl Clients {
    /// The client `id`, made with `make` when new (dropping the least recently used beyond
    /// [`MAX`]).
    pub fn get(&self, id: &str, make: impl FnOnce() -> AppState) -> Client {
        let mut map = self.map.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((client, used)) = map.get_mut(id) {
            *used = Instant::now();
            return client.clone();
        }
        if map.len() >= MAX {
            let oldest = map.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| k.clone());
            if let Some((gone, _)) = oldest.and_then(|k| map.remove(&k)) {
                gone.state.close();
            }
        }
        let client = Client { state: Arc::new(make()), events: broadcast::channel(BACKLOG).0 };
        map.insert(id.to_owned(), (client.clone(), Instant::now()));
        client
    }

    /// How many tabs are kept.
    pub fn len(&self) -> usize {
        self.map.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_tab_goes_first() {
        let clients = Clients::default();
        let make = || AppState::with_env(None, contextree_host::HostEnv::default());
        let states: Vec<_> = (0..MAX).map(|i| clients.get(&format!("tab-{i:04}"), make).state).collect();
        clients.get("tab-0000", make); // used again: now the newest
        clients.get("tab-new1", make);
        assert_eq!(clients.len(), MAX);
        assert!(Arc::ptr_eq(&states[0], &clients.get("tab-0000", make).state), "kept");
        assert_eq!(states[1].generation(), 1, "tab-0001 was closed (its watcher stops)");
        assert!(!Arc::ptr_eq(&states[1], &clients.get("tab-0001", make).state), "and is made anew");
        assert!(valid_id("0123abcd-ef"));
        assert!(!valid_id("short"));
        assert!(!valid_id("has space in it"));
    }
}
