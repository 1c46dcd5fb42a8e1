//! Monte Carlo membership-inference audits: empirical lower bounds on ε.
//!
//! An audit samples a mechanism on two neighbouring inputs, picks a rejection region by a
//! threshold on a test statistic, and turns Clopper–Pearson bounds on the test's error rates into
//! a lower bound on ε that holds with a stated confidence (Jagielski, Ullman & Oprea 2020; Nasr
//! et al. 2021). [`stats`] holds the assumption-free statistics (binomial tails, Clopper–Pearson,
//! ε_lb, threshold selection with Bonferroni or held-out correction); [`gdp`] the Gaussian-DP
//! route, which is valid only under the assumption that the trade-off curve is Gaussian.

pub mod command;
pub mod controls;
pub mod engine;
pub mod gdp;
pub mod mechanisms;
pub mod samples;
pub mod stats;
