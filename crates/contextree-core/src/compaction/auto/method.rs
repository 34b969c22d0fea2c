//! omp 18's `methodOrder` walk (§5.2): omp 18 compacts with one of several
//! methods, some usable only on some models, while contextree always writes an
//! LLM summary; the report names the method the agent would pick so the
//! difference is visible.

use super::report::CheckInputs;
use crate::compaction::settings::{CompactionSettings, Method};

/// Whether a method is usable for the reason on the current model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usable {
    /// Usable.
    Yes,
    /// Not usable, and why.
    No(&'static str),
    /// Depends on a fact about the model the file does not hold.
    Unknown(&'static str),
}

/// omp 18's `isCompactionMethodUsable` walked over `methodOrder`.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodChoice {
    /// `threshold`, `overflow` or `incomplete`.
    pub reason: &'static str,
    /// The methods looked at, in order, up to the first surely usable one.
    pub steps: Vec<(Method, Usable)>,
    /// The first surely usable method (None: none is).
    pub method: Option<Method>,
}

impl MethodChoice {
    pub(super) fn walk(reason: &'static str, settings: &CompactionSettings, inputs: &CheckInputs, exclude_media: bool) -> MethodChoice {
        let mut steps = Vec::new();
        let mut method = None;
        for m in settings.method_order.methods() {
            let usable = match m {
                Method::Remote if settings.remote_endpoint => Usable::Yes,
                Method::Remote => match inputs.native_compaction {
                    Some(true) => Usable::Yes,
                    Some(false) => Usable::No("no remote endpoint and no provider-native compaction"),
                    None => Usable::Unknown("if the model supports provider-native compaction (OpenAI Responses compact, Anthropic Opus/Sonnet ≥ 4.6 compaction beta)"),
                },
                Method::Snapcompact if exclude_media => Usable::No("a payload rejection excludes media methods"),
                Method::Snapcompact => match inputs.accepts_images {
                    Some(true) => Usable::Yes,
                    Some(false) => Usable::No("the model does not accept images"),
                    None => Usable::Unknown("if the model accepts images"),
                },
                Method::Handoff if reason == "overflow" => Usable::No("not for an overflow"),
                Method::Handoff | Method::Shake | Method::Soft => Usable::Yes,
            };
            steps.push((m, usable));
            if usable == Usable::Yes {
                method = Some(m);
                break;
            }
        }
        MethodChoice { reason, steps, method }
    }

    /// Whether some method is usable, or may be (`hasUsableCompactionMethod`).
    pub(super) fn available(&self) -> bool {
        self.method.is_some() || self.steps.iter().any(|(_, u)| matches!(u, Usable::Unknown(_)))
    }

    /// One sentence: what omp 18 would run, and what contextree writes.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (m, u) in &self.steps {
            if let Usable::Unknown(cond) = u {
                parts.push(format!("{} {cond}", m.name()));
            }
        }
        let last = self.method.map_or_else(|| "no method".to_owned(), |m| m.name().to_owned());
        let pick = if parts.is_empty() { last } else { format!("{}, else {last}", parts.join(", else ")) };
        format!(
            "omp 18 would compact with {pick} (methodOrder; reason {}); contextree writes a `soft` summary (an LLM summary in place)",
            self.reason
        )
    }
}
