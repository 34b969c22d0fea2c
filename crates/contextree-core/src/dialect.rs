//! Which agent's rules apply to a session file (decisions.md D1).
//!
//! Every algorithm that differs between the agents takes a [`Dialect`].
//! A new agent (or a newer release with other rules) is one more variant whose
//! behaviour is spelled out in the `match` arms of the functions that differ.

use std::fmt;
use std::str::FromStr;

/// The agent whose behaviour is reproduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `@mariozechner/pi-coding-agent` 0.73.1.
    Pi,
    /// `@oh-my-pi/pi-coding-agent` 13.19.0.
    Omp,
}

impl Dialect {
    /// Every dialect, in a stable order.
    pub const ALL: [Dialect; 2] = [Dialect::Pi, Dialect::Omp];

    /// Short name used on the command line and in JSON (`pi`, `omp`).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Pi => "pi",
            Dialect::Omp => "omp",
        }
    }

    /// The reference release whose behaviour this dialect reproduces.
    pub fn reference(self) -> &'static str {
        match self {
            Dialect::Pi => "pi 0.73.1",
            Dialect::Omp => "oh-my-pi 13.19.0",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown dialect name.
#[derive(Debug, thiserror::Error)]
#[error("unknown dialect `{0}` (expected `pi` or `omp`)")]
pub struct UnknownDialect(pub String);

impl FromStr for Dialect {
    type Err = UnknownDialect;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "pi" => Ok(Dialect::Pi),
            "omp" | "omp13" | "oh-my-pi" => Ok(Dialect::Omp),
            other => Err(UnknownDialect(other.to_owned())),
        }
    }
}
