//! The agents' config-value rules for a key (`!command`, `$NAME` templates, a value naming a
//! set variable), in one place so pi and omp values resolve alike where the agents agree.

use std::collections::BTreeMap;

use super::types::Secret;

/// A config value resolved: the key, a command not run, or a variable that is not set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Resolved {
    Key(Secret, Option<String>),
    Command,
    Missing(Vec<String>),
}

/// Resolves an agent's config value (module docs), `env` first from `extra` (auth.json's
/// `env`). The second field of `Key` names the variable the key came from, if it did.
pub(super) fn resolve_value(value: &str, extra: &BTreeMap<String, Secret>, env: &dyn Fn(&str) -> Option<String>) -> Resolved {
    let lookup =
        |name: &str| extra.get(name).map(|s| s.0.clone()).filter(|v| !v.is_empty()).or_else(|| env(name).filter(|v| !v.is_empty()));
    if value.starts_with('!') {
        return Resolved::Command;
    }
    if value.contains('$') {
        // pi 1.6's template: $NAME, ${NAME}, $$ → $, $! → !.
        let (mut out, mut missing, mut names) = (String::new(), Vec::new(), Vec::new());
        let b = value.as_bytes();
        let mut i = 0;
        let name_len = |s: &[u8]| {
            if s.first().is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
                s.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count()
            } else {
                0
            }
        };
        while i < b.len() {
            if b[i] != b'$' {
                let next = value[i..].find('$').map_or(b.len(), |n| i + n);
                out.push_str(&value[i..next]);
                i = next;
                continue;
            }
            match b.get(i + 1) {
                Some(b'$') | Some(b'!') => {
                    out.push(b[i + 1] as char);
                    i += 2;
                }
                Some(b'{') => match value[i + 2..].find('}') {
                    Some(end) if name_len(&b[i + 2..i + 2 + end]) == end && end > 0 => {
                        let name = &value[i + 2..i + 2 + end];
                        names.push(name.to_owned());
                        match lookup(name) {
                            Some(v) => out.push_str(&v),
                            None => missing.push(name.to_owned()),
                        }
                        i += end + 3;
                    }
                    Some(end) => {
                        out.push_str(&value[i..i + end + 3]);
                        i += end + 3;
                    }
                    None => {
                        out.push('$');
                        i += 1;
                    }
                },
                _ => match name_len(&b[i + 1..]) {
                    0 => {
                        out.push('$');
                        i += 1;
                    }
                    n => {
                        let name = &value[i + 1..i + 1 + n];
                        names.push(name.to_owned());
                        match lookup(name) {
                            Some(v) => out.push_str(&v),
                            None => missing.push(name.to_owned()),
                        }
                        i += n + 1;
                    }
                },
            }
        }
        if !missing.is_empty() {
            return Resolved::Missing(missing);
        }
        let from = (names.len() == 1).then(|| names.remove(0));
        return Resolved::Key(Secret(out), from);
    }
    match lookup(value) {
        Some(v) => Resolved::Key(Secret(v), Some(value.to_owned())),
        None => Resolved::Key(Secret(value.to_owned()), None),
    }
}
