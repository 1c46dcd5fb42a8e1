//! Seeded random streams whose output does not depend on the number of threads.
//!
//! # Generator
//!
//! dpaudit samples with [`StreamRng`] = ChaCha8 (`rand_chacha::ChaCha8Rng`). The best published
//! cryptanalysis of ChaCha reaches 7 rounds, so 8 rounds leaves no known statistical weakness,
//! and ChaCha8 is portable and reproducible (fixed output on every platform) at roughly twice the
//! speed of ChaCha20, which matters when an audit draws 10⁸–10⁹ samples. Nothing here needs
//! cryptographic strength: the streams are for auditing, not for releasing private outputs.
//!
//! # Chunks and streams
//!
//! A run of N samples under seed `s` is cut into fixed-size chunks; chunk `i` is drawn from
//! [`chunk_rng`]`(s, i)`, i.e. the ChaCha8 key derived from `s` with stream id `i` (ChaCha's
//! 64-bit nonce; 2⁶⁴ independent streams of 2⁶⁸ bytes each per key). Because a chunk's content
//! depends only on `(s, i)` and the chunk length, the concatenated output is bit-identical
//! whatever the chunk → thread assignment and the number of threads. [`fill_chunked`] and
//! [`map_chunks`] do exactly this with rayon.

use crate::error::{Error, Result};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// The generator used by every dpaudit sampler run: ChaCha8 (see the module docs for why).
pub type StreamRng = ChaCha8Rng;

/// Default chunk length (samples per stream) for [`fill_chunked`] / [`map_chunks`]: 2¹⁶, large
/// enough to amortise seeding (≈ 100 ns) and small enough to balance work across threads.
pub const DEFAULT_CHUNK: usize = 1 << 16;

/// The generator for stream `stream` under `seed`: the key is expanded from `seed` by
/// `SeedableRng::seed_from_u64` (PCG32, as specified by `rand_core`), and `stream` is set as
/// ChaCha's 64-bit stream id; the word position starts at 0.
///
/// # Example
/// ```
/// use dpaudit::mechanisms::stream::chunk_rng;
/// use rand::Rng;
/// let mut a = chunk_rng(42, 3);
/// let mut b = chunk_rng(42, 3);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert_ne!(chunk_rng(42, 3).next_u64(), chunk_rng(42, 4).next_u64());
/// ```
pub fn chunk_rng(seed: u64, stream: u64) -> StreamRng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

/// Fills `out` in chunks of `chunk` samples, chunk `i` with `f(&mut chunk_rng(seed, i), slice)`,
/// in parallel on the current rayon pool. The result does not depend on the pool size.
///
/// Errors if `chunk == 0`.
///
/// # Example
/// ```
/// use dpaudit::mechanisms::{stream::fill_chunked, Gaussian};
/// let g = Gaussian::new(0.0, 1.0).unwrap();
/// let mut xs = vec![0.0; 1000];
/// fill_chunked(7, &mut xs, 256, |rng, c| g.sample_many(rng, c)).unwrap();
/// ```
pub fn fill_chunked<F>(seed: u64, out: &mut [f64], chunk: usize, f: F) -> Result<()>
where
    F: Fn(&mut StreamRng, &mut [f64]) + Sync,
{
    if chunk == 0 {
        return Err(Error::invalid("chunk", chunk, "a chunk length >= 1"));
    }
    out.par_chunks_mut(chunk)
        .enumerate()
        .for_each(|(i, c)| f(&mut chunk_rng(seed, i as u64), c));
    Ok(())
}

/// Runs `f(i, &mut chunk_rng(seed, i), len_i)` for every chunk `i` of a run of `n` samples cut
/// into chunks of `chunk` (the last one shorter), in parallel, and returns the results in chunk
/// order, so that any reduction over them is deterministic. Use this for statistics that need not
/// store the samples (e.g. counting an audit's rejections).
///
/// Errors if `chunk == 0`.
pub fn map_chunks<T, F>(seed: u64, n: u64, chunk: usize, f: F) -> Result<Vec<T>>
where
    T: Send,
    F: Fn(u64, &mut StreamRng, usize) -> T + Sync,
{
    if chunk == 0 {
        return Err(Error::invalid("chunk", chunk, "a chunk length >= 1"));
    }
    let c = chunk as u64;
    let n_chunks = n.div_ceil(c);
    Ok((0..n_chunks)
        .into_par_iter()
        .map(|i| {
            let len = (n - i * c).min(c) as usize;
            f(i, &mut chunk_rng(seed, i), len)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::{chunk_rng, fill_chunked, map_chunks};
    use rand::Rng;

    #[test]
    fn streams_differ_and_repeat() {
        let x: Vec<u64> = (0..4).map(|s| chunk_rng(1, s).next_u64()).collect();
        let y: Vec<u64> = (0..4).map(|s| chunk_rng(1, s).next_u64()).collect();
        assert_eq!(x, y);
        for i in 0..4 {
            for j in 0..i {
                assert_ne!(x[i], x[j]);
            }
        }
        assert_ne!(chunk_rng(1, 0).next_u64(), chunk_rng(2, 0).next_u64());
    }

    #[test]
    fn chunk_zero_is_an_error() {
        let mut v = vec![0.0; 4];
        assert!(fill_chunked(0, &mut v, 0, |_, _| {}).is_err());
        assert!(map_chunks(0, 10, 0, |_, _, _| ()).is_err());
        let lens = map_chunks(0, 10, 4, |_, _, n| n).unwrap();
        assert_eq!(lens, vec![4, 4, 2]);
    }
}
