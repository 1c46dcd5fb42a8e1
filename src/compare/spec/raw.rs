//! The raw TOML shapes of a spec, before validation (unknown keys are rejected).

use super::Deserialize;
/// A number in a spec: the crate's one TOML number reader (exact decimals; docs/accounting.md#numbers).
pub(super) use crate::scalar::TomlNum as Num;
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSpec {
    pub(super) name: Option<String>,
    pub(super) description: Option<String>,
    pub(super) mechanism: RawTable,
    pub(super) pair: RawTable,
    pub(super) audit: RawAudit,
}

/// A `[mechanism]` or `[pair]` table: numbers by key (and the family's name, a string). Which
/// keys a family takes is registry data, checked in validation (`Family::pair_keys`,
/// `SpecForm::extra_keys`).
pub(super) type RawTable = BTreeMap<String, Num>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAudit {
    pub(super) samples_per_side: i64,
    pub(super) delta: Num,
    pub(super) confidence: Num,
    pub(super) seed: i64,
    pub(super) statistic: Option<String>,
    pub(super) selection: Option<String>,
    /// Test-only fault injection; the key exists only with the `fault-injection` feature.
    #[cfg(feature = "fault-injection")]
    pub(super) fault: Option<String>,
}
