//! The app's command line: `contextree-app [SESSION] [--leaf ID]`.
//!
//! Read by hand rather than with a parser crate: two arguments, and the app has no `--help`
//! to generate. The agents' `/contextree` command (`agents/`) starts the app this way, with the
//! session and leaf the agent is on.

use std::ffi::OsString;
use std::path::PathBuf;

/// What the app was started with.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Startup {
    /// The session file to open first; `None` opens the bundled demo.
    pub file: Option<PathBuf>,
    /// The entry to show as the leaf once that file is open; `None`: the file's own leaf.
    pub leaf: Option<String>,
}

/// The usage line printed with an argument error.
pub const USAGE: &str = "usage: contextree-app [SESSION] [--leaf ID]";

impl Startup {
    /// Reads the arguments after the program name. `--leaf ID` and `--leaf=ID` may come before
    /// or after the file; `--` ends the options (a file named `--leaf`). The file is made
    /// absolute here, while the working folder is the one it was named from.
    pub fn parse<I: IntoIterator<Item = OsString>>(args: I) -> Result<Self, String> {
        let mut res = Startup::default();
        let mut args = args.into_iter();
        let mut options = true;
        while let Some(arg) = args.next() {
            let text = arg.to_str();
            if options && text == Some("--") {
                options = false;
            } else if options && text == Some("--leaf") {
                let id = args.next().ok_or("--leaf needs an entry id")?;
                res.set_leaf(id.into_string().map_err(|_| "--leaf: the id is not UTF-8".to_owned())?)?;
            } else if let Some(id) = text.and_then(|t| t.strip_prefix("--leaf=")).filter(|_| options) {
                res.set_leaf(id.to_owned())?;
            } else if options && text.is_some_and(|t| t.starts_with("--")) {
                return Err(format!("unknown option `{}`", text.unwrap_or_default()));
            } else if res.file.is_some() {
                return Err("only one session file can be opened".to_owned());
            } else {
                res.file = Some(std::path::absolute(&arg).unwrap_or_else(|_| arg.into()));
            }
        }
        Ok(res)
    }

    fn set_leaf(&mut self, id: String) -> Result<(), String> {
        if id.is_empty() {
            return Err("--leaf needs an entry id".to_owned());
        }
        if self.leaf.replace(id).is_some() {
            return Err("--leaf is given twice".to_owned());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Startup, String> {
        Startup::parse(args.iter().map(OsString::from))
    }

    fn abs(path: &str) -> Option<PathBuf> {
        Some(std::path::absolute(path).unwrap())
    }

    #[test]
    fn no_arguments_open_the_demo_at_its_own_leaf() {
        assert_eq!(parse(&[]), Ok(Startup::default()));
    }

    #[test]
    fn the_leaf_comes_before_or_after_the_file() {
        let expected = Startup { file: abs("s.jsonl"), leaf: Some("ab12cd34".into()) };
        assert_eq!(parse(&["s.jsonl", "--leaf", "ab12cd34"]), Ok(expected.clone()));
        assert_eq!(parse(&["--leaf", "ab12cd34", "s.jsonl"]), Ok(expected.clone()));
        assert_eq!(parse(&["--leaf=ab12cd34", "s.jsonl"]), Ok(expected));
        // With no file the leaf is looked for in the demo.
        assert_eq!(parse(&["--leaf", "x"]), Ok(Startup { file: None, leaf: Some("x".into()) }));
    }

    #[test]
    fn a_relative_file_is_made_absolute_and_a_double_dash_ends_options() {
        let got = parse(&["--", "--leaf"]).unwrap();
        assert_eq!(got.file, abs("--leaf"));
        assert!(got.file.unwrap().is_absolute());
        assert_eq!(got.leaf, None);
    }

    #[test]
    fn bad_command_lines_say_what_is_wrong() {
        assert_eq!(parse(&["s.jsonl", "--leaf"]), Err("--leaf needs an entry id".into()));
        assert_eq!(parse(&["--leaf="]), Err("--leaf needs an entry id".into()));
        assert_eq!(parse(&["--leaf", "a", "--leaf", "b"]), Err("--leaf is given twice".into()));
        assert_eq!(parse(&["--lief", "a"]), Err("unknown option `--lief`".into()));
        assert_eq!(parse(&["a.jsonl", "b.jsonl"]), Err("only one session file can be opened".into()));
    }
}
