//! The raw TOML shapes of a spec, before validation (unknown keys are rejected).

use super::Deserialize;
/// A number in a spec: the crate's one TOML number reader (exact decimals; docs/accounting.md#numbers).
pub(super) use crate::scalar::TomlNum as Num;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSpec {
    pub(super) name: Option<String>,
    pub(super) description: Option<String>,
    pub(super) mechanism: RawMechanism,
    pub(super) pair: RawPair,
    pub(super) audit: RawAudit,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMechanism {
    pub(super) family: String,
    pub(super) sigma: Option<Num>,
    pub(super) a: Option<Num>,
    pub(super) b: Option<Num>,
    pub(super) d: Option<i64>,
    pub(super) gamma: Option<Num>,
    pub(super) sigma2: Option<Num>,
    pub(super) eta: Option<Num>,
    #[serde(rename = "R")]
    pub(super) r: Option<Num>,
    pub(super) alpha: Option<Num>,
    pub(super) scale: Option<Num>,
    pub(super) sigma1: Option<Num>,
}

impl RawMechanism {
    /// The `[mechanism]` fields by name, for the model families of [`crate::model`].
    /// Which `[mechanism]` keys are given, in the order their errors are reported.
    pub(super) fn present(&self) -> Vec<(&'static str, bool)> {
        let mut v: Vec<(&'static str, bool)> = self
            .fields()
            .iter()
            .map(|(k, n)| (*k, n.is_some()))
            .collect();
        v.insert(3, ("d", self.d.is_some()));
        v
    }

    pub(super) fn fields(&self) -> [(&'static str, Option<&Num>); 10] {
        [
            ("sigma", self.sigma.as_ref()),
            ("a", self.a.as_ref()),
            ("b", self.b.as_ref()),
            ("gamma", self.gamma.as_ref()),
            ("sigma2", self.sigma2.as_ref()),
            ("eta", self.eta.as_ref()),
            ("R", self.r.as_ref()),
            ("alpha", self.alpha.as_ref()),
            ("scale", self.scale.as_ref()),
            ("sigma1", self.sigma1.as_ref()),
        ]
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPair {
    pub(super) mu1: Option<Num>,
    pub(super) mu2: Option<Num>,
    pub(super) n1: Option<Num>,
    pub(super) n2: Option<Num>,
    pub(super) dist: Option<Num>,
}

impl RawPair {
    /// The `[pair]` fields by name.
    pub(super) fn fields(&self) -> [(&'static str, &Option<Num>); 5] {
        [
            ("mu1", &self.mu1),
            ("mu2", &self.mu2),
            ("n1", &self.n1),
            ("n2", &self.n2),
            ("dist", &self.dist),
        ]
    }
}

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
