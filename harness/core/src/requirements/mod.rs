//! The requirement catalogue (being written).
