//! Every sampler of `dpaudit::mechanisms` against its own exact cdf, with fixed seeds.
//!
//! * Continuous laws: one-sample Kolmogorov–Smirnov. Critical value `sqrt(−ln(α/2)/2)/sqrt(n)`
//!   with α = 1e−6: by the Dvoretzky–Kiefer–Wolfowitz inequality with Massart's constant,
//!   P(D_n > d) ≤ 2 e^{−2 n d²} for every n, so this is a bound on the false-failure probability,
//!   not only its asymptotic value.
//! * Laws with atoms: the rectified Gaussian gets the same DKW–Massart test on its whole cdf,
//!   atoms included (the inequality holds for every distribution, so the level is exact, not
//!   asymptotic: the statistic is the sup over both one-sided limits at each atom). The stochastic
//!   sign gets an exact two-sided binomial test (tails from `audit::stats`, pinned to mpmath),
//!   level ≤ α.
//! * In addition, a Pearson chi-square on the atoms plus binned interior (expected count ≥ 5 per
//!   cell, critical value the (1 − α) quantile of χ²(k − 1), α = 1e−6, statrs, cross-checked
//!   against Wilson–Hilferty) gives more power on the interior's shape. **Its level is asymptotic**
//!   (the χ² approximation to Pearson's statistic), so its false-failure probability is ≈ 1e−6,
//!   not bounded by it.
//! * Determinism: same seed ⇒ bit-identical output; chunked output (one ChaCha8 stream per chunk)
//!   is identical on 1 and 4 rayon threads.
//! * Value stability: the first samples for a fixed seed are pinned.
//!
//! With ~40 statistical assertions at α = 1e−6 each, the chance that this file fails by bad luck
//! is < 4e−5 for the KS/DKW and binomial assertions (a bound) plus ≈ 4 × 1e−6 for the four
//! Pearson assertions (an asymptotic level); the seeds are fixed, so a pass is reproducible.

use dpaudit::audit::stats::{binom_cdf, binom_sf};
use dpaudit::mechanisms::stream::{chunk_rng, fill_chunked, StreamRng};
use dpaudit::mechanisms::{
    Gaussian, IsotropicGaussian, Rectified, Rgm, ScalarDist, StochasticSign, Truncated,
};
use rand::distr::Distribution;
use statrs::distribution::{ChiSquared, ContinuousCDF};

const ALPHA: f64 = 1e-6;

/// KS critical value at level α for sample size n (DKW–Massart).
fn ks_critical(n: usize) -> f64 {
    (-(ALPHA / 2.0).ln() / 2.0).sqrt() / (n as f64).sqrt()
}

/// The KS statistic of `xs` against `cdf`.
fn ks_stat(mut xs: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = xs.len() as f64;
    xs.iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).max((i + 1) as f64 / n - f)
        })
        .fold(0.0, f64::max)
}

/// DKW–Massart test of `xs` against a law with atoms: `cdf(x)` = P(X ≤ x) and `mass(x)` =
/// P(X = x). At each distinct sample value x both limits are compared: F_n(x) with F(x) and
/// F_n(x−) with F(x) − P(X = x).
fn assert_dkw_with_atoms(
    name: &str,
    mut xs: Vec<f64>,
    cdf: impl Fn(f64) -> f64,
    mass: impl Fn(f64) -> f64,
) {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    let nf = n as f64;
    let mut d = 0.0f64;
    let mut i = 0;
    while i < n {
        let x = xs[i];
        let mut j = i;
        while j < n && xs[j] == x {
            j += 1;
        }
        let (f, m) = (cdf(x), mass(x));
        d = d
            .max((j as f64 / nf - f).abs())
            .max((i as f64 / nf - (f - m)).abs());
        i = j;
    }
    let crit = ks_critical(n);
    assert!(
        d < crit,
        "{name}: DKW D = {d:.3e} >= critical {crit:.3e} (n = {n}, alpha = {ALPHA})"
    );
}

fn assert_ks(name: &str, xs: Vec<f64>, cdf: impl Fn(f64) -> f64) {
    let n = xs.len();
    let d = ks_stat(xs, cdf);
    let crit = ks_critical(n);
    assert!(
        d < crit,
        "{name}: KS D = {d:.3e} >= critical {crit:.3e} (n = {n}, alpha = {ALPHA})"
    );
}

/// Wilson–Hilferty approximation of the χ²(k) upper quantile for standard normal quantile z.
fn wilson_hilferty(k: f64, z: f64) -> f64 {
    let c = 2.0 / (9.0 * k);
    k * (1.0 - c + z * c.sqrt()).powi(3)
}

/// Pearson chi-square of observed vs expected counts (expected ≥ 5 in every cell).
#[allow(clippy::excessive_precision)] // mpmath digits kept as produced
fn assert_chi2(name: &str, observed: &[f64], expected: &[f64]) {
    assert_eq!(observed.len(), expected.len());
    assert!(
        expected.iter().all(|&e| e >= 5.0),
        "{name}: a cell has expected count < 5"
    );
    let stat: f64 = observed
        .iter()
        .zip(expected)
        .map(|(o, e)| (o - e) * (o - e) / e)
        .sum();
    let dof = (observed.len() - 1) as f64;
    let crit = ChiSquared::new(dof).unwrap().inverse_cdf(1.0 - ALPHA);
    // Independent cross-check of the critical value. dof = 1: exactly z_{α/2}², with
    // z_{α/2} = 4.89163847569859038623 (mpmath: root of ncdf(−t) = 5e−7). dof ≥ 2: Wilson–Hilferty
    // with z_α = 4.753424308822898948 (mpmath: root of ncdf(−t) = 1e−6), good to ≈ 2 %.
    let check = if dof == 1.0 {
        4.891_638_475_698_590_386_f64.powi(2)
    } else {
        wilson_hilferty(dof, 4.753_424_308_822_898_948)
    };
    assert!(
        (crit / check - 1.0).abs() < 0.03,
        "{name}: statrs {crit} vs check {check}"
    );
    assert!(
        stat < crit,
        "{name}: chi-square {stat:.3} >= critical {crit:.3} (dof {dof}, alpha = {ALPHA})"
    );
}

fn draw(d: &impl Distribution<f64>, seed: u64, n: usize) -> Vec<f64> {
    let mut rng = chunk_rng(seed, 0);
    (0..n).map(|_| d.sample(&mut rng)).collect()
}

#[test]
fn gaussian_ks() {
    for (i, (mu, sigma)) in [(0.0, 1.0), (5.0, 0.1), (-3.0, 7.0)]
        .into_iter()
        .enumerate()
    {
        let g = Gaussian::new(mu, sigma).unwrap();
        let mut xs = vec![0.0; 1_000_000];
        g.sample_many(&mut chunk_rng(100 + i as u64, 0), &mut xs);
        assert_ks(&format!("N({mu},{sigma})"), xs, |x| g.cdf(x));
    }
}

/// The Laplace sampler (sign bit × Exp(1) by ziggurat) against its cdf, at three locations and
/// scales (10⁶ draws each).
#[test]
fn laplace_ks() {
    use dpaudit::mechanisms::laplace::Laplace;
    for (i, (mu, b)) in [(0.0, 1.0), (2.5, 0.01), (-3.0, 30.0)]
        .into_iter()
        .enumerate()
    {
        let lap = Laplace::new(mu, b).unwrap();
        let mut xs = vec![0.0; 1_000_000];
        lap.sample_many(&mut chunk_rng(900 + i as u64, 0), &mut xs);
        assert_ks(&format!("Lap({mu},{b})"), xs, |x| lap.cdf(x));
    }
}

/// Central, narrow, one-sided, and the far tails: 40σ below a, 40σ above b, 1000σ both ways.
/// Each case also states which sampler it exercises.
#[test]
fn truncated_ks() {
    let cases: &[(f64, f64, f64, f64, &str, usize)] = &[
        (0.0, 1.0, -1.0, 1.0, "normal", 1_000_000),
        (0.3, 2.0, -10.0, 10.0, "normal", 1_000_000),
        (0.0, 1.0, 0.1, 0.2, "uniform", 1_000_000),
        (0.0, 1.0, 0.5, 5.0, "normal", 1_000_000),
        (0.0, 1.0, 1.5, 5.0, "rayleigh", 1_000_000),
        (0.0, 1.0, -3.0, -1.5, "rayleigh", 1_000_000),
        // μ = a − 40σ (offsets from a) and μ = b + 40σ (mirrored, offsets from b)
        (-40.0, 1.0, 0.0, 1.0, "rayleigh", 500_000),
        (41.0, 1.0, 0.0, 1.0, "rayleigh", 500_000),
        // short intervals far out: the Rayleigh proposal with its exponential truncated at
        // d_max = 2.0 and 0.8 (Exp1 + rejection), and the uniform proposal (d_max would be 0.2)
        (-40.0, 1.0, 0.0, 0.05, "rayleigh", 500_000),
        (-40.0, 1.0, 0.0, 0.02, "rayleigh", 500_000),
        (-40.0, 1.0, 0.0, 0.005, "uniform", 500_000),
        // 1000σ
        (-1000.0, 1.0, 0.0, 1.0, "rayleigh", 500_000),
        (1001.0, 1.0, 0.0, 1.0, "rayleigh", 500_000),
        (1000.5, 1.0, 0.0, 1e-4, "uniform", 200_000),
    ];
    for (i, &(mu, sigma, a, b, method, n)) in cases.iter().enumerate() {
        let t = Truncated::new(mu, sigma, a, b).unwrap();
        let name = format!("T({mu},{sigma},[{a},{b}])");
        assert_eq!(t.method_name(), method, "{name}");
        let mut xs = vec![0.0; n];
        t.sample_many(&mut chunk_rng(200 + i as u64, 0), &mut xs);
        assert!(
            xs.iter().all(|&x| (a..=b).contains(&x)),
            "{name}: outside [a, b]"
        );
        assert_ks(&name, xs, |x| t.cdf(x));
    }
}

/// Chi-square on {atom a, interior bins, atom b}; interior bins of equal width, merged
/// left-to-right until each expects ≥ 5 (a final short bin is merged into its neighbour).
fn rectified_chi2(r: &Rectified, xs: &[f64], name: &str) {
    let (a, b) = r.bounds();
    let n = xs.len() as f64;
    let k = 30;
    let edges: Vec<f64> = (0..=k).map(|j| a + (b - a) * j as f64 / k as f64).collect();
    // cells: [a], (e0, e1], ..., (e_{k−1}, b), [b]
    let mut exp = vec![r.ln_mass(a).exp() * n];
    let mut obs = vec![xs.iter().filter(|&&x| x == a).count() as f64];
    let mut cur_e = 0.0;
    let mut cur_o = 0.0;
    for j in 0..k {
        let (lo, hi) = (edges[j], edges[j + 1]);
        // P(lo < X ≤ hi) for the interior (the last bin excludes the atom at b).
        let p = if j + 1 == k {
            r.sf(lo) - r.ln_mass(b).exp()
        } else {
            r.cdf(hi) - r.cdf(lo)
        };
        cur_e += p * n;
        cur_o += xs.iter().filter(|&&x| x > lo && (x <= hi && x < b)).count() as f64;
        if cur_e >= 5.0 {
            exp.push(cur_e);
            obs.push(cur_o);
            cur_e = 0.0;
            cur_o = 0.0;
        }
    }
    if cur_e > 0.0 || cur_o > 0.0 {
        *exp.last_mut().unwrap() += cur_e;
        *obs.last_mut().unwrap() += cur_o;
    }
    exp.push(r.ln_mass(b).exp() * n);
    obs.push(xs.iter().filter(|&&x| x == b).count() as f64);
    // Drop atom cells with expectation < 5 only if nothing was observed there either.
    let (mut o2, mut e2) = (Vec::new(), Vec::new());
    for (o, e) in obs.into_iter().zip(exp) {
        if e < 5.0 {
            assert!(o <= 1.0, "{name}: {o} samples in a cell expecting {e:e}");
            continue;
        }
        o2.push(o);
        e2.push(e);
    }
    assert_eq!(
        o2.iter().sum::<f64>() as usize,
        xs.len(),
        "{name}: samples lost"
    );
    assert_chi2(name, &o2, &e2);
}

#[test]
fn rectified_chi2_tests() {
    for (i, (mu, sigma, a, b)) in [
        (0.0, 1.0, -1.0, 2.0),
        (0.3, 0.5, 0.0, 1.0),
        (-2.0, 1.0, 0.0, 1.0),
        (4.0, 1.0, -1.0, 1.5),
    ]
    .into_iter()
    .enumerate()
    {
        let r = Rectified::new(mu, sigma, a, b).unwrap();
        let mut xs = vec![0.0; 1_000_000];
        r.sample_many(&mut chunk_rng(300 + i as u64, 0), &mut xs);
        let name = format!("R({mu},{sigma},[{a},{b}])");
        assert_dkw_with_atoms(&name, xs.clone(), |x| r.cdf(x), |x| r.ln_mass(x).exp());
        rectified_chi2(&r, &xs, &name);
    }
    // μ = b + 40σ (exact part-selection regime): every sample is the atom b except with
    // probability Φ(−40) ≈ 4e−350 per draw.
    let r = Rectified::new(41.0, 1.0, 0.0, 1.0).unwrap();
    assert!(draw(&r, 7, 200_000).iter().all(|&x| x == 1.0));
    let r = Rectified::new(-1000.0, 1.0, 0.0, 1.0).unwrap();
    assert!(draw(&r, 8, 200_000).iter().all(|&x| x == 0.0));
}

#[test]
fn sign_chi2_tests() {
    for (i, (mu, sigma)) in [(0.0, 1.0), (0.3, 1.0), (-2.0, 0.5), (1.5, 2.0)]
        .into_iter()
        .enumerate()
    {
        let s = StochasticSign::new(mu, sigma).unwrap();
        let n = 1_000_000;
        let mut xs = vec![0.0; n];
        s.sample_many(&mut chunk_rng(400 + i as u64, 0), &mut xs);
        assert!(xs.iter().all(|&x| x == 1.0 || x == -1.0));
        let plus = xs.iter().filter(|&&x| x == 1.0).count() as u64;
        let p = s.ln_mass(1.0).exp();
        let q = s.ln_mass(-1.0).exp();
        // Exact two-sided binomial test at level ≤ α: P(X ≤ plus) and P(X ≥ plus), X ~ Bin(n, p).
        let lower = binom_cdf(plus, n as u64, p).unwrap();
        let upper = if plus == 0 {
            1.0
        } else {
            binom_sf(plus - 1, n as u64, p).unwrap()
        };
        assert!(
            lower > ALPHA / 2.0 && upper > ALPHA / 2.0,
            "sign({mu},{sigma}): {plus} of {n} are +1 (p = {p}): P(X <= k) = {lower:.3e}, \
             P(X >= k) = {upper:.3e}, alpha = {ALPHA}"
        );
        assert_chi2(
            &format!("sign({mu},{sigma})"),
            &[plus as f64, (n as u64 - plus) as f64],
            &[p * n as f64, q * n as f64],
        );
    }
    let s = StochasticSign::new(40.0, 1.0).unwrap();
    assert!(draw(&s, 9, 200_000).iter().all(|&x| x == 1.0));
}

/// Coordinates of the isotropic Gaussian and of the RGM, standardised and pooled, against Φ;
/// squared norms against χ²(d) (which also sees correlation between coordinates).
#[test]
fn multivariate_ks() {
    let chi = |d: usize| ChiSquared::new(d as f64).unwrap();
    // Isotropic Gaussian, d = 5.
    let mean = vec![1.0, -2.0, 0.0, 3.0, 0.5];
    let g = IsotropicGaussian::new(mean.clone(), 1.7).unwrap();
    let reps = 100_000;
    let mut ys = vec![0.0; reps * 5];
    g.sample_many(&mut chunk_rng(500, 0), &mut ys).unwrap();
    let z: Vec<f64> = ys
        .chunks_exact(5)
        .flat_map(|y| y.iter().zip(&mean).map(|(v, m)| (v - m) / 1.7))
        .collect();
    let std = Gaussian::new(0.0, 1.0).unwrap();
    assert_ks("IsoGauss coords", z, |x| std.cdf(x));
    let sq: Vec<f64> = ys
        .chunks_exact(5)
        .map(|y| {
            y.iter()
                .zip(&mean)
                .map(|(v, m)| ((v - m) / 1.7).powi(2))
                .sum()
        })
        .collect();
    let c5 = chi(5);
    assert_ks("IsoGauss norm^2", sq, |x| c5.cdf(x));

    // RGM, d = 10 and d = 1000: y = r + N(0, (γ‖r‖² + σ²) I).
    for (d, reps) in [(10usize, 100_000usize), (1000, 2_000)] {
        let m = Rgm::new(0.5, 2.0, d).unwrap();
        let r: Vec<f64> = (0..d).map(|i| (i as f64 * 0.37).sin()).collect();
        let sd = m.output_sd(&r);
        let mut rng = chunk_rng(600 + d as u64, 0);
        let mut y = vec![0.0; d];
        let mut coords = Vec::with_capacity(reps * d);
        let mut norms = Vec::with_capacity(reps);
        for _ in 0..reps {
            m.sample_into(&r, &mut rng, &mut y).unwrap();
            let mut s = 0.0;
            for (v, ri) in y.iter().zip(&r) {
                let zz = (v - ri) / sd;
                coords.push(zz);
                s += zz * zz;
            }
            norms.push(s);
        }
        assert_ks(&format!("RGM d={d} coords"), coords, |x| std.cdf(x));
        let cd = chi(d);
        assert_ks(&format!("RGM d={d} norm^2"), norms, |x| cd.cdf(x));
    }
}

/// All scalar samplers under test, boxed behind one closure type for the determinism tests.
type Sampler = Box<dyn Fn(&mut StreamRng, &mut [f64]) + Sync>;

fn all_samplers() -> Vec<(&'static str, Sampler)> {
    let g = Gaussian::new(1.0, 2.0).unwrap();
    let r = Rectified::new(0.0, 1.0, -1.0, 1.0).unwrap();
    let t_c = Truncated::new(0.0, 1.0, -1.0, 1.0).unwrap();
    let t_u = Truncated::new(0.0, 1.0, 0.1, 0.2).unwrap();
    let t_40 = Truncated::new(-40.0, 1.0, 0.0, 1.0).unwrap();
    let s = StochasticSign::new(0.3, 1.0).unwrap();
    let m = Rgm::new(0.5, 1.0, 4).unwrap();
    vec![
        ("gaussian", Box::new(move |rng, c| g.sample_many(rng, c))),
        ("rectified", Box::new(move |rng, c| r.sample_many(rng, c))),
        (
            "truncated-central",
            Box::new(move |rng, c| t_c.sample_many(rng, c)),
        ),
        (
            "truncated-uniform",
            Box::new(move |rng, c| t_u.sample_many(rng, c)),
        ),
        (
            "truncated-40sigma",
            Box::new(move |rng, c| t_40.sample_many(rng, c)),
        ),
        ("sign", Box::new(move |rng, c| s.sample_many(rng, c))),
        (
            "rgm-d4",
            Box::new(move |rng, c| {
                let r = [1.0, 2.0, -1.0, 0.5];
                for y in c.chunks_exact_mut(4) {
                    m.sample_into(&r, rng, y).unwrap();
                }
            }),
        ),
    ]
}

#[test]
fn same_seed_same_bits_and_sample_many_matches_sample() {
    for (name, f) in all_samplers() {
        let mut x = vec![0.0; 4096];
        let mut y = vec![0.0; 4096];
        f(&mut chunk_rng(11, 5), &mut x);
        f(&mut chunk_rng(11, 5), &mut y);
        assert!(
            x.iter().zip(&y).all(|(a, b)| a.to_bits() == b.to_bits()),
            "{name}: not reproducible"
        );
        let mut z = vec![0.0; 4096];
        f(&mut chunk_rng(11, 6), &mut z);
        assert!(x != z, "{name}: streams 5 and 6 coincide");
    }
    // The per-draw `sample` and the batch `sample_many` consume the stream identically.
    let t = Truncated::new(-40.0, 1.0, 0.0, 1.0).unwrap();
    let mut batch = vec![0.0; 1000];
    t.sample_many(&mut chunk_rng(12, 0), &mut batch);
    assert_eq!(batch, draw(&t, 12, 1000));
    let g = Gaussian::new(0.0, 1.0).unwrap();
    g.sample_many(&mut chunk_rng(12, 0), &mut batch);
    assert_eq!(batch, draw(&g, 12, 1000));
}

#[test]
fn chunked_output_independent_of_thread_count() {
    let n = 100_003; // not a multiple of the chunk
    let chunk = 4096; // multiple of the RGM dimension 4
    for (name, f) in all_samplers() {
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut out = vec![0.0; n - n % 4];
            pool.install(|| fill_chunked(77, &mut out, chunk, |rng, c| f(rng, c)).unwrap());
            out
        };
        let one = run(1);
        let four = run(4);
        assert!(
            one.iter()
                .zip(&four)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{name}: 1 vs 4 threads differ"
        );
        // Sequential reference: chunk i from stream i.
        let mut seq = vec![0.0; one.len()];
        for (i, c) in seq.chunks_mut(chunk).enumerate() {
            f(&mut chunk_rng(77, i as u64), c);
        }
        assert_eq!(one, seq, "{name}: chunked != sequential per-stream");
    }
}

/// Regression pin, NOT an oracle: the first 8 draws of each sampler under `chunk_rng(42, 0)`,
/// produced once by this code (`cargo test --release --test sampler_ks -- --ignored
/// print_pins --nocapture`). A change means the output stream changed (generator, algorithm or
/// consumption of randomness), which breaks reproducibility of recorded audits: bump it only
/// deliberately.
const PINS: &[(&str, [f64; 8])] = &[
    (
        "gaussian",
        [
            1.9559624767020436,
            3.6681412204636157,
            0.5782666334579394,
            1.9526938476176428,
            -0.024181244112326805,
            -0.8679568987813961,
            -1.0047556882752056,
            2.8333271191863387,
        ],
    ),
    (
        "rectified",
        [
            0.47798123835102174,
            1.0,
            -0.21086668327103028,
            0.4763469238088213,
            -0.5120906220561634,
            -0.9339784493906981,
            -1.0,
            0.9166635595931693,
        ],
    ),
    (
        "truncated-central",
        [
            0.47798123835102174,
            -0.21086668327103028,
            0.4763469238088213,
            -0.5120906220561634,
            -0.9339784493906981,
            0.9166635595931693,
            -0.718547372072907,
            0.031378861730367816,
        ],
    ),
    (
        "truncated-uniform",
        [
            0.16818961923066716,
            0.142751640285652,
            0.12885938791411827,
            0.13080405595979097,
            0.1771248780802857,
            0.1506866870340069,
            0.19569902689161411,
            0.17287984865007755,
        ],
    ),
    (
        "truncated-40sigma",
        [
            0.021891094206306288,
            0.016288274680169537,
            0.00808781617320295,
            0.03235669077064352,
            0.16734099353199164,
            0.04203579250488269,
            0.07562771246290274,
            0.021601668318498968,
        ],
    ),
    ("sign", [1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 1.0]),
    (
        "rgm-d4",
        [
            1.9707844842647888,
            4.709510218004835,
            -1.4282722582880143,
            1.467465175738266,
            -0.04006097005954756,
            0.10308080201190628,
            -3.035839025432521,
            2.361752490566303,
        ],
    ),
];

#[test]
fn value_stability() {
    let samplers = all_samplers();
    for (name, want) in PINS {
        let f = &samplers.iter().find(|(n, _)| n == name).unwrap().1;
        let mut got = [0.0; 8];
        f(&mut chunk_rng(42, 0), &mut got);
        assert_eq!(&got, want, "{name}: output stream changed");
    }
    assert_eq!(PINS.len(), samplers.len(), "every sampler pinned");
}

#[test]
#[ignore]
fn print_pins() {
    for (name, f) in all_samplers() {
        let mut got = [0.0; 8];
        f(&mut chunk_rng(42, 0), &mut got);
        println!("    (\"{name}\", {got:?}),");
    }
}
