//! omp's prefix-folded directory tree of paths (`pi-utils` `buildPathTree` /
//! `walkPathTree`): the `<files>` block of an omp 18 summary and the grouped
//! LSP diagnostics of omp 18's output notices are both drawn from it.
//!
//! A directory's files come first, then its subdirectories; a chain of
//! directories holding nothing but one subdirectory folds into one `a/b`
//! name; `scheme://` paths stay whole at the top.

/// One step of the walk: a directory (its folded name) or a file (its base
/// name and the key it was added with), at `depth` (0 for the top).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step<'a> {
    /// True for a directory, false for a file.
    pub is_dir: bool,
    /// Nesting level: 0 at the top, one more inside each directory step (a
    /// folded chain counts once).
    pub depth: usize,
    /// A directory's folded name (`a/b` for a chain) or a file's base name; a
    /// `scheme://` file keeps its whole path.
    pub name: String,
    /// The key the file was passed to [`walk`] with; empty for a directory.
    pub key: &'a str,
}

#[derive(Default)]
struct Node<'a> {
    files: Vec<(String, &'a str)>,
    dirs: Vec<(String, Node<'a>)>,
}

impl<'a> Node<'a> {
    fn add_file(&mut self, name: &str, key: &'a str) {
        if !self.files.iter().any(|(n, _)| n == name) {
            self.files.push((name.to_owned(), key));
        }
    }
}

/// The walk of the tree of `files` (each a path, `\` read as `/`, and the key
/// it is known by), in omp's order.
pub fn walk<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<Step<'a>> {
    let mut root = Node::default();
    for (raw, key) in files {
        let normalized = raw.replace('\\', "/");
        if url_like(&normalized) {
            root.add_file(&normalized, key);
            continue;
        }
        let is_dir = normalized.ends_with('/');
        let trimmed = normalized.strip_suffix('/').unwrap_or(&normalized);
        if trimmed.is_empty() {
            continue;
        }
        let segments: Vec<&str> = trimmed.split('/').collect();
        let dir_count = if is_dir { segments.len() } else { segments.len() - 1 };
        let mut node = &mut root;
        for seg in &segments[..dir_count] {
            let at = match node.dirs.iter().position(|(n, _)| n == seg) {
                Some(i) => i,
                None => {
                    node.dirs.push(((*seg).to_owned(), Node::default()));
                    node.dirs.len() - 1
                }
            };
            node = &mut node.dirs[at].1;
        }
        if !is_dir {
            node.add_file(segments[segments.len() - 1], key);
        }
    }
    let mut steps = Vec::new();
    walk_node(&root, 0, &mut steps);
    steps
}

fn walk_node<'a>(node: &Node<'a>, depth: usize, steps: &mut Vec<Step<'a>>) {
    for (name, key) in &node.files {
        steps.push(Step { is_dir: false, depth, name: name.clone(), key });
    }
    for (name, child) in &node.dirs {
        let mut parts = vec![name.as_str()];
        let mut dir = child;
        while dir.files.is_empty() && dir.dirs.len() == 1 {
            parts.push(&dir.dirs[0].0);
            dir = &dir.dirs[0].1;
        }
        steps.push(Step { is_dir: true, depth, name: parts.join("/"), key: "" });
        walk_node(dir, depth + 1, steps);
    }
}

/// `/^[a-z][a-z0-9+.-]*:\/\//i`.
pub fn url_like(p: &str) -> bool {
    let b = p.as_bytes();
    let n = b.iter().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')).count();
    b.first().is_some_and(u8::is_ascii_alphabetic) && b[n..].starts_with(b"://")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(paths: &[&str]) -> Vec<String> {
        walk(paths.iter().map(|p| (*p, *p)))
            .into_iter()
            .map(|s| format!("{}{}{}", "#".repeat(s.depth), s.name, if s.is_dir { "/" } else { "" }))
            .collect()
    }

    #[test]
    fn files_first_then_folded_directories() {
        assert_eq!(
            draw(&["src/a/x.ts", "README.md", "src/a/y.ts", "src/b/z.ts", "docs/deep/er/n.md", "http://h/p", "src\\a\\x.ts"]),
            ["README.md", "http://h/p", "src/", "#a/", "##x.ts", "##y.ts", "#b/", "##z.ts", "docs/deep/er/", "#n.md"]
        );
        assert!(url_like("skill://x") && url_like("A+b.c-d://") && !url_like("1a://x") && !url_like("src/a"));
    }
}
