#!/usr/bin/env bash
# Installs what building and testing the desktop app needs on Debian 12:
# the WebKitGTK/GTK dev packages, Xvfb and WebKitWebDriver from apt, and
# tauri-driver from crates.io. Idempotent: installs only what is missing.
# WebKitGTK/GTK: building the app; xvfb, xauth, webkit2gtk-driver: the end-to-end test and the
# package check (scripts/test.sh); fonts-dejavu-core, fonts-noto-cjk, fonts-noto-color-emoji:
# the UI's font lists (ui/styles.css: Latin, CJK, emoji); strace: the test that contextree
# starts no other program (crates/contextree-cli/tests/it/no_spawn.rs); man-db and rpm: the
# package check reads the installed man page and inspects the .rpm (scripts/test.sh, package);
# chromium, chromium-driver: the e2e cases of `contextree serve` in a headless browser
# (tests/e2e/browser.rs).
set -euo pipefail

# Pinned: crates.io also carries tauri-driver 3 alphas (tauri 3), which we do not use.
TAURI_DRIVER_VERSION=2.1.0

APT_PACKAGES=(
  pkg-config build-essential file libssl-dev
  libwebkit2gtk-4.1-dev libgtk-3-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev
  xvfb xauth webkit2gtk-driver fonts-dejavu-core fonts-noto-cjk fonts-noto-color-emoji
  strace man-db rpm chromium chromium-driver
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: apt packages missing: ${missing[*]}"
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "install-deps: apt packages present"
fi

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
if command -v tauri-driver >/dev/null 2>&1; then
  echo "install-deps: tauri-driver present ($(command -v tauri-driver))"
else
  echo "install-deps: installing tauri-driver $TAURI_DRIVER_VERSION"
  cargo install tauri-driver --version "$TAURI_DRIVER_VERSION" --locked
fi
