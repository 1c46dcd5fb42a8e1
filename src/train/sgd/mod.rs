//! DP-SGD (Abadi et al. 2016) and OSO-DPSGD (Galli, Palamidessi & Cucinotta, seed 004), trained
//! for real and audited end to end.
//!
//! * [`model`]: logistic regression, softmax regression and a one-hidden-layer MLP with
//!   hand-derived per-example gradients (tested against finite differences).
//! * [`optim`]: the training loop — Poisson (default), fixed-size or shuffled batches,
//!   per-example clipping, Gaussian noise σC, OSO's online clipping threshold and learning rate,
//!   and deliberate defects for the audit's positive controls.
//! * [`oso`]: Prop. 1's noise split and the accounting of OSO's two per-step releases.
//! * [`privacy`]: the certified ε a run is compared against.
//! * [`audit`]: the white-box (every update) and black-box (final model) membership-inference
//!   audit of the training loop with a Dirac gradient canary.
//! * `seed002`: seed 002's informal claims (σ calibration, replacement sensitivity, subsampling
//!   shortcut, advanced composition), each with the exact figure and a verdict.
//! * [`suite`]: the issue-9 suite of audits (tightness, controls, findings) behind
//!   `dpaudit train-audit`.
//! * `shard` (with the `cli` feature): the suite drawn in shards (`--shard K/N`) and merged.
//! * [`digits`]: the committed 8×8 handwritten-digits table (`data/digits.csv`).
//!
//! Derivations and choices: `docs/dpsgd.md`.

pub mod audit;
pub mod digits;
pub mod model;
pub mod optim;
pub mod oso;
pub mod privacy;
#[cfg(feature = "cli")]
pub(crate) mod seed002;
#[cfg(feature = "cli")]
pub(crate) mod shard;
pub mod suite;

#[cfg(test)]
mod tests;
