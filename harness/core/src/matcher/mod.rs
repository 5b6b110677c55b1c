//! The expected-side value language (being written).
