//! Accounting: single-step subsampled-Gaussian Rényi divergences against independent mpmath
//! goldens (golden/accounting/subsampled_rdp.csv, 40 certified digits), closed form vs quadrature, the exact
//! q = 1 composition, and the RDP route against the Opacus test value.

use dpaudit::accounting::{self, Order, SubsampledGaussian};
use dpaudit::bounds::conversion::Conversion;
use dpaudit::numeric::mp::agreement_digits;
use dpaudit::Scalar;
use rug::Float;

fn s(t: &str) -> Scalar {
    t.parse().unwrap()
}

#[test]
fn golden_single_step_renyi_30_digits() {
    let text = std::fs::read_to_string("golden/accounting/subsampled_rdp.csv").unwrap();
    let mut n = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let m = SubsampledGaussian::new(s(f[0]), s(f[1])).unwrap();
        let order = if f[3] == "remove" {
            Order::Remove
        } else {
            Order::Add
        };
        let want = Float::with_val(200, Float::parse(f[4]).unwrap());
        let got = accounting::renyi(&m, &s(f[2]), order, 32).unwrap();
        let agree = agreement_digits(&got.value, &want);
        assert!(
            agree >= 30.0,
            "{line}: got {} ({agree:.1} digits)",
            got.value
        );
        n += 1;
    }
    assert!(n >= 13);
}

#[test]
fn binomial_closed_form_agrees_with_quadrature() {
    for (q, sg, a) in [
        ("0.04", "1.5", "3"),
        ("0.01", "1", "32"),
        ("0.3", "0.7", "5"),
    ] {
        let m = SubsampledGaussian::new(s(q), s(sg)).unwrap();
        let c = accounting::renyi(&m, &s(a), Order::Remove, 30).unwrap();
        let qd = accounting::renyi_quad(&m, &s(a), Order::Remove, 30).unwrap();
        let agree = agreement_digits(&c.value, &qd.value);
        assert!(
            agree >= 30.0,
            "q={q} sigma={sg} alpha={a}: {agree:.1} digits"
        );
    }
}

#[test]
fn remove_order_is_the_larger_on_a_grid() {
    for q in ["0.001", "0.1", "0.9"] {
        for sg in ["0.7", "2"] {
            for a in ["1.5", "2", "8"] {
                let m = SubsampledGaussian::new(s(q), s(sg)).unwrap();
                let r = accounting::renyi(&m, &s(a), Order::Remove, 20).unwrap();
                let d = accounting::renyi(&m, &s(a), Order::Add, 20).unwrap();
                assert!(r.value >= d.value, "q={q} sigma={sg} alpha={a}");
            }
        }
    }
}

#[test]
fn full_batch_composition_is_exact_gaussian() {
    // golden/accounting/subsampled_full_batch.csv: independent mpmath bisection on Balle-Wang Thm 8 with
    // mu = sqrt(T)/sigma. (The check value 17.8565868301076138668 agrees with it to 17
    // digits only: it is what a double-precision mu = sqrt(10) gives.)
    let text = std::fs::read_to_string("golden/accounting/subsampled_full_batch.csv").unwrap();
    let mut n = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let steps: u64 = f[1].parse().unwrap();
        let e = accounting::full_batch_eps(&s(f[0]), steps, &s(f[2]), 32).unwrap();
        let want = Float::with_val(200, Float::parse(f[3]).unwrap());
        let agree = agreement_digits(&e.value, &want);
        assert!(agree >= 30.0, "{line}: got {} ({agree:.1} digits)", e.value);
        n += 1;
    }
    assert_eq!(n, 3);
}

// Opacus' test value on its default orders is checked through the composition's RDP route
// (tests/accounting_compose.rs, `rdp_route_reproduces_opacus_on_its_orders`), which is
// cross-checked there against this module's binomial route on the integer orders.

#[test]
fn bad_input_is_a_typed_error() {
    assert!(SubsampledGaussian::new(s("0"), s("1"))
        .unwrap_err()
        .to_string()
        .contains("q = 0"));
    assert!(SubsampledGaussian::new(s("0.1"), s("-1"))
        .unwrap_err()
        .to_string()
        .contains("sigma"));
    let m = SubsampledGaussian::new(s("0.1"), s("1")).unwrap();
    assert!(accounting::renyi(&m, &s("1"), Order::Remove, 20).is_err());
    assert!(accounting::full_batch_eps(&s("1"), 0, &s("1e-5"), 20).is_err());
}

#[test]
fn subsampled_gaussian_law_is_consistent() {
    use dpaudit::mechanisms::subsampled::SubsampledGaussian as Law;
    use dpaudit::mechanisms::ScalarDist;
    use rand::SeedableRng;
    let d = Law::new(0.3.into(), 0.8.into()).unwrap();
    for x in [-3.0, -0.2, 0.5, 1.7, 4.0] {
        // mixture of two N(., 0.64) densities, written out by hand
        let g = |m: f64| {
            (-(x - m) * (x - m) / (2.0 * 0.64)).exp() / (0.8 * (2.0 * std::f64::consts::PI).sqrt())
        };
        let want = 0.7 * g(0.0) + 0.3 * g(1.0);
        assert!((d.pdf(x) - want).abs() <= 1e-15 * want, "pdf({x})");
        assert!((d.ln_pdf(x) - want.ln()).abs() <= 1e-14, "ln_pdf({x})");
        assert!((d.cdf(x) + d.sf(x) - 1.0).abs() < 1e-15);
        let xm = Float::with_val(128, x);
        assert!((d.ln_pdf_mp(&xm).to_f64() - want.ln()).abs() <= 1e-14);
        assert!((d.cdf_mp(&xm).to_f64() - d.cdf(x)).abs() <= 1e-15);
    }
    assert!(Law::new(0.0.into(), 1.0.into()).is_err() && Law::new(0.5.into(), 0.0.into()).is_err());
    // sampler: mean q, seeded; |mean − q| < 5 standard errors (sd ≤ sqrt(0.64 + 0.25))
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut out = vec![0.0; 200_000];
    d.sample_many(&mut rng, &mut out);
    let mean = out.iter().sum::<f64>() / out.len() as f64;
    assert!(
        (mean - 0.3).abs() < 5.0 * (0.89f64 / 2e5).sqrt(),
        "mean {mean}"
    );
}

#[test]
fn rdp_route_continuous_alpha_beats_the_opacus_grid() {
    // RDP is an upper bound on the true epsilon, so it must stay above PRV's certified lower
    // bound 6.758431 (benches/peers_accounting.csv), and optimising over continuous alpha can
    // only improve on the Opacus grid's 7.32911117143.
    let m = SubsampledGaussian::new(s("0.04"), s("1.5")).unwrap();
    let r = accounting::rdp_eps_optimal(
        &m,
        2250,
        &s("1e-5"),
        (1.1, 64.0),
        Conversion::CanonneKamathSteinke,
        10,
    )
    .unwrap();
    let e = r.eps.to_f64();
    assert!(
        e <= 7.32911117143 + 1e-9 && e > 6.758431,
        "{e} at alpha {}",
        r.alpha.f64()
    );
}

/// The same goldens through the model layer: `dpaudit eval` families `subsampled_gaussian`
/// (remove order) and `subsampled_gaussian_add`, integrated by the generic quadrature route of
/// `dpaudit::model`, an implementation independent of the accountant's. Every value it certifies
/// must be right to its digits; it must certify 20 digits on every row except the α = 256 one,
/// whose integrand peaks near x = α, far in the tail (there it must fail, not guess).
#[test]
fn golden_single_step_renyi_through_the_model_layer() {
    use dpaudit::eval::{evaluate, EvalOptions, Row};
    let text = std::fs::read_to_string("golden/accounting/subsampled_rdp.csv").unwrap();
    let opts = EvalOptions {
        digits: 20,
        ..EvalOptions::default()
    };
    let mut certified = 0;
    for (i, line) in text.lines().skip(1).enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        let family = if f[3] == "remove" {
            "subsampled_gaussian"
        } else {
            "subsampled_gaussian_add"
        };
        let row = Row {
            line: i + 2,
            id: format!("sub-{i}"),
            quantity: "renyi".into(),
            family: family.into(),
            params: format!("q={};sigma={};alpha={}", f[0], f[1], f[2]),
        };
        let want = Float::with_val(200, Float::parse(f[4]).unwrap());
        match evaluate(&row, &opts) {
            Ok(got) => {
                let agree = agreement_digits(&got.value, &want);
                assert!(
                    agree >= 20.0,
                    "{line}: got {} ({agree:.1} digits)",
                    got.value
                );
                certified += 1;
            }
            Err(e) => {
                assert_eq!(f[2], "256", "{line}: {e}");
                assert!(e.to_string().contains("cannot certify"), "{e}");
            }
        }
    }
    assert!(certified >= 12, "{certified}");
}

/// A schedule file's numbers are exact decimals however they are written: the TOML float 1e-5,
/// the string "1e-5" and the string "0.00001" give the same δ, exactly 10⁻⁵ (not the double).
#[test]
fn schedule_numbers_are_exact_decimals() {
    use dpaudit::accounting::file::AccountSpec;
    use dpaudit::accounting::Release;
    let spec = |d: &str, q: &str| {
        let t = format!(
            "delta = {d}\n[[release]]\nkind = \"subsampled_gaussian\"\nq = {q}\nsigma = 1\ncount = 10\n"
        );
        AccountSpec::parse(&t, "test").unwrap()
    };
    let exact = Float::with_val(300, Float::parse("1e-5").unwrap());
    for (d, q) in [
        ("1e-5", "0.01"),
        ("\"1e-5\"", "\"0.01\""),
        ("\"0.00001\"", "1e-2"),
    ] {
        let a = spec(d, q);
        assert_eq!(a.delta.as_ref().unwrap().mp(300), exact, "delta = {d}");
        let Release::Subsampled(m) = &a.schedule.parts()[0].0 else {
            panic!("a subsampled release")
        };
        assert_eq!(
            m.q().mp(300),
            Float::with_val(300, Float::parse("0.01").unwrap()),
            "q = {q}"
        );
        assert_eq!(m.sigma().mp(300), 1);
    }
}
