//! Closed forms (in progress)
