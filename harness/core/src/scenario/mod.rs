//! Scenario files (being written).
