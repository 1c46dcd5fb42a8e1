//! Divergences (in progress)
