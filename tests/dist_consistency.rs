//! One generic consistency check, run over every one-dimensional law of `dpaudit::mechanisms`
//! (Gaussian, rectified incl. its atoms, truncated, stochastic sign), at central parameters and
//! far in the tails (μ = b + 40σ, a − 40σ, b + 1000σ).
//!
//! The check (statrs' `check_continuous_distribution` idea, extended to atoms):
//! 1. total mass: Σ atoms + ∫ density (double-exponential quadrature from the `quadrature` crate,
//!    piecewise) = 1;
//! 2. on every piece, the integrated density equals the cdf increment (taken on the tail side:
//!    cdf below the median, survival function above) minus the atoms inside;
//! 3. at every atom the cdf jumps by exp(ln_mass);
//! 4. `ln_pdf == ln(pdf)` where the direct-formula pdf is a normal double;
//! 5. the f64 routines agree with the `rug` routines at 200 bits: log-density and log-mass to
//!    1e-13 relative (of max(1, |value|)), cdf and sf to 1e-13·max(1, |ln value|) relative
//!    wherever the 200-bit value is a normal double;
//! 6. cdf + sf = 1, and the limits outside the support.
//!
//! The quadrature and the 200-bit evaluation are independent routes from the f64 closed forms.

use dpaudit::mechanisms::{Gaussian, Rectified, ScalarDist, StochasticSign, Truncated};
use quadrature::double_exponential;
use rug::Float;

const PREC: u32 = 200;

/// The largest double below `x` (finite x).
fn prev(x: f64) -> f64 {
    if x == 0.0 {
        return -f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b - 1 } else { b + 1 })
}

/// Breakpoints for a bounded support [a, b]: a uniform grid plus points clustered
/// geometrically at both ends (offsets (b − a)·2⁻ᵏ, k = 1..45), so that mass concentrated
/// within σ²/dist of an endpoint is resolved.
fn bounded_breaks(a: f64, b: f64) -> Vec<f64> {
    let w = b - a;
    let mut v: Vec<f64> = (0..=64).map(|i| a + w * i as f64 / 64.0).collect();
    for k in 1..=45 {
        let o = w * 0.5f64.powi(k);
        v.push(a + o);
        v.push(b - o);
    }
    v.sort_by(|x, y| x.partial_cmp(y).unwrap());
    v.dedup();
    v
}

/// Breakpoints μ + σ·k/4 for |k/4| ≤ 40 (mass outside ≈ 1e−350).
fn gaussian_breaks(mu: f64, sigma: f64) -> Vec<f64> {
    (-160..=160).map(|k| mu + sigma * k as f64 / 4.0).collect()
}

fn rel_close(f: f64, m: f64, tol: f64) -> bool {
    (f - m).abs() <= tol * m.abs()
}

fn mp_x(x: f64) -> Float {
    Float::with_val(PREC, x)
}

/// The generic check. `breaks` must be sorted and cover all but a negligible part of the
/// continuous mass.
fn check(name: &str, d: &dyn ScalarDist, breaks: &[f64]) {
    let atoms = d.atoms();
    let mass = |t: f64| d.ln_mass(t).exp();
    let (lo_s, hi_s) = d.support();

    // --- 3. atoms: cdf jumps, f64 vs rug ---
    let mut atom_total = 0.0;
    for &t in &atoms {
        let m = mass(t);
        atom_total += m;
        let jump = if d.cdf(t) <= 0.5 {
            d.cdf(t) - d.cdf(prev(t))
        } else {
            d.sf(prev(t)) - d.sf(t)
        };
        assert!(
            (jump - m).abs() <= 1e-12 * m + 1e-300,
            "{name}: jump at atom {t} = {jump:e}, mass = {m:e}"
        );
        let lm = d.ln_mass(t);
        let lm_mp = d.ln_mass_mp(&mp_x(t)).to_f64();
        assert!(
            (lm - lm_mp).abs() <= 1e-13 * lm_mp.abs().max(1.0),
            "{name}: ln_mass({t}) f64 {lm} vs rug {lm_mp}"
        );
    }
    assert_eq!(d.ln_mass(0.123_456_7), f64::NEG_INFINITY, "{name}");

    // --- 1, 2. integrated density vs cdf increments; total mass ---
    let mut integral = 0.0;
    for win in breaks.windows(2) {
        let (x0, x1) = (win[0], win[1]);
        let piece = double_exponential::integrate(|x| d.pdf(x), x0, x1, 1e-16).integral;
        integral += piece;
        let inc = if d.cdf(x1) <= 0.5 {
            d.cdf(x1) - d.cdf(x0)
        } else {
            d.sf(x0) - d.sf(x1)
        };
        let atoms_in: f64 = atoms
            .iter()
            .filter(|&&t| t > x0 && t <= x1)
            .map(|&t| mass(t))
            .sum();
        let cont = inc - atoms_in;
        assert!(
            (piece - cont).abs() <= 1e-11 * piece.abs().max(cont.abs()) + 2e-15,
            "{name}: piece [{x0}, {x1}]: quadrature {piece:e} vs cdf increment {cont:e}"
        );
    }
    let (lo, hi) = (breaks[0], *breaks.last().unwrap());
    // Mass outside the window (from the cdf; ≤ 1e−300 for the windows used here) and atoms at
    // the window's left end (not counted by the pieces).
    let outside = (d.cdf(lo) - mass(lo).min(d.cdf(lo))) + d.sf(hi);
    assert!(outside < 1e-15, "{name}: window misses mass {outside:e}");
    let total = integral + atom_total + outside;
    assert!(
        (total - 1.0).abs() < 2e-13,
        "{name}: total mass {total} (integral {integral}, atoms {atom_total})"
    );

    // --- 4, 5, 6. pointwise checks at breakpoints and midpoints ---
    let mut pts: Vec<f64> = breaks.to_vec();
    pts.extend(breaks.windows(2).map(|w| 0.5 * (w[0] + w[1])));
    for &x in &pts {
        let lp = d.ln_pdf(x);
        let p = d.pdf(x);
        if p.is_normal() {
            assert!(
                (lp - p.ln()).abs() <= 1e-13 * lp.abs().max(1.0),
                "{name}: ln_pdf({x}) = {lp} vs ln(pdf) = {}",
                p.ln()
            );
        }
        let lp_mp = d.ln_pdf_mp(&mp_x(x)).to_f64();
        if lp_mp.is_finite() {
            assert!(
                (lp - lp_mp).abs() <= 1e-13 * lp_mp.abs().max(1.0),
                "{name}: ln_pdf({x}) f64 {lp} vs rug {lp_mp}"
            );
        } else {
            assert_eq!(lp, f64::NEG_INFINITY, "{name}: ln_pdf({x}) should be -inf");
        }
        let (c, s) = (d.cdf(x), d.sf(x));
        let (c_mp, s_mp) = (d.cdf_mp(&mp_x(x)).to_f64(), d.sf_mp(&mp_x(x)).to_f64());
        for (what, f, m) in [("cdf", c, c_mp), ("sf", s, s_mp)] {
            if m >= f64::MIN_POSITIVE {
                // Relative 1e-13 of max(1, |ln m|): a tail probability's condition number in the
                // standardised point z is ≈ z² ≈ 2|ln m|, so that is what rounding z costs.
                assert!(
                    rel_close(f, m, 1e-13 * m.ln().abs().max(1.0)),
                    "{name}: {what}({x}) f64 {f:e} vs rug {m:e}"
                );
            } else {
                assert!(f < 1e-290, "{name}: {what}({x}) = {f:e}, rug {m:e}");
            }
        }
        // cdf and sf are each exp of a sum of three logs (≈ 4 ulp apiece).
        assert!(
            (c + s - 1.0).abs() <= 1e-15,
            "{name}: cdf + sf at {x} = {}",
            c + s
        );
    }
    // Limits outside the support.
    if lo_s.is_finite() {
        assert_eq!(d.cdf(prev(lo_s)), 0.0, "{name}");
        assert_eq!(d.sf(prev(lo_s)), 1.0, "{name}");
        assert_eq!(d.ln_pdf(prev(lo_s)), f64::NEG_INFINITY, "{name}");
    }
    assert_eq!(d.cdf(f64::NEG_INFINITY), 0.0, "{name}");
    assert_eq!(d.cdf(f64::INFINITY), 1.0, "{name}");
    assert_eq!(d.sf(f64::NEG_INFINITY), 1.0, "{name}");
    assert_eq!(d.sf(f64::INFINITY), 0.0, "{name}");
    if hi_s.is_finite() {
        assert_eq!(d.cdf(hi_s), 1.0, "{name}");
        assert_eq!(d.sf(hi_s), 0.0, "{name}");
        assert_eq!(
            d.ln_pdf(2.0 * hi_s.abs() + 1.0),
            f64::NEG_INFINITY,
            "{name}"
        );
    }
}

#[test]
fn gaussian_consistency() {
    for (mu, sigma) in [(0.0, 1.0), (3.5, 0.2), (-1e3, 40.0)] {
        let g = Gaussian::new(mu, sigma).unwrap();
        check(&format!("N({mu},{sigma})"), &g, &gaussian_breaks(mu, sigma));
    }
}

#[test]
fn rectified_consistency() {
    // (mu, sigma, a, b): central, off-centre, μ = b + 40σ, μ = a − 40σ, 1000σ, narrow.
    for (mu, sigma, a, b) in [
        (0.0, 1.0, -1.0, 2.0),
        (0.3, 0.5, 0.0, 1.0),
        (41.0, 1.0, 0.0, 1.0),
        (-40.0, 1.0, 0.0, 2.0),
        (1001.0, 1.0, 0.0, 1.0),
        (0.0, 1.0, 0.1, 0.1001),
    ] {
        let r = Rectified::new(mu, sigma, a, b).unwrap();
        check(
            &format!("R({mu},{sigma},[{a},{b}])"),
            &r,
            &bounded_breaks(a, b),
        );
    }
}

#[test]
fn truncated_consistency() {
    for (mu, sigma, a, b) in [
        (0.0, 1.0, -1.0, 1.0),
        (0.0, 1.0, 0.5, 5.0),
        (0.0, 1.0, 0.1, 0.2),
        (0.0, 1.0, -0.01, 0.02),
        (0.2, 2.0, -3.0, 0.0),
        (41.0, 1.0, 0.0, 1.0),
        (-40.0, 1.0, 0.0, 1.0),
        (-40.0, 1.0, 0.0, 100.0),
        (1001.0, 1.0, 0.0, 1.0),
        (-1000.0, 0.5, 0.0, 3.0),
        (1000.5, 1.0, 0.0, 1e-4),
    ] {
        let t = Truncated::new(mu, sigma, a, b).unwrap();
        check(
            &format!("T({mu},{sigma},[{a},{b}])"),
            &t,
            &bounded_breaks(a, b),
        );
    }
}

#[test]
fn sign_consistency() {
    for (mu, sigma) in [
        (0.0, 1.0),
        (0.3, 1.0),
        (-2.0, 0.5),
        (40.0, 1.0),
        (-41.0, 1.0),
    ] {
        let s = StochasticSign::new(mu, sigma).unwrap();
        check(
            &format!("sign({mu},{sigma})"),
            &s,
            &[-2.0, -1.0, 0.0, 1.0, 2.0],
        );
    }
}

/// Golden values from mpmath 1.3 at dps 50 (independent of this code): truncated log-density at
/// the near endpoint and rectified atom masses, far out.
#[test]
#[allow(clippy::excessive_precision)] // mpmath digits kept as produced
fn far_tail_golden_values() {
    // T(−40, 1, [0, 1]) at x = 0: log(npdf(40)/(ncdf(−40) − ncdf(−41)))
    let t = Truncated::new(-40.0, 1.0, 0.0, 1.0).unwrap();
    let want = 3.689_503_480_549_115_427_3;
    assert!((t.ln_pdf(0.0) - want).abs() < 1e-14, "{}", t.ln_pdf(0.0));
    // T(1001, 1, [0, 1]) at x = 1: log(npdf(1000)/(ncdf(−1000) − ncdf(−1001)))
    let t = Truncated::new(1001.0, 1.0, 0.0, 1.0).unwrap();
    let want = 6.907_756_278_979_637_064_4;
    assert!((t.ln_pdf(1.0) - want).abs() < 1e-14, "{}", t.ln_pdf(1.0));
    // R(41, 1, [0, 1]): log P(X = 0) = log ncdf(−41)
    let r = Rectified::new(41.0, 1.0, 0.0, 1.0).unwrap();
    let want = -845.133_104_601_774_617_02;
    assert!(
        ((r.ln_mass(0.0) - want) / want).abs() < 1e-15,
        "{}",
        r.ln_mass(0.0)
    );
}
