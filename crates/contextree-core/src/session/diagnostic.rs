//! Problems found while reading a session: never fatal, always located.

use std::fmt;

/// How bad a diagnostic is (`error`, `warning` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Data was dropped or reinterpreted by the dialect's rules.
    Error,
    /// Something unusual that the agents accept.
    Warning,
}

/// One problem, at a 1-based file line (0 when it concerns the whole file); in JSON (the
/// CLI's `info`, the app's sessions and entries) `{line, severity, message}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Diagnostic {
    /// 1-based physical line number in the file.
    pub line: u32,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong and what the dialect does about it.
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn error(line: u32, message: impl Into<String>) -> Self {
        Diagnostic { line, severity: Severity::Error, message: message.into() }
    }
    pub(crate) fn warning(line: u32, message: impl Into<String>) -> Self {
        Diagnostic { line, severity: Severity::Warning, message: message.into() }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "line {}: {sev}: {}", self.line, self.message)
    }
}
