//! HG §5 per-coordinate full-batch GD: the logistic gradient against finite differences, the
//! per-run accounting against the sum of independently computed certified 1-D terms and (d = 2,
//! truncated) against direct quadrature of the joint Rényi integral, the Gaussian's account
//! against its closed form, determinism across thread counts, and the `kind` dispatch of
//! `dpaudit train`.

use dpaudit::audit::engine::Observer;
use dpaudit::divergence::{self, Method, Pair};
use dpaudit::train::data::Dataset;
use dpaudit::train::hg::{BoxLaw, Noise};
use dpaudit::train::hg_gd::{self, clipped_mean_gradient, gradient, loss, GdConfig};
use dpaudit::Scalar;
use quadrature::double_exponential::integrate;
use std::path::Path;

fn breast_cancer() -> Dataset {
    let mut d = Dataset::read_csv(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("data/breast_cancer.csv"),
        0,
    )
    .unwrap();
    d.standardize();
    d
}

/// Columns `cols` of the first `n` records.
fn columns(data: &Dataset, cols: &[usize], n: usize) -> Dataset {
    let mut x = Vec::new();
    for j in 0..n {
        for &c in cols {
            x.push(data.x[j * data.d + c]);
        }
    }
    Dataset::new(cols.len(), x, data.y[..n].to_vec()).unwrap()
}

/// The Gaussian noise and HG's two laws on a box, from the registry.
fn gaussian() -> Noise {
    Noise::by_name("gaussian").unwrap()
}

fn bounded() -> [BoxLaw; 2] {
    ["rectified", "truncated"].map(|n| BoxLaw::by_name(n).unwrap())
}

fn cfg(noise: Option<Noise>, sigma: f64, clip: f64, steps: usize) -> GdConfig {
    GdConfig {
        noise,
        sigma,
        clip,
        steps,
        lr: 0.5,
        lambda: 1e-3,
        alpha: 2.0,
        digits: 10,
    }
}

#[test]
fn logistic_gradient_matches_central_differences() {
    let data = breast_cancer();
    let theta: Vec<f64> = (0..data.d)
        .map(|k| 0.05 * ((k as f64) * 0.7).sin())
        .collect();
    let g = gradient(&data, &theta, 1e-3).unwrap();
    for k in 0..data.d {
        let h = 1e-5;
        let mut tp = theta.clone();
        let mut tm = theta.clone();
        tp[k] += h;
        tm[k] -= h;
        let fd = (loss(&data, &tp, 1e-3).unwrap() - loss(&data, &tm, 1e-3).unwrap()) / (2.0 * h);
        assert!(
            (fd - g[k]).abs() < 1e-8,
            "coordinate {k}: fd {fd} vs {}",
            g[k]
        );
    }
    // Clipping per coordinate: every coordinate of the clipped mean lies in [−C, C], and
    // clipping at +∞ gives the unclipped data gradient.
    let c = clipped_mean_gradient(&data, &theta, 0.05).unwrap();
    assert!(c.iter().all(|v| v.abs() <= 0.05));
    let u = clipped_mean_gradient(&data, &theta, f64::INFINITY).unwrap();
    for k in 0..data.d {
        assert!((u[k] + 1e-3 * theta[k] - g[k]).abs() < 1e-15);
    }
    assert!(loss(&data, &[0.0], 0.0)
        .unwrap_err()
        .to_string()
        .contains("theta"));
}

/// Independent per-step bound: for each coordinate, the larger of the two 1-D divergences
/// (1-D quadrature route) towards the clamped ends μ_i ± 2C/n.
fn independent_step(fam: BoxLaw, g: &[f64], n: usize, c: &GdConfig) -> (f64, Vec<f64>) {
    let h = 2.0 * c.clip / n as f64;
    let mut worst = Vec::new();
    let mut total = 0.0;
    for &mu in g {
        let mut best = (0.0, mu);
        for m2 in [(mu - h).max(-c.clip), (mu + h).min(c.clip)] {
            if m2 == mu {
                continue;
            }
            let (p1, p2, s, a, b) = (
                Scalar::from(mu),
                Scalar::from(m2),
                Scalar::from(c.sigma),
                Scalar::from(-c.clip),
                Scalar::from(c.clip),
            );
            let pair = match fam.name() {
                "rectified" => Pair::rectified(p1, p2, s, a, b),
                "truncated" => Pair::truncated(p1, p2, s, a, b),
                other => panic!("{other}"),
            }
            .unwrap();
            let d = divergence::renyi(&pair, &Scalar::from(c.alpha), 12, Method::Quadrature)
                .unwrap()
                .to_f64();
            if d > best.0 {
                best = (d, m2);
            }
        }
        total += best.0;
        worst.push(best.1);
    }
    (total, worst)
}

/// D_α between independent truncated Gaussians at `mu1`, `mu2` on [−C, C]² by nested quadrature
/// of the joint (not factorised) integrand.
fn joint_truncated_2d(mu1: &[f64], mu2: &[f64], s: f64, c: f64, alpha: f64) -> f64 {
    let phi = |x: f64| 0.5 * libm::erfc(-x / std::f64::consts::SQRT_2);
    let dens = |mu: &[f64], x: &[f64]| -> f64 {
        (0..2)
            .map(|i| {
                let z = phi((c - mu[i]) / s) - phi((-c - mu[i]) / s);
                let u = (x[i] - mu[i]) / s;
                (-0.5 * u * u).exp() / ((2.0 * std::f64::consts::PI).sqrt() * s * z)
            })
            .product()
    };
    let v = integrate(
        |x0| {
            integrate(
                |x1| {
                    let x = [x0, x1];
                    dens(mu1, &x).powf(alpha) * dens(mu2, &x).powf(1.0 - alpha)
                },
                -c,
                c,
                1e-14,
            )
            .integral
        },
        -c,
        c,
        1e-14,
    )
    .integral;
    v.ln() / (alpha - 1.0)
}

#[test]
fn per_run_accounting_is_the_sum_of_certified_one_dimensional_terms() {
    let full = breast_cancer();
    let data = columns(&full, &[0, 7], 40);
    for fam in bounded() {
        let c = cfg(Some(Noise::from(fam)), 0.05, 0.1, 4);
        let run = hg_gd::run(&data, &c, 3).unwrap();
        let mut total = 0.0;
        for (t, theta) in run.iterates.iter().enumerate() {
            let g = clipped_mean_gradient(&data, theta, c.clip).unwrap();
            let (step, worst) = independent_step(fam, &g, data.n, &c);
            assert!(
                (run.step_rdp[t] - step).abs() < 1e-10 * step,
                "{fam:?} step {t}: run {} vs independent {step}",
                run.step_rdp[t]
            );
            if fam.name() == "truncated" {
                // d = 2: the joint integral at the worst neighbour's location vector.
                let q = joint_truncated_2d(&g, &worst, c.sigma, c.clip, c.alpha);
                assert!(
                    (q - step).abs() < 1e-8 * step,
                    "step {t}: joint quadrature {q} vs {step}"
                );
            }
            total += step;
        }
        let certified = run.rdp.unwrap();
        assert_eq!(certified.digits, 10);
        assert!((certified.to_f64() - total).abs() < 1e-9 * total);
        assert!(total > 0.0);
    }
}

#[test]
fn gaussian_account_is_the_closed_form_and_bounded_ones_are_below_it() {
    let data = breast_cancer();
    let (sigma, clip, steps) = (0.05, 0.1, 6);
    let g = hg_gd::run(&data, &cfg(Some(gaussian()), sigma, clip, steps), 2).unwrap();
    // α Σ_t Σ_i δ_{t,i}² / (2σ²) with δ the larger clamped shift (2C/n unless clamped).
    let h = 2.0 * clip / data.n as f64;
    let mut expect = 0.0;
    for theta in &g.iterates {
        for mu in clipped_mean_gradient(&data, theta, clip).unwrap() {
            let d = ((mu + h).min(clip) - mu).max(mu - (mu - h).max(-clip));
            expect += 2.0 * d * d / (2.0 * sigma * sigma);
        }
    }
    let got = g.rdp.as_ref().unwrap().to_f64();
    assert!((got - expect).abs() < 1e-12 * expect, "{got} vs {expect}");
    // HG Prop. 4.6 / Thm 4.9 per coordinate: each bounded step is below the Gaussian's at the
    // same location.
    for fam in bounded() {
        let r = hg_gd::run(&data, &cfg(Some(Noise::from(fam)), sigma, clip, steps), 2).unwrap();
        for (t, theta) in r.iterates.iter().enumerate() {
            let mu = clipped_mean_gradient(&data, theta, clip).unwrap();
            let c = cfg(Some(gaussian()), sigma, clip, steps);
            let (gs, _) = hg_gd::step_rdp(gaussian(), &mu, data.n, &c, 10).unwrap();
            assert!(r.step_rdp[t] <= gs.to_f64(), "{fam:?} step {t}");
        }
    }
    // FIL: for the Gaussian I_i = 1/σ², so the run's figure is Σ_t Σ_i δ_{t,i}²/σ² (closed form);
    // by HG Thm 4.2 the bounded mechanisms' Fisher informations are at most 1/σ² per coordinate,
    // so their figure is at most that sum along their own path.
    let fil_closed = |run: &hg_gd::GdRun| {
        let mut v = 0.0;
        for theta in &run.iterates {
            for mu in clipped_mean_gradient(&data, theta, clip).unwrap() {
                let d = ((mu + h).min(clip) - mu).max(mu - (mu - h).max(-clip));
                v += d * d / (sigma * sigma);
            }
        }
        v
    };
    let gf = g.fil.as_ref().unwrap().to_f64();
    assert!(
        (gf - fil_closed(&g)).abs() < 1e-12 * gf,
        "{gf} vs {}",
        fil_closed(&g)
    );
    for fam in bounded() {
        let r = hg_gd::run(&data, &cfg(Some(Noise::from(fam)), sigma, clip, steps), 2).unwrap();
        let rf = r.fil.as_ref().unwrap().to_f64();
        assert!(
            rf > 0.0 && rf <= fil_closed(&r),
            "{fam:?}: {rf} vs {}",
            fil_closed(&r)
        );
    }
    // Non-private: no account; loss decreases.
    let np = hg_gd::run(&data, &cfg(None, 1.0, clip, 20), 0).unwrap();
    assert!(np.rdp.is_none() && np.fil.is_none() && np.step_rdp.is_empty());
    assert!(np.loss[20] < 0.5 * np.loss[0]);
}

#[test]
fn runs_are_bit_identical_across_thread_counts() {
    let data = breast_cancer();
    for noise in ["gaussian", "rectified", "truncated"].map(|n| Noise::by_name(n).unwrap()) {
        let c = cfg(Some(noise), 0.05, 0.1, 5);
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| hg_gd::run(&data, &c, 7).unwrap())
        };
        let (a, b) = (run(1), run(3));
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.loss), bits(&b.loss), "{noise:?}");
        assert_eq!(bits(&a.step_rdp), bits(&b.step_rdp), "{noise:?}");
        assert_eq!(a.rdp.unwrap().value, b.rdp.unwrap().value, "{noise:?}");
        // Another seed gives another trajectory.
        let other = hg_gd::run(&data, &c, 8).unwrap();
        assert_ne!(bits(&a.loss), bits(&other.loss), "{noise:?}");
    }
}

#[test]
fn bad_parameters_are_typed_errors_naming_the_parameter() {
    let data = breast_cancer();
    let base = cfg(Some(gaussian()), 0.05, 0.1, 3);
    for (c, name) in [
        (GdConfig { sigma: 0.0, ..base }, "sigma"),
        (GdConfig { clip: -1.0, ..base }, "clip"),
        (GdConfig { steps: 0, ..base }, "steps"),
        (
            GdConfig {
                lr: f64::NAN,
                ..base
            },
            "lr",
        ),
        (GdConfig { alpha: 1.0, ..base }, "alpha"),
        (
            GdConfig {
                lambda: -1.0,
                ..base
            },
            "lambda",
        ),
    ] {
        let e = hg_gd::run(&data, &c, 1).unwrap_err().to_string();
        assert!(e.contains(name), "{name}: {e}");
    }
}

#[test]
fn train_dispatches_on_the_experiment_kind() {
    let dir = std::env::temp_dir().join(format!("dpaudit_hg_gd_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/breast_cancer.csv");
    let spec = dir.join("tiny.toml");
    std::fs::write(
        &spec,
        format!(
            "kind = \"hg_gd\"\nname = \"tiny\"\ndata = {:?}\nclip = 0.1\nlambda = 1e-3\n\
             lr = 0.5\nsteps = 2\nsigmas = [0.05]\nseeds = [1]\n",
            data.display().to_string()
        ),
    )
    .unwrap();
    let md = dpaudit::train::experiment::run_file(&spec, &dir, &Observer::none()).unwrap();
    assert!(md.contains("| truncated |"), "{md}");
    for f in [
        "summary.md",
        "loss_sigma0.05.csv",
        "loss_sigma0.05.svg",
        "rdp_sigma0.05.csv",
    ] {
        assert!(dir.join("tiny").join(f).exists(), "{f}");
    }
    // The noises come from the spec's `noises` (registry names), in that order: the first is
    // the reference of the reductions and the text lists their display names.
    let tiny = |noises: &str| {
        format!(
            "kind = \"hg_gd\"\nname = \"tiny2\"\ndata = {:?}\nclip = 0.1\nlambda = 1e-3\n\
             lr = 0.5\nsteps = 2\nsigmas = [0.05]\nseeds = [1]\nnoises = {noises}\n",
            data.display().to_string()
        )
    };
    std::fs::write(&spec, tiny(r#"["truncated", "gaussian"]"#)).unwrap();
    let md = dpaudit::train::experiment::run_file(&spec, &dir, &Observer::none()).unwrap();
    assert!(
        md.contains("| truncated |") && md.contains("| gaussian |"),
        "{md}"
    );
    assert!(!md.contains("| rectified |"), "{md}");
    assert!(
        md.contains("released with truncated or Gaussian noise"),
        "{md}"
    );
    assert!(md.contains("mean reduction vs truncated"), "{md}");
    let csv = std::fs::read_to_string(dir.join("tiny2").join("rdp_sigma0.05.csv")).unwrap();
    assert!(
        csv.starts_with("t,truncated min,truncated mean,truncated max,gaussian min,"),
        "{csv}"
    );
    // A name that is not a registry family, a family without per-coordinate noise, a repeat or
    // an empty list: typed errors naming the key and the value, before anything runs.
    for (noises, value) in [
        (r#"["gaussian", "nope"]"#, "nope"),
        (r#"["laplace"]"#, "laplace"),
        (r#"["gaussian", "gaussian"]"#, "gaussian"),
        ("[]", "[]"),
    ] {
        std::fs::write(&spec, tiny(noises)).unwrap();
        let e = dpaudit::train::experiment::run_file(&spec, &dir, &Observer::none())
            .unwrap_err()
            .to_string();
        assert!(e.contains("noises") && e.contains(value), "{noises}: {e}");
    }
    std::fs::write(&spec, "kind = \"nope\"\nname = \"x\"\n").unwrap();
    let e = dpaudit::train::experiment::run_file(&spec, &dir, &Observer::none())
        .unwrap_err()
        .to_string();
    assert!(e.contains("kind"), "{e}");
    // An explicit `kind = "hmb"` goes through HMB's own checks.
    std::fs::write(
        &spec,
        "kind = \"hmb\"\nname = \"bad name\"\ndata = \"x.csv\"\nsteps = 1\nseeds = [1]\n\
         splits = []\n",
    )
    .unwrap();
    let e = dpaudit::train::experiment::run_file(&spec, &dir, &Observer::none())
        .unwrap_err()
        .to_string();
    assert!(e.contains("name"), "{e}");
    std::fs::write(
        &spec,
        "kind = \"hg_gd\"\nname = \"x\"\ndata = \"d.csv\"\nclip = 0.1\nlambda = 0\nlr = 0.5\n\
         steps = 2\nsigmas = [0.05]\nseeds = [1]\ntypo = 1\n",
    )
    .unwrap();
    let e = dpaudit::train::experiment::run_file(&spec, &dir, &Observer::none())
        .unwrap_err()
        .to_string();
    assert!(e.contains("typo"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
