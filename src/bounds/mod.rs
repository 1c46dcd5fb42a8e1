//! Bounds (in progress)
