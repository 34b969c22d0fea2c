//! The tree table on the wire: one binary buffer of columns instead of a JSON object per row.
//!
//! 200,000 rows as JSON objects are tens of MB to build, send and parse; as columns they are
//! about 30 bytes a row that the UI views as typed arrays without parsing
//! (`ui/src/tree/table.js` decodes it; keep the two in step). Little-endian, every column
//! 4-byte aligned:
//!
//! ```text
//! header   u32 × 8   MAGIC, VERSION, rows n, leaf row (NO_ROW: none), id bytes, meta bytes,
//!                    µs spent before encoding (context, states, layout), µs encoding
//! u32 × n  parent    parent row (NO_ROW for a root), always before the row
//! u32 × n  indent    indentation level of the marker
//! u32 × n  tokens    the dialect's estimate (saturated at u32::MAX)
//! u32 × n  line      1-based line in the file
//! u32 × n  id end    end of the row's id in the decoded id text, in UTF-16 units
//! u32 × n  kind      index into meta.kinds
//! u8 × n   state     index into meta.states
//! u8 × n   flags     bit 0 the leaf, bit 1 childless, bit 2 on the path, bits 3-4 connector
//!                    (0 none, 1 tee, 2 end); then zero padding to 4 bytes
//! ids      UTF-8     every id, concatenated; zero padding to 4 bytes
//! meta     UTF-8 JSON { leafId, states: [name], kinds: [[entryType, kind]], labels: [[row, label]] }
//! ```
//!
//! Strings that repeat (states, kinds) are sent once; labels are few, so they go as pairs.
//! Guides are not sent: the UI derives them from the parents and connectors of the rows on
//! screen.

use std::collections::HashMap;

use contextree_core::context::EntryState;
use contextree_core::session::{NodeId, Session};
use contextree_core::view::{Connector, TreeLayout, NO_ROW};
use serde_json::json;

/// `CTR1` read as a little-endian u32.
pub const MAGIC: u32 = u32::from_le_bytes(*b"CTR1");
/// Bumped with any change of the layout above.
pub const VERSION: u32 = 1;

/// Flag bits of the `flags` column.
pub const IS_LEAF: u8 = 1;
pub const CHILDLESS: u8 = 2;
pub const ON_PATH: u8 = 4;
pub const CONNECTOR_SHIFT: u8 = 3;

/// Encodes `layout` with the `states` (per entry, file order) of the leaf `leaf`; `prepare_us`
/// (the time it took to compute them) goes into the header with the time of the encoding, for
/// scripts/bench-app.sh.
pub fn encode(s: &Session, layout: &TreeLayout, states: &[EntryState], leaf: Option<NodeId>, prepare_us: u32) -> Vec<u8> {
    let started = std::time::Instant::now();
    let n = layout.len();
    let mut parent = Vec::with_capacity(n);
    let mut indent = Vec::with_capacity(n);
    let mut tokens = Vec::with_capacity(n);
    let mut line = Vec::with_capacity(n);
    let mut id_end = Vec::with_capacity(n);
    let mut kind = Vec::with_capacity(n);
    let mut state = Vec::with_capacity(n);
    let mut flags = Vec::with_capacity(n);
    let mut ids = String::new();
    let mut utf16 = 0u32;
    let mut kinds: Vec<(&str, &str)> = Vec::new();
    let mut kind_codes: HashMap<(&str, &str), u32> = HashMap::new();
    let mut state_names: Vec<&'static str> = Vec::new();
    let mut labels: Vec<(u32, &str)> = Vec::new();
    let mut leaf_row = NO_ROW;
    for (row, &node) in layout.nodes.iter().enumerate() {
        let e = s.entry(node);
        let id: &str = &e.id;
        ids.push_str(id);
        utf16 += id.encode_utf16().count() as u32;
        id_end.push(utf16);
        parent.push(layout.parent[row]);
        indent.push(layout.indent[row]);
        tokens.push(u32::try_from(s.entry_tokens(node)).unwrap_or(u32::MAX));
        line.push(e.line);
        let entry_type: &str = &e.entry_type;
        let k = (entry_type, e.message().map_or(entry_type, |m| m.role.as_str()));
        let code = *kind_codes.entry(k).or_insert_with(|| {
            kinds.push(k);
            kinds.len() as u32 - 1
        });
        kind.push(code);
        let st = states[node.index()];
        let name = st.name();
        let sc = match state_names.iter().position(|&x| x == name) {
            Some(i) => i,
            None => {
                state_names.push(name);
                state_names.len() - 1
            }
        };
        state.push(sc as u8);
        let is_leaf = Some(node) == leaf;
        if is_leaf {
            leaf_row = row as u32;
        }
        let connector = match layout.connector[row] {
            Connector::None => 0,
            Connector::Tee => 1,
            Connector::End => 2,
        };
        flags.push(
            (u8::from(is_leaf) * IS_LEAF)
                | (u8::from(layout.childless[row]) * CHILDLESS)
                | (u8::from(st != EntryState::OffPath) * ON_PATH)
                | (connector << CONNECTOR_SHIFT),
        );
    }
    // `Session::label` scans every label: look each one up once instead, by node (the first
    // label of a node wins, as there).
    let mut row_of = vec![NO_ROW; s.entries().len()];
    for (row, &node) in layout.nodes.iter().enumerate() {
        row_of[node.index()] = row as u32;
    }
    let mut labelled = vec![false; n];
    for (node, label) in s.labels() {
        let row = row_of.get(node.index()).copied().unwrap_or(NO_ROW);
        if row != NO_ROW && !std::mem::replace(&mut labelled[row as usize], true) {
            labels.push((row, label.as_str()));
        }
    }
    labels.sort_unstable_by_key(|&(row, _)| row);
    let labels: Vec<_> = labels.iter().map(|&(row, label)| json!([row, label])).collect();
    let meta = json!({
        "leafId": leaf.map(|l| s.entry(l).id.to_string()),
        "states": state_names,
        "kinds": kinds.iter().map(|&(t, k)| json!([t, k])).collect::<Vec<_>>(),
        "labels": labels,
    })
    .to_string();

    let mut out = Vec::with_capacity(32 + n * 26 + ids.len() + meta.len() + 8);
    for v in [MAGIC, VERSION, n as u32, leaf_row, ids.len() as u32, meta.len() as u32, prepare_us, 0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for col in [&parent, &indent, &tokens, &line, &id_end, &kind] {
        for v in col.iter() {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out.extend_from_slice(&state);
    out.extend_from_slice(&flags);
    pad4(&mut out);
    out.extend_from_slice(ids.as_bytes());
    pad4(&mut out);
    out.extend_from_slice(meta.as_bytes());
    let encode_us = u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
    out[28..32].copy_from_slice(&encode_us.to_le_bytes());
    out
}

fn pad4(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

/// A reader of the format for tests (this module's and the IPC tests').
#[cfg(test)]
pub(crate) mod read {
    use serde_json::Value;

    /// The buffer's contents, read from the layout comment (not from `encode`).
    pub(crate) struct Table {
        pub n: usize,
        pub leaf_row: u32,
        /// The preparation time in microseconds, as `encode` was given it.
        pub prepare_us: u32,
        pub cols: Vec<Vec<u32>>,
        pub state: Vec<u8>,
        pub flags: Vec<u8>,
        pub ids: Vec<String>,
        pub meta: Value,
    }

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    pub(crate) fn decode(b: &[u8]) -> Table {
        assert_eq!(&b[0..4], b"CTR1");
        assert_eq!(u32_at(b, 4), 1);
        let n = u32_at(b, 8) as usize;
        let (id_len, meta_len) = (u32_at(b, 16) as usize, u32_at(b, 20) as usize);
        let mut at = 32;
        let mut cols = Vec::new();
        for _ in 0..6 {
            cols.push((0..n).map(|i| u32_at(b, at + 4 * i)).collect::<Vec<_>>());
            at += 4 * n;
        }
        let state = b[at..at + n].to_vec();
        let flags = b[at + n..at + 2 * n].to_vec();
        at += (2 * n).div_ceil(4) * 4;
        let text: Vec<u16> = std::str::from_utf8(&b[at..at + id_len]).unwrap().encode_utf16().collect();
        let mut ids = Vec::new();
        let mut start = 0;
        for &end in &cols[4] {
            ids.push(String::from_utf16(&text[start..end as usize]).unwrap());
            start = end as usize;
        }
        at += id_len.div_ceil(4) * 4;
        assert_eq!(b.len(), at + meta_len);
        let meta = serde_json::from_slice(&b[at..]).unwrap();
        Table { n, leaf_row: u32_at(b, 12), prepare_us: u32_at(b, 24), cols, state, flags, ids, meta }
    }
}

#[cfg(test)]
mod tests {
    use super::read::{decode, Table};
    use super::*;
    use contextree_core::context::{build, entry_states, Leaf};
    use contextree_core::view::{tree_layout, tree_rows};
    use serde_json::Value;

    /// [`decode`], checking the preparation time every test encodes with.
    fn decode7(b: &[u8]) -> Table {
        let t = decode(b);
        assert_eq!(t.prepare_us, 7, "the preparation time");
        t
    }

    const SESSION: &str = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#,
        "\n",
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"q","timestamp":1}}"#,
        "\n",
        r#"{"type":"message","id":"a1é","parentId":"u1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"timestamp":2}}"#,
        "\n",
        r#"{"type":"message","id":"u2😀","parentId":"a1é","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"go on","timestamp":3}}"#,
        "\n",
        r#"{"type":"message","id":"a2","parentId":"u1","timestamp":"2025-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"y"}],"timestamp":4}}"#,
        "\n",
        r#"{"type":"label","id":"l1","parentId":"a2","timestamp":"2025-01-01T00:00:05.000Z","targetId":"a1é","label":"<b>try</b>"}"#,
        "\n",
    );

    #[test]
    fn the_buffer_holds_every_row_of_tree_rows() {
        let s = Session::parse(SESSION.as_bytes(), None);
        for leaf in [Leaf::Last, Leaf::At(s.node("u2😀").unwrap())] {
            let ctx = build(&s, leaf);
            let states = entry_states(&s, &ctx);
            let rows = tree_rows(&s, &states, ctx.leaf);
            let t = decode7(&encode(&s, &tree_layout(&s), &states, ctx.leaf, 7));
            assert_eq!(t.n, rows.len());
            assert_eq!(t.meta["leafId"], json!(ctx.leaf.map(|l| s.entry(l).id.to_string())));
            for (i, r) in rows.iter().enumerate() {
                let e = s.entry(r.node);
                assert_eq!(t.ids[i], &*e.id);
                let parent = s.tree().parent(r.node).map(|p| s.entry(p).id.to_string());
                let p = t.cols[0][i];
                assert_eq!(parent, (p != NO_ROW).then(|| t.ids[p as usize].clone()));
                assert_eq!(t.cols[1][i], r.indent);
                assert_eq!(u64::from(t.cols[2][i]), r.tokens);
                assert_eq!(t.cols[3][i], r.line);
                let kind = &t.meta["kinds"][t.cols[5][i] as usize];
                assert_eq!(kind, &json!([&*e.entry_type, r.kind]));
                assert_eq!(t.meta["states"][t.state[i] as usize], r.state.name());
                let f = t.flags[i];
                assert_eq!(f & IS_LEAF != 0, r.is_leaf);
                assert_eq!(i as u32 == t.leaf_row, r.is_leaf);
                assert_eq!(f & CHILDLESS != 0, r.childless);
                assert_eq!(f & ON_PATH != 0, r.on_active_path);
                assert_eq!(["none", "tee", "end"][usize::from(f >> CONNECTOR_SHIFT)], r.connector.name());
            }
            assert_eq!(t.meta["labels"], json!([[1, "<b>try</b>"]]));
        }
    }

    #[test]
    fn an_empty_session_is_a_header_and_meta() {
        let s = Session::parse(b"", None);
        let ctx = build(&s, Leaf::Last);
        let t = decode7(&encode(&s, &tree_layout(&s), &entry_states(&s, &ctx), ctx.leaf, 7));
        assert_eq!((t.n, t.leaf_row), (0, NO_ROW));
        assert_eq!(t.meta["leafId"], Value::Null);
    }
}
