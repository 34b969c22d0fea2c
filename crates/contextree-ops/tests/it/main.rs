//! The integration tests of contextree-ops, one binary: every file is a module.

mod edit_undo_oracle;
mod hook_cancel;
