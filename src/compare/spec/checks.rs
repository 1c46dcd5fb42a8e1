//! Loading a directory of specs.

use super::{AuditSpec, Error, Path, PathBuf, Result};

/// Reads every `*.toml` in `dir`, sorted by file name. Stops at the first invalid spec.
pub fn load_dir(dir: &Path) -> Result<Vec<AuditSpec>> {
    let rd = std::fs::read_dir(dir)
        .map_err(|e| Error::Io(format!("cannot list audit specs in {}: {e}", dir.display())))?;
    let mut paths: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    // A command spec is run by `dpaudit audit SPEC`; the report audits the built-in families.
    for p in &paths {
        if std::fs::read_to_string(p).is_ok_and(|t| crate::compare::command::is_command_spec(&t)) {
            return Err(Error::invalid(
                "audit spec",
                p.display(),
                "a family spec: a spec naming a command is run with `dpaudit audit SPEC` \
                 (examples/commands/), not from the report's directory of built-in audits",
            ));
        }
    }
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
