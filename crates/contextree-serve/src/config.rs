//! What `contextree serve` was asked, checked before anything listens (issue 24, item 2: safe
//! by default).

use std::net::SocketAddr;
use std::path::PathBuf;

/// The server's settings, as the command line gives them.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen; loopback unless told otherwise.
    pub bind: SocketAddr,
    /// The folders whose sessions may be read (none: the library's, as the app finds them).
    pub roots: Vec<PathBuf>,
    /// The token every request must carry; `None`: a random one is made.
    pub token: Option<String>,
    /// Whether the write flows (compact, prune, navigate, edit, undo) and settings may write.
    pub allow_writes: bool,
    /// The entry the UI selects when it opens `file`.
    pub leaf: Option<String>,
    /// The session the UI opens first (else the demo, with the library offered).
    pub file: Option<PathBuf>,
}

/// Why the server does not start.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A non-loopback address without a token chosen by the user.
    #[error(
        "refusing to listen on {0} without --token: anyone who can reach it could read your sessions; pass --token T \
         (and share it only with yourself), or bind 127.0.0.1 and use `ssh -L`"
    )]
    OpenWithoutToken(SocketAddr),
    /// A token too short to guess-proof.
    #[error("--token must be at least 16 characters")]
    ShortToken,
    /// A root that is not a folder.
    #[error("{0}: no such folder")]
    NoRoot(PathBuf),
    /// The startup file cannot be found.
    #[error("{0}: no such file")]
    NoFile(PathBuf),
    /// The OS's random generator failed.
    #[error("cannot make a random token: {0}")]
    Random(String),
}

impl Config {
    /// The token to require: the given one (checked), else 32 random hex digits. A
    /// non-loopback bind is refused without a given token.
    pub fn token(&self) -> Result<String, ConfigError> {
        if let Some(t) = &self.token {
            if t.chars().count() < 16 {
                return Err(ConfigError::ShortToken);
            }
            return Ok(t.clone());
        }
        if !self.bind.ip().is_loopback() {
            return Err(ConfigError::OpenWithoutToken(self.bind));
        }
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| ConfigError::Random(e.to_string()))?;
        Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The roots and the startup file exist.
    pub fn check_paths(&self) -> Result<(), ConfigError> {
        if let Some(missing) = self.roots.iter().find(|r| !r.is_dir()) {
            return Err(ConfigError::NoRoot(missing.clone()));
        }
        match &self.file {
            Some(f) if !f.is_file() => Err(ConfigError::NoFile(f.clone())),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(bind: &str, token: Option<&str>) -> Config {
        Config { bind: bind.parse().unwrap(), roots: vec![], token: token.map(Into::into), allow_writes: false, leaf: None, file: None }
    }

    #[test]
    fn loopback_gets_a_random_token_and_anything_else_needs_one() {
        let a = config("127.0.0.1:0", None).token().unwrap();
        let b = config("[::1]:0", None).token().unwrap();
        assert_eq!(a.len(), 32);
        assert_ne!(a, b, "each start makes its own");
        let err = config("0.0.0.0:7777", None).token().unwrap_err();
        assert!(err.to_string().contains("without --token"), "{err}");
        assert!(config("192.168.1.5:7777", None).token().is_err());
        assert_eq!(config("0.0.0.0:7777", Some("a-long-enough-token")).token().unwrap(), "a-long-enough-token");
        assert!(matches!(config("127.0.0.1:0", Some("short")).token(), Err(ConfigError::ShortToken)));
    }
}
