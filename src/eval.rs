//! Batch evaluation (in progress)
