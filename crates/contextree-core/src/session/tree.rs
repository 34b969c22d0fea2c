//! The entry tree: `parentId` links, resolved the way the agents resolve them.
//!
//! A [`SessionTree`] keeps, per entry `i` (file order, header excluded), its
//! parent link, its first child and its next sibling in display order: 12
//! bytes an entry (a graph with node and edge records cost about 40). Nothing
//! here recurses, so a path of millions of entries cannot overflow the stack.

/// An entry's position in file order (0-based, header excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The index into the session's entry list.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// No entry (first child, next sibling).
const NONE: u32 = u32::MAX;

/// How an entry's parent link was resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// `parentId` found.
    Parent(NodeId),
    /// `parentId` is null.
    Root,
    /// `parentId` names no entry: shown as a root.
    Orphan,
    /// `parentId` is the entry itself: shown as a root.
    SelfParent,
    /// Following parents from here comes back here: the link is cut and the
    /// entry shown as a root.
    Cycle(NodeId),
}

/// The tree of a session's entries.
#[derive(Debug, Clone, Default)]
pub struct SessionTree {
    /// Per entry: its first child in display order, or `NONE`.
    first_kid: Vec<u32>,
    /// Per entry: the next child of its parent in display order, or `NONE`.
    next_sibling: Vec<u32>,
    links: Vec<Link>,
    roots: Vec<NodeId>,
}

impl SessionTree {
    /// Builds the tree from resolved parent links (one per entry, file order)
    /// and each entry's timestamp, which orders siblings (oldest first, ties and
    /// unparseable timestamps in file order, as the agents' `getTree`).
    pub fn build(mut links: Vec<Link>, timestamps: &[Option<f64>]) -> SessionTree {
        let n = links.len();
        break_cycles(&mut links);
        // Children grouped by parent without a vector per node: most entries
        // have exactly one child. `first_kid[p]` starts a family; families with
        // more members are collected separately and sorted.
        let mut first_kid = vec![NONE; n];
        let mut families: Vec<(u32, Vec<NodeId>)> = Vec::new();
        let mut family_of = std::collections::HashMap::new();
        let mut roots = Vec::new();
        for (i, link) in links.iter().enumerate() {
            let kid = NodeId(i as u32);
            match link {
                Link::Parent(p) if first_kid[p.index()] == NONE => first_kid[p.index()] = kid.0,
                Link::Parent(p) => {
                    let f = *family_of.entry(p.0).or_insert_with(|| {
                        families.push((p.0, vec![NodeId(first_kid[p.index()])]));
                        families.len() - 1
                    });
                    families[f].1.push(kid);
                }
                _ => roots.push(kid),
            }
        }
        let mut next_sibling = vec![NONE; n];
        for (parent, kids) in &mut families {
            sort_siblings(kids, timestamps);
            first_kid[*parent as usize] = kids[0].0;
            for pair in kids.windows(2) {
                next_sibling[pair[0].index()] = pair[1].0;
            }
        }
        drop(family_of);
        sort_siblings(&mut roots, timestamps);
        SessionTree { first_kid, next_sibling, links, roots }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether the tree has no entries.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// How the entry's parent link was resolved.
    pub fn link(&self, node: NodeId) -> Link {
        self.links[node.index()]
    }

    /// The parent in the tree, if any.
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        match self.links[node.index()] {
            Link::Parent(p) => Some(p),
            _ => None,
        }
    }

    /// Children in display order.
    pub fn children(&self, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let first = self.first_kid[node.index()];
        std::iter::successors((first != NONE).then_some(NodeId(first)), |k| {
            let next = self.next_sibling[k.index()];
            (next != NONE).then_some(NodeId(next))
        })
    }

    /// Roots in display order.
    pub fn roots(&self) -> &[NodeId] {
        &self.roots
    }

    /// Entries without children, in file order.
    pub fn leaves(&self) -> Vec<NodeId> {
        (0..self.len() as u32).map(NodeId).filter(|&n| self.children(n).next().is_none()).collect()
    }

    /// The last entry in file order: the leaf the agents open a file on.
    pub fn last(&self) -> Option<NodeId> {
        self.len().checked_sub(1).map(|i| NodeId(i as u32))
    }

    /// The path from a root down to `node` (the agents' "branch").
    pub fn path_to(&self, node: NodeId) -> Vec<NodeId> {
        let mut res = vec![node];
        let mut cur = node;
        while let Some(p) = self.parent(cur) {
            res.push(p);
            cur = p;
        }
        res.reverse();
        res
    }

    /// The deepest entry on both paths, if they share one.
    pub fn common_ancestor(&self, a: NodeId, b: NodeId) -> Option<NodeId> {
        let on_a: std::collections::HashSet<NodeId> = self.path_to(a).into_iter().collect();
        let mut cur = Some(b);
        while let Some(n) = cur {
            if on_a.contains(&n) {
                return Some(n);
            }
            cur = self.parent(n);
        }
        None
    }

    /// Depth-first pre-order over the whole tree: `(node, depth)`.
    pub fn preorder(&self) -> Vec<(NodeId, u32)> {
        let mut res = Vec::with_capacity(self.len());
        let mut stack: Vec<(NodeId, u32)> = self.roots.iter().rev().map(|&r| (r, 0)).collect();
        while let Some((node, depth)) = stack.pop() {
            res.push((node, depth));
            let kids: Vec<NodeId> = self.children(node).collect();
            stack.extend(kids.into_iter().rev().map(|k| (k, depth + 1)));
        }
        res
    }
}

/// Cuts every parent link that closes a cycle, so each entry reaches a root.
fn break_cycles(links: &mut [Link]) {
    const NEW: u8 = 0;
    const ON_WALK: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; links.len()];
    let mut walk = Vec::new();
    for start in 0..links.len() {
        let mut cur = start;
        while state[cur] == NEW {
            state[cur] = ON_WALK;
            walk.push(cur);
            match links[cur] {
                Link::Parent(p) if state[p.index()] == ON_WALK => {
                    links[cur] = Link::Cycle(p);
                    break;
                }
                Link::Parent(p) => cur = p.index(),
                _ => break,
            }
        }
        for n in walk.drain(..) {
            state[n] = DONE;
        }
    }
}

fn sort_siblings(kids: &mut [NodeId], timestamps: &[Option<f64>]) {
    if kids.len() < 2 {
        return;
    }
    // An unparseable timestamp makes the agents' comparison inconsistent; keep
    // file order for such a family rather than invent one.
    if kids.iter().any(|k| timestamps.get(k.index()).copied().flatten().is_none()) {
        kids.sort_by_key(|k| k.0);
        return;
    }
    kids.sort_by(|a, b| {
        let ta = timestamps[a.index()].unwrap_or(0.0);
        let tb = timestamps[b.index()].unwrap_or(0.0);
        ta.total_cmp(&tb).then(a.0.cmp(&b.0))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(i: u32) -> NodeId {
        NodeId(i)
    }

    #[test]
    fn siblings_are_ordered_by_timestamp_then_file_order() {
        let links = vec![Link::Root, Link::Parent(n(0)), Link::Parent(n(0)), Link::Parent(n(0))];
        let ts = [Some(0.0), Some(30.0), Some(10.0), Some(10.0)];
        let tree = SessionTree::build(links, &ts);
        assert_eq!(tree.children(n(0)).collect::<Vec<_>>(), vec![n(2), n(3), n(1)]);
        assert_eq!(tree.leaves(), vec![n(1), n(2), n(3)]);
    }

    #[test]
    fn a_parent_cycle_is_cut_where_the_walk_closes_it() {
        // 0 → parent 1, 1 → parent 0: walking from 0 reaches 1 whose parent is on the walk.
        let links = vec![Link::Parent(n(1)), Link::Parent(n(0)), Link::Parent(n(0))];
        let tree = SessionTree::build(links, &[Some(0.0); 3]);
        assert_eq!(tree.link(n(1)), Link::Cycle(n(0)));
        assert_eq!(tree.roots(), &[n(1)]);
        assert_eq!(tree.path_to(n(2)), vec![n(1), n(0), n(2)]);
    }

    #[test]
    fn a_million_entry_chain_needs_no_recursion() {
        let count = 1_000_000u32;
        let links: Vec<Link> = (0..count).map(|i| if i == 0 { Link::Root } else { Link::Parent(n(i - 1)) }).collect();
        let tree = SessionTree::build(links, &vec![Some(0.0); count as usize]);
        assert_eq!(tree.path_to(n(count - 1)).len(), count as usize);
        assert_eq!(tree.preorder().len(), count as usize);
        assert_eq!(tree.common_ancestor(n(count - 1), n(10)), Some(n(10)));
    }
}
