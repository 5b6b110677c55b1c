//! Located diagnostics and their rendering (being written).
