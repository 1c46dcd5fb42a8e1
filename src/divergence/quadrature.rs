//! Quadrature routes (in progress)
