//! The seed-claims table (issue 11 §3): every quantitative or checkable claim of the five seed
//! files, with dpaudit's own figure for it and a verdict.
//!
//! [`claims`] recomputes every row from the crate (bounds, certified divergences, accounting):
//! nothing but the sources' *stated* numbers is typed in, and each verdict is a comparison of a
//! computed figure with what the source states (a number at the precision of its printed digits,
//! or an inequality). A row whose computation errors gets [`Verdict::NotCheckable`] with the
//! error as its reason; [`claims`] never panics. The rows are plain serde-serialisable data for
//! the `claims` command and the report (`reports/claims.md` and a CSV), which format them.
//!
//! Sources: seed 003 (HMB, the Relative Gaussian Mechanism), 001 (Hu & Guo, bounded-support
//! Gaussian), 002 (informal DP-SGD notes), 004 (OSO-DPSGD); see `docs/formulas.md` §5, §8, §11–§13.

use crate::bounds::conversion::mironov_mp;
use crate::bounds::gaussian::{dp_delta, dp_eps, rdp_eps};
use crate::bounds::rgm::{
    corollary1_eps, eq6_eps, lemma1_ratio_bounds, optimized_dp_eps, relative_sensitivity_holds,
    tcdp, theorem1_alpha_sup, theorem1_eps, TcdpForm,
};
use crate::bounds::rho::rho_bar;
use crate::compare::fmt::fmt_sig;
use crate::divergence::{self, Location, Method, Pair};
use crate::error::Result;
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
use crate::train::hg::{BoxMechanism, Family as HgFamily};
use rug::ops::Pow;
use rug::Float;
use serde::Serialize;
use std::fmt;

/// Digits certified for every figure of the table (modest, to keep [`claims`] fast).
pub const DIGITS: u32 = 15;

/// Working precision (bits) of the comparisons made here.
const P: u32 = 256;

/// The verdict on one claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// The computed figure agrees with the claim (to its stated digits / the inequality holds).
    Holds,
    /// The computed figure contradicts the claim.
    Fails,
    /// The claim as printed is wrong, but the surrounding text fixes what was meant.
    Misprint,
    /// dpaudit cannot compute what is needed to decide (reason given).
    NotCheckable,
}

impl Verdict {
    /// The text used in the table: "holds", "fails", "misprint", "not checkable here".
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Fails => "fails",
            Verdict::Misprint => "misprint",
            Verdict::NotCheckable => "not checkable here",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One row of the claims table.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    /// Stable identifier, e.g. `hmb-cor1-example`.
    pub id: &'static str,
    /// Where the claim is stated: seed file, section, equation.
    pub source: String,
    /// What the source claims (quoted or paraphrased, with its number).
    pub statement: String,
    /// dpaudit's figure, computed when [`claims`] runs.
    pub figure: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Why, with the numbers.
    pub reason: String,
    /// A shell command that reproduces the figure.
    pub command: String,
}

/// What a row's computation returns: (figure, verdict, reason).
type Outcome = Result<(String, Verdict, String)>;

/// Builds a row; an error of the computation becomes a "not checkable here" row.
fn row(
    id: &'static str,
    source: &str,
    statement: &str,
    command: String,
    compute: impl FnOnce() -> Outcome,
) -> Claim {
    let (figure, verdict, reason) = match compute() {
        Ok(t) => t,
        Err(e) => (
            "not computed (error)".to_string(),
            Verdict::NotCheckable,
            format!("the computation failed: {e}"),
        ),
    };
    Claim {
        id,
        source: source.to_string(),
        statement: statement.to_string(),
        figure,
        verdict,
        reason,
        command,
    }
}

/// Parses a decimal literal (all literals here are valid).
fn sc(s: &str) -> Scalar {
    s.parse().expect("decimal literal")
}

/// A Float at the working precision.
fn fl(x: f64) -> Float {
    Float::with_val(P, x)
}

/// 15 significant digits.
fn n(x: &Float) -> String {
    fmt_sig(x.to_f64(), 15)
}

/// 6 significant digits (for reasons).
fn n6(x: &Float) -> String {
    fmt_sig(x.to_f64(), 6)
}

/// A certified value with its digits.
fn cert(c: &Certified) -> String {
    format!("{} ({} digits certified)", n(&c.value), c.digits)
}

/// Whether `x` rounds to the stated number `stated` printed with `decimals` decimals:
/// |x − stated| ≤ ½·10^−decimals.
fn rounds_to(x: &Float, stated: &str, decimals: i32) -> bool {
    let s = Float::with_val(P, Float::parse(stated).expect("decimal literal"));
    let half = Float::with_val(P, 10u32).pow(-decimals) / 2u32;
    Float::with_val(P, x - &s).abs() <= half
}

/// `a ≤ b·(1 + 10⁻¹²)`: an inequality between certified values, allowing for their rounding.
fn le(a: &Float, b: &Float) -> bool {
    let slack = Float::with_val(P, b.abs_ref()) * fl(1e-12);
    *a <= Float::with_val(P, b + slack)
}

/// `printf '…' | dpaudit eval -` for the given rows (id, quantity, family, params).
fn eval_cmd(rows: &[(&str, &str, &str, String)]) -> String {
    let mut s = String::from("printf 'id,quantity,family,params\\n");
    for (id, q, fam, params) in rows {
        s.push_str(&format!("{id},{q},{fam},{params}\\n"));
    }
    s.push_str("' | dpaudit eval -");
    s
}

/// The cargo test that recomputes and prints one row.
fn test_cmd(id: &str) -> String {
    format!(
        "CLAIM={id} cargo test --release --lib compare::claims::tests::print_claim -- --nocapture"
    )
}

/// Decimal text of a Float (for commands): 40 significant digits.
fn dec(x: &Float) -> String {
    x.to_string_radix(10, Some(40))
}

/// The exact D_α of both orders of an RGM pair (n1, n2, dist), the larger one.
fn rgm_max_renyi(
    d: u32,
    gamma: &str,
    sigma2: &str,
    n1: &str,
    n2: &str,
    dist: &str,
    alpha: &Scalar,
) -> Result<Certified> {
    let pair = Pair::rgm(d, sc(gamma), sc(sigma2), sc(n1), sc(n2), sc(dist))?;
    let a = divergence::renyi(&pair, alpha, DIGITS, Method::Auto)?;
    let b = divergence::renyi(&pair.swapped(), alpha, DIGITS, Method::Auto)?;
    Ok(if a.value >= b.value { a } else { b })
}

// ---------------------------------------------------------------------------------------------
// HMB (seed 003)
// ---------------------------------------------------------------------------------------------

const HMB_EX: &str = "eta=0.001;gamma=0.0001;d=10;delta=1e-8";

fn hmb_example() -> (Scalar, Scalar, u32, Scalar) {
    (sc("0.001"), sc("0.0001"), 10, sc("1e-8"))
}

fn hmb_rows(out: &mut Vec<Claim>) {
    out.push(row(
        "hmb-cor1-example",
        "seed 003 (HMB), §4, example after Corollary 1 (eq. (44))",
        "for eta = 1e-3, d = 10, delta = 1e-8, gamma = 100 eta^2 the RGM is (eps, delta)-DP with eps ≈ 0.86",
        eval_cmd(&[("cor1", "rgm_corollary1_eps", "rgm", HMB_EX.into())]),
        || {
            let (eta, gamma, d, delta) = hmb_example();
            let e = corollary1_eps(&eta, &gamma, d, &delta, DIGITS)?;
            let chi = tcdp(TcdpForm::Theorem1, &eta, &gamma, d, DIGITS)?.rho;
            let root = Float::with_val(P, &e.value - &chi.value);
            let ok = rounds_to(&e.value, "0.86", 2);
            let diff = Float::with_val(P, &e.value - 0.86f64);
            Ok((
                cert(&e),
                if ok { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "Corollary 1 gives eps = chi + 2 sqrt(chi log(1/delta)) = {}, which does not round to \
                     0.86 (off by {}, more than the 0.005 of the stated digits); 0.86 is the term \
                     2 sqrt(chi log(1/delta)) = {} alone (chi = {}): the chi term was dropped or 0.870 misrounded",
                    n6(&e.value),
                    n6(&diff),
                    n6(&root),
                    n6(&chi.value)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-cor1-example-condition",
        "seed 003 (HMB), §4, Corollary 1 assumption, applied to its example",
        "the example satisfies Corollary 1's assumption 1/gamma >= 4(2+eta)^2 log(1/delta) (or d >= 4 log(1/delta)/(1+eta)^2)",
        eval_cmd(&[("cor1", "rgm_corollary1_eps", "rgm", HMB_EX.into())]),
        || {
            let (eta, gamma, d, delta) = hmb_example();
            let ok = corollary1_eps(&eta, &gamma, d, &delta, DIGITS).is_ok();
            let l = Float::with_val(P, delta.mp(P).recip().ln());
            let rhs = Float::with_val(P, eta.mp(P) + 2u32).square() * &l * 4u32;
            let inv_g = Float::with_val(P, gamma.mp(P).recip());
            let holds = ok && inv_g >= rhs;
            Ok((
                format!("1/gamma = {} vs 4(2+eta)^2 log(1/delta) = {}", n(&inv_g), n(&rhs)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "1/gamma = {} >= {}: the first alternative holds, and dpaudit's checked corollary1_eps accepts the example",
                    n6(&inv_g),
                    n6(&rhs)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-eq45-example",
        "seed 003 (HMB), App. A.5, eq. (45) (minimum over alpha of eps(alpha) + log(1/delta)/(alpha-1)), at the Corollary 1 example",
        "eq. (45) is at most the Corollary 1 value (the corollary upper-bounds it, eqs. (46)-(47)); our notes (MATH.md §5.3) give 0.6507 at alpha* = 54.98",
        eval_cmd(&[
            ("eq45", "rgm_optimized_dp_eps", "rgm", HMB_EX.into()),
            ("cor1", "rgm_corollary1_eps", "rgm", HMB_EX.into()),
        ]),
        || {
            let (eta, gamma, d, delta) = hmb_example();
            let (e45, astar) = optimized_dp_eps(&eta, &gamma, d, &delta, DIGITS)?;
            let cor = corollary1_eps(&eta, &gamma, d, &delta, DIGITS)?;
            // Cross-check: Theorem 1 at alpha* converted by Mironov Prop. 3.
            let a = Scalar::from_float(&astar.value);
            let th = theorem1_eps(&eta, &gamma, d, &a, DIGITS)?;
            let g = mironov_mp(&th.value, &astar.value, &delta.mp(P))?;
            let sup = theorem1_alpha_sup(&eta, DIGITS)?;
            let agree = Float::with_val(P, &g - &e45.value).abs() <= Float::with_val(P, &e45.value * 1e-12f64);
            let holds = le(&e45.value, &cor.value)
                && astar.value < sup.value
                && agree
                && rounds_to(&e45.value, "0.6507", 4);
            Ok((
                format!("{} at alpha* = {}", cert(&e45), n(&astar.value)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "eq. (45) = {} <= Corollary 1 = {}; alpha* = {} is inside Theorem 1's range alpha < {}; \
                     Theorem 1 at alpha* plus log(1/delta)/(alpha*-1) gives {} (same value); rounds to the notes' 0.6507",
                    n6(&e45.value),
                    n6(&cor.value),
                    n6(&astar.value),
                    n6(&sup.value),
                    n6(&g)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-eq47-misprint",
        "seed 003 (HMB), App. A.5, last line of eq. (47)",
        "g(alpha) <= chi + sqrt(chi log(1/delta)) + sqrt(chi log(1/delta)) <= chi + 2 sqrt(chi) log(1/delta)",
        test_cmd("hmb-eq47-misprint"),
        || {
            let (eta, gamma, d, delta) = hmb_example();
            let cor = corollary1_eps(&eta, &gamma, d, &delta, DIGITS)?;
            let chi = tcdp(TcdpForm::Theorem1, &eta, &gamma, d, DIGITS)?.rho.value;
            let l = Float::with_val(P, delta.mp(P).recip().ln());
            let printed = Float::with_val(P, &chi + Float::with_val(P, chi.sqrt_ref()) * &l * 2u32);
            let meant = Float::with_val(P, &chi + Float::with_val(P, &chi * &l).sqrt() * 2u32);
            let meant_is_cor = Float::with_val(P, &meant - &cor.value).abs()
                <= Float::with_val(P, &cor.value * 1e-12f64);
            let printed_differs = !rounds_to(&printed, &dec(&cor.value), 3);
            let v = if meant_is_cor && printed_differs {
                Verdict::Misprint
            } else {
                Verdict::Holds
            };
            Ok((
                format!(
                    "printed chi + 2 sqrt(chi) log(1/delta) = {}; chi + 2 sqrt(chi log(1/delta)) = {}",
                    n(&printed),
                    n(&meant)
                ),
                v,
                format!(
                    "at the Corollary 1 example the printed last line is {} while the line before it sums to \
                     chi + 2 sqrt(chi log(1/delta)) = {}, which is the Corollary 1 statement (eq. (44), {}): the \
                     radical must cover log(1/delta). (The printed bound is weaker, not false, whenever log(1/delta) >= 1.)",
                    n6(&printed),
                    n6(&meant),
                    n6(&cor.value)
                ),
            ))
        },
    ));

    // Theorem 1 against the exact divergence on the extreme feasible pair.
    let th1_pair = ("10", "0.01", "96", "1000000", "1010000", "10000");
    out.push(row(
        "hmb-thm1-exact",
        "seed 003 (HMB), §4, Theorem 1, eq. (5)",
        "RGM_{gamma,sigma} is (alpha, eps(alpha))-RDP with eps(alpha) = alpha eta^2/(2 gamma) (1 + gamma d (2+eta)^2 (1+eta)^2)/(1 - eta(alpha-1)(2+eta))",
        eval_cmd(&[
            ("bound", "rgm_theorem1_eps", "rgm", "eta=0.01;gamma=0.01;d=10;alpha=5".into()),
            ("p12", "renyi", "rgm", "d=10;gamma=0.01;sigma2=96;n1=1000000;n2=1010000;dist=10000;eta=0.01;R=1;alpha=5".into()),
            ("p21", "renyi", "rgm", "d=10;gamma=0.01;sigma2=96;n1=1010000;n2=1000000;dist=10000;eta=0.01;R=1;alpha=5".into()),
        ]),
        move || {
            let (d, gamma, sigma2, n1, n2, dist) = th1_pair;
            let (eta, alpha) = (sc("0.01"), sc("5"));
            let feasible = relative_sensitivity_holds(&eta, &sc("1"), &sc(n1), &sc(n2), &sc(dist));
            let bound = theorem1_eps(&eta, &sc(gamma), 10, &alpha, DIGITS)?;
            let _ = d;
            let exact = rgm_max_renyi(10, gamma, sigma2, n1, n2, dist, &alpha)?;
            let ratio = Float::with_val(P, &exact.value / &bound.value);
            let holds = feasible && le(&exact.value, &bound.value);
            Ok((
                format!("exact D_5 = {} vs eps(5) = {}", n(&exact.value), n(&bound.value)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "eta = 0.01, R = 1, gamma = 0.01, d = 10, alpha = 5, sigma^2 at its minimum 96; on the extreme \
                     feasible pair (collinear, ||r1|| = 1e6, dist^2 = eta^2 ||r1||^2) the exact divergence (larger \
                     order) is {} <= eps(5) = {} (ratio {})",
                    n6(&exact.value),
                    n6(&bound.value),
                    n6(&ratio)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-thm1-range",
        "seed 003 (HMB), §4, Theorem 1, condition 1 <= alpha < (1+eta)^2/(2 eta + eta^2) (eqs. (14)-(15))",
        "Theorem 1's bound holds for alpha below (1+eta)^2/(2 eta + eta^2); the range is needed",
        eval_cmd(&[
            ("sup_out", "rgm_theorem1_eps", "rgm", "eta=0.01;gamma=0.01;d=10;alpha=51".into()),
            ("exact_out", "renyi", "rgm", "d=10;gamma=0.01;sigma2=1e-8;n1=1.01;n2=1;dist=0.01;alpha=51".into()),
            ("exact_in", "renyi", "rgm", "d=10;gamma=0.01;sigma2=1e-8;n1=1.01;n2=1;dist=0.01;alpha=50".into()),
            ("bound_in", "rgm_theorem1_eps", "rgm", "eta=0.01;gamma=0.01;d=10;alpha=50".into()),
        ]),
        || {
            let eta = sc("0.01");
            let gamma = sc("0.01");
            let sup = theorem1_alpha_sup(&eta, DIGITS)?;
            let (a_in, a_out) = (sc("50"), sc("51"));
            let in_range = sup.value > 50 && sup.value < 51;
            let refused = theorem1_eps(&eta, &gamma, 10, &a_out, DIGITS).is_err();
            let pair = Pair::rgm(10, gamma.clone(), sc("1e-8"), sc("1.01"), sc("1"), sc("0.01"))?;
            let out_d = divergence::renyi(&pair, &a_out, DIGITS, Method::Auto)?;
            let in_d = rgm_max_renyi(10, "0.01", "1e-8", "1.01", "1", "0.01", &a_in)?;
            let in_b = theorem1_eps(&eta, &gamma, 10, &a_in, DIGITS)?;
            let holds = in_range
                && refused
                && out_d.value.is_infinite()
                && le(&in_d.value, &in_b.value);
            Ok((
                format!(
                    "sup = {}; exact D_51 = {}, exact D_50 = {} <= eps(50) = {}",
                    n(&sup.value),
                    n(&out_d.value),
                    n(&in_d.value),
                    n(&in_b.value)
                ),
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "eta = 0.01 (R = 0, sigma^2 = 1e-8, ||r1|| = 1.01, ||r2|| = 1, a feasible pair with variance \
                     ratio ~(1+eta)^2): the range ends at {}; just inside (alpha = 50) the exact D is {} <= {}; \
                     just outside (alpha = 51) the exact D is {} (sigma_alpha^2 <= 0), so no finite bound exists \
                     and the range cannot be widened; dpaudit refuses alpha = 51",
                    n6(&sup.value),
                    n6(&in_d.value),
                    n6(&in_b.value),
                    n(&out_d.value)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-thm1-eps-lower",
        "seed 003 (HMB), §4, remark after Theorem 1",
        "Theorem 1 implies eps >= 2 alpha eta^2 d",
        eval_cmd(&[("bound", "rgm_theorem1_eps", "rgm", "eta=0.001;gamma=0.0001;d=10;alpha=2".into())]),
        || {
            let (eta, gamma, d, _) = hmb_example();
            let mut worst = Float::with_val(P, f64::INFINITY);
            let mut fig = String::new();
            for (g, a) in [(&gamma, "2"), (&sc("1e6"), "2"), (&sc("1e6"), "400")] {
                let e = theorem1_eps(&eta, g, d, &sc(a), DIGITS)?;
                let lb = Float::with_val(P, eta.mp(P).square()) * sc(a).mp(P) * (2 * d);
                let r = Float::with_val(P, &e.value / &lb);
                if fig.is_empty() {
                    fig = format!("eps(2) = {} vs 2 alpha eta^2 d = {}", n(&e.value), n(&lb));
                }
                if r < worst {
                    worst = r;
                }
            }
            let holds = worst >= 1;
            Ok((
                fig,
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "eta = 1e-3, d = 10 with gamma = 1e-4 and 1e6 and alpha = 2, 400: the smallest ratio \
                     eps(alpha)/(2 alpha eta^2 d) is {} >= 1 (eps(alpha) >= alpha eta^2 d (2+eta)^2 (1+eta)^2 / 2)",
                    n6(&worst)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-eq6",
        "seed 003 (HMB), §4, eq. (6)",
        "with gamma = alpha eta^2/(2 eps*) and sigma^2 = gamma R^2/eta^2, Theorem 1 reads eps = eps*/(1 - eta(alpha-1)(2+eta)) + alpha d eta^2 (2+eta)^2 (1+eta)^2/(2(1 - eta(alpha-1)(2+eta)))",
        test_cmd("hmb-eq6"),
        || {
            let (es, eta, alpha) = (sc("0.5"), sc("0.01"), sc("2"));
            let e6 = eq6_eps(&es, &eta, 10, &alpha, DIGITS)?;
            let g = Float::with_val(P, alpha.mp(P) * eta.mp(P).square()) / (es.mp(P) * 2u32);
            let e5 = theorem1_eps(&eta, &Scalar::from_float(&g), 10, &alpha, DIGITS)?;
            let agree = Float::with_val(P, &e6.value - &e5.value).abs()
                <= Float::with_val(P, &e5.value * 1e-13f64);
            Ok((
                format!("eq. (6) = {}; eq. (5) = {}", n(&e6.value), n(&e5.value)),
                if agree { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "eps* = 0.5, eta = 0.01, d = 10, alpha = 2 (gamma = {}): eq. (6) and eq. (5) agree to {} digits",
                    n6(&g),
                    DIGITS
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-a4-tightness",
        "seed 003 (HMB), §4 'Tightness' and App. A.4, eqs. (39)-(42)",
        "the second (dimension) term of Theorem 1 is tight up to a factor 1/2 in the limit of small eta",
        eval_cmd(&[
            ("exact", "renyi", "gaussian_dd", "dist=0;sigma1=1.0001;sigma2=1;d=1;alpha=2".into()),
            ("b1", "rgm_theorem1_eps", "rgm", "eta=0.0001;gamma=1;d=1;alpha=2".into()),
            ("b2", "rgm_theorem1_eps", "rgm", "eta=0.0001;gamma=1;d=2;alpha=2".into()),
        ]),
        || {
            let alpha = sc("2");
            let mut ratios = Vec::new();
            for eta in ["0.01", "0.001", "0.0001"] {
                let s2 = Float::with_val(P, sc(eta).mp(P) + 1u32);
                let pair = Pair::gaussian_dd(sc("0"), Scalar::from_float(&s2), sc("1"), 1)?;
                let a = divergence::renyi(&pair, &alpha, DIGITS, Method::Auto)?;
                let b = divergence::renyi(&pair.swapped(), &alpha, DIGITS, Method::Auto)?;
                let exact = if a.value > b.value { a.value } else { b.value };
                let b1 = theorem1_eps(&sc(eta), &sc("1"), 1, &alpha, DIGITS)?;
                let b2 = theorem1_eps(&sc(eta), &sc("1"), 2, &alpha, DIGITS)?;
                let per_dim = Float::with_val(P, &b2.value - &b1.value);
                ratios.push((eta, Float::with_val(P, exact / per_dim)));
            }
            let last = &ratios[2].1;
            let increasing = ratios[0].1 < ratios[1].1 && ratios[1].1 < ratios[2].1;
            let holds = increasing && Float::with_val(P, last - 0.5f64).abs() < 1e-3;
            let list: Vec<String> = ratios.iter().map(|(e, r)| format!("eta = {e}: {}", n6(r))).collect();
            Ok((
                format!("exact/bound per dimension at eta = 1e-4, alpha = 2: {}", n(last)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "ratio of the exact per-dimension Lemma 2 term at variance ratio (1+eta)^2 (larger order) to the \
                     per-dimension term of eq. (5), alpha = 2: {}; it increases to 1/2 as eta -> 0",
                    list.join(", ")
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-tcdp-s41",
        "seed 003 (HMB), §4 'Truncated Concentrated DP' after Theorem 1",
        "Theorem 1 can directly be turned into a (eta^2[1/gamma + d(2+eta)^2(1+eta)^2], 1 + (2 eta(2+eta))^-1)-tCDP result",
        test_cmd("hmb-tcdp-s41"),
        || {
            let (eta, gamma, d) = (sc("0.01"), sc("0.01"), 100u32);
            let t = tcdp(TcdpForm::Theorem1, &eta, &gamma, d, DIGITS)?;
            // eps(alpha)/alpha increases in alpha: check it at alpha just below omega.
            let a = Float::with_val(P, &t.omega.value - 1e-9f64);
            let e = theorem1_eps(&eta, &gamma, d, &Scalar::from_float(&a), DIGITS)?;
            let per = Float::with_val(P, &e.value / &a);
            let holds = le(&per, &t.rho.value);
            Ok((
                format!("rho = {}, omega = {}; eps(alpha)/alpha at alpha = omega - 1e-9: {}", n(&t.rho.value), n(&t.omega.value), n(&per)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "eta = 0.01, gamma = 0.01, d = 100: eps(alpha)/alpha of eq. (5) increases with alpha and is {} <= rho = chi = {} \
                     just below omega (the denominator of eq. (5) is >= 1/2 on (1, omega))",
                    n6(&per),
                    n6(&t.rho.value)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-a6-second-tcdp",
        "seed 003 (HMB), App. A.6, last display ('Alternatively, ...')",
        "Theorem 1 gives a (eta^2/gamma + eta^2 d (2+eta)^2/2], 1 + (2 eta(2+eta))^-1)-tCDP result, using alpha - 1 < (2 eta + eta^2)^-1 => [1 - eta(alpha-1)(2+eta)]^-1 <= 2",
        test_cmd("hmb-a6-second-tcdp"),
        || {
            let (eta, gamma, d) = (sc("0.01"), sc("0.01"), 100u32);
            let t = tcdp(TcdpForm::Theorem1, &eta, &gamma, d, DIGITS)?;
            let e = eta.mp(P);
            let e2 = Float::with_val(P, e.square_ref());
            let rho_a6 = Float::with_val(P, &e2 / gamma.mp(P))
                + Float::with_val(P, &e + 2u32).square() * &e2 * d / 2u32;
            // An alpha inside (1, omega): 90% of the way to omega.
            let am1 = Float::with_val(P, &t.omega.value - 1u32) * 0.9f64;
            let a = Float::with_val(P, &am1 + 1u32);
            let eps = theorem1_eps(&eta, &gamma, d, &Scalar::from_float(&a), DIGITS)?;
            let per = Float::with_val(P, &eps.value / &a);
            let fails = !le(&per, &rho_a6);
            Ok((
                format!("A.6 rho = {}; eq. (5) eps(alpha)/alpha = {} at alpha = {}", n(&rho_a6), n(&per), n(&a)),
                if fails { Verdict::Fails } else { Verdict::Holds },
                format!(
                    "eta = 0.01, gamma = 0.01, d = 100: at alpha = {} < omega = {} eq. (5) only gives D_alpha/alpha <= {}, \
                     above the stated rho = {}: the form does not follow from eq. (5); eliminating alpha as described gives \
                     the §4.1 form rho = chi = {} (row hmb-tcdp-s41), and the stated step needs alpha - 1 <= (2(2 eta + eta^2))^-1",
                    n6(&a),
                    n6(&t.omega.value),
                    n6(&per),
                    n6(&rho_a6),
                    n6(&t.rho.value)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-a6-eq50",
        "seed 003 (HMB), App. A.6, eq. (50)",
        "|g(x) - g(y)| <= log((1+eta)^2) <= 2 eta, so Delta_g = 2 eta",
        test_cmd("hmb-a6-eq50"),
        || {
            let mut worst = Float::with_val(P, 0u32);
            for eta in ["0.001", "0.01", "0.1", "0.24"] {
                let (_, hi) = lemma1_ratio_bounds(&sc(eta), DIGITS)?;
                let r = Float::with_val(P, hi.value.ln_ref()) / (sc(eta).mp(P) * 2u32);
                if r > worst {
                    worst = r;
                }
            }
            let holds = worst <= 1;
            Ok((
                format!("max of log((1+eta)^2)/(2 eta) over eta in {{1e-3, 1e-2, 0.1, 0.24}}: {}", n(&worst)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "log((1+eta)^2) = 2 log(1+eta) <= 2 eta; the largest ratio on the grid is {} (Lemma 1's ratio bound (1+eta)^2 from dpaudit)",
                    n6(&worst)
                ),
            ))
        },
    ));

    // A.6 with Proposition 4 (Gaussian smooth sensitivity): d = 1 pair at the boundary.
    let gss_pair = ("0.01", "100", "1000000", "1010000", "10000");
    out.push(row(
        "hmb-a6-gss-d1",
        "seed 003 (HMB), App. A.6, Proposition 4 applied to the RGM (eqs. (49)-(51))",
        "for d = 1 and sigma^2 = gamma R^2/eta^2, RGM_{gamma,sigma} is (4 eta^2 + eta^2/gamma, 1/(4 eta))-tCDP",
        eval_cmd(&[
            ("p12", "renyi", "rgm", "d=1;gamma=0.01;sigma2=100;n1=1000000;n2=1010000;dist=10000;eta=0.01;R=1;alpha=20".into()),
            ("p21", "renyi", "rgm", "d=1;gamma=0.01;sigma2=100;n1=1010000;n2=1000000;dist=10000;eta=0.01;R=1;alpha=20".into()),
        ]),
        move || {
            let (gamma, sigma2, n1, n2, dist) = gss_pair;
            let eta = sc("0.01");
            let t = tcdp(TcdpForm::GaussianSmoothSensitivity, &eta, &sc(gamma), 1, DIGITS)?;
            let mut worst = Float::with_val(P, 0u32);
            for a in ["1.5", "2", "5", "20", "24.9"] {
                let ex = rgm_max_renyi(1, gamma, sigma2, n1, n2, dist, &sc(a))?;
                let r = Float::with_val(P, &ex.value / (sc(a).mp(P) * &t.rho.value));
                if r > worst {
                    worst = r;
                }
            }
            let holds = worst <= 1;
            Ok((
                format!("rho = {}, omega = {}; max over alpha of D_alpha/(rho alpha) = {}", n(&t.rho.value), n(&t.omega.value), n(&worst)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "eta = 0.01, gamma = 0.01, R = 1, sigma^2 = 100, d = 1, extreme feasible pair (||r1|| = 1e6, collinear): \
                     exact D_alpha <= rho alpha at alpha = 1.5, 2, 5, 20, 24.9 (< omega = 25); largest ratio {}",
                    n6(&worst)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-a6-gss-dimension",
        "seed 003 (HMB), App. A.6, closing paragraph",
        "Proposition 4 recovers Theorem 1 only if R(x) is real (d = 1); Theorem 1 is what extends to R^d",
        eval_cmd(&[
            ("p12", "renyi", "rgm", "d=1000;gamma=0.01;sigma2=100;n1=1000000;n2=1010000;dist=10000;eta=0.01;R=1;alpha=2".into()),
            ("p21", "renyi", "rgm", "d=1000;gamma=0.01;sigma2=100;n1=1010000;n2=1000000;dist=10000;eta=0.01;R=1;alpha=2".into()),
            ("thm1", "rgm_theorem1_eps", "rgm", "eta=0.01;gamma=0.01;d=1000;alpha=2".into()),
        ]),
        move || {
            let (gamma, sigma2, n1, n2, dist) = gss_pair;
            let eta = sc("0.01");
            let alpha = sc("2");
            let t = tcdp(TcdpForm::GaussianSmoothSensitivity, &eta, &sc(gamma), 1, DIGITS)?;
            let refused = tcdp(TcdpForm::GaussianSmoothSensitivity, &eta, &sc(gamma), 1000, DIGITS).is_err();
            let ex = rgm_max_renyi(1000, gamma, sigma2, n1, n2, dist, &alpha)?;
            let gss = Float::with_val(P, &t.rho.value * 2u32);
            let th = theorem1_eps(&eta, &sc(gamma), 1000, &alpha, DIGITS)?;
            let holds = refused && ex.value > gss && le(&ex.value, &th.value);
            Ok((
                format!("d = 1000, alpha = 2: exact D = {} vs GSS rho alpha = {} vs eq. (5) = {}", n(&ex.value), n(&gss), n(&th.value)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "the restriction is real: at d = 1000 the same extreme pair has D_2 = {} > 2 rho_GSS = {}, so the \
                     GSS guarantee would be violated, while Theorem 1 ({}) still holds; dpaudit refuses the A.6 form for d != 1",
                    n6(&ex.value),
                    n6(&gss),
                    n6(&th.value)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-a6-gss-eta",
        "seed 003 (HMB), App. A.6, paragraph after the tCDP forms",
        "the guarantees obtained (Proposition 4 vs Theorem 1) are very similar for eta < 1",
        test_cmd("hmb-a6-gss-eta"),
        || {
            let (eta, gamma) = (sc("0.3"), sc("0.01"));
            let gss = tcdp(TcdpForm::GaussianSmoothSensitivity, &eta, &gamma, 1, DIGITS);
            let t = tcdp(TcdpForm::Theorem1, &eta, &gamma, 1, DIGITS)?;
            let omega_gss = Float::with_val(P, eta.mp(P) * 4u32).recip();
            let vacuous = gss.is_err() && omega_gss <= 1;
            Ok((
                format!("eta = 0.3: GSS omega = 1/(4 eta) = {}; Theorem 1 omega = {}", n(&omega_gss), n(&t.omega.value)),
                if vacuous { Verdict::Fails } else { Verdict::Holds },
                format!(
                    "Proposition 4's omega = 1/(4 eta) is <= 1 for eta >= 1/4, so the GSS guarantee is empty on [1/4, 1) \
                     (at eta = 0.3, omega = {}; dpaudit refuses it), while the §4.1 form keeps omega = {} > 1: not similar for all eta < 1",
                    n6(&omega_gss),
                    n6(&t.omega.value)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-a6-factor2",
        "seed 003 (HMB), App. A.6, paragraph after the tCDP forms",
        "our bound improves the guarantees obtained by GSS by a factor of 2 for small eta",
        test_cmd("hmb-a6-factor2"),
        || {
            let (eta, gamma) = (sc("0.001"), sc("0.0001"));
            let gss = tcdp(TcdpForm::GaussianSmoothSensitivity, &eta, &gamma, 1, DIGITS)?;
            let t = tcdp(TcdpForm::Theorem1, &eta, &gamma, 1, DIGITS)?;
            let e = eta.mp(P);
            let e2 = Float::with_val(P, e.square_ref());
            let base = Float::with_val(P, &e2 / gamma.mp(P));
            let a6 = Float::with_val(P, &e + 2u32).square() * &e2 / 2u32;
            let extra_gss = Float::with_val(P, &gss.rho.value - &base);
            let extra_t = Float::with_val(P, &t.rho.value - &base);
            let r_true = Float::with_val(P, &extra_gss / &extra_t);
            let r_a6 = Float::with_val(P, &extra_gss / &a6);
            let total = Float::with_val(P, &gss.rho.value / &t.rho.value);
            let fails = r_true < 1.5 && r_a6 > 1.9;
            Ok((
                format!(
                    "d = 1, eta = 1e-3: GSS/§4.1 ratio of the non-gamma term = {}; with the A.6 second form = {}",
                    n(&r_true),
                    n(&r_a6)
                ),
                if fails { Verdict::Fails } else { Verdict::Holds },
                format!(
                    "the term beyond eta^2/gamma is 4 eta^2 for GSS and eta^2 (2+eta)^2 (1+eta)^2 for the valid §4.1 form: ratio {} \
                     (no factor 2); the factor 2 ({}) appears only with the A.6 second form, which does not follow from eq. (5) \
                     (row hmb-a6-second-tcdp); whole rho ratio GSS/§4.1 = {}",
                    n6(&r_true),
                    n6(&r_a6),
                    n6(&total)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-eq12-rho",
        "seed 003 (HMB), §5, Proposition 3, eq. (12), and App. eq. (74)",
        "rho_bar of eq. (74) (1/(d(2 pi)^(d/2)) times the integral of min(||u||^2, R_c^2) e^(-||u||^2/2)) is <= 1; Prop. 3's rho of eq. (12) carries 1/(2d(2 pi)^(d/2)), i.e. rho = rho_bar/2",
        eval_cmd(&[("rb", "rho_bar", "gaussian", "d=22;Rc=7".into())]),
        || {
            let mut worst_half = Float::with_val(P, 0u32);
            let mut max_bar = Float::with_val(P, 0u32);
            let mut fig = String::new();
            for (d, rc) in [(22u32, "7"), (1, "0.5"), (100, "3"), (1000, "50")] {
                let rb = rho_bar(d, &sc(rc), DIGITS)?;
                // The defining integral by radial quadrature, against the closed form.
                let quad = crate::bounds::rho::rho_bar_quadrature(d, &sc(rc), DIGITS)?;
                let dev = Float::with_val(P, &quad.value - &rb.value).abs() / &rb.value;
                if dev > worst_half {
                    worst_half = dev;
                }
                if rb.value > max_bar {
                    max_bar = rb.value.clone();
                }
                if d == 22 {
                    let half = Float::with_val(P, &rb.value / 2u32);
                    fig = format!("d = 22, R_c = 7: rho_bar = {}, rho = rho_bar/2 = {}", n(&rb.value), n(&half));
                }
            }
            let holds = worst_half < 1e-13f64 && max_bar <= 1;
            Ok((
                fig,
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "(d, R_c) in {{(22, 7), (1, 0.5), (100, 3), (1000, 50)}}: the closed form of rho_bar agrees with a quadrature of \
                     the integral (74) (largest relative deviation {}) and the largest rho_bar is {} <= 1; by the prefactors, \
                     rho of eq. (12) is rho_bar/2 (do not confuse the two)",
                    n6(&worst_half),
                    n(&max_bar)
                ),
            ))
        },
    ));

    out.push(row(
        "hmb-eq74-remark",
        "seed 003 (HMB), App. (remark after eq. (74))",
        "rho_bar depends only on R_c and is close to 1, for instance when R_c^2 >= 2d",
        eval_cmd(&[("rb", "rho_bar", "gaussian", "d=22;Rc=6.6332495807107996982298151670576204620".into())]),
        || {
            let mut fig = String::new();
            let mut others = Vec::new();
            let mut at22 = Float::new(P);
            for d in [1u32, 2, 22, 100] {
                let rc = Float::with_val(P, 2 * d).sqrt();
                let r = rho_bar(d, &Scalar::from_float(&rc), DIGITS)?;
                if d == 22 {
                    fig = format!("rho_bar(22, sqrt(44)) = {}", cert(&r));
                    at22 = r.value.clone();
                }
                others.push(format!("d = {d}: {}", n6(&r.value)));
            }
            let holds = at22 > 0.99f64;
            Ok((
                fig,
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "at R_c^2 = 2d, rho_bar is {} — close to 1 (> 0.99) at the paper's d = 22 and above, but not for very small d",
                    others.join(", ")
                ),
            ))
        },
    ));
}

// ---------------------------------------------------------------------------------------------
// HG (seed 001)
// ---------------------------------------------------------------------------------------------

/// The HG test grid: (a, b, σ) supports and location pairs.
const HG_SUPPORTS: [(&str, &str, &str); 3] =
    [("-1", "1", "1"), ("0", "0.25", "0.5"), ("-5", "5", "1")];
const HG_MUS: [&str; 5] = ["-3", "-0.5", "0.3", "1.3", "4"];
const HG_ALPHAS: [&str; 2] = ["2", "10"];

/// max over the HG grid of D(family)/D(reference), both certified.
fn hg_max_ratio(
    family: impl Fn(Scalar, Scalar, Scalar, Scalar, Scalar) -> Result<Pair>,
    reference: impl Fn(Scalar, Scalar, Scalar, Scalar, Scalar) -> Result<Pair>,
    skip: impl Fn(&str, &str) -> bool,
) -> Result<(Float, usize)> {
    let mut worst = Float::with_val(P, 0u32);
    let mut count = 0;
    for (a, b, s) in HG_SUPPORTS {
        if skip(a, b) {
            continue;
        }
        for m1 in HG_MUS {
            for m2 in HG_MUS {
                if m1 == m2 {
                    continue;
                }
                for al in HG_ALPHAS {
                    let args = || (sc(m1), sc(m2), sc(s), sc(a), sc(b));
                    let (x1, x2, x3, x4, x5) = args();
                    let f = divergence::renyi(
                        &family(x1, x2, x3, x4, x5)?,
                        &sc(al),
                        DIGITS,
                        Method::Auto,
                    )?;
                    let (y1, y2, y3, y4, y5) = args();
                    let g = divergence::renyi(
                        &reference(y1, y2, y3, y4, y5)?,
                        &sc(al),
                        DIGITS,
                        Method::Auto,
                    )?;
                    let r = Float::with_val(P, &f.value / &g.value);
                    if r > worst {
                        worst = r;
                    }
                    count += 1;
                }
            }
        }
    }
    Ok((worst, count))
}

fn gauss(m1: Scalar, m2: Scalar, s: Scalar, _a: Scalar, _b: Scalar) -> Result<Pair> {
    Pair::gaussian(m1, m2, s)
}

fn ordering_verdict(worst: &Float) -> Verdict {
    if le(worst, &Float::with_val(P, 1u32)) {
        Verdict::Holds
    } else {
        Verdict::Fails
    }
}

fn hg_rows(out: &mut Vec<Claim>) {
    let grid = "supports [-1,1] (sigma 1), [0,0.25] (sigma 0.5), [-5,5] (sigma 1); mu1 != mu2 in {-3,-0.5,0.3,1.3,4}; alpha in {2,10}";
    out.push(row(
        "hg-prop46-rectified",
        "seed 001 (HG), §4.2.1, Proposition 4.6 (via Lemma 4.5, data processing)",
        "rectification amplifies privacy: D_alpha(rectified pair) <= D_alpha(Gaussian pair) = alpha (mu1-mu2)^2/(2 sigma^2)",
        eval_cmd(&[
            ("r", "renyi", "rectified", "mu1=0.3;mu2=1.3;sigma=1;a=-1;b=1;alpha=2".into()),
            ("g", "renyi", "gaussian", "mu1=0.3;mu2=1.3;sigma=1;alpha=2".into()),
        ]),
        || {
            let (worst, k) = hg_max_ratio(Pair::rectified, gauss, |_, _| false)?;
            Ok((
                format!("max D_R/D_N = {} over {k} cases", n(&worst)),
                ordering_verdict(&worst),
                format!("certified divergences on the grid ({grid}): the largest ratio is {}", n(&worst)),
            ))
        },
    ));

    out.push(row(
        "hg-thm49-truncated",
        "seed 001 (HG), §4.2.2, Theorem 4.9",
        "for the same sensitivity, whatever the locations, D_alpha(truncated pair) <= D_alpha(Gaussian pair)",
        eval_cmd(&[
            ("t", "renyi", "truncated", "mu1=0.3;mu2=1.3;sigma=1;a=-1;b=1;alpha=2".into()),
            ("g", "renyi", "gaussian", "mu1=0.3;mu2=1.3;sigma=1;alpha=2".into()),
        ]),
        || {
            let (worst, k) = hg_max_ratio(Pair::truncated, gauss, |_, _| false)?;
            Ok((
                format!("max D_T/D_N = {} over {k} cases", n(&worst)),
                ordering_verdict(&worst),
                format!(
                    "certified divergences on the grid ({grid}): the largest ratio is {} (every pair, not only the worst case; \
                     proof by log-concavity of Z, MATH.md §8.2)",
                    n6(&worst)
                ),
            ))
        },
    ));

    out.push(row(
        "hg-sign-postprocessing",
        "seed 001 (HG), §4.1 (stochastic sign as 1-bit quantisation of the bounded Gaussian)",
        "stochastic sign is a post-processing of the rectified Gaussian on a support containing 0, hence D_alpha(sign) <= D_alpha(rectified)",
        eval_cmd(&[
            ("s", "renyi", "stochastic_sign", "mu1=0.3;mu2=1.3;sigma=1;alpha=2".into()),
            ("r", "renyi", "rectified", "mu1=0.3;mu2=1.3;sigma=1;a=-1;b=1;alpha=2".into()),
        ]),
        || {
            let sign = |m1, m2, s, _a, _b| Pair::stochastic_sign(m1, m2, s);
            // Only supports with a < 0 < b.
            let (worst, k) = hg_max_ratio(sign, Pair::rectified, |a, _| a == "0")?;
            Ok((
                format!("max D_sign/D_R = {} over {k} cases", n(&worst)),
                ordering_verdict(&worst),
                format!("certified divergences on the grid's supports containing 0 ([-1,1], [-5,5]): largest ratio {}", n6(&worst)),
            ))
        },
    ));

    for (id, fam, thm) in [
        ("hg-thm42-rectified", "rectified", "I_R(mu) <= 1/sigma^2"),
        ("hg-thm42-truncated", "truncated", "I_T(mu) <= 1/sigma^2"),
    ] {
        out.push(row(
            id,
            "seed 001 (HG), §4.1, Theorem 4.2 (FIL of the bounded Gaussian vs the Gaussian)",
            &format!("the Fisher information loss of the bounded mechanism is at most the Gaussian's: {thm}"),
            eval_cmd(&[("f", "fisher", fam, "mu=0.3;sigma=1;a=-1;b=1".into())]),
            move || {
                let mut worst = Float::with_val(P, 0u32);
                let mut k = 0;
                for (a, b, s) in HG_SUPPORTS {
                    for mu in ["-8", "-3", "-1", "0", "0.1", "0.3", "1.3", "4", "40"] {
                        let loc = Location::new(fam, sc(mu), sc(s), Some((sc(a), sc(b))))?;
                        let i = divergence::fisher(&loc, DIGITS, Method::Auto)?;
                        let r = Float::with_val(P, &i.value * sc(s).mp(P).square());
                        if r > worst {
                            worst = r;
                        }
                        k += 1;
                    }
                }
                Ok((
                    format!("max sigma^2 I = {} over {k} points", n(&worst)),
                    ordering_verdict(&worst),
                    format!(
                        "certified Fisher information on the three supports at mu in {{-8,-3,-1,0,0.1,0.3,1.3,4,40}}: the largest sigma^2 I is {}",
                        n(&worst)
                    ),
                ))
            },
        ));
    }

    out.push(row(
        "hg-sign-fil",
        "seed 001 (HG), §4.1 ('We can compute the FIL of stochastic sign')",
        "the stochastic-sign FIL phi(mu/sigma)^2/(sigma^2 Phi(mu/sigma) Phi(-mu/sigma)) depends on the location and decreases towards the tail; its maximum 2/(pi sigma^2) is below the Gaussian's 1/sigma^2",
        eval_cmd(&[("f0", "fisher", "stochastic_sign", "mu=0;sigma=1".into())]),
        || {
            let two_over_pi = Float::with_val(P, 2u32) / Float::with_val(P, rug::float::Constant::Pi);
            let i0 = divergence::fisher(&Location::new("stochastic_sign", sc("0"), sc("1"), None)?, DIGITS, Method::Auto)?;
            let mut prev = i0.value.clone();
            let mut decreasing = true;
            for mu in ["0.5", "1", "2", "4", "8"] {
                let i = divergence::fisher(&Location::new("stochastic_sign", sc(mu), sc("1"), None)?, DIGITS, Method::Auto)?;
                if i.value >= prev {
                    decreasing = false;
                }
                prev = i.value;
            }
            let at_max = Float::with_val(P, &i0.value - &two_over_pi).abs() <= Float::with_val(P, &two_over_pi * 1e-13f64);
            let holds = at_max && decreasing && i0.value < 1;
            Ok((
                format!("I_sign(0) = {} (2/pi = {})", cert(&i0), n(&two_over_pi)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                "sigma = 1: I_sign(0) equals 2/pi to the certified digits, and I_sign strictly decreases at mu = 0.5, 1, 2, 4, 8".to_string(),
            ))
        },
    ));

    out.push(row(
        "hg-eq4-wide-support",
        "seed 001 (HG), §4.1 after Lemma 4.1 ('the last two terms in Equation 4 converge to 0')",
        "as the support grows to R the rectified FIL (eq. (4)) tends to the Gaussian FIL 1/sigma^2",
        eval_cmd(&[("f", "fisher", "rectified", "mu=0;sigma=1;a=-40;b=40".into())]),
        || {
            let mut fig = String::new();
            let mut prev = Float::with_val(P, 0u32);
            let mut increasing = true;
            let mut last = Float::new(P);
            for w in ["1", "3", "10", "40"] {
                let loc = Location::new("rectified", sc("0.5"), sc("1"), Some((sc(&format!("-{w}")), sc(w))))?;
                let i = divergence::fisher(&loc, DIGITS, Method::Auto)?;
                if i.value <= prev {
                    increasing = false;
                }
                prev = i.value.clone();
                last = i.value.clone();
                fig = format!("I_R at [-40, 40], mu = 0.5, sigma = 1: {}", cert(&i));
            }
            let gap = Float::with_val(P, 1u32 - &last);
            let holds = increasing && gap < 1e-14f64;
            Ok((
                fig,
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "I_R(0.5) increases with the support [-w, w], w = 1, 3, 10, 40, and 1 - sigma^2 I_R = {} (< 1e-14) at w = 40",
                    n6(&gap)
                ),
            ))
        },
    ));

    out.push(row(
        "hg-lemma48-monotone",
        "seed 001 (HG), §4.2.2, Lemma 4.8 (statement stripped in the extract; precise version MATH.md §8.5)",
        "the Rényi divergence between two truncated Gaussians with the same variance increases with the sensitivity (|mu1 - mu2|)",
        eval_cmd(&[
            ("t1", "renyi", "truncated", "mu1=0.3;mu2=1.3;sigma=1;a=-1;b=1;alpha=2".into()),
            ("t2", "renyi", "truncated", "mu1=0.3;mu2=2.3;sigma=1;a=-1;b=1;alpha=2".into()),
        ]),
        || {
            let mut comparisons = 0;
            let mut violations = 0;
            for mu1 in [-3.0f64, -0.5, 0.3, 2.0] {
                for al in HG_ALPHAS {
                    for dir in [1.0f64, -1.0] {
                        let mut prev = Float::with_val(P, 0u32);
                        for k in 1..=10 {
                            let mu2 = mu1 + dir * 0.5 * f64::from(k);
                            let pair = Pair::truncated(Scalar::from(mu1), Scalar::from(mu2), sc("1"), sc("-1"), sc("1"))?;
                            let d = divergence::renyi(&pair, &sc(al), DIGITS, Method::Auto)?;
                            if !le(&prev, &d.value) {
                                violations += 1;
                            }
                            comparisons += 1;
                            prev = d.value;
                        }
                    }
                }
            }
            Ok((
                format!("{violations} decreases in {comparisons} steps"),
                if violations == 0 { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "support [-1, 1], sigma = 1, alpha in {{2, 10}}, mu1 in {{-3, -0.5, 0.3, 2}}, mu2 = mu1 ± 0.5k (k = 1..10): \
                     D_alpha(T(mu1) || T(mu2)) never decreases as |mu2 - mu1| grows on either side ({violations} violations); \
                     HG's exact statement was lost in extraction, this is the precise version of MATH.md §8.5"
                ),
            ))
        },
    ));

    out.push(row(
        "hg-prop51-per-coordinate",
        "seed 001 (HG), §5, Proposition 5.1 (per-coordinate accounting; formula lost in extraction)",
        "with independent per-coordinate noise on a box, the per-instance RDP is the sum of the per-coordinate RDPs",
        test_cmd("hg-prop51-per-coordinate"),
        || {
            let mech = BoxMechanism::new(HgFamily::Rectified, vec![1.0, 0.5], vec![-1.0, 0.0], vec![1.0, 0.25])?;
            let joint = mech.renyi(&[0.3, 0.1], &[1.3, 0.2], 2.0, DIGITS)?;
            let p1 = Pair::rectified(sc("0.3"), sc("1.3"), sc("1"), sc("-1"), sc("1"))?;
            let p2 = Pair::rectified(Scalar::from(0.1), Scalar::from(0.2), sc("0.5"), sc("0"), sc("0.25"))?;
            let s = Float::with_val(P, &divergence::renyi(&p1, &sc("2"), DIGITS, Method::Auto)?.value)
                + divergence::renyi(&p2, &sc("2"), DIGITS, Method::Auto)?.value;
            let agree = Float::with_val(P, &joint.value - &s).abs() <= Float::with_val(P, &s * 1e-12f64);
            Ok((
                format!("joint D_2 = {}; sum of coordinates = {}", n(&joint.value), n(&s)),
                if agree { Verdict::Holds } else { Verdict::Fails },
                "a 2-coordinate rectified box mechanism ([-1,1] sigma 1, [0,0.25] sigma 0.5): the joint per-instance RDP equals the sum \
                 of the 1-D certified divergences (independence makes the joint density a product)".to_string(),
            ))
        },
    ));

    out.push(row(
        "hg-30pct",
        "seed 001 (HG), §6.1 'Results' (Figure 2)",
        "with an unbiased rectification range the rectified Gaussian gives up to 30% reduction in privacy cost at comparable utility",
        "none (the source's experiment settings were lost in extraction)".to_string(),
        || {
            Ok((
                "none (the experiment's settings are not in the source)".to_string(),
                Verdict::NotCheckable,
                "HG §6.1's dimension, clipping range, noise multipliers and bias values were lost in extraction (MATH.md §13), so \
                 the 30% figure cannot be reproduced as stated (any HG experiment here would use settings of our choosing)"
                    .to_string(),
            ))
        },
    ));
}

// ---------------------------------------------------------------------------------------------
// Seed 002 (informal DP-SGD notes)
// ---------------------------------------------------------------------------------------------

/// The notes' σ = L √(T ln(1/δ)) / (n ε) at L = 1, n = 1000, T = 100, ε = 1, δ = 1e-5.
fn notes_sigma() -> Float {
    let l = Float::with_val(P, sc("1e-5").mp(P).recip().ln());
    Float::with_val(P, Float::with_val(P, &l * 100u32).sqrt()) / 1000u32
}

const S002_SETUP: &str = "L = 1, n = 1000, T = 100, eps = 1, delta = 1e-5";

fn s002_rows(out: &mut Vec<Claim>) {
    out.push(row(
        "s002-sensitivity",
        "seed 002 (DP-SGD notes), 'How much noise to add', Delta_2^2 = L^2/n^2",
        "with adjacency 'differ in one point' and L-Lipschitz losses, the sensitivity of the average gradient is L/n",
        eval_cmd(&[
            ("notes", "renyi", "gaussian", "mu1=0;mu2=0.001;sigma=0.01;alpha=2".into()),
            ("true", "renyi", "gaussian", "mu1=0;mu2=0.002;sigma=0.01;alpha=2".into()),
        ]),
        || {
            // Replacing one point moves one gradient from g to g' with ||g||, ||g'|| <= L: ||g - g'|| <= 2L
            // (attained by g' = -g), so the average moves by up to 2L/n.
            let (sig, al) = (sc("0.01"), sc("2"));
            let notes = rdp_eps(&sc("0.001"), &sig, &al, DIGITS)?;
            let truth = rdp_eps(&sc("0.002"), &sig, &al, DIGITS)?;
            let ratio = Float::with_val(P, &truth.value / &notes.value);
            Ok((
                format!("sensitivity 2L/n; RDP eps(2) = {} instead of {} (x{})", n(&truth.value), n(&notes.value), n6(&ratio)),
                if ratio > 1 { Verdict::Fails } else { Verdict::Holds },
                format!(
                    "under replacement, two gradients of norm <= L can point in opposite directions, so the average moves by up \
                     to 2L/n (L/n is the add/remove figure); at L = 1, n = 1000, sigma = 0.01 the RDP curve is {}x the notes'",
                    n6(&ratio)
                ),
            ))
        },
    ));

    out.push(row(
        "s002-rdp-conversion",
        "seed 002, 'Gaussian Mechanism' display: (T alpha L^2/(2 n^2 sigma^2) + ln(1/delta)/(alpha-1), delta)-DP",
        "T-fold composition of (alpha, alpha L^2/(2 n^2 sigma^2))-RDP converts to (T alpha L^2/(2n^2 sigma^2) + ln(1/delta)/(alpha-1), delta)-DP for all delta, alpha",
        test_cmd("s002-rdp-conversion"),
        || {
            // Notes' sensitivity L/n = 1e-3, T = 100 → composed Gaussian with sensitivity √T·L/n = 0.01.
            let (sig, al, delta) = (sc("0.03"), sc("8"), sc("1e-5"));
            let one = rdp_eps(&sc("0.001"), &sig, &al, DIGITS)?;
            let comp = rdp_eps(&sc("0.01"), &sig, &al, DIGITS)?;
            let t_one = Float::with_val(P, &one.value * 100u32);
            let eps = mironov_mp(&t_one, &al.mp(P), &delta.mp(P))?;
            let hs = dp_delta(&sc("0.01"), &sig, &Scalar::from_float(&eps), DIGITS)?;
            let same = Float::with_val(P, &t_one - &comp.value).abs() <= Float::with_val(P, &comp.value * 1e-13f64);
            let holds = same && le(&hs.value, &delta.mp(P));
            Ok((
                format!("eps = {} at alpha = 8; exact delta(eps) = {}", n(&eps), n(&hs.value)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "(Mironov 2017 Prop. 1 and 3.) L/n = 1e-3, sigma = 0.03, T = 100, alpha = 8: T x RDP equals the RDP of the composed \
                     Gaussian (sensitivity 0.01), and its exact privacy profile at the converted eps = {} is {} <= delta = 1e-5",
                    n6(&eps),
                    n6(&hs.value)
                ),
            ))
        },
    ));

    let sigma_notes = notes_sigma();
    let sig_txt = dec(&sigma_notes);
    out.push(row(
        "s002-sigma-calibration",
        "seed 002, 'How much noise to add': sigma = L sqrt(T ln(1/delta))/(n eps)",
        "adding N(0, sigma^2 I) with sigma = L sqrt(T ln(1/delta))/(n eps) to each of the T averaged gradients gives (eps, delta)-DP",
        eval_cmd(&[
            ("notes_sens", "eps_for_delta", "gaussian", format!("mu1=0;mu2=0.01;sigma={sig_txt};delta=1e-5")),
            ("true_sens", "eps_for_delta", "gaussian", format!("mu1=0;mu2=0.02;sigma={sig_txt};delta=1e-5")),
        ]),
        move || {
            let sig = Scalar::from_float(&sigma_notes);
            let delta = sc("1e-5");
            // T Gaussian steps with sensitivity Δ compose exactly to one with sensitivity √T·Δ.
            let e1 = dp_eps(&sc("0.01"), &sig, &delta, DIGITS)?;
            let e2 = dp_eps(&sc("0.02"), &sig, &delta, DIGITS)?;
            let fails = e1.value > 1;
            Ok((
                format!("exact eps = {} (notes' sensitivity L/n), {} (true sensitivity 2L/n)", n(&e1.value), n(&e2.value)),
                if fails { Verdict::Fails } else { Verdict::Holds },
                format!(
                    "{S002_SETUP}: sigma = {}; the T-fold composition is the Gaussian mechanism with sensitivity sqrt(T) L/n, whose exact \
                     (Balle-Wang) eps at delta = 1e-5 is {} > 1 even with the notes' sensitivity, and {} with the replacement sensitivity 2L/n",
                    n6(&sigma_notes),
                    n6(&e1.value),
                    n6(&e2.value)
                ),
            ))
        },
    ));

    out.push(row(
        "s002-alpha-choice",
        "seed 002, 'How much noise to add': alpha = (2/eps) ln(1/delta)",
        "with alpha = (2/eps) ln(1/delta), setting the RDP term equal to eps gives (eps, delta)-DP",
        test_cmd("s002-alpha-choice"),
        || {
            let sig = Scalar::from_float(&notes_sigma());
            let delta = sc("1e-5");
            let l = Float::with_val(P, delta.mp(P).recip().ln());
            let alpha = Float::with_val(P, &l * 2u32);
            let a = Scalar::from_float(&alpha);
            let r = rdp_eps(&sc("0.01"), &sig, &a, DIGITS)?;
            let eps = mironov_mp(&r.value, &alpha, &delta.mp(P))?;
            let fails = !rounds_to(&eps, "1", 2);
            Ok((
                format!("RDP term = {}; total eps = {}", n(&r.value), n(&eps)),
                if fails { Verdict::Fails } else { Verdict::Holds },
                format!(
                    "{S002_SETUP}, alpha = {}: the notes' own bound is RDP term + ln(1/delta)/(alpha-1) = {} + {} = {}; \
                     the second term (about eps/2) was dropped",
                    n6(&alpha),
                    n6(&r.value),
                    n6(&Float::with_val(P, &eps - &r.value)),
                    n6(&eps)
                ),
            ))
        },
    ));

    out.push(row(
        "s002-sgd-sensitivity",
        "seed 002, 'DP-SGD': 'Sensitivity of gradient much larger now, since not averaging out'",
        "with one sampled point the gradient's sensitivity is proportional to 1 instead of 1/n",
        eval_cmd(&[
            ("sgd", "renyi", "gaussian", "mu1=0;mu2=2;sigma=1;alpha=2".into()),
            ("gd", "renyi", "gaussian", "mu1=0;mu2=0.002;sigma=1;alpha=2".into()),
        ]),
        || {
            let (sig, al) = (sc("1"), sc("2"));
            let sgd = rdp_eps(&sc("2"), &sig, &al, DIGITS)?;
            let gd = rdp_eps(&sc("0.002"), &sig, &al, DIGITS)?;
            let ratio = Float::with_val(P, &sgd.value / &gd.value);
            let holds = rounds_to(&ratio, "1000000", 0);
            Ok((
                format!("RDP ratio single-gradient / averaged = {}", n(&ratio)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                "n = 1000, L = 1, same noise: the single-gradient step has sensitivity 2L against 2L/n, an RDP n^2 = 10^6 times larger \
                 (before any amplification by sampling)".to_string(),
            ))
        },
    ));

    out.push(row(
        "s002-subsampling",
        "seed 002, 'Privacy Amplification by subsampling', informal statement",
        "running an (eps, delta)-DP mechanism on a subsample (one point of n) gives approximately (eps/n, delta/n)-DP if eps <= 1",
        test_cmd("s002-subsampling"),
        || {
            // Tight amplification for sampling probability q (Balle, Barthe & Gaboardi 2018, Thm 9;
            // attained by randomized response): eps' = log(1 + q(e^eps - 1)), delta' = q delta.
            let q = Float::with_val(P, 1u32) / 1000u32;
            let mut ratios = Vec::new();
            for e in ["1", "0.1"] {
                let eps = sc(e).mp(P);
                let amp = Float::with_val(P, Float::with_val(P, eps.exp_m1_ref()) * &q).ln_1p();
                ratios.push((e, Float::with_val(P, amp / Float::with_val(P, &eps * &q))));
            }
            let r1 = &ratios[0].1;
            let fails = Float::with_val(P, r1 - 1u32).abs() > 0.25f64;
            Ok((
                format!("eps = 1, n = 1000: amplified eps = {} x eps/n", n(r1)),
                if fails { Verdict::Fails } else { Verdict::Holds },
                format!(
                    "the tight amplification is log(1 + (e^eps - 1)/n) (BBG18 Thm 9, attained by randomized response): {} x eps/n at \
                     eps = 1 and {} x at eps = 0.1; 'approximately eps/n' is off by the factor (e^eps - 1)/eps, 72% at eps = 1. \
                     (Not a crate routine: the two-line formula is evaluated with rug.)",
                    n6(r1),
                    n6(&ratios[1].1)
                ),
            ))
        },
    ));

    out.push(row(
        "s002-advanced-composition",
        "seed 002, 'Apply to DP-SGD': '(eps/sqrt(T), delta)-DP ⇒ by advanced composition, (eps, delta T)-DP'",
        "T-fold composition of (eps/sqrt(T), delta)-DP mechanisms is (eps, delta T)-DP",
        test_cmd("s002-advanced-composition"),
        || {
            // Counterexample: T-fold eps0-randomized response (pure eps0-DP, so (eps0, delta)-DP for every delta).
            // Its privacy loss is eps0 (2K - T), K ~ Bin(T, p) under P, p = e^eps0/(1+e^eps0).
            let t = 100u32;
            let eps0 = Float::with_val(P, 1u32) / Float::with_val(P, t).sqrt();
            let e0 = Float::with_val(P, eps0.exp_ref());
            let p = Float::with_val(P, &e0 / Float::with_val(P, &e0 + 1u32));
            let qq = Float::with_val(P, 1u32 - &p);
            let e1 = Float::with_val(P, 1u32).exp();
            let mut delta = Float::with_val(P, 0u32);
            let mut binom = Float::with_val(P, 1u32);
            for k in 0..=t {
                if k > 0 {
                    binom *= t - k + 1;
                    binom /= k;
                }
                let pk = Float::with_val(P, &binom * Float::with_val(P, (&p).pow(k)))
                    * Float::with_val(P, (&qq).pow(t - k));
                let qk = Float::with_val(P, &binom * Float::with_val(P, (&qq).pow(k)))
                    * Float::with_val(P, (&p).pow(t - k));
                let term = Float::with_val(P, &pk - Float::with_val(P, &qk * &e1));
                if term > 0 {
                    delta += term;
                }
            }
            let claimed = Float::with_val(P, sc("1e-5").mp(P) * t);
            let fails = delta > claimed;
            Ok((
                format!("delta(eps = 1) of 100-fold 0.1-randomized response = {}", n(&delta)),
                if fails { Verdict::Fails } else { Verdict::Holds },
                format!(
                    "T = 100, eps = 1, per-step delta = 1e-5: 0.1-randomized response is (0.1, 1e-5)-DP, yet its exact 100-fold \
                     composition has delta(1) = {} > delta T = 1e-3; advanced composition gives eps sqrt(2 ln(1/delta')) + \
                     T eps0 (e^eps0 - 1) with an extra delta', never (eps, delta T). (Binomial sum evaluated with rug, not a crate routine.)",
                    n6(&delta)
                ),
            ))
        },
    ));

    out.push(row(
        "s002-dpsgd-sigma",
        "seed 002, 'Apply to DP-SGD': sigma = sqrt(G^2 L^2 delta)/(n eps), '(eps G/sqrt(T), delta T)-DP'",
        "adding N(0, sigma^2) with sigma = sqrt(G^2 L^2 delta)/(n eps) gives (eps G/sqrt(T), delta T)-DP, and amplification 'exactly cancels' the larger sensitivity",
        "none (the statement has no well-defined parameters to evaluate)".to_string(),
        || {
            Ok((
                "none".to_string(),
                Verdict::NotCheckable,
                "the formula is garbled: delta appears where ln(1/delta) belongs, T is missing, G and L are both sensitivities, and \
                 the sampling rate (1/n or m/n) and step count of the comparison with GD are not fixed, so there is no mechanism to \
                 evaluate; its ingredients are checked separately (s002-sensitivity, s002-subsampling, s002-advanced-composition)"
                    .to_string(),
            ))
        },
    ));
}

// ---------------------------------------------------------------------------------------------
// OSO-DPSGD (seed 004)
// ---------------------------------------------------------------------------------------------

fn oso_rows(out: &mut Vec<Claim>) {
    let mu_lit_txt = dec(&Float::with_val(
        P,
        Float::with_val(P, 2u32).sqrt() / sc("1.01").mp(P),
    ));
    out.push(row(
        "oso-prop1",
        "seed 004 (OSO-DPSGD), §'Online sensitivity optimization', Proposition 1",
        "the two Gaussian releases (gradient sum with multiplier nu_g, clipped-direction sum with nu_q) are, for accounting, one Gaussian mechanism with multiplier nu if nu_g = (nu^-2 - nu_q^-2)^-1/2",
        test_cmd("oso-prop1"),
        || {
            let nu = sc("1");
            let nu_g = sc("1.01");
            let nu_q = Float::with_val(P, Float::with_val(P, 1u32) - Float::with_val(P, nu_g.mp(P).square()).recip()).sqrt().recip();
            let al = sc("3");
            let rg = rdp_eps(&sc("1"), &nu_g, &al, DIGITS)?;
            let rq = rdp_eps(&sc("1"), &Scalar::from_float(&nu_q), &al, DIGITS)?;
            let rn = rdp_eps(&sc("1"), &nu, &al, DIGITS)?;
            let sum = Float::with_val(P, &rg.value + &rq.value);
            let agree = Float::with_val(P, &sum - &rn.value).abs() <= Float::with_val(P, &rn.value * 1e-13f64);
            Ok((
                format!("RDP(3): {} + {} = {}; single mechanism nu = 1: {}", n(&rg.value), n(&rq.value), n(&sum), n(&rn.value)),
                if agree { Verdict::Holds } else { Verdict::Fails },
                "nu = 1, nu_g = 1.01, nu_q from Prop. 1: the two releases' Gaussian RDP curves add up to the single mechanism's \
                 (1/nu_g^2 + 1/nu_q^2 = 1/nu^2; mu-GDP composition is exact, so (eps, delta) agrees too); add/remove adjacency"
                    .to_string(),
            ))
        },
    ));

    out.push(row(
        "oso-rule-of-thumb",
        "seed 004 (OSO-DPSGD), paragraph after Proposition 1",
        "if we allow a 1% increase in nu_g over nu, Proposition 1 gives nu_q ≈ 7.124 nu",
        test_cmd("oso-rule-of-thumb"),
        || {
            // nu_q/nu = (1 - (nu/nu_g)^2)^-1/2 = sqrt(1.0201/0.0201).
            let g2 = Float::with_val(P, sc("1.01").mp(P).square());
            let f = Float::with_val(P, Float::with_val(P, 1u32) - Float::with_val(P, g2.recip_ref())).sqrt().recip();
            // Cross-check through the RDP of the two releases: 1/nu_g^2 + 1/nu_q^2 = 1 at nu = 1.
            let al = sc("2");
            let rg = rdp_eps(&sc("1"), &sc("1.01"), &al, DIGITS)?;
            let rq = rdp_eps(&sc("1"), &Scalar::from_float(&f), &al, DIGITS)?;
            let total = Float::with_val(P, &rg.value + &rq.value);
            let single = rdp_eps(&sc("1"), &sc("1"), &al, DIGITS)?;
            let consistent = Float::with_val(P, &total - &single.value).abs()
                <= Float::with_val(P, &single.value * 1e-13f64);
            let holds = consistent && rounds_to(&f, "7.124", 3);
            let math_md = rounds_to(&f, "7.1243", 4);
            Ok((
                format!("nu_q/nu = sqrt(1.0201/0.0201) = {}", n(&f)),
                if holds { Verdict::Holds } else { Verdict::Fails },
                format!(
                    "{} rounds to the seed's 7.124; the RDP of the two releases at alpha = 2 sums to {}, the single mechanism's (nu = 1). \
                     Our MATH.md §12 gives 7.1243…, which is {} (docs/formulas.md §12 has the corrected 7.12399…)",
                    n(&f),
                    n6(&total),
                    if math_md { "also consistent" } else { "wrong: the value is 7.12399…" }
                ),
            ))
        },
    ));

    out.push(row(
        "oso-alg1-line13",
        "seed 004 (OSO-DPSGD), Algorithm 1, line 13",
        "q~_t <- (sum q_t(z_i) + N(0, I nu_g^2))/|B| (noise multiplier nu_g on the unit-sensitivity clipped-direction sum)",
        eval_cmd(&[
            ("budget", "eps_for_delta", "gaussian", "mu1=0;mu2=1;sigma=1;delta=1e-5".into()),
            ("literal", "eps_for_delta", "gaussian", format!("mu1=0;mu2={mu_lit_txt};sigma=1;delta=1e-5")),
        ]),
        || {
            // Budget nu = 1, nu_g = 1.01. Prop. 1 wants nu_q = 7.124; line 13 uses nu_g.
            let nu_g = sc("1.01").mp(P);
            let mu_lit = Float::with_val(P, Float::with_val(P, 2u32).sqrt() / &nu_g);
            let delta = sc("1e-5");
            let e_budget = dp_eps(&sc("1"), &sc("1"), &delta, DIGITS)?;
            let e_lit = dp_eps(&Scalar::from_float(&mu_lit), &sc("1"), &delta, DIGITS)?;
            let v = if e_lit.value > e_budget.value { Verdict::Misprint } else { Verdict::Holds };
            Ok((
                format!("per-step eps at delta = 1e-5: {} as accounted (nu = 1) vs {} as printed", n(&e_budget.value), n(&e_lit.value)),
                v,
                format!(
                    "Prop. 1 and eq. (17) require nu_q (≈ 7.124 nu) on this sum; with nu_g ≈ nu, as printed, the two releases of a step \
                     compose to mu = sqrt(2)/1.01 = {} instead of 1, so one full-batch step costs eps = {} instead of {} at delta = 1e-5: \
                     the printed line contradicts the text, which fixes the meaning (nu_q)",
                    n6(&mu_lit),
                    n6(&e_lit.value),
                    n6(&e_budget.value)
                ),
            ))
        },
    ));
}

/// Every row of the seed-claims table, computed now (a few seconds in release mode).
///
/// Rows are in a stable order (HMB, HG, seed 002, OSO); ids are unique. A row whose computation
/// fails is returned with [`Verdict::NotCheckable`] and the error as its reason.
pub fn claims() -> Vec<Claim> {
    let mut out = Vec::new();
    hmb_rows(&mut out);
    hg_rows(&mut out);
    s002_rows(&mut out);
    oso_rows(&mut out);
    out
}

#[cfg(test)]
mod tests;
