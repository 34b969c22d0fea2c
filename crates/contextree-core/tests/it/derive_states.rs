//! `context::derive_states` against the full build: for every fixture session under every rule
//! set, and for sessions of the fuzz generator (cycles, orphans, duplicate ids, compactions,
//! edits), the states derived for leaf B from those of leaf A are B's own, for every pair of a
//! sample of leaves; and deriving is not left to the fallback.

use contextree_core::context::{
    aligned_states, build, derive_states, path_states, path_to, states_from_path, EntryState, Leaf, StatesIndex,
};
use contextree_core::session::{NodeId, Session};
use contextree_core::RuleSet;

use crate::fuzz_check;

/// Leaves per session: every pair of them is checked.
const LEAVES: usize = 32;

/// Pairs checked: (derived, left to the full build).
#[derive(Default, Debug)]
struct Count {
    derived: usize,
    fell_back: usize,
}

/// Checks every ordered pair of a sample of `s`'s leaves (spread over the file, with its last
/// entry and those without children first).
fn check(s: &Session, what: &str, count: &mut Count) {
    let entries = s.entries().len();
    let index = StatesIndex::new(s);
    let mut leaves: Vec<NodeId> = s.tree().leaves().into_iter().take(LEAVES / 2).collect();
    let step = entries.div_ceil(LEAVES / 2).max(1);
    leaves.extend((0..entries).step_by(step).map(|i| NodeId(i as u32)));
    leaves.sort();
    leaves.dedup();
    let full: Vec<Vec<(NodeId, EntryState)>> = leaves
        .iter()
        .map(|&leaf| {
            let ctx = build(s, Leaf::At(leaf));
            let aligned = aligned_states(s, &ctx);
            assert_eq!(aligned.iter().map(|&(n, _)| n).collect::<Vec<_>>(), ctx.path, "{what}: aligned with the path");
            assert_eq!(states_from_path(entries, &aligned), states_from_path(entries, &path_states(s, &ctx)), "{what}: {leaf:?}");
            aligned
        })
        .collect();
    for (a, held) in full.iter().enumerate() {
        for (b, want) in full.iter().enumerate() {
            match derive_states(s, &index, held, leaves[b]) {
                Some(got) => {
                    assert_eq!(&got, want, "{what}: {:?} → {:?}", leaves[a], leaves[b]);
                    count.derived += 1;
                }
                None => count.fell_back += 1,
            }
        }
    }
}

#[test]
fn derived_states_are_the_full_builds_for_every_fixture_and_rule_set() {
    let files = contextree_testkit::fixture_sessions();
    assert!(files.len() > 100, "the fixtures: {}", files.len());
    let mut by_rules = Vec::new();
    for rules in RuleSet::ALL {
        let mut count = Count::default();
        for path in &files {
            let s = Session::parse(&std::fs::read(path).unwrap(), Some(rules));
            check(&s, &format!("{} under {rules:?}", path.display()), &mut count);
        }
        by_rules.push((rules, count));
    }
    for (rules, count) in &by_rules {
        eprintln!("{rules:?}: {count:?}");
        // Every rule set derives most leaf changes (omp ≥ 18 from a cut in the shared prefix).
        assert!(count.derived > 5_000 && count.derived > count.fell_back, "{rules:?}: {count:?}");
    }
}

/// 400 sessions of the fuzz generator from a fixed stream of bytes (xorshift from `seed`), so
/// every run checks the same ones.
fn generated_sessions(seed: u64) -> impl Iterator<Item = Vec<u8>> {
    let mut x = seed;
    (0..400).map(move |_| {
        let data: Vec<u8> = (0..2048)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        fuzz_check::session_file(&data).0
    })
}

#[test]
fn derived_states_are_the_full_builds_for_generated_sessions() {
    let mut count = Count::default();
    for (case, file) in generated_sessions(0x9e37_79b9_7f4a_7c15).enumerate() {
        for rules in RuleSet::ALL {
            check(&Session::parse(&file, Some(rules)), &format!("case {case} under {rules:?}"), &mut count);
        }
    }
    eprintln!("{count:?}");
    assert!(count.derived > 10_000, "{count:?}");
}

/// A generated session with omp 18's own entries mixed in, which the generator does not write:
/// every other `custom_message` becomes an `interrupted-thinking` note (the one that keeps an
/// aborted reply) and every fifth label or session name a `reset_boundary`.
fn with_omp18_entries(file: &[u8], case: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(file.len());
    for (k, line) in file.split(|&b| b == b'\n').enumerate() {
        let mut value: Option<serde_json::Value> = serde_json::from_slice(line).ok();
        let map = value.as_mut().and_then(serde_json::Value::as_object_mut);
        let changed = match map {
            Some(map) => match map.get("type").and_then(serde_json::Value::as_str) {
                Some("custom_message") if (case + k).is_multiple_of(2) => {
                    map.insert("customType".into(), "interrupted-thinking".into());
                    true
                }
                Some("label" | "session_info") if (case + k).is_multiple_of(5) => {
                    map.insert("type".into(), "reset_boundary".into());
                    true
                }
                _ => false,
            },
            None => false,
        };
        match value {
            Some(v) if changed => serde_json::to_writer(&mut out, &v).unwrap(),
            _ => out.extend_from_slice(line),
        }
        out.push(b'\n');
    }
    out
}

/// omp ≥ 18 on its own: the generated sessions (duplicate ids, results before their calls,
/// aborted replies, with notes and resets mixed in) derive under both of its rule sets, often.
#[test]
fn omp_18_derives_generated_sessions_leaf_changes() {
    for rules in [RuleSet::Omp18, RuleSet::Omp183] {
        let mut count = Count::default();
        for (case, file) in generated_sessions(0x5851_f42d_4c95_7f2d).enumerate() {
            let file = with_omp18_entries(&file, case);
            check(&Session::parse(&file, Some(rules)), &format!("case {case} under {rules:?}"), &mut count);
        }
        eprintln!("{rules:?}: {count:?}");
        assert!(count.derived > 2_000, "{rules:?}: {count:?}");
    }
}

/// omp ≥ 18: a call answered (or left unanswered) only past a user message, on one branch and
/// not on another. Its reply's state, before the user message both leaves share, depends on the
/// leaf: a reply of only a call with no result is dropped, and an aborted one takes its result
/// along. Deriving must cut before the reply, from either leaf.
#[test]
fn omp_18_derives_past_calls_answered_after_a_user_message() {
    let line = |id: &str, parent: &str, message: &str| {
        format!(r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-12-06T10:00:00.000Z","message":{message}}}"#)
    };
    let call = |id: &str, stop: &str| {
        format!(
            r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"{id}","name":"ls","arguments":{{}}}}],"provider":"anthropic","model":"m","stopReason":"{stop}","timestamp":1}}"#
        )
    };
    let result = |id: &str| {
        format!(
            r#"{{"role":"toolResult","toolCallId":"{id}","toolName":"ls","content":[{{"type":"text","text":"ok"}}],"isError":false,"timestamp":1}}"#
        )
    };
    let user = |text: &str| format!(r#"{{"role":"user","content":"{text}","timestamp":1}}"#);
    let text = r#"{"role":"assistant","content":[{"type":"text","text":"done"}],"provider":"anthropic","model":"m","stopReason":"stop","timestamp":1}"#;
    let file = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-12-06T10:00:00.000Z","cwd":"/w"}"#.to_owned(),
        format!(r#"{{"type":"message","id":"u1","parentId":null,"timestamp":"2026-12-06T10:00:00.000Z","message":{}}}"#, user("go")),
        line("a1", "u1", &call("c1", "toolUse")),
        line("a2", "a1", &call("c2", "aborted")),
        line("u2", "a2", &user("and?")),
        // The branch that answers both calls, and the one that answers none.
        line("r1", "u2", &result("c1")),
        line("r2", "r1", &result("c2")),
        line("b1", "u2", text),
    ]
    .join("\n");
    for rules in [RuleSet::Omp18, RuleSet::Omp183] {
        let s = Session::parse(file.as_bytes(), Some(rules));
        let mut count = Count::default();
        check(&s, &format!("{rules:?}"), &mut count);
        assert!(count.derived > 20, "{rules:?}: {count:?}");
    }
}

/// omp ≥ 18's path as its description gives it (omp-18.md §2.1): up the stored parent ids
/// until an id repeats.
fn walk_parent_ids(s: &Session, leaf: NodeId) -> Vec<NodeId> {
    let mut path = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut current = Some(leaf);
    while let Some(n) = current {
        let e = s.entry(n);
        if !seen.insert(e.id.to_string()) {
            break;
        }
        path.push(n);
        current = e.parent_id.as_deref().filter(|p| !p.is_empty()).and_then(|p| s.node(p));
    }
    path.reverse();
    path
}

#[test]
fn omp_18_paths_through_the_tree_are_its_parent_id_walks() {
    let files = contextree_testkit::fixture_sessions();
    let generated = generated_sessions(0x2545_f491_4f6c_dd1d);
    let (mut through_tree, mut walked) = (0, 0);
    for file in files.iter().map(|p| std::fs::read(p).unwrap()).chain(generated) {
        for rules in [RuleSet::Omp18, RuleSet::Omp183] {
            let s = Session::parse(&file, Some(rules));
            match s.parent_ids_follow_tree() {
                true => through_tree += 1,
                false => walked += 1,
            }
            for i in 0..s.entries().len() {
                let n = NodeId(i as u32);
                assert_eq!(path_to(&s, n), walk_parent_ids(&s, n), "{rules:?}: {n:?}");
            }
        }
    }
    assert!(through_tree > 100 && walked > 10, "sessions through the tree {through_tree}, walked {walked}");
}
