//! [`CancelToken`]: a cloneable "stop now" flag that async code can wait on.

use std::sync::Arc;

use tokio::sync::watch;

/// Cancels a [`crate::summarize_with_events`] call from anywhere (another task, a signal handler, a UI
/// button). Clones share the flag; once cancelled it stays cancelled.
#[derive(Debug, Clone)]
pub struct CancelToken {
    tx: Arc<watch::Sender<bool>>,
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> CancelToken {
        let (tx, _rx) = watch::channel(false);
        CancelToken { tx: Arc::new(tx) }
    }

    /// Cancels every call using this token (or a clone of it).
    pub fn cancel(&self) {
        self.tx.send_replace(true);
    }

    /// Whether [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        *self.tx.borrow()
    }

    /// Completes once the token is cancelled (at once if it already is).
    pub async fn cancelled(&self) {
        let mut rx = self.tx.subscribe();
        // The sender lives as long as `self`, so this only returns once the flag is set.
        let _ = rx.wait_for(|cancelled| *cancelled).await;
    }
}

impl Default for CancelToken {
    fn default() -> Self {
        CancelToken::new()
    }
}
