//! Everything that touches the machine: session files, installed agents, settings.
