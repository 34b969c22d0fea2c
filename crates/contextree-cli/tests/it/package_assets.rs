//! What the packages ship beside the binary: the man pages and shell completions written by the
//! hidden `generate-assets` (scripts/package.sh installs them), and `--version` naming the rule
//! sets. The commands are read from `--help`, so a command added later is checked too.

use std::process::{Command, Output};

use contextree_core::RuleSet;
use contextree_testkit::Scratch;

fn contextree(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_contextree")).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// The public commands `--help` lists (clap's own `help` aside).
fn commands() -> Vec<String> {
    let help = String::from_utf8(contextree(&["--help"]).stdout).unwrap();
    let listed = help.split("Commands:\n").nth(1).expect("--help lists commands");
    let names: Vec<String> = listed
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    for known in ["context", "compare", "info", "tree"] {
        assert!(names.iter().any(|n| n == known), "--help does not list {known}: {names:?}");
    }
    names
}

/// Whether `text` has `word` with no word character (or `-`) on either side.
fn has_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back().is_none_or(|c| !is_word(c));
        let after = text[at + word.len()..].chars().next().is_none_or(|c| !is_word(c));
        before && after
    })
}

#[test]
fn the_man_pages_and_completions_cover_every_command() {
    let scratch = Scratch::new("assets");
    let dir = scratch.join("out");
    contextree(&["generate-assets", dir.to_str().unwrap()]);
    let read = |rel: &str| std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));

    let main_page = read("man1/contextree.1");
    assert!(main_page.starts_with(".ie") && main_page.contains(".TH contextree 1"), "{main_page}");
    let bash = read("bash/contextree");
    let zsh = read("zsh/_contextree");
    let fish = read("fish/contextree.fish");
    // What makes each shell pick the file up for `contextree` from its standard folder.
    assert!(bash.contains("complete -F _contextree") && has_word(&bash, "contextree"), "bash");
    assert!(zsh.starts_with("#compdef contextree"), "zsh");
    assert!(fish.contains("complete -c contextree"), "fish");

    for name in commands() {
        // roff writes a hyphen as `\-`.
        assert!(main_page.contains(&format!("contextree\\-{name}(1)")), "contextree.1 does not list {name}");
        let page = read(&format!("man1/contextree-{name}.1"));
        assert!(page.contains(&format!(".TH contextree-{name} 1")), "contextree-{name}.1");
        for (shell, text) in [("bash", &bash), ("zsh", &zsh), ("fish", &fish)] {
            assert!(has_word(text, &name), "the {shell} completion does not offer {name}");
        }
    }
    // The command's own options reach its page: `context --leaf`.
    assert!(read("man1/contextree-context.1").contains("\\-\\-leaf"));

    // The hidden command stays out of everything a user reads.
    for text in [&main_page, &bash, &zsh, &fish] {
        assert!(!text.contains("generate-assets"));
    }
    assert!(!scratch.join("out/man1/contextree-generate-assets.1").exists());
    assert!(!String::from_utf8(contextree(&["--help"]).stdout).unwrap().contains("generate-assets"));
}

#[test]
fn version_names_every_rule_set() {
    let names: Vec<&str> = RuleSet::ALL.iter().map(|r| r.name()).collect();
    let expected = format!("contextree {} (rule sets: {})\n", env!("CARGO_PKG_VERSION"), names.join(", "));
    assert_eq!(String::from_utf8(contextree(&["--version"]).stdout).unwrap(), expected);
    assert!(expected.contains("pi@0.73, pi@1.6") && expected.contains("omp@18.3"), "{expected}");
    // `-V` is the bare release, as the man page's title has it.
    assert_eq!(String::from_utf8(contextree(&["-V"]).stdout).unwrap(), format!("contextree {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn an_unwritable_folder_is_an_error_naming_it() {
    let scratch = Scratch::new("assets-blocked");
    let blocker = scratch.write("file", "not a folder");
    let out = Command::new(env!("CARGO_BIN_EXE_contextree")).args(["generate-assets", blocker.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(blocker.to_str().unwrap()));
}
