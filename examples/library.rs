//! dpaudit as a library: the three numbers for one mechanism, computed from another crate.
//!
//! Run with `cargo run --release --example library`.

use dpaudit::audit::engine::{run_audit, Selection};
use dpaudit::mechanisms::laplace::LaplacePair;
use dpaudit::mechanisms::rgm::bounds as rgm;
use dpaudit::{divergence, AuditConfig, GaussianMechanism, Method, Pair, Scalar};

fn main() -> dpaudit::Result<()> {
    let s = |t: &str| t.parse::<Scalar>().expect("a decimal");

    // 1. A certified exact value: ε(δ) of the Gaussian mechanism (Δ = 1, σ = 1) at δ = 1e-5,
    //    by the closed form and by quadrature, each carrying the digits it certifies.
    let pair = Pair::gaussian(s("0"), s("1"), s("1"))?;
    let closed = divergence::eps_for_delta(&pair, &s("1e-5"), 25, Method::ClosedForm)?;
    let quad = divergence::eps_for_delta(&pair, &s("1e-5"), 25, Method::Quadrature)?;
    println!(
        "exact eps(1e-5), Gaussian sigma=1: {} ({} digits, closed form)",
        closed.value.to_string_radix(10, Some(25)),
        closed.digits
    );
    println!(
        "                         quadrature: {} ({} digits)",
        quad.value.to_string_radix(10, Some(25)),
        quad.digits
    );

    // 2. A paper's bound with its validity check: HMB Theorem 1 at α = 2, then an α outside
    //    the theorem's range, which is an error that quotes the condition.
    let (eta, gamma) = (s("0.1"), s("0.01"));
    rgm::check_theorem1_setup(&eta, &s("1"), &gamma, &s("10"), &s("2"))?;
    let thm1 = rgm::theorem1_eps(&eta, &gamma, 10, &s("2"), 20)?;
    println!(
        "HMB Theorem 1, eta=0.1 gamma=0.01 d=10 alpha=2: eps = {}",
        thm1.to_f64()
    );
    match rgm::theorem1_eps(&eta, &gamma, 10, &s("6"), 20) {
        Ok(_) => println!("alpha = 6 accepted?!"),
        Err(e) => println!("alpha = 6: {e}"),
    }

    // 3. A seeded audit: the lower bound stays below the exact value.
    let mech = GaussianMechanism::new(1.0, 1.0)?;
    let cfg = AuditConfig {
        samples_per_side: 1_000_000,
        delta: 1e-5,
        seed: 42,
        selection: Selection::HeldOut {
            pilot_samples: 100_000,
        },
        ..AuditConfig::default()
    };
    let audit = run_audit(&mech, &cfg)?;
    println!(
        "audit lower bound (95%, 1e6 samples per side, seed 42): {:.6} <= exact {:.6}",
        audit.eps_lb,
        closed.to_f64()
    );

    // A model family from the registry (Laplace, scale 1, sensitivity 1): its exact ε(δ)
    // through the same divergence API.
    let lap = Pair::from(LaplacePair::new(s("0"), s("1"), s("1"))?);
    let e = divergence::eps_for_delta(&lap, &s("1e-5"), 12, Method::Auto)?;
    println!(
        "{lap}: exact eps(1e-5) = {} ({} digits)",
        e.to_f64(),
        e.digits
    );
    Ok(())
}
