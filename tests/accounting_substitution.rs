//! Substitution (replace-one) neighbours of the Poisson-subsampled Gaussian
//! (docs/accounting.md#substitution): the symmetric pair (1−q)N(0,σ²) + qN(1,σ²) against
//! (1−q)N(0,σ²) + qN(−1,σ²).
//!
//! Expected values are independent: mpmath goldens (golden/accounting/subsampled_subst.csv from
//! golden/generate_subsampled_subst.py, 40 certified digits), dp_accounting's PLD with
//! `REPLACE_ONE` (benches/peers_substitution.csv from benches/peers_substitution.py).

use dpaudit::accounting::{self, ComposeOptions, Schedule, SubsampledGaussian};
use dpaudit::divergence::{self, Method, Pair};
use dpaudit::error::Error;
use dpaudit::eval::{evaluate, EvalOptions, Row};
use dpaudit::mechanisms::subsampled::SubsampledSubstPair;
use dpaudit::model::{LinePair, PairModel, Which};
use dpaudit::numeric::mp::{agreement_digits, Certified};
use dpaudit::Scalar;
use rug::Float;

fn s(t: &str) -> Scalar {
    t.parse().unwrap()
}

fn eval(quantity: &str, family: &str, params: &str, digits: u32) -> Result<Certified, Error> {
    let row = Row {
        line: 2,
        id: "t".into(),
        quantity: quantity.into(),
        family: family.into(),
        params: params.into(),
    };
    let opts = EvalOptions {
        digits,
        ..EvalOptions::default()
    };
    evaluate(&row, &opts)
}

fn csv_rows(path: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| {
            // The goldens' last field may be quoted and contain commas: it is never read.
            l.split(',').map(str::to_string).collect()
        })
        .collect()
}

/// Every golden row through `dpaudit eval` (`subsampled_gaussian` with
/// `neighbours=substitution`): one step by the model layer's generic quadrature, the q = 1
/// composition by the certified closed form; ≥ 30 digits on every row.
#[test]
fn goldens_30_digits_through_eval() {
    let rows = csv_rows("golden/accounting/subsampled_subst.csv");
    let mut n = 0;
    for f in &rows {
        let (quantity, q, sigma, steps, param) = (&f[0], &f[1], &f[2], &f[3], &f[4]);
        let mut params = format!("q={q};sigma={sigma};steps={steps};neighbours=substitution");
        if !param.is_empty() {
            params.push(';');
            params.push_str(param);
        }
        let want = Float::with_val(200, Float::parse(&f[5]).unwrap());
        let got = eval(quantity, "subsampled_gaussian", &params, 32)
            .unwrap_or_else(|e| panic!("{quantity} {params}: {e}"));
        let agree = agreement_digits(&got.value, &want);
        assert!(
            agree >= 30.0 && got.digits >= 30,
            "{quantity} {params}: got {} ({agree:.1} digits, certified {})",
            got.value,
            got.digits
        );
        n += 1;
    }
    assert!(n >= 20, "{n}");
}

/// The pair is symmetric: D(Q‖P) (the model's swapped pair, whose densities are the reflected
/// ones) equals the golden D(P‖Q), and the registered one-step family gives the same.
#[test]
fn both_orders_agree_with_the_golden() {
    for f in csv_rows("golden/accounting/subsampled_subst.csv")
        .iter()
        .filter(|f| f[0] == "renyi" || f[0] == "kl")
        .take(5)
    {
        let pair = SubsampledSubstPair::new(s(&f[1]), s(&f[2])).unwrap();
        let swapped = Pair::new(pair.swapped());
        let want = Float::with_val(200, Float::parse(&f[5]).unwrap());
        let got = if f[0] == "renyi" {
            let alpha = s(f[4].trim_start_matches("alpha="));
            divergence::renyi(&swapped, &alpha, 30, Method::Quadrature).unwrap()
        } else {
            divergence::kl(&swapped, 30, Method::Quadrature).unwrap()
        };
        let agree = agreement_digits(&got.value, &want);
        assert!(
            agree >= 30.0,
            "{f:?}: swapped order {} ({agree:.1})",
            got.value
        );
        let params = format!("q={};sigma={}", f[1], f[2]);
        let fam = if f[0] == "renyi" {
            format!("{params};{}", f[4])
        } else {
            params
        };
        let one = eval(&f[0], "subsampled_gaussian_subst", &fam, 30).unwrap();
        assert!(agreement_digits(&one.value, &want) >= 30.0, "{f:?}");
    }
}

/// Model layer: ln P1(x) = ln P2(−x) (reflection), the densities against the mixture formula
/// evaluated here in f64, the log-ratio level points against the f64 log-ratio, and the sampler's
/// means (q and −q) within 6 standard errors.
#[test]
fn model_layer_densities_levels_and_sampler() {
    let (q, sigma) = (0.1f64, 0.8f64);
    let pair = SubsampledSubstPair::new(Scalar::from(q), Scalar::from(sigma)).unwrap();
    let npdf = |x: f64, m: f64| {
        (-(x - m) * (x - m) / (2.0 * sigma * sigma)).exp()
            / (sigma * (2.0 * std::f64::consts::PI).sqrt())
    };
    for x in [-3.0, -1.0, -0.3, 0.0, 0.45, 1.0, 2.5] {
        let xp = Float::with_val(128, x);
        let xm = Float::with_val(128, -x);
        let a = pair.ln_pdf_mp(Which::P1, &xp);
        let b = pair.ln_pdf_mp(Which::P2, &xm);
        assert!(agreement_digits(&a, &b) >= 35.0, "x = {x}");
        let p1 = (1.0 - q) * npdf(x, 0.0) + q * npdf(x, 1.0);
        let p2 = (1.0 - q) * npdf(x, 0.0) + q * npdf(x, -1.0);
        assert!((a.to_f64() - p1.ln()).abs() < 1e-13, "x = {x}");
        let lp2 = pair.ln_pdf_mp(Which::P2, &xp).to_f64();
        assert!((lp2 - p2.ln()).abs() < 1e-13, "x = {x}");
        assert!((pair.llr(x) - (p1.ln() - p2.ln())).abs() < 1e-12, "x = {x}");
    }
    for c in [-4.0, -0.5, 0.0, 0.2, 3.0] {
        for m in [Pair::new(pair.swapped()), Pair::from(pair.clone())] {
            let m = m.line().unwrap();
            let lv = m.llr_level(&Float::with_val(128, c));
            assert_eq!(lv.len(), 1, "c = {c}");
            let got = m.llr(lv[0].to_f64());
            assert!((got - c).abs() < 1e-9, "c = {c}: llr = {got}");
        }
    }
    let mut rng = dpaudit::mechanisms::stream::chunk_rng(7, 0);
    let n = 200_000;
    let mut out = vec![0.0; n];
    for (which, mean) in [(Which::P1, q), (Which::P2, -q)] {
        pair.sample_many(which, &mut rng, &mut out);
        let m = out.iter().sum::<f64>() / n as f64;
        let sd = (sigma * sigma + q * (1.0 - q)).sqrt() / (n as f64).sqrt();
        assert!((m - mean).abs() < 6.0 * sd, "{which:?}: mean {m}");
    }
}

/// dp_accounting 0.6.0's PLD with `REPLACE_ONE` brackets the exact ε(δ) between its optimistic
/// and pessimistic estimates: the exact single-step ε(δ), and over T steps the midpoint of our
/// certified bracket (12 digits), lie inside; the RDP-route ε (a certified upper bound) is at
/// least the bracket's upper end.
#[test]
fn peer_dp_accounting_replace_one() {
    let rows = csv_rows("benches/peers_substitution.csv");
    assert!(rows.len() >= 6);
    for f in &rows {
        let (q, sigma, steps, delta) = (&f[0], &f[1], &f[2], &f[3]);
        let pes: f64 = f[4].parse().unwrap();
        let opt: f64 = f[5].parse().unwrap();
        let params =
            format!("q={q};sigma={sigma};steps={steps};delta={delta};neighbours=substitution");
        if steps == "1" {
            let e = eval("eps_for_delta", "subsampled_gaussian", &params, 20)
                .unwrap()
                .value
                .to_f64();
            assert!(opt <= e && e <= pes, "{f:?}: {e} not in [{opt}, {pes}]");
        } else {
            let m = SubsampledGaussian::new(s(q), s(sigma)).unwrap();
            let sched = Schedule::homogeneous_substitution(&m, steps.parse().unwrap()).unwrap();
            let opts = ComposeOptions {
                digits: 12,
                force_inversion: false,
            };
            let b = accounting::eps_for_delta(&sched, &s(delta), &opts)
                .unwrap()
                .value;
            assert!(b.digits() >= 12, "{f:?}: {} digits", b.digits());
            let mid = b.mid().to_f64();
            assert!(
                opt <= mid && mid <= pes,
                "{f:?}: {mid} not in [{opt}, {pes}]"
            );
            let rdp = eval("rdp_eps_for_delta", "subsampled_gaussian", &params, 12)
                .unwrap()
                .value;
            assert!(
                rdp >= b.hi,
                "{f:?}: RDP upper bound {rdp} below the bracket {}",
                b.hi
            );
        }
    }
}

/// The add/remove pair is the substitution configuration u = e₁, v = 0, so substitution is never
/// smaller: single-step Rényi (both add/remove orders), exact single-step ε(δ), and the RDP route
/// over T steps.
#[test]
fn substitution_is_at_least_add_remove() {
    for (q, sigma) in [("0.01", "1"), ("0.1", "0.8"), ("0.5", "2")] {
        let base = format!("q={q};sigma={sigma}");
        for alpha in ["1.5", "2", "8"] {
            let p = format!("{base};alpha={alpha}");
            let sub = eval("renyi", "subsampled_gaussian_subst", &p, 12)
                .unwrap()
                .value;
            for fam in ["subsampled_gaussian", "subsampled_gaussian_add"] {
                let ar = eval("renyi", fam, &p, 12).unwrap().value;
                assert!(sub > ar, "{fam} {p}: {sub} <= {ar}");
            }
        }
        let p = format!("{base};delta=1e-5");
        let sub = eval("eps_for_delta", "subsampled_gaussian_subst", &p, 12)
            .unwrap()
            .value;
        let ar = eval(
            "eps_for_delta",
            "subsampled_gaussian",
            &format!("{p};steps=1"),
            12,
        )
        .unwrap()
        .value;
        assert!(sub > ar, "{p}: eps {sub} <= {ar}");
        let p = format!("{p};steps=50");
        let sub = eval(
            "rdp_eps_for_delta",
            "subsampled_gaussian",
            &format!("{p};neighbours=substitution"),
            10,
        )
        .unwrap()
        .value;
        let ar = eval("rdp_eps_for_delta", "subsampled_gaussian", &p, 10)
            .unwrap()
            .value;
        assert!(sub > ar, "{p}: RDP eps {sub} <= {ar}");
    }
}

/// Bad input and unsupported requests are typed errors naming the parameter, never a panic or a
/// guessed value.
#[test]
fn bad_input_is_a_typed_error() {
    let e = eval(
        "renyi",
        "subsampled_gaussian",
        "q=0.1;sigma=1;alpha=2;neighbours=replace",
        10,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidParameter { name, .. } if name == "neighbours"),
        "{e}"
    );
    let e = eval(
        "renyi",
        "subsampled_gaussian",
        "q=0;sigma=1;alpha=2;neighbours=substitution",
        10,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidParameter { name, .. } if name == "q"),
        "{e}"
    );
    let e = eval(
        "renyi",
        "subsampled_gaussian_subst",
        "q=0.1;sigma=-1;alpha=2",
        10,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidParameter { name, .. } if name == "sigma"),
        "{e}"
    );
    let e = eval(
        "renyi",
        "subsampled_gaussian_subst",
        "q=0.1;sigma=1;alpha=1",
        10,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidParameter { name, .. } if name == "alpha"),
        "{e}"
    );
}

/// The two-sided bracket over T steps (q < 1), through `eval` and the library: ε(δ) and δ(ε)
/// are consistent inverses (δ just outside the ε bracket's ends straddles the δ asked for), `eval`
/// gives the same figure, and the substitution ε is at least the add/remove ε of the same
/// (q, σ, T). (The two directions are one computation by construction — the pair's symmetry is
/// tested at one step, `both_orders_agree_with_the_golden` — so they are not compared here.)
#[test]
fn composition_bracket() {
    let m = SubsampledGaussian::new(s("0.1"), s("1")).unwrap();
    let sched = Schedule::homogeneous_substitution(&m, 100).unwrap();
    let opts = ComposeOptions {
        digits: 12,
        force_inversion: false,
    };
    let e = accounting::eps_for_delta(&sched, &s("1e-5"), &opts).unwrap();
    assert_eq!(e.route, "mgf inversion");
    let (lo, hi) = (e.value.lo.to_f64(), e.value.hi.to_f64());
    let at = |x: f64| {
        accounting::delta_for_eps(&sched, &s(&format!("{x:e}")), &opts)
            .unwrap()
            .value
    };
    // δ(ε) is decreasing: δ at a point below the bracket is > 1e-5, above it < 1e-5.
    assert!(at(lo * (1.0 - 1e-9)).lo > 1e-5);
    assert!(at(hi * (1.0 + 1e-9)).hi < 1e-5);
    let via_eval = eval(
        "eps_for_delta",
        "subsampled_gaussian",
        "q=0.1;sigma=1;steps=100;delta=1e-5;neighbours=substitution",
        12,
    )
    .unwrap();
    assert!(agreement_digits(&via_eval.value, &e.value.mid()) >= 12.0);
    let ar = accounting::eps_for_delta(&Schedule::homogeneous(&m, 100).unwrap(), &s("1e-5"), &opts)
        .unwrap();
    assert!(
        e.value.lo >= ar.value.hi,
        "{} < {}",
        e.value.lo,
        ar.value.hi
    );
    // Continuity at q = 1 (closed form, the Gaussian with sensitivity 2): q = 1 − 1e-6 through
    // the inversion lands just below it (measured: 91.8171217 vs 91.8172896 at σ = 2, T = 100).
    let near = |q: &str| {
        let m = SubsampledGaussian::new(s(q), s("2")).unwrap();
        let sc = Schedule::homogeneous_substitution(&m, 100).unwrap();
        accounting::eps_for_delta(&sc, &s("1e-5"), &opts).unwrap()
    };
    let (inv, closed) = (near("0.999999"), near("1"));
    assert_eq!(closed.route, "gaussian closed form");
    assert_eq!(inv.route, "mgf inversion");
    let gap = Float::with_val(128, &closed.value.lo - &inv.value.hi).to_f64();
    assert!(gap > 0.0 && gap < 1e-3, "gap {gap}");
}

/// Schedules use one neighbouring relation: mixing is refused (naming `neighbours`), as is an
/// unknown relation in a schedule file; a substitution schedule file parses, and `account`
/// gives the two-sided bracket and the RDP route.
#[test]
fn schedules_and_files() {
    use dpaudit::accounting::file::{account, AccountSpec};
    use dpaudit::accounting::Release;
    let m = SubsampledGaussian::new(s("0.1"), s("1")).unwrap();
    let e = Schedule::new(vec![
        (Release::Subsampled(m.clone()), 10),
        (Release::Substitution(m), 10),
    ])
    .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidParameter { name, .. } if name == "neighbours"),
        "{e}"
    );
    let bad = "delta = \"1e-5\"\n[[release]]\nkind = \"subsampled_gaussian\"\nneighbours = \"swap\"\nq = \"0.1\"\nsigma = \"1\"\ncount = 3\n";
    let e = AccountSpec::parse(bad, "bad").unwrap_err();
    assert!(
        matches!(&e, Error::InvalidParameter { name, .. } if name == "release[0].neighbours"),
        "{e}"
    );
    let text = std::fs::read_to_string("examples/account/substitution.toml").unwrap();
    let spec = AccountSpec::parse(&text, "example").unwrap();
    assert!(spec.schedule.is_substitution());
    let a = account(&spec, None).unwrap();
    // The bracket inside dp_accounting's [optimistic, pessimistic] REPLACE_ONE figures for this
    // case (benches/peers_substitution.csv: q = 0.01, sigma = 1, T = 1000, delta = 1e-5), and
    // the RDP route above it.
    let peer = csv_rows("benches/peers_substitution.csv")
        .into_iter()
        .find(|f| f[0] == "0.01" && f[2] == "1000")
        .unwrap();
    let (pes, opt): (f64, f64) = (peer[4].parse().unwrap(), peer[5].parse().unwrap());
    let b = a.eps.unwrap().value;
    let mid = b.mid().to_f64();
    assert!(opt <= mid && mid <= pes, "{mid} not in [{opt}, {pes}]");
    assert!(a.rdp_cks.unwrap().eps.value >= b.hi);
}

/// σ calibration under substitution: the σ found meets the target (certified ε_hi ≤ target) and
/// σ·(1 − tol) or less misses it (certified ε_lo > target at `sigma_below`), and substitution needs
/// more noise than add/remove for the same (q, T, ε, δ).
#[test]
fn calibration_under_substitution() {
    use dpaudit::accounting::{calibrate_sigma, Relation, Target};
    let (q, steps, target, delta, tol) = (s("0.01"), 1000, 1.5, s("1e-5"), 1e-2);
    let t_sub = Target::new(Relation::Substitution, target, delta.clone()).unwrap();
    let sub = calibrate_sigma(&t_sub, &q, steps, tol).unwrap();
    assert!(sub.eps.hi.to_f64() <= target && sub.eps_below.lo.to_f64() > target);
    assert!(sub.sigma / sub.sigma_below - 1.0 <= tol);
    // The bracket at the σ found is the substitution composition's (not add/remove's).
    let direct = accounting::eps_for_delta(
        &Schedule::homogeneous_substitution(
            &SubsampledGaussian::new(q.clone(), dpaudit::Scalar::from(sub.sigma)).unwrap(),
            steps,
        )
        .unwrap(),
        &delta,
        &ComposeOptions {
            digits: 12,
            force_inversion: false,
        },
    )
    .unwrap();
    assert_eq!(direct.value, sub.eps);
    let t_ar = Target::new(Relation::AddRemove, target, delta.clone()).unwrap();
    let ar = calibrate_sigma(&t_ar, &q, steps, tol).unwrap();
    assert!(ar.sigma < sub.sigma_below, "{} vs {}", ar.sigma, sub.sigma);
}
