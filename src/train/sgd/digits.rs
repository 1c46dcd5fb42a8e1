//! The 8×8 handwritten-digits table committed as `data/digits.csv` (1797 × 64, classes 0–9;
//! provenance and licence in `data/README.md`).

use crate::error::Result;
use crate::train::data::Dataset;
use std::path::Path;

/// Reads `data/digits.csv` (label first) and scales the pixels from 0..16 to [0, 1].
pub fn load(path: &Path) -> Result<Dataset> {
    let mut d = Dataset::read_csv(path, 0)?;
    for v in &mut d.x {
        *v /= 16.0;
    }
    Ok(d)
}

/// A deterministic split: every `k`-th record (j mod k = 0) to the test set, the rest to
/// training. Errors if k < 2 or either part would be empty.
pub fn split_every(data: &Dataset, k: usize) -> Result<(Dataset, Dataset)> {
    if k < 2 || k > data.n {
        return Err(crate::error::Error::invalid(
            "k (test fraction 1/k)",
            k,
            &format!("in [2, n = {}]", data.n),
        ));
    }
    let test: Vec<usize> = (0..data.n).filter(|j| j % k == 0).collect();
    let train: Vec<usize> = (0..data.n).filter(|j| j % k != 0).collect();
    Ok((data.subset(&train)?, data.subset(&test)?))
}
