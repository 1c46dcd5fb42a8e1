//! Atomic file writes: every output goes to `name.tmp` and is then renamed over `name`, so a
//! reader never sees a half-written file and an interrupted run leaves the previous file intact.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: `path.tmp`, then `rename`.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = tmp_path(path);
    std::fs::write(&tmp, bytes)
        .map_err(|e| Error::Io(format!("cannot write {}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        Error::Io(format!(
            "cannot rename {} to {}: {e}",
            tmp.display(),
            path.display()
        ))
    })
}

/// `dir/name.tmp` for `dir/name`.
pub(crate) fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}
