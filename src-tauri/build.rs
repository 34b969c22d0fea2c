//! Embeds `tauri.conf.json`, the capabilities and the icons into the app (tauri-build).

fn main() {
    tauri_build::build();
}
