//! The audit mechanisms of the bounded-support laws of HG (rectified and truncated Gaussian) and
//! of the stochastic sign.

use super::*;

// ---------------------------------------------------------------------------------------------
// Rectified and truncated

/// Parameters shared by the rectified and truncated mechanisms: locations μ1 (on x), μ2 (on x′),
/// scale σ and support [a, b].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounded {
    /// Location on x.
    pub mu1: f64,
    /// Location on x′.
    pub mu2: f64,
    /// Noise standard deviation.
    pub sigma: f64,
    /// Lower end of the support.
    pub a: f64,
    /// Upper end of the support.
    pub b: f64,
}

impl Bounded {
    /// Validated: finite locations, σ > 0, a < b finite.
    pub fn new(mu1: f64, mu2: f64, sigma: f64, a: f64, b: f64) -> Result<Self> {
        check_finite("mu1", mu1)?;
        check_finite("mu2", mu2)?;
        check_positive("sigma", sigma)?;
        check_interval(a, b)?;
        Ok(Bounded {
            mu1,
            mu2,
            sigma,
            a,
            b,
        })
    }

    /// The location on `side`.
    pub(crate) fn mu(&self, side: Side) -> f64 {
        match side {
            Side::P => self.mu1,
            Side::Q => self.mu2,
        }
    }

    /// Interior log-ratio slope k and offset c: log(p_{μ1}/p_{μ2})(y) = c + k·y with
    /// k = (μ1 − μ2)/σ², c = −k(μ1 + μ2)/2 (docs/formulas.md §7.2).
    fn interior_llr(&self) -> (f64, f64) {
        let k = (self.mu1 - self.mu2) / (self.sigma * self.sigma);
        (-k * (self.mu1 + self.mu2) / 2.0, k)
    }

    /// The pair of output laws built by `make` (e.g. [`Pair::rectified`]) from the parameters.
    fn pair(
        &self,
        make: fn(Scalar, Scalar, Scalar, Scalar, Scalar) -> Result<Pair>,
    ) -> Result<Pair> {
        make(
            self.mu1.into(),
            self.mu2.into(),
            self.sigma.into(),
            self.a.into(),
            self.b.into(),
        )
    }

    /// The samplers on x and x′, built by `make(μ, σ, a, b)`.
    fn samplers<T>(&self, make: fn(f64, f64, f64, f64) -> Result<T>) -> Result<[T; 2]> {
        Ok([
            make(self.mu1, self.sigma, self.a, self.b)?,
            make(self.mu2, self.sigma, self.a, self.b)?,
        ])
    }

    fn fmt_params(&self) -> String {
        format!(
            "mu1={}, mu2={}, sigma={}, a={}, b={}",
            self.mu1, self.mu2, self.sigma, self.a, self.b
        )
    }
}

/// `name` (`family(mu1=…, …)`) and `sample_statistic` (the side's sampler, each draw mapped to
/// the statistic by `stat_of`) of a rectified or truncated mechanism.
macro_rules! bounded_name_and_sampling {
    ($family:literal) => {
        fn name(&self) -> String {
            format!(concat!($family, "({})"), self.p.fmt_params())
        }

        fn sample_statistic(
            &self,
            side: Side,
            stat: Statistic,
            rng: &mut StreamRng,
            out: &mut [f64],
        ) {
            self.sampler[side_index(side)].sample_many(rng, out);
            for o in out.iter_mut() {
                *o = self.stat_of(stat, *o);
            }
        }
    };
}

/// The rectified Gaussian mechanism clip(μ_i + N(0, σ²), a, b) (HG Def. 3.1; docs/formulas.md §1).
///
/// White box: the LLR is c + k·y inside (a, b) and log(Φ(A1)/Φ(A2)), log(Φ(−B1)/Φ(−B2)) at the
/// atoms a and b (computed once, in log space). Black box: the output, with the lower atom
/// relabelled to a − (b − a) so that it has a bin of its own (the upper atom sits on the grid's
/// upper end and is alone in the overflow bin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RectifiedMechanism {
    p: Bounded,
    /// Samplers on x and x′ (dist module).
    sampler: [Rectified; 2],
    /// LLR at the atoms a and b.
    pub(super) atom_llr: [f64; 2],
}

impl RectifiedMechanism {
    /// Validated constructor (see [`Bounded::new`]).
    pub fn new(mu1: f64, mu2: f64, sigma: f64, a: f64, b: f64) -> Result<Self> {
        let p = Bounded::new(mu1, mu2, sigma, a, b)?;
        let z = |x: f64, m: f64| (x - m) / sigma;
        let atom_a = log_ndtr(z(a, mu1)) - log_ndtr(z(a, mu2));
        let atom_b = log_ndtr(-z(b, mu1)) - log_ndtr(-z(b, mu2));
        Ok(RectifiedMechanism {
            p,
            sampler: p.samplers(Rectified::new)?,
            atom_llr: [atom_a, atom_b],
        })
    }

    /// The parameters.
    pub fn params(&self) -> Bounded {
        self.p
    }

    /// The designed statistic of an output y ∈ [a, b].
    #[inline]
    pub(crate) fn stat_of(&self, stat: Statistic, y: f64) -> f64 {
        let p = &self.p;
        match stat {
            Statistic::Black => {
                if y <= p.a {
                    p.a - (p.b - p.a)
                } else {
                    y
                }
            }
            Statistic::White => {
                if y <= p.a {
                    self.atom_llr[0]
                } else if y >= p.b {
                    self.atom_llr[1]
                } else {
                    let (c, k) = p.interior_llr();
                    c + k * y
                }
            }
        }
    }
}

impl Mechanism for RectifiedMechanism {
    bounded_name_and_sampling!("rectified");

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        match stat {
            // Interior [a, b): the relabelled lower atom falls below, the upper atom at b in
            // the overflow bin.
            Statistic::Black => (self.p.a, self.p.b),
            // Interior LLR range; the atoms' LLRs are more extreme (the Mills-ratio ordering)
            // and fall in the under/overflow bins.
            Statistic::White => {
                let (c, k) = self.p.interior_llr();
                let (u, v) = (c + k * self.p.a, c + k * self.p.b);
                proper_range(u.min(v), u.max(v))
            }
        }
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        pair_eps(&self.p.pair(Pair::rectified)?, delta)
    }

    fn claim_source(&self) -> String {
        "exact eps(delta) of the rectified pair, both orders (docs/formulas.md §7.2)".into()
    }
}

/// The truncated Gaussian mechanism: N(μ_i, σ²) conditioned on [a, b] (HG Def. 3.2; docs/formulas.md §2).
///
/// White box: the LLR c + k·y + log(Z(μ2)/Z(μ1)) (docs/formulas.md §7.2), affine on [a, b]. Black box:
/// the output. Sampling: the exact sampler of [`crate::mechanisms::Truncated`] (fast at any location,
/// including far outside [a, b]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TruncatedMechanism {
    p: Bounded,
    /// Samplers on x and x′ (dist module).
    sampler: [Truncated; 2],
    /// log Z(μ2) − log Z(μ1).
    ln_z_ratio: f64,
}

impl TruncatedMechanism {
    /// Validated constructor (see [`Bounded::new`]; also errors where the dist module's
    /// sampler cannot represent Z(μ_i)).
    pub fn new(mu1: f64, mu2: f64, sigma: f64, a: f64, b: f64) -> Result<Self> {
        let p = Bounded::new(mu1, mu2, sigma, a, b)?;
        let sampler = p.samplers(Truncated::new)?;
        let ln_z_ratio = sampler[1].ln_normaliser() - sampler[0].ln_normaliser();
        if !ln_z_ratio.is_finite() {
            return Err(Error::invalid(
                "mu1, mu2",
                format!("{mu1}, {mu2}"),
                "locations whose normalisers Z(mu) are representable in log space",
            ));
        }
        Ok(TruncatedMechanism {
            p,
            sampler,
            ln_z_ratio,
        })
    }

    /// The parameters.
    pub fn params(&self) -> Bounded {
        self.p
    }

    /// The designed statistic of an output y.
    #[inline]
    pub(crate) fn stat_of(&self, stat: Statistic, y: f64) -> f64 {
        match stat {
            Statistic::Black => y,
            Statistic::White => {
                let (c, k) = self.p.interior_llr();
                c + k * y + self.ln_z_ratio
            }
        }
    }

    pub(crate) fn range(&self, stat: Statistic) -> (f64, f64) {
        let (u, v) = (self.stat_of(stat, self.p.a), self.stat_of(stat, self.p.b));
        proper_range(u.min(v), u.max(v))
    }

    pub(crate) fn claim(&self, delta: f64) -> Result<f64> {
        pair_eps(&self.p.pair(Pair::truncated)?, delta)
    }
}

impl Mechanism for TruncatedMechanism {
    bounded_name_and_sampling!("truncated");

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        self.range(stat)
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        self.claim(delta)
    }

    fn claim_source(&self) -> String {
        "exact eps(delta) of the truncated pair, both orders (docs/formulas.md §7.2)".into()
    }
}

// ---------------------------------------------------------------------------------------------
// Stochastic sign

/// The stochastic sign sign(μ_i + N(0, σ²)) ∈ {−1, +1} (docs/formulas.md §3).
///
/// White box: LLR log(Φ(±μ1/σ)/Φ(±μ2/σ)) at ±1. Black box: the output ±1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignMechanism {
    mu1: f64,
    mu2: f64,
    sigma: f64,
    /// Samplers on x and x′ (dist module; exact Bernoulli draws of ±1).
    sampler: [StochasticSign; 2],
    /// LLR at −1 and +1.
    llr: [f64; 2],
}

impl SignMechanism {
    /// Validated: finite locations, σ > 0.
    pub fn new(mu1: f64, mu2: f64, sigma: f64) -> Result<Self> {
        check_finite("mu1", mu1)?;
        check_finite("mu2", mu2)?;
        check_positive("sigma", sigma)?;
        let (x1, x2) = (mu1 / sigma, mu2 / sigma);
        Ok(SignMechanism {
            mu1,
            mu2,
            sigma,
            sampler: [
                StochasticSign::new(mu1, sigma)?,
                StochasticSign::new(mu2, sigma)?,
            ],
            llr: [log_ndtr(-x1) - log_ndtr(-x2), log_ndtr(x1) - log_ndtr(x2)],
        })
    }
}

impl Mechanism for SignMechanism {
    fn name(&self) -> String {
        format!(
            "stochastic_sign(mu1={}, mu2={}, sigma={})",
            self.mu1, self.mu2, self.sigma
        )
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.sampler[side_index(side)].sample_many(rng, out);
        for o in out.iter_mut() {
            let plus = *o > 0.0;
            *o = match (stat, plus) {
                (Statistic::Black, true) => 1.0,
                (Statistic::Black, false) => -1.0,
                (Statistic::White, p) => self.llr[usize::from(p)],
            };
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        match stat {
            Statistic::Black => (-1.0, 1.0),
            Statistic::White => {
                let (u, v) = (self.llr[0], self.llr[1]);
                proper_range(u.min(v), u.max(v))
            }
        }
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        pair_eps(
            &Pair::stochastic_sign(self.mu1.into(), self.mu2.into(), self.sigma.into())?,
            delta,
        )
    }

    fn claim_source(&self) -> String {
        "exact eps(delta) of the stochastic-sign pair, both orders (docs/formulas.md §7.2)".into()
    }
}
