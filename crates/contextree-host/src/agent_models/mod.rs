//! The model and key the agent itself compacts with, read from the agent's own files (read only),
//! so `contextree compact` works with no contextree set-up.
//!
//! - pi (0.73 and 1.6 read the same files): `settings.json` `defaultProvider` / `defaultModel`
//!   (global, then the project's `.pi/settings.json`, merged by [`crate::settings`]);
//!   `<agent dir>/models.json` (custom providers and overrides of built-in ones: `baseUrl`,
//!   `api`, `apiKey`, `headers`, `authHeader`, `models[]`; `//` comments and trailing commas
//!   allowed, as pi strips them); `<agent dir>/auth.json` (per provider
//!   `{"type": "api_key", "key", "env"?}` or `{"type": "oauth", …}`). Keys are looked up as pi
//!   1.6 does (pi-ai `auth/resolve`: a stored credential owns the provider; then the
//!   `models.json` `apiKey`; then the provider's environment variables).
//! - omp (18): `modelRoles` of its settings (`default` first, then the other roles in omp's
//!   order, as its compaction candidate loop tries them); `~/.omp/agent/models.yml` (else
//!   `models.yaml`, else the legacy `models.json`), the same provider shape. Keys: the
//!   `models.yml` `apiKey` (omp's config override, which wins), then the environment. omp
//!   keeps `/login` keys and subscriptions in `agent.db` (SQLite), which contextree does not
//!   read.
//!
//! Key values follow the agents' config-value rules: `!command` is a shell command (never run
//! here: such a model is unavailable, with the reason); pi 1.6 interpolates `$NAME` /
//! `${NAME}` (`$$` and `$!` escape); pi 0.73 and omp read a value naming a set environment
//! variable as that variable, anything else as the key itself. A bare name is read the 0.73 /
//! omp way for pi 1.6 too: a literal key never names a set variable.
//!
//! Keys are held in [`Secret`], whose `Debug` is redacted; nothing here prints or logs one.
//! The parsing is pure (text and an environment lookup in, values out); [`read_agent_models`]
//! reads the files of an agent folder given as a parameter.
//!
//! One file per job: `types.rs` (what the callers get, [`Secret`] among them), `builtins.rs`
//! (pi-ai's built-in providers), `pi.rs` and `omp.rs` (each agent's settings and files),
//! `models_file.rs` (the providers file both agents share the shape of), `key.rs` (the
//! config-value rules a key is read with), `resolve.rs` (one model, from the parsed files) and
//! `files.rs` (the only reads of the disk).

mod builtins;
mod files;
mod key;
mod models_file;
mod omp;
mod pi;
mod resolve;
mod types;

pub use builtins::{builtin, wire_of, Builtin, BUILTINS};
pub use files::read_agent_models;
pub(crate) use files::{models_file, shown};
pub use models_file::{AgentFileError, ModelsFile};
pub use omp::omp_agent_dir;
pub(crate) use omp::omp_model_refs;
pub(crate) use pi::pi_model_ref;
pub use pi::{parse_pi_auth_json, parse_pi_models_json, Credential};
pub use resolve::{resolve_model, Places};
pub use types::{AgentModel, AgentModels, ModelRef, Secret, Wire};

#[cfg(test)]
mod tests;
