//! Our versioned protocol model (being written).
