//! End-to-end test of the real app: Xvfb, tauri-driver, WebKitWebDriver and fantoccini.
//!
//! Run with `CONTEXTREE_E2E=1 xvfb-run -a -s '-screen 0 1280x800x24' cargo test -p contextree-e2e`
//! after `cargo build --workspace --all-targets` (`scripts/test.sh` does both).
//! Without `CONTEXTREE_E2E=1` it prints a `skipped` line and exits 0: it needs a display, the
//! built app binary, `tauri-driver` and `/usr/bin/WebKitWebDriver` (`scripts/install-deps.sh`).
//!
//! One driver serves every case; each case starts the app in its own WebDriver session:
//! - `main_screen.rs`: with no argument the app shows the bundled demo session: the virtualized tree holds exactly
//!   the entries of `demo/demo-session.jsonl` (scrolled through), the file's leaf is marked and
//!   its context has as many messages as `contextree context` counts (screenshot
//!   `main-screen.png` in `target/screenshots/`, or under `$CONTEXTREE_SCREENSHOTS`);
//! - with a path argument it opens that file instead; with `--leaf ID` too (as the agents'
//!   `/contextree` starts it) that entry is the leaf and its context the CLI's, and an id the
//!   file lacks is reported in the problems panel while the file's leaf is shown;
//! - a leaf on another branch, selected with a click and Enter, recomputes the tree and the
//!   context, which again matches the CLI; `g` goes back to the file's leaf (`another-leaf.png`);
//! - that leaf marked (`m`) and compared with the file's leaf (`=`) shows the two contexts side
//!   by side as `contextree compare --json` gives them: each side's tokens, the common ancestor,
//!   the shared prefix, where they diverge and the rows (`side-by-side.png`);
//! - `tests/fixtures/edge/xss.jsonl`: HTML in session text shows as text, and creates no element,
//!   and the branch exported as an HTML page holds it as text, with no script;
//! - the branch map beside the tree covers the rows the list shows; a click on it selects the
//!   row at that place (`branch-map.png`);
//! - `graph.rs`: a turn of another branch clicked in the branch graph is selected in the tree,
//!   a double-click makes it the leaf and the context follows as the CLI computes it; zoom
//!   and fit (`graph.png`);
//! - metadata rows are hidden by default; the budget bar shows the model's window and a typed
//!   window overrides it; ←/→ fold and unfold a subtree; `/` search narrows the tree, Enter
//!   selects a match, Esc restores the rows; the `user only` filter (`search.png`);
//! - live reload: a line appended to the open file becomes a row within 3 s and the selected
//!   row stays selected (`live-reload.png`);
//! - `c` previews a compaction: the PLAN panel's tokens before equal `contextree compact
//!   --dry-run`'s, the summarized rows get a dashed outline, Esc closes it
//!   (`compaction-preview.png`).
//! - `search.rs`: the Search screen (Ctrl+Shift+F) finds what `contextree search` finds and
//!   opens a hit with its entry selected (`search-all.png`);
//! - `library.rs`: the Library screen over fake pi / omp folders in a scratch HOME
//!   (`library.png`), Settings switching to the dark theme (`settings.png`, `dark.png`), and the
//!   problems panel of a file that is not a session.
//! - `writes.rs`: compaction against a fake provider (`compaction-running.png`,
//!   `compaction-diff.png`), prune (`prune-preview.png`), navigate with a summary
//!   (`navigate-summary.png`), Cancel, editing then undoing a compaction, and a prune refused
//!   while another process holds the file open for writing (`prune-held.png`), each on a copy
//!   of a fixture and checked against the file and the CLI.
//! - `context_panel.rs`: tokenizer counts equal to `contextree context --tokenizer`'s, "show
//!   all" of a cut message, Copy Markdown / Copy JSON of the whole context; a compaction
//!   selected in the tree flags the requests its summary may have lost, as `contextree drops`;
//!   the usage dialog (`$`) shows the totals and chart points `contextree usage` gives, and
//!   the growth chart `contextree weight` gives, a click on a point or a largest message
//!   selecting its entry in the tree (`growth.png`); the
//!   breakdown bar's click shows the messages `contextree context --breakdown` puts in a row, and
//!   the plan shows `compact --dry-run --cost`'s one-off cost.
//! - `pi16.rs`: a pi 1.6 session shows the rule set and why, the system prompt before the
//!   messages, a hidden row for the message a `context_edit` hides (`pi16-context.png`).
//! - `rule_sets.rs`: the rule-set switch offers every rule set; under each, the context panel
//!   lists what `contextree context --json` lists as not reproducible (`rule-sets.png`).
//! - `browser.rs`: `contextree serve` in headless Chromium (chromedriver): the library, a
//!   session opened from it, another leaf and its context as the CLI computes it
//!   (`serve-browser.png`); a write refused without `--allow-writes` and done with it.
//! - `agent_model.rs`: with only pi's own settings, models and key in a scratch HOME, Compact…
//!   offers pi's model first and summarizes with it; the key is in the request's authorization
//!   header and nowhere else (page, session file, scratch HOME, the app's output).
//!
//! The harness is this file (the case list), `app.rs` (start the app, wait, read, keys,
//! screenshots), `steps.rs`, `fake_home.rs` and `fake_provider.rs`.
//!
//! A plain `harness = false` binary rather than `#[test]`s: the cases share one driver on fixed
//! ports, and the skip must be visible without `#[ignore]`. It prints `N passed, M failed`.

mod driver;
// Starting the app under the driver, waiting, reading, keys, scrolling, screenshots.
mod app;
// Steps the cases share: the CLI's JSON, an agent's appended line, the plan panel.
mod steps;
// A scratch HOME for the app (and the CLI), with agent folders of its own.
mod fake_home;
// A model provider on 127.0.0.1 that streams a summary and records what it was asked.
mod fake_provider;

// The main screen: demo, named file, other leaf, HTML as text, map, search, live reload, plan.
mod main_screen;
// The context panel's tokenizer counts, "show all" and copy.
mod context_panel;
mod pi16;
// The rule-set switch, and the context's notes as the CLI lists them under every rule set.
mod rule_sets;
// The Library and Settings screens and the problems panel, under a scratch HOME.
mod library;
mod search;
// The write flows (compact, prune, navigate, cancel, edit, undo) on copies of fixtures.
mod writes;
// Compaction with the agent's own model and key, and no contextree set-up.
mod agent_model;
// The branch graph: click, double-click, zoom and fit.
mod graph;
// The same UI in headless Chromium, served by `contextree serve`.
mod browser;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{ensure, Context as _};

pub use app::*;
use driver::TauriDriver;

fn main() -> ExitCode {
    if std::env::var_os("CONTEXTREE_E2E").is_none_or(|v| v != "1") {
        println!("e2e: skipped: set CONTEXTREE_E2E=1 and run under xvfb-run (see scripts/test.sh)");
        return ExitCode::SUCCESS;
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    match runtime.block_on(run_all()) {
        Ok((n_passed, n_failed)) => {
            println!("e2e: {n_passed} passed, {n_failed} failed");
            if n_failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(err) => {
            eprintln!("e2e: setup failed: {err:#}");
            println!("e2e: 0 passed, 1 failed");
            ExitCode::FAILURE
        }
    }
}

/// What every case needs: the app binary, the demo's entry ids and a running driver.
pub struct Harness {
    pub root: PathBuf,
    pub app: PathBuf,
    pub scratch: PathBuf,
    pub expected: Vec<String>,
    pub driver: TauriDriver,
}

/// Runs every case against one driver; `Err` only when the harness cannot start.
async fn run_all() -> anyhow::Result<(usize, usize)> {
    ensure!(std::env::var_os("DISPLAY").is_some(), "no DISPLAY: run under `xvfb-run -a -s '-screen 0 1280x800x24'`");
    let root = repo_root();
    let demo = std::fs::read_to_string(root.join("demo/demo-session.jsonl")).context("cannot read demo/demo-session.jsonl")?;
    let expected = entry_ids(&demo)?;
    ensure!(!expected.is_empty(), "the demo session has no entries");
    let app = app_binary()?;
    let scratch = app.parent().unwrap().join("e2e");
    std::fs::create_dir_all(&scratch)?;
    let driver = TauriDriver::start(&scratch.join("tauri-driver.log"), &scratch)?;
    let harness = Harness { root, app, scratch, expected, driver };

    // CONTEXTREE_E2E_ONLY=TEXT runs the cases whose name holds TEXT, CONTEXTREE_E2E_REPEAT=N runs
    // them N times: for chasing a case that fails once in a while.
    let only = std::env::var("CONTEXTREE_E2E_ONLY").unwrap_or_default();
    let repeat: usize = std::env::var("CONTEXTREE_E2E_REPEAT").ok().and_then(|n| n.parse().ok()).unwrap_or(1);
    let (mut n_passed, mut n_failed) = (0, 0);
    macro_rules! cases {
        ($($module:ident :: $case:ident),* $(,)?) => {
            for _ in 0..repeat {
                $(
                    let name = stringify!($case);
                    if name.contains(only.as_str()) {
                        match $module::$case(&harness).await {
                            Ok(()) => {
                                n_passed += 1;
                                println!("e2e: {name} ... ok");
                            }
                            Err(err) => {
                                n_failed += 1;
                                println!("e2e: {name} ... FAILED");
                                eprintln!("e2e: {name}: {err:#}");
                            }
                        }
                    }
                )*
            }
        };
    }
    cases!(
        main_screen::demo_session_opens_without_arguments,
        main_screen::session_named_on_the_command_line_opens,
        main_screen::a_leaf_named_on_the_command_line_is_shown,
        main_screen::a_leaf_on_another_branch_recomputes_tree_and_context,
        main_screen::two_leaves_compare_as_contextree_compare_does,
        main_screen::html_in_session_text_stays_text,
        main_screen::the_branch_map_selects_the_row_it_is_clicked_at,
        graph::the_graph_selects_and_makes_leaves_like_the_tree,
        main_screen::search_and_filters_narrow_the_tree,
        main_screen::an_appended_entry_appears_live_and_the_selection_stays,
        main_screen::c_previews_a_compaction_as_the_cli_plans_it,
        context_panel::the_context_panel_counts_shows_all_and_copies,
        context_panel::a_compaction_flags_the_requests_its_summary_may_have_lost,
        context_panel::the_usage_dialog_shows_what_contextree_usage_sums,
        context_panel::the_usage_dialog_lists_omps_subagents,
        context_panel::the_growth_chart_jumps_to_the_turn_clicked,
        context_panel::the_breakdown_filters_the_messages_and_the_plan_shows_its_cost,
        pi16::a_pi16_session_shows_the_system_prompt_first_and_the_edits,
        rule_sets::every_rule_set_shows_the_clis_not_reproducible_notes,
        library::the_library_lists_sessions_by_project_and_opens_one,
        library::settings_switch_the_theme_to_dark_and_keep_the_providers,
        library::a_file_that_is_not_a_session_shows_its_problems,
        search::search_finds_a_word_and_opens_the_hit,
        writes::compaction_runs_against_a_fake_provider_and_shows_the_diff,
        writes::prune_previews_the_outputs_and_rewrites_with_a_backup,
        writes::a_prune_refused_for_a_held_file_says_so_and_writes_nothing,
        writes::navigate_with_a_summary_appends_a_branch_summary,
        writes::a_cancelled_or_outdated_summary_writes_nothing,
        writes::a_summary_is_edited_then_the_compaction_undone,
        browser::the_browser_shows_the_library_a_session_another_leaf_and_its_context,
        browser::a_write_in_the_browser_needs_allow_writes,
        agent_model::compaction_uses_the_agents_own_model_with_no_contextree_setup,
    );
    harness.driver.stop()?;
    ensure!(n_passed + n_failed > 0, "no case name holds CONTEXTREE_E2E_ONLY={only:?}");
    Ok((n_passed, n_failed))
}
