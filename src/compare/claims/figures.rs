//! A claim's figures from its data, through the generic machinery: a row's named `dpaudit eval`
//! row is evaluated by [`crate::eval::evaluate`] (the figure and the printed command are then
//! the same computation), or, with some parameters set by the decision (a grid point, a value it
//! computed), by the registry: the family named in the data builds the pair or the law
//! ([`Family::pair_from`], [`Family::location`]) and the divergence layer or the family's paper
//! quantity ([`crate::model::SpecForm::quantities`]) computes the value. No family is named here.

use super::data::{ClaimRow, EvalRow, Grid};
use super::DIGITS;
use crate::divergence::{self, Location, Method, Pair};
use crate::error::{Error, Result};
use crate::eval::{paper_quantities, parse_params, EvalOptions, Quantity, Row};
use crate::model::Family;
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;

impl ClaimRow {
    /// An error of this row's data (a missing eval row, grid or text).
    fn missing(&self, what: &str) -> Error {
        Error::Undefined(format!(
            "row {} of {}: no {what} in its data",
            self.id, self.file
        ))
    }

    /// The eval row `id` (of `eval`, then of `rows`).
    pub(super) fn eval_row(&self, id: &str) -> Result<&EvalRow> {
        self.eval
            .iter()
            .chain(&self.rows)
            .find(|r| r.id == id)
            .ok_or_else(|| self.missing(&format!("eval row {id:?}")))
    }

    /// The value of eval row `id` by `dpaudit eval` itself, at [`DIGITS`] digits.
    pub(super) fn figure(&self, id: &str) -> Result<Certified> {
        let r = self.eval_row(id)?;
        let row = Row {
            line: 0,
            id: r.id.clone(),
            quantity: r.quantity.clone(),
            family: r.family.clone(),
            params: r.params.clone(),
        };
        let opts = EvalOptions {
            digits: DIGITS,
            method: Method::Auto,
            max_seconds: None,
        };
        crate::eval::evaluate(&row, &opts)
    }

    /// The parameters of eval row `id` as exact decimals, with `set` replacing (or adding) keys.
    /// A `{name}` placeholder must be set.
    pub(super) fn values(&self, id: &str, set: &[(&str, Scalar)]) -> Result<Vec<(String, Scalar)>> {
        let r = self.eval_row(id)?;
        let mut out: Vec<(String, Scalar)> = Vec::new();
        for (k, v) in parse_params(&r.params)? {
            if let Some((_, x)) = set.iter().find(|(s, _)| *s == k) {
                out.push((k, x.clone()));
            } else if v.starts_with('{') {
                return Err(self.missing(&format!("value for {v} (eval row {id:?})")));
            } else {
                let x = v
                    .parse::<Scalar>()
                    .map_err(|_| Error::invalid(&k, &v, "a finite decimal number"))?;
                out.push((k, x));
            }
        }
        for (k, x) in set {
            if !out.iter().any(|(o, _)| o == k) {
                out.push((k.to_string(), x.clone()));
            }
        }
        Ok(out)
    }

    /// The parameter `key` of eval row `id`.
    pub(super) fn scalar(&self, id: &str, key: &str) -> Result<Scalar> {
        let values = self.values(id, &[])?;
        values
            .into_iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .ok_or_else(|| self.missing(&format!("parameter {key} of eval row {id:?}")))
    }

    /// The dimension `key` of eval row `id` (an integer >= 1).
    pub(super) fn dim(&self, id: &str, key: &str) -> Result<u32> {
        let v = self.scalar(id, key)?;
        crate::model::Params::dim(&|_: &str| Ok(v.clone()), key)
    }

    /// The family of eval row `id`, from the registry.
    fn family(&self, id: &str) -> Result<&'static Family> {
        Family::by_name(&self.eval_row(id)?.family)
    }

    /// The pair of eval row `id` with `set` applied, built by its family's registry entry.
    pub(super) fn pair(&self, id: &str, set: &[(&str, Scalar)]) -> Result<Pair> {
        let values = self.values(id, set)?;
        let named: Vec<(&str, Scalar)> = values
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        self.family(id)?.pair_from(&named)
    }

    /// The value of eval row `id`'s quantity with `set` applied, through the registry (no
    /// finiteness guard: a divergence may be +∞).
    pub(super) fn figure_at(&self, id: &str, set: &[(&str, Scalar)]) -> Result<Certified> {
        self.value_by(id, set, Method::Auto)
    }

    /// [`ClaimRow::figure_at`] by the quadrature route (`dpaudit eval --method quadrature`).
    pub(super) fn quadrature_at(&self, id: &str, set: &[(&str, Scalar)]) -> Result<Certified> {
        self.value_by(id, set, Method::Quadrature)
    }

    fn value_by(&self, id: &str, set: &[(&str, Scalar)], m: Method) -> Result<Certified> {
        let r = self.eval_row(id)?;
        let values = self.values(id, set)?;
        let get = |key: &str| -> Result<Scalar> {
            values
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| Error::MissingParameter {
                    name: key.into(),
                    needed_by: format!("{} of {}", r.quantity, r.family),
                })
        };
        match r.quantity.parse::<Quantity>()? {
            Quantity::Renyi => divergence::renyi(&self.pair(id, set)?, &get("alpha")?, DIGITS, m),
            Quantity::Kl => divergence::kl(&self.pair(id, set)?, DIGITS, m),
            Quantity::HockeyStickDelta => {
                divergence::hockey_stick(&self.pair(id, set)?, &get("eps")?, DIGITS, m)
            }
            Quantity::EpsForDelta => {
                divergence::eps_for_delta(&self.pair(id, set)?, &get("delta")?, DIGITS, m)
            }
            Quantity::Fisher => {
                let build = self.family(id)?.location.ok_or_else(|| {
                    Error::Unsupported(format!("no Fisher information for family {}", r.family))
                })?;
                divergence::fisher(&Location::from_model(build(&get)?), DIGITS, m)
            }
            Quantity::Paper(i) => {
                let (owner, q) = paper_quantities()[i];
                if owner.name != r.family {
                    return Err(Error::Unsupported(format!(
                        "{} is {}: family must be {}, not {:?}",
                        q.name, q.what, owner.name, r.family
                    )));
                }
                (q.eval)(&get, DIGITS, m == Method::Quadrature)
            }
            Quantity::RdpEpsForDelta => Err(Error::Unsupported(format!(
                "{} is a composition quantity, not a claims figure",
                r.quantity
            ))),
        }
    }

    /// D_α of eval row `id`'s pair with `set` applied, of the order (P1‖P2 or P2‖P1) that is
    /// larger.
    pub(super) fn max_orders_at(&self, id: &str, set: &[(&str, Scalar)]) -> Result<Certified> {
        let pair = self.pair(id, set)?;
        let alpha = self
            .values(id, set)?
            .into_iter()
            .find(|(k, _)| k == "alpha")
            .map(|(_, v)| v)
            .ok_or_else(|| self.missing(&format!("alpha of eval row {id:?}")))?;
        let a = divergence::renyi(&pair, &alpha, DIGITS, Method::Auto)?;
        let b = divergence::renyi(&pair.swapped(), &alpha, DIGITS, Method::Auto)?;
        Ok(if a.value >= b.value { a } else { b })
    }

    /// The list grid `name`.
    pub(super) fn list(&self, name: &str) -> Result<&[String]> {
        match self.grid.get(name) {
            Some(Grid::List(v)) => Ok(v),
            _ => Err(self.missing(&format!("list grid {name:?}"))),
        }
    }

    /// The list grid `name` as decimals.
    pub(super) fn scalars(&self, name: &str) -> Result<Vec<Scalar>> {
        self.list(name)?.iter().map(|s| s.parse()).collect()
    }

    /// The tuple grid `name`.
    pub(super) fn tuples(&self, name: &str) -> Result<&[Vec<String>]> {
        match self.grid.get(name) {
            Some(Grid::Tuples(v)) => Ok(v),
            _ => Err(self.missing(&format!("tuple grid {name:?}"))),
        }
    }

    /// The text `name` of the row's data.
    pub(super) fn text(&self, name: &str) -> Result<&str> {
        self.text
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| self.missing(&format!("text {name:?}")))
    }
}

/// `template` with each `{key}` replaced by its value.
pub(super) fn fill(template: &str, values: &[(&str, String)]) -> String {
    values.iter().fold(template.to_string(), |s, (k, v)| {
        s.replace(&format!("{{{k}}}"), v)
    })
}
