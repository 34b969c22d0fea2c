//! The backend's part of a leaf change in the app: `tree::table` asked as the UI asks it after
//! a double click (the reading and the held leaf sent back), between the rows just above the
//! file's leaf, as `scripts/bench-app.sh` clicks them after the open.
//!
//!     cargo run --release -p contextree-face --example leaf_change -- SESSION.jsonl [CHANGES [RULES]]
//!
//! RULES (`omp@18`, …) reads the file under that rule set instead of the one it shows.
//!
//! Prints the wall time per change (min / median / max) and the thread's CPU time per change
//! (`/proc/thread-self/schedstat`, in nanoseconds, so a loaded machine's waiting does not
//! count; a change runs on the calling thread).

use std::time::Instant;

use contextree_core::prompts::PromptPack;
use contextree_core::{RuleRequest, RuleSet};
use contextree_face::state::OpenSession;
use contextree_face::tree;
use contextree_host::HostEnv;

/// Rows above the file leaf's row the changes go through.
const ROWS: usize = 10;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = std::path::PathBuf::from(args.next().expect("usage: leaf_change SESSION.jsonl [CHANGES [RULES]]"));
    let changes: usize = args.next().map_or(40, |n| n.parse().expect("CHANGES: a number"));
    let rules: Option<RuleSet> = args.next().map(|r| r.parse().expect("RULES: a rule set"));
    let home = std::env::temp_dir().join("contextree-leaf-change-home");
    std::fs::create_dir_all(&home).expect("a home folder");
    let loaded = contextree_host::load_session(&HostEnv::isolated(&home), &path, rules.map(RuleRequest::Exact)).expect("the session loads");
    let pack = PromptPack::own(loaded.session.dialect());
    let open = OpenSession::new(loaded, pack, None, None);
    let s = &open.loaded.session;
    tree::table(&open, None, None, None).expect("the first table");
    let rows = open.tree.rows.get().expect("the rows, after the first table");
    let file_leaf = s.leaf().expect("a session with entries");
    let at = rows.iter().position(|&n| n == file_leaf).expect("the leaf's row");
    let ids: Vec<String> = rows[at.saturating_sub(ROWS)..=at].iter().map(|&n| s.entry(n).id.to_string()).collect();
    println!(
        "{}: {} entries, rules {:?}, leaf path {} entries",
        path.display(),
        s.entries().len(),
        s.rules(),
        s.tree().path_to(file_leaf).len()
    );

    let mut held = s.entry(file_leaf).id.to_string();
    let mut times = Vec::with_capacity(changes);
    let cpu_before = cpu_ns();
    for k in 0..changes {
        // Up the rows, then down again: each change from the leaf the one before sent.
        let turn = k % (2 * ids.len() - 2);
        let next = &ids[if turn < ids.len() { ids.len() - 1 - turn } else { turn + 2 - ids.len() }];
        let started = Instant::now();
        let table = tree::table(&open, Some(next), Some(open.reading), Some(&held)).expect("a leaf change");
        times.push(started.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(table);
        held = next.clone();
    }
    let cpu = (cpu_ns() - cpu_before) as f64 / 1e6 / changes as f64;
    times.sort_by(f64::total_cmp);
    println!(
        "{changes} leaf changes: wall min {:.2} / median {:.2} / max {:.2} ms; CPU {cpu:.3} ms a change",
        times[0],
        times[times.len() / 2],
        times[times.len() - 1]
    );
}

/// The calling thread's time on a CPU so far, in nanoseconds.
fn cpu_ns() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").expect("/proc/thread-self/schedstat");
    stat.split(' ').next().and_then(|ns| ns.parse().ok()).expect("a schedstat line")
}
