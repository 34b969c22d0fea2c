//! Embeds the UI (`ui/`, the same files the desktop app ships) and the app's CSP into the
//! binary, so an installed `contextree serve` needs no source tree: writes `assets.rs` into
//! `OUT_DIR` with one `include_bytes!` per file and the CSP as a constant.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = manifest.join("../..");
    let ui = root.join("ui").canonicalize().expect("the ui/ folder is next to crates/");
    let conf = root.join("src-tauri/tauri.conf.json");
    println!("cargo:rerun-if-changed={}", ui.display());
    println!("cargo:rerun-if-changed={}", conf.display());

    let mut files = Vec::new();
    walk(&ui, &mut files);
    files.sort();
    let mut out =
        String::from("/// The UI's files: the path under `ui/` (with `/`) and the bytes.\npub static FILES: &[(&str, &[u8])] = &[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let rel = file.strip_prefix(&ui).expect("walked under ui/").to_string_lossy().replace('\\', "/");
        writeln!(out, "    ({rel:?}, include_bytes!({:?})),", file.display().to_string()).unwrap();
    }
    out.push_str("];\n");

    let text = std::fs::read_to_string(&conf).expect("src-tauri/tauri.conf.json reads");
    let json: serde_json::Value = serde_json::from_str(&text).expect("tauri.conf.json is JSON");
    let csp = json["app"]["security"]["csp"].as_str().expect("tauri.conf.json has app.security.csp");
    writeln!(out, "/// The app's CSP as `tauri.conf.json` has it.\npub const APP_CSP: &str = {csp:?};").unwrap();

    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("assets.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

/// Every file under `dir`, but `package.json` (node's, not the page's) and hidden files.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("ui/ reads").flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "package.json" {
            continue;
        }
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}
