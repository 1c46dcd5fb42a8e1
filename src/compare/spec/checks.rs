//! The spec-level checks that need the file's context in their messages (the decisions themselves
//! belong to [`crate::bounds::rgm`]), and loading a directory of specs.

use super::{AuditSpec, Ctx, Error, Path, PathBuf, Result, Scalar};

/// HMB Def. 2, eq. (3): ‖r1 − r2‖² ≤ η² min(‖r1‖², ‖r2‖²) + R² (the definition must hold for both
/// orders of the pair), decided by [`crate::bounds::rgm::relative_sensitivity_holds`].
pub(super) fn check_relative_sensitivity(
    ctx: &Ctx,
    eta: &Scalar,
    r: &Scalar,
    n1: &Scalar,
    n2: &Scalar,
    dist: &Scalar,
) -> Result<()> {
    if crate::bounds::rgm::relative_sensitivity_holds(eta, r, n1, n2, dist) {
        Ok(())
    } else {
        Err(ctx.invalid(
            "pair.dist",
            dist,
            &format!(
                "admissible for the relative sensitivity (HMB Def. 2, eq. (3)): dist² = {} must be \
                 <= eta² min(n1, n2)² + R² = {}",
                dist.f64().powi(2),
                eta.f64().powi(2) * n1.f64().min(n2.f64()).powi(2) + r.f64().powi(2)
            ),
        ))
    }
}

/// HMB Theorem 1's noise condition σ² ≥ γ η⁻² [1 − η(α − 1)] R² for every α ≥ 1 in its range,
/// i.e. σ² ≥ γ R² / η² (the α = 1 end), decided by
/// [`crate::bounds::rgm::theorem1_sigma2_holds_for_all_alpha`].
pub(super) fn check_theorem1_sigma2(
    ctx: &Ctx,
    gamma: &Scalar,
    sigma2: &Scalar,
    eta: &Scalar,
    r: &Scalar,
) -> Result<()> {
    let (holds, min) =
        crate::bounds::rgm::theorem1_sigma2_holds_for_all_alpha(eta, r, gamma, sigma2);
    if holds {
        Ok(())
    } else {
        Err(ctx.invalid(
            "mechanism.sigma2",
            sigma2,
            &format!(
                ">= gamma R² / eta² = {} (HMB Theorem 1's condition sigma² >= gamma eta⁻² \
                 [1 - eta (alpha - 1)] R² at alpha = 1)",
                min
            ),
        ))
    }
}

/// Reads every `*.toml` in `dir`, sorted by file name. Stops at the first invalid spec.
pub(crate) fn load_dir(dir: &Path) -> Result<Vec<AuditSpec>> {
    let rd = std::fs::read_dir(dir)
        .map_err(|e| Error::Io(format!("cannot list audit specs in {}: {e}", dir.display())))?;
    let mut paths: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    let specs = paths
        .iter()
        .map(|p| AuditSpec::from_file(p))
        .collect::<Result<Vec<_>>>()?;
    let mut names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::invalid(
            "name",
            w[0],
            &format!("unique among the specs in {}", dir.display()),
        ));
    }
    Ok(specs)
}
