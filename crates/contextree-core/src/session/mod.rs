//! Session files: lines → entries → tree.
