//! The tree table on the wire: one compact binary buffer instead of a JSON object per row.
//!
//! 200,000 rows as JSON objects are tens of MB to build, send and parse; here they are about
//! 9 bytes a row plus the ids (`ui/src/tree/table.js` decodes it; keep the two in step). The
//! web view receives a custom-protocol answer in small pieces, so every byte saved is time
//! saved: what the UI can derive is not sent (a row's indent; the parent of a row that
//! continues the row before it), numbers are variable-length, and a leaf change on the same
//! reading of the file sends only the leaf's columns, or only the rows they change. Little-endian:
//!
//! ```text
//! header   u32 × 12  MAGIC, VERSION, what (WHOLE: the whole table, LEAF_ONLY: the leaf's
//!                    columns, CHANGES: the rows whose leaf columns changed), rows n, leaf row
//!                    (NO_ROW: none), reading, listed parents m (CHANGES: changed rows m),
//!                    varint bytes, id bytes, meta bytes, µs spent before encoding (context,
//!                    states; in a whole table also, alongside, the layout and the columns
//!                    that do not depend on the leaf), µs encoding (the rest)
//! — CHANGES: the leaf's columns of the m rows that differ from those of the leaf meta.from —
//! u32 × m  rows      ascending
//! u8 × m   state     as below
//! u8 × m   flags     bits 0 and 2, as below
//! meta     UTF-8 JSON { leafId, from, states }
//! — WHOLE and LEAF_ONLY —
//! u8 × n   state     index into meta.states (the same list in every answer: EntryState::ALL)
//! u8 × n   flags     bit 0 the leaf, bit 2 on the path; in a whole table also bit 1 childless,
//!                    bits 3-4 connector (0 none, 1 tee, 2 end), bit 5 the parent is listed
//! meta     UTF-8 JSON { leafId, states: [name] } and in a whole table also
//!                    kinds: [[entryType, kind]], labels: [[row, label]]
//! — the rest only in a whole table —
//!          zero padding to 4 bytes
//! u32 × m  parents   the parent row (NO_ROW for a root) of each row with bit 5, in row order;
//!                    any other row's parent is the row before it (a chain continues)
//! varints            per row, unsigned LEB128: tokens (the dialect's estimate, saturated at
//!                    u32::MAX), the line minus the previous row's line (zigzag; 1-based lines),
//!                    the id's length in UTF-16 units, the kind (index into meta.kinds)
//! ids      UTF-8     every id, concatenated
//! ```
//!
//! A row's indent is its parent's plus one when it has a connector (0 for a root without one),
//! as `view::tree_layout` lays it out. `reading` names the reading of the file the table was
//! made from (`OpenSession::reading`): the UI sends it back with the next leaf, and the leaf
//! of the table it holds; while the reading is still the open one it gets the leaf's columns
//! alone, or only the rows they change when those are few (a leaf near the old one's path).
//! Strings that repeat (states, kinds) are sent once; labels are few, so they go as pairs. Guides are not sent: the UI derives
//! them from the parents and connectors of the rows on screen.

use contextree_core::context::EntryState;
use contextree_core::js::utf16_len;
use contextree_core::session::{NodeId, Session};
use contextree_core::view::{Connector, TreeLayout, NO_ROW};
use serde_json::json;

/// `CTR2` read as a little-endian u32.
pub const MAGIC: u32 = u32::from_le_bytes(*b"CTR2");
/// Bumped with any change of the layout above.
pub const VERSION: u32 = 3;
/// Words of the header.
pub const HEADER_WORDS: usize = 12;
/// The header's `what`: the whole table, or only the leaf's columns.
pub const WHOLE: u32 = 1;
pub const LEAF_ONLY: u32 = 0;
/// The header's `what`: only the rows whose leaf columns changed.
pub const CHANGES: u32 = 2;

/// Flag bits of the `flags` column.
pub const IS_LEAF: u8 = 1;
pub const CHILDLESS: u8 = 2;
pub const ON_PATH: u8 = 4;
pub const CONNECTOR_SHIFT: u8 = 3;
pub const PARENT_LISTED: u8 = 32;

/// The leaf's side of a table: the state of every entry (file order) and the leaf.
#[derive(Debug, Clone, Copy)]
pub struct LeafColumns<'a> {
    pub states: &'a [EntryState],
    pub leaf: Option<NodeId>,
}

/// What the header says besides the sizes.
#[derive(Debug, Clone, Copy)]
pub struct Stamp {
    /// The reading of the file the rows come from (`OpenSession::reading`).
    pub reading: u32,
    /// Microseconds spent computing what is encoded (for scripts/bench-app.sh).
    pub prepare_us: u32,
}

/// The state codes (index into `meta.states`) of `rows`, with the leaf row and the flags only
/// the leaf decides (leaf, on the path).
struct Coded {
    state: Vec<u8>,
    leaf_flags: Vec<u8>,
    leaf_row: u32,
}

/// `meta.states`: a state's code is its place in `EntryState::ALL`, the same for every leaf,
/// so that a leaf change's rows merge into the table the UI holds.
fn state_names() -> Vec<&'static str> {
    EntryState::ALL.iter().map(|s| s.name()).collect()
}

/// The flags the leaf decides of an entry in state `st`.
fn leaf_bits(st: EntryState, is_leaf: bool) -> u8 {
    (u8::from(is_leaf) * IS_LEAF) | (u8::from(st != EntryState::OffPath) * ON_PATH)
}

fn code_states(nodes: &[NodeId], leaf: LeafColumns<'_>) -> Coded {
    let mut state = Vec::with_capacity(nodes.len());
    let mut leaf_flags = Vec::with_capacity(nodes.len());
    let mut leaf_row = NO_ROW;
    for (row, &node) in nodes.iter().enumerate() {
        let st = leaf.states[node.index()];
        state.push(st as u8);
        let is_leaf = Some(node) == leaf.leaf;
        if is_leaf {
            leaf_row = row as u32;
        }
        leaf_flags.push(leaf_bits(st, is_leaf));
    }
    Coded { state, leaf_flags, leaf_row }
}

fn header(what: u32, n: usize, leaf_row: u32, stamp: Stamp, sizes: [usize; 4]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_WORDS * 4);
    let [m, varints, ids, meta] = sizes.map(|s| s as u32);
    for v in [MAGIC, VERSION, what, n as u32, leaf_row, stamp.reading, m, varints, ids, meta, stamp.prepare_us, 0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Writes the encoding time into a finished buffer's header.
fn finish(mut out: Vec<u8>, started: std::time::Instant) -> Vec<u8> {
    let encode_us = u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
    out[44..48].copy_from_slice(&encode_us.to_le_bytes());
    out
}

fn leaf_id(s: &Session, leaf: Option<NodeId>) -> Option<String> {
    leaf.map(|l| s.entry(l).id.to_string())
}

/// Only the leaf's columns of the rows `nodes` (a layout's, in row order): what changes when
/// another leaf of the same reading is chosen.
pub fn encode_leaf(s: &Session, nodes: &[NodeId], leaf: LeafColumns<'_>, stamp: Stamp) -> Vec<u8> {
    let started = std::time::Instant::now();
    let coded = code_states(nodes, leaf);
    let meta = json!({ "leafId": leaf_id(s, leaf.leaf), "states": state_names() }).to_string();
    let n = nodes.len();
    let mut out = header(LEAF_ONLY, n, coded.leaf_row, stamp, [0, 0, 0, meta.len()]);
    out.reserve_exact(2 * n + meta.len());
    out.extend_from_slice(&coded.state);
    out.extend_from_slice(&coded.leaf_flags);
    out.extend_from_slice(meta.as_bytes());
    finish(out, started)
}

/// The leaf's columns of `changed` alone (ascending rows of `nodes`, a layout's): those that
/// differ from the ones of the leaf `from`, the table the UI holds. `row_of`: each entry's row.
pub fn encode_changes(
    s: &Session,
    nodes: &[NodeId],
    row_of: &[u32],
    changed: &[u32],
    leaf: LeafColumns<'_>,
    from: Option<NodeId>,
    stamp: Stamp,
) -> Vec<u8> {
    let started = std::time::Instant::now();
    let leaf_row = leaf.leaf.map_or(NO_ROW, |l| row_of[l.index()]);
    let meta = json!({ "leafId": leaf_id(s, leaf.leaf), "from": leaf_id(s, from), "states": state_names() }).to_string();
    let m = changed.len();
    let mut out = header(CHANGES, nodes.len(), leaf_row, stamp, [m, 0, 0, meta.len()]);
    out.reserve_exact(6 * m + meta.len());
    for &row in changed {
        out.extend_from_slice(&row.to_le_bytes());
    }
    let states = changed.iter().map(|&row| leaf.states[nodes[row as usize].index()]);
    out.extend(states.clone().map(|st| st as u8));
    out.extend(changed.iter().zip(states).map(|(&row, st)| leaf_bits(st, Some(nodes[row as usize]) == leaf.leaf)));
    out.extend_from_slice(meta.as_bytes());
    finish(out, started)
}

/// The whole table of `layout` for the leaf `leaf` (the tests' one-call form of
/// [`structure`] and [`encode_whole`], which `tree::table` runs on two threads).
#[cfg(test)]
pub fn encode(s: &Session, layout: &TreeLayout, leaf: LeafColumns<'_>, stamp: Stamp) -> Vec<u8> {
    encode_whole(s, &structure(s, layout), &layout.nodes, leaf, stamp)
}

/// What a whole table holds besides the leaf's columns: the same for every leaf, so it can be
/// encoded while the leaf's context is built (`tree::table`).
pub struct Structure<'s> {
    /// Per row: childless, connector and whether the parent is listed (the flags' tree bits).
    tree_flags: Vec<u8>,
    parents: Vec<u32>,
    varints: Vec<u8>,
    ids: String,
    kinds: Vec<(&'s str, &'s str)>,
    labels: Vec<(u32, &'s str)>,
}

/// The rows' columns of `layout` that do not depend on the leaf.
pub fn structure<'s>(s: &'s Session, layout: &TreeLayout) -> Structure<'s> {
    let n = layout.len();
    let mut tree_flags = Vec::with_capacity(n);
    let mut parents = Vec::new();
    for row in 0..n {
        let connector = match layout.connector[row] {
            Connector::None => 0,
            Connector::Tee => 1,
            Connector::End => 2,
        };
        // The row before's child continues its chain: only the others' parents are listed.
        let parent = layout.parent[row];
        let listed = parent != (row as u32).wrapping_sub(1);
        if listed {
            parents.push(parent);
        }
        tree_flags
            .push((u8::from(layout.childless[row]) * CHILDLESS) | (connector << CONNECTOR_SHIFT) | (u8::from(listed) * PARENT_LISTED));
    }
    // Kinds are few (entry type, role): a linear search beats hashing two strings per row.
    let mut kinds: Vec<(&str, &str)> = Vec::new();
    let mut varints = Vec::with_capacity(n * 5);
    let mut ids = String::new();
    let mut line_before = 0i64;
    for &node in &layout.nodes {
        let e = s.entry(node);
        let id: &str = &e.id;
        ids.push_str(id);
        let entry_type: &str = &e.entry_type;
        let k = (entry_type, e.message().map_or(entry_type, |m| m.role.as_str()));
        let code = kinds.iter().position(|&x| x == k).unwrap_or_else(|| {
            kinds.push(k);
            kinds.len() - 1
        });
        varint(&mut varints, u64::from(u32::try_from(s.entry_tokens(node)).unwrap_or(u32::MAX)));
        let line = i64::from(e.line);
        varint(&mut varints, zigzag(line - line_before));
        line_before = line;
        varint(&mut varints, utf16_len(id) as u64);
        varint(&mut varints, code as u64);
    }
    Structure { tree_flags, parents, varints, ids, kinds, labels: labels(s, &layout.nodes) }
}

/// The whole table: `structure` (of the layout whose rows are `nodes`) with the leaf's columns.
pub fn encode_whole(s: &Session, st: &Structure<'_>, nodes: &[NodeId], leaf: LeafColumns<'_>, stamp: Stamp) -> Vec<u8> {
    let started = std::time::Instant::now();
    let n = nodes.len();
    let Coded { state, leaf_flags: mut flags, leaf_row } = code_states(nodes, leaf);
    for (flag, tree) in flags.iter_mut().zip(&st.tree_flags) {
        *flag |= tree;
    }
    let meta = json!({
        "leafId": leaf_id(s, leaf.leaf),
        "states": state_names(),
        "kinds": st.kinds.iter().map(|&(t, k)| json!([t, k])).collect::<Vec<_>>(),
        "labels": st.labels.iter().map(|&(row, label)| json!([row, label])).collect::<Vec<_>>(),
    })
    .to_string();

    let (parents, varints, ids) = (&st.parents, &st.varints, &st.ids);
    let mut out = header(WHOLE, n, leaf_row, stamp, [parents.len(), varints.len(), ids.len(), meta.len()]);
    out.reserve_exact(2 * n + meta.len() + 3 + 4 * parents.len() + varints.len() + ids.len());
    out.extend_from_slice(&state);
    out.extend_from_slice(&flags);
    out.extend_from_slice(meta.as_bytes());
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
    for p in parents {
        out.extend_from_slice(&p.to_le_bytes());
    }
    out.extend_from_slice(varints);
    out.extend_from_slice(ids.as_bytes());
    finish(out, started)
}

/// `(row, label)` of every labelled row, by row. `Session::label` scans every label: look each
/// one up once instead, by node (the first label of a node wins, as there).
fn labels<'s>(s: &'s Session, nodes: &[NodeId]) -> Vec<(u32, &'s str)> {
    let mut row_of = vec![NO_ROW; s.entries().len()];
    for (row, &node) in nodes.iter().enumerate() {
        row_of[node.index()] = row as u32;
    }
    let mut labelled = vec![false; nodes.len()];
    let mut out = Vec::new();
    for (node, label) in s.labels() {
        let row = row_of.get(node.index()).copied().unwrap_or(NO_ROW);
        if row != NO_ROW && !std::mem::replace(&mut labelled[row as usize], true) {
            out.push((row, label.as_str()));
        }
    }
    out.sort_unstable_by_key(|&(row, _)| row);
    out
}

/// Unsigned LEB128: seven bits a byte, low first, the high bit set on all but the last.
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Small differences of either sign as small unsigned numbers: 0, -1, 1, -2, … → 0, 1, 2, 3, …
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// A reader of the format for tests (this module's and the IPC tests').
/// The format's reader, written from the layout comment rather than from `encode`: the tests
/// of the app and of the server read tables with it.
#[doc(hidden)]
pub mod read {
    use serde_json::Value;

    use super::{CHANGES, CONNECTOR_SHIFT, HEADER_WORDS, PARENT_LISTED, WHOLE};
    use contextree_core::view::NO_ROW;

    /// A buffer's contents, read from the layout comment (not from `encode`). A buffer of the
    /// leaf's columns only has `whole` false and empty `cols` and `ids`; one of the changed rows
    /// also has them in `changed`, and `state` and `flags` of those rows alone.
    pub struct Table {
        pub whole: bool,
        pub changed: Option<Vec<u32>>,
        pub n: usize,
        pub leaf_row: u32,
        pub reading: u32,
        /// The preparation time in microseconds, as `encode` was given it.
        pub prepare_us: u32,
        /// parent, indent, tokens, line, id length (UTF-16 units), kind: one value per row.
        pub cols: Vec<Vec<u32>>,
        pub state: Vec<u8>,
        pub flags: Vec<u8>,
        pub ids: Vec<String>,
        pub meta: Value,
    }

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    pub fn varint(b: &[u8], at: &mut usize) -> u64 {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let byte = b[*at];
            *at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return v;
            }
            shift += 7;
        }
    }

    pub fn decode(b: &[u8]) -> Table {
        assert_eq!(&b[0..4], b"CTR2");
        assert_eq!(u32_at(b, 4), 3);
        let word = |i: usize| u32_at(b, 4 * i);
        let whole = word(2) == WHOLE;
        let (m, varint_len, id_len, meta_len) = (word(6) as usize, word(7) as usize, word(8) as usize, word(9) as usize);
        let mut at = 4 * HEADER_WORDS;
        let changed = (word(2) == CHANGES).then(|| {
            let rows: Vec<u32> = (0..m).map(|k| u32_at(b, at + 4 * k)).collect();
            at += 4 * m;
            rows
        });
        // The columns hold a value per row, or per changed row.
        let n = changed.as_ref().map_or(word(3) as usize, Vec::len);
        let state = b[at..at + n].to_vec();
        let flags = b[at + n..at + 2 * n].to_vec();
        at += 2 * n;
        let meta = serde_json::from_slice(&b[at..at + meta_len]).unwrap();
        at += meta_len;
        let mut table = Table {
            whole,
            changed,
            n: word(3) as usize,
            leaf_row: word(4),
            reading: word(5),
            prepare_us: word(10),
            cols: Vec::new(),
            state,
            flags,
            ids: Vec::new(),
            meta,
        };
        if !whole {
            assert_eq!(b.len(), at);
            return table;
        }
        at = at.div_ceil(4) * 4;
        let listed: Vec<u32> = (0..m).map(|k| u32_at(b, at + 4 * k)).collect();
        at += 4 * m;
        let mut cols = (0..6).map(|_| Vec::with_capacity(n)).collect::<Vec<Vec<u32>>>();
        let (mut next_listed, mut line) = (listed.iter(), 0i64);
        let varints_end = at + varint_len;
        for row in 0..n {
            let f = table.flags[row];
            let parent = if f & PARENT_LISTED != 0 { *next_listed.next().unwrap() } else { (row as u32).wrapping_sub(1) };
            let base = if parent == NO_ROW { 0 } else { cols[1][parent as usize] };
            cols[0].push(parent);
            cols[1].push(base + u32::from((f >> CONNECTOR_SHIFT) & 3 != 0));
            cols[2].push(varint(b, &mut at) as u32);
            let z = varint(b, &mut at) as i64;
            line += (z >> 1) ^ -(z & 1);
            cols[3].push(line as u32);
            cols[4].push(varint(b, &mut at) as u32);
            cols[5].push(varint(b, &mut at) as u32);
        }
        assert!(next_listed.next().is_none(), "every listed parent is used");
        assert_eq!(at, varints_end);
        let text: Vec<u16> = std::str::from_utf8(&b[at..at + id_len]).unwrap().encode_utf16().collect();
        let mut start = 0;
        for &len in &cols[4] {
            table.ids.push(String::from_utf16(&text[start..start + len as usize]).unwrap());
            start += len as usize;
        }
        assert_eq!(start, text.len());
        assert_eq!(b.len(), at + id_len);
        table.cols = cols;
        table
    }
}

#[cfg(test)]
mod tests {
    use super::read::{decode, Table};
    use super::*;
    use contextree_core::context::{build, entry_states, Leaf};
    use contextree_core::view::{tree_layout, tree_rows};
    use serde_json::Value;

    const STAMP: Stamp = Stamp { reading: 9, prepare_us: 7 };

    /// [`decode`], checking the stamp every test encodes with.
    fn decode7(b: &[u8]) -> Table {
        let t = decode(b);
        assert_eq!((t.reading, t.prepare_us), (9, 7), "the stamp");
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
        r#"{"type":"message","id":"r2","parentId":null,"timestamp":"2025-01-01T00:00:06.000Z","message":{"role":"user","content":"again","timestamp":6}}"#,
        "\n",
    );

    /// Asserts that `t` (whole) holds every row of `tree_rows` for `leaf`.
    fn assert_rows(s: &Session, leaf: Leaf, t: &Table) {
        let ctx = build(s, leaf);
        let states = entry_states(s, &ctx);
        let rows = tree_rows(s, &states, ctx.leaf);
        assert!(t.whole);
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
            assert_eq!(t.cols[4][i] as usize, e.id.encode_utf16().count());
            let kind = &t.meta["kinds"][t.cols[5][i] as usize];
            assert_eq!(kind, &json!([&*e.entry_type, r.kind]));
            assert_eq!(t.meta["states"][t.state[i] as usize], r.state.name());
            let f = t.flags[i];
            assert_eq!(f & IS_LEAF != 0, r.is_leaf);
            assert_eq!(i as u32 == t.leaf_row, r.is_leaf);
            assert_eq!(f & CHILDLESS != 0, r.childless);
            assert_eq!(f & ON_PATH != 0, r.on_active_path);
            assert_eq!(["none", "tee", "end"][usize::from((f >> CONNECTOR_SHIFT) & 3)], r.connector.name());
        }
        assert_eq!(t.meta["labels"], json!([[1, "<b>try</b>"]]));
    }

    fn whole(s: &Session, leaf: Leaf) -> Vec<u8> {
        let ctx = build(s, leaf);
        encode(s, &tree_layout(s), LeafColumns { states: &entry_states(s, &ctx), leaf: ctx.leaf }, STAMP)
    }

    #[test]
    fn the_buffer_holds_every_row_of_tree_rows() {
        let s = Session::parse(SESSION.as_bytes(), None);
        for leaf in [Leaf::Last, Leaf::At(s.node("u2😀").unwrap())] {
            assert_rows(&s, leaf, &decode7(&whole(&s, leaf)));
        }
        // Two roots, a branch point: the rows that do not continue the row before list their
        // parents, the others do not.
        let t = decode7(&whole(&s, Leaf::Last));
        let listed: Vec<bool> = t.flags.iter().map(|f| f & PARENT_LISTED != 0).collect();
        let order: Vec<&str> = t.ids.iter().map(String::as_str).collect();
        assert_eq!(order, ["u1", "a1é", "u2😀", "a2", "l1", "r2"]);
        assert_eq!(listed, [false, false, false, true, false, true]);
    }

    #[test]
    fn the_leaf_columns_are_the_whole_tables_state_and_leaf_flags() {
        let s = Session::parse(SESSION.as_bytes(), None);
        let layout = tree_layout(&s);
        for leaf in [Leaf::Last, Leaf::At(s.node("u2😀").unwrap()), Leaf::At(s.node("r2").unwrap())] {
            let ctx = build(&s, leaf);
            let states = entry_states(&s, &ctx);
            let columns = LeafColumns { states: &states, leaf: ctx.leaf };
            let full = decode7(&encode(&s, &layout, columns, STAMP));
            let only = decode7(&encode_leaf(&s, &layout.nodes, columns, STAMP));
            assert!(!only.whole);
            assert_eq!((only.n, only.leaf_row), (full.n, full.leaf_row));
            assert_eq!(only.state, full.state);
            assert_eq!(only.meta["states"], full.meta["states"]);
            assert_eq!(only.meta["leafId"], full.meta["leafId"]);
            let leaf_bits: Vec<u8> = full.flags.iter().map(|f| f & (IS_LEAF | ON_PATH)).collect();
            assert_eq!(only.flags, leaf_bits);
        }
    }

    #[test]
    fn the_changed_rows_merged_into_the_table_held_are_the_new_leafs_table() {
        let s = Session::parse(SESSION.as_bytes(), None);
        let layout = tree_layout(&s);
        let mut row_of = vec![NO_ROW; s.entries().len()];
        for (row, n) in layout.nodes.iter().enumerate() {
            row_of[n.index()] = row as u32;
        }
        let leaves = [Leaf::Last, Leaf::At(s.node("u2😀").unwrap()), Leaf::At(s.node("r2").unwrap()), Leaf::Reset];
        for from in leaves {
            for to in leaves {
                let (a, b) = (build(&s, from), build(&s, to));
                let (sa, sb) = (entry_states(&s, &a), entry_states(&s, &b));
                let held = decode7(&encode(&s, &layout, LeafColumns { states: &sa, leaf: a.leaf }, STAMP));
                let want = decode7(&encode(&s, &layout, LeafColumns { states: &sb, leaf: b.leaf }, STAMP));
                // Every row listed, changed or not: the reader puts them back where they go.
                let all: Vec<u32> = (0..layout.len() as u32).collect();
                let t =
                    decode7(&encode_changes(&s, &layout.nodes, &row_of, &all, LeafColumns { states: &sb, leaf: b.leaf }, a.leaf, STAMP));
                assert_eq!(t.changed.as_deref(), Some(&all[..]));
                assert_eq!((t.n, t.leaf_row, t.whole), (want.n, want.leaf_row, false));
                assert_eq!(t.meta["leafId"], want.meta["leafId"]);
                assert_eq!(t.meta["from"], held.meta["leafId"]);
                assert_eq!(t.meta["states"], want.meta["states"]);
                let (mut state, mut flags) = (held.state.clone(), held.flags.clone());
                for (k, &row) in all.iter().enumerate() {
                    state[row as usize] = t.state[k];
                    flags[row as usize] = (flags[row as usize] & !(IS_LEAF | ON_PATH)) | t.flags[k];
                }
                assert_eq!((state, flags), (want.state, want.flags));
            }
        }
    }

    #[test]
    fn large_numbers_and_lines_going_back_survive() {
        let mut out = Vec::new();
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX)] {
            out.clear();
            varint(&mut out, v);
            let mut at = 0;
            assert_eq!(super::read::varint(&out, &mut at), v);
            assert_eq!(at, out.len());
        }
        assert_eq!([0, -1, 1, -2, 2].map(zigzag), [0, 1, 2, 3, 4]);
        assert_eq!(zigzag(-i64::from(u32::MAX)), 2 * u64::from(u32::MAX) - 1);
    }

    #[test]
    fn an_empty_session_is_a_header_and_meta() {
        let s = Session::parse(b"", None);
        let t = decode7(&whole(&s, Leaf::Last));
        assert_eq!((t.n, t.leaf_row), (0, NO_ROW));
        assert_eq!(t.meta["leafId"], Value::Null);
    }
}
