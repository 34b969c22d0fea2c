//! How WebKitGTK draws the window: through its GPU compositor, or painted directly.
//!
//! WebKitGTK composites every frame with OpenGL. On a machine without a GPU render node that
//! OpenGL is Mesa's software rasterizer, and the compositor then costs more than it saves.
//! Measured on this project's machines (Xvfb, no `/dev/dri`, `scripts/bench-app.sh`, g100):
//! - scrolling: a frame every 33 ms composited, 15 ms painted directly;
//! - a leaf change to the painted tree: 79 ms against 33 ms;
//! - WebKit's web process: 417 MB against 288 MB.
//!
//! So without a render node the app turns compositing off, the way WebKit's own
//! `WEBKIT_DISABLE_COMPOSITING_MODE` does. Machines with a GPU keep WebKit's default. A user who
//! sets the variable keeps their choice: `WEBKIT_DISABLE_COMPOSITING_MODE=0` keeps the
//! compositor even without a GPU.
//!
//! Painted directly, a page at rest does not paint at all, and WebKitWebDriver's screenshot
//! waits for a paint: the e2e tests keep the page painting while they take one (`screenshot` in
//! `tests/e2e/app.rs`).

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// WebKitGTK's switch: any value but `0` paints without compositing.
pub const COMPOSITING_VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// Where Linux lists the GPUs' render nodes (`renderD128`, …).
const DRI_DIR: &str = "/dev/dri";

/// Whether to paint without compositing: the user has not set [`COMPOSITING_VAR`] and none of
/// `dri_entries` (the names in `/dev/dri`) is a render node.
pub fn paint_directly(user_choice: Option<&OsStr>, dri_entries: &[OsString]) -> bool {
    user_choice.is_none() && !dri_entries.iter().any(|name| name.to_string_lossy().starts_with("renderD"))
}

/// Applies [`paint_directly`] to this process's environment. Called first thing in `main`,
/// before any thread starts (the variable is read by WebKit and inherited by its processes).
pub fn choose() {
    if !cfg!(target_os = "linux") {
        return;
    }
    if paint_directly(std::env::var_os(COMPOSITING_VAR).as_deref(), &dri_entries(Path::new(DRI_DIR))) {
        std::env::set_var(COMPOSITING_VAR, "1");
    }
}

/// The names in `dir`; none when it cannot be read (no GPU driver loaded: no `/dev/dri`).
fn dri_entries(dir: &Path) -> Vec<OsString> {
    std::fs::read_dir(dir).map(|entries| entries.filter_map(|e| e.ok().map(|e| e.file_name())).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn paints_directly_only_without_a_render_node_and_without_the_users_choice() {
        assert!(paint_directly(None, &[]));
        assert!(paint_directly(None, &names(&["card0", "by-path"])));
        assert!(!paint_directly(None, &names(&["card0", "renderD128"])));
        assert!(!paint_directly(Some(OsStr::new("0")), &[]));
        assert!(!paint_directly(Some(OsStr::new("1")), &names(&["renderD128"])));
    }

    #[test]
    fn render_nodes_are_read_from_the_folder() {
        let dir = std::env::temp_dir().join(format!("contextree-dri-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(dri_entries(&dir).is_empty());
        std::fs::write(dir.join("renderD129"), b"").unwrap();
        assert_eq!(dri_entries(&dir), names(&["renderD129"]));
        assert!(!paint_directly(None, &dri_entries(&dir)));
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(dri_entries(&dir).is_empty());
    }
}
