//! Models with hand-derived per-example gradients: binary logistic regression, softmax
//! regression and a one-hidden-layer tanh network (MLP). No autodiff: each gradient is written
//! out (derivations in `docs/dpsgd.md#models`) and tested against central finite differences.
//!
//! Parameters are one flat `Vec<f64>`; the layout of each model is documented on its type.
//! Labels: ±1 for [`Logistic`], the class index 0, 1, …, k−1 (as an f64) for [`Softmax`] and
//! [`Mlp`].

use crate::error::{check_count, Error, Result};
use crate::mechanisms::stream::chunk_rng;
use rand::RngExt;

/// The random stream of a seed that initial weights are drawn from.
pub(crate) const INIT_STREAM: u64 = u64::MAX;

/// A differentiable per-example loss ℓ(θ; x, y).
pub trait Model: Send + Sync {
    /// A short description, e.g. `mlp(64-32-10)`.
    fn name(&self) -> String;
    /// Dimension of x.
    fn n_features(&self) -> usize;
    /// Number of parameters (length of θ and of a gradient).
    fn n_params(&self) -> usize;
    /// Length of the scratch buffer that [`Model::loss_grad`] and [`Model::predict`] need.
    fn scratch_len(&self) -> usize;
    /// Checks that `y` is a label of this model.
    fn check_label(&self, y: f64) -> Result<()>;
    /// Writes ∇_θ ℓ(θ; x, y) into `grad` (length [`Model::n_params`]) and returns ℓ(θ; x, y).
    fn loss_grad(
        &self,
        theta: &[f64],
        x: &[f64],
        y: f64,
        grad: &mut [f64],
        scratch: &mut [f64],
    ) -> f64;
    /// ∇_θ ℓ(θ; x, y) only (the training loop's hot path; models may skip computing ℓ).
    fn grad(&self, theta: &[f64], x: &[f64], y: f64, grad: &mut [f64], scratch: &mut [f64]) {
        self.loss_grad(theta, x, y, grad, scratch);
    }
    /// ℓ(θ; x, y) only.
    fn loss(&self, theta: &[f64], x: &[f64], y: f64, scratch: &mut [f64]) -> f64;
    /// The predicted label (same convention as the labels).
    fn predict(&self, theta: &[f64], x: &[f64], scratch: &mut [f64]) -> f64;
    /// A seeded initial θ (zeros for the convex models).
    fn init(&self, seed: u64) -> Vec<f64>;
}

/// ln(1 + e^t) without overflow.
#[inline]
fn softplus(t: f64) -> f64 {
    if t > 0.0 {
        t + (-t).exp().ln_1p()
    } else {
        t.exp().ln_1p()
    }
}

/// The logistic function 1/(1 + e^{−t}), stable for both signs.
#[inline]
pub(crate) fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        let e = t.exp();
        e / (1.0 + e)
    }
}

/// k ≥ 2 classes.
fn check_classes(k: usize) -> Result<()> {
    if k < 2 {
        return Err(Error::invalid("k (classes)", k, ">= 2"));
    }
    Ok(())
}

fn check_class(y: f64, k: usize) -> Result<()> {
    if y.fract() == 0.0 && y >= 0.0 && y < k as f64 {
        Ok(())
    } else {
        Err(Error::invalid(
            "label",
            y,
            &format!("a class index 0..={}", k - 1),
        ))
    }
}

/// Binary logistic regression, labels y ∈ {−1, +1}: ℓ = ln(1 + exp(−y(w·x + b))).
/// θ = (w_1, …, w_d, b).
#[derive(Debug, Clone, PartialEq)]
pub struct Logistic {
    d: usize,
}

impl Logistic {
    /// d ≥ 1 features.
    pub fn new(d: usize) -> Result<Self> {
        Ok(Logistic {
            d: check_count("d", d)?,
        })
    }

    #[inline]
    fn margin(&self, theta: &[f64], x: &[f64]) -> f64 {
        affine(theta[self.d], &theta[..self.d], x)
    }
}

impl Model for Logistic {
    fn name(&self) -> String {
        format!("logistic(d={})", self.d)
    }
    fn n_features(&self) -> usize {
        self.d
    }
    fn n_params(&self) -> usize {
        self.d + 1
    }
    fn scratch_len(&self) -> usize {
        0
    }
    fn check_label(&self, y: f64) -> Result<()> {
        if y == 1.0 || y == -1.0 {
            Ok(())
        } else {
            Err(Error::invalid("label", y, "-1 or +1 (logistic regression)"))
        }
    }
    #[inline]
    fn loss_grad(&self, theta: &[f64], x: &[f64], y: f64, grad: &mut [f64], _: &mut [f64]) -> f64 {
        let m = y * self.margin(theta, x);
        // dℓ/dm = −σ(−m); dm/dθ = y·(x, 1).
        let c = -y * sigmoid(-m);
        for (g, xi) in grad[..self.d].iter_mut().zip(x) {
            *g = c * xi;
        }
        grad[self.d] = c;
        softplus(-m)
    }
    #[inline]
    fn grad(&self, theta: &[f64], x: &[f64], y: f64, grad: &mut [f64], _: &mut [f64]) {
        let c = -y * sigmoid(-y * self.margin(theta, x));
        for (g, xi) in grad[..self.d].iter_mut().zip(x) {
            *g = c * xi;
        }
        grad[self.d] = c;
    }
    fn loss(&self, theta: &[f64], x: &[f64], y: f64, _: &mut [f64]) -> f64 {
        softplus(-y * self.margin(theta, x))
    }
    fn predict(&self, theta: &[f64], x: &[f64], _: &mut [f64]) -> f64 {
        if self.margin(theta, x) >= 0.0 {
            1.0
        } else {
            -1.0
        }
    }
    fn init(&self, _seed: u64) -> Vec<f64> {
        vec![0.0; self.d + 1]
    }
}

/// b + w·x, summed from b in the order of the coordinates.
#[inline]
fn affine(b: f64, w: &[f64], x: &[f64]) -> f64 {
    let mut s = b;
    for (wi, xi) in w.iter().zip(x) {
        s += wi * xi;
    }
    s
}

/// Writes the softmax of `z` into `p` and returns log Σ exp(z).
fn softmax(z: &[f64], p: &mut [f64]) -> f64 {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut s = 0.0;
    for (pi, zi) in p.iter_mut().zip(z) {
        *pi = (zi - m).exp();
        s += *pi;
    }
    for pi in p.iter_mut() {
        *pi /= s;
    }
    m + s.ln()
}

/// The cross-entropy ℓ = log Σ e^{z_c} − z_y at logits `z` and class `y`; writes its gradient
/// r_c = ∂ℓ/∂z_c = p_c − 1{c = y} into `r` (p the softmax of z).
fn cross_entropy_grad(z: &[f64], y: f64, r: &mut [f64]) -> f64 {
    let lse = softmax(z, r);
    let yi = y as usize;
    r[yi] -= 1.0;
    lse - z[yi]
}

fn argmax(z: &[f64]) -> f64 {
    let mut best = 0;
    for (i, v) in z.iter().enumerate() {
        if *v > z[best] {
            best = i;
        }
    }
    best as f64
}

/// Multinomial (softmax) regression with k classes: logits z_c = W_c·x + b_c,
/// ℓ = log Σ_c e^{z_c} − z_y. θ = (W row-major k × d, then b_1, …, b_k).
#[derive(Debug, Clone, PartialEq)]
pub struct Softmax {
    d: usize,
    k: usize,
}

impl Softmax {
    /// d ≥ 1 features, k ≥ 2 classes.
    pub fn new(d: usize, k: usize) -> Result<Self> {
        check_count("d", d)?;
        check_classes(k)?;
        Ok(Softmax { d, k })
    }

    fn logits(&self, theta: &[f64], x: &[f64], z: &mut [f64]) {
        let (d, k) = (self.d, self.k);
        for c in 0..k {
            z[c] = affine(theta[k * d + c], &theta[c * d..(c + 1) * d], x);
        }
    }
}

impl Model for Softmax {
    fn name(&self) -> String {
        format!("softmax(d={}, k={})", self.d, self.k)
    }
    fn n_features(&self) -> usize {
        self.d
    }
    fn n_params(&self) -> usize {
        self.k * (self.d + 1)
    }
    fn scratch_len(&self) -> usize {
        2 * self.k
    }
    fn check_label(&self, y: f64) -> Result<()> {
        check_class(y, self.k)
    }
    fn loss_grad(
        &self,
        theta: &[f64],
        x: &[f64],
        y: f64,
        grad: &mut [f64],
        scratch: &mut [f64],
    ) -> f64 {
        let (d, k) = (self.d, self.k);
        let (z, r) = scratch.split_at_mut(k);
        self.logits(theta, x, z);
        let loss = cross_entropy_grad(z, y, &mut r[..k]);
        // ∂z_c/∂W_c = x, ∂z_c/∂b_c = 1.
        for c in 0..k {
            for (g, xi) in grad[c * d..(c + 1) * d].iter_mut().zip(x) {
                *g = r[c] * xi;
            }
            grad[k * d + c] = r[c];
        }
        loss
    }
    fn loss(&self, theta: &[f64], x: &[f64], y: f64, scratch: &mut [f64]) -> f64 {
        let k = self.k;
        let (z, p) = scratch.split_at_mut(k);
        self.logits(theta, x, z);
        softmax(z, &mut p[..k]) - z[y as usize]
    }
    fn predict(&self, theta: &[f64], x: &[f64], scratch: &mut [f64]) -> f64 {
        let z = &mut scratch[..self.k];
        self.logits(theta, x, z);
        argmax(z)
    }
    fn init(&self, _seed: u64) -> Vec<f64> {
        vec![0.0; self.n_params()]
    }
}

/// One hidden layer of h tanh units, then softmax over k classes:
/// a = W₁x + b₁, u = tanh(a), z = W₂u + b₂, ℓ = log Σ e^{z_c} − z_y.
/// θ = (W₁ row-major h × d, b₁ (h), W₂ row-major k × h, b₂ (k)).
#[derive(Debug, Clone, PartialEq)]
pub struct Mlp {
    d: usize,
    h: usize,
    k: usize,
}

impl Mlp {
    /// d ≥ 1 features, h ≥ 1 hidden units, k ≥ 2 classes.
    pub fn new(d: usize, h: usize, k: usize) -> Result<Self> {
        check_count("d", d)?;
        check_count("h (hidden units)", h)?;
        check_classes(k)?;
        Ok(Mlp { d, h, k })
    }

    fn offsets(&self) -> (usize, usize, usize) {
        let (d, h, k) = (self.d, self.h, self.k);
        let b1 = h * d;
        let w2 = b1 + h;
        let b2 = w2 + k * h;
        (b1, w2, b2)
    }

    /// Forward pass: hidden activations u (length h) and logits z (length k).
    fn forward(&self, theta: &[f64], x: &[f64], u: &mut [f64], z: &mut [f64]) {
        let (d, h, k) = (self.d, self.h, self.k);
        let (b1, w2, b2) = self.offsets();
        for j in 0..h {
            u[j] = affine(theta[b1 + j], &theta[j * d..(j + 1) * d], x).tanh();
        }
        for c in 0..k {
            z[c] = affine(theta[b2 + c], &theta[w2 + c * h..w2 + (c + 1) * h], u);
        }
    }
}

impl Model for Mlp {
    fn name(&self) -> String {
        format!("mlp({}-{}-{})", self.d, self.h, self.k)
    }
    fn n_features(&self) -> usize {
        self.d
    }
    fn n_params(&self) -> usize {
        self.h * (self.d + 1) + self.k * (self.h + 1)
    }
    fn scratch_len(&self) -> usize {
        2 * self.h + 2 * self.k
    }
    fn check_label(&self, y: f64) -> Result<()> {
        check_class(y, self.k)
    }
    fn loss_grad(
        &self,
        theta: &[f64],
        x: &[f64],
        y: f64,
        grad: &mut [f64],
        scratch: &mut [f64],
    ) -> f64 {
        let (d, h, k) = (self.d, self.h, self.k);
        let (b1, w2, b2) = self.offsets();
        let (u, rest) = scratch.split_at_mut(h);
        let (du, rest) = rest.split_at_mut(h);
        let (z, r) = rest.split_at_mut(k);
        self.forward(theta, x, u, z);
        let loss = cross_entropy_grad(z, y, &mut r[..k]);
        // Output layer: ∂ℓ/∂W₂[c, j] = r_c u_j, ∂ℓ/∂b₂[c] = r_c.
        du.fill(0.0);
        for c in 0..k {
            grad[b2 + c] = r[c];
            let row = w2 + c * h;
            for j in 0..h {
                grad[row + j] = r[c] * u[j];
                // ∂ℓ/∂u_j = Σ_c r_c W₂[c, j]
                du[j] += r[c] * theta[row + j];
            }
        }
        // Hidden layer: ∂ℓ/∂a_j = ∂ℓ/∂u_j (1 − u_j²); ∂ℓ/∂W₁[j, i] = that · x_i.
        for j in 0..h {
            let da = du[j] * (1.0 - u[j] * u[j]);
            grad[b1 + j] = da;
            for (g, xi) in grad[j * d..(j + 1) * d].iter_mut().zip(x) {
                *g = da * xi;
            }
        }
        loss
    }
    fn loss(&self, theta: &[f64], x: &[f64], y: f64, scratch: &mut [f64]) -> f64 {
        let (h, k) = (self.h, self.k);
        let (u, rest) = scratch.split_at_mut(h);
        let (z, rest) = rest[h..].split_at_mut(k);
        self.forward(theta, x, u, z);
        softmax(z, &mut rest[..k]) - z[y as usize]
    }
    fn predict(&self, theta: &[f64], x: &[f64], scratch: &mut [f64]) -> f64 {
        let (h, k) = (self.h, self.k);
        let (u, rest) = scratch.split_at_mut(h);
        let z = &mut rest[h..h + k];
        self.forward(theta, x, u, z);
        argmax(z)
    }
    /// Weights uniform on ±√(6/(fan_in + fan_out)) (Glorot & Bengio 2010), biases 0, from
    /// stream `INIT_STREAM` of `seed` (training draws from stream 0: the two never overlap).
    fn init(&self, seed: u64) -> Vec<f64> {
        let (d, h, k) = (self.d, self.h, self.k);
        let (b1, w2, b2) = self.offsets();
        let mut rng = chunk_rng(seed, INIT_STREAM);
        let mut th = vec![0.0; self.n_params()];
        let a1 = (6.0 / (d + h) as f64).sqrt();
        for v in &mut th[..b1] {
            *v = a1 * (2.0 * rng.random::<f64>() - 1.0);
        }
        let a2 = (6.0 / (h + k) as f64).sqrt();
        for v in &mut th[w2..b2] {
            *v = a2 * (2.0 * rng.random::<f64>() - 1.0);
        }
        th
    }
}

#[cfg(test)]
mod tests {
    use super::{chunk_rng, sigmoid, softplus, Logistic, Mlp, Model, RngExt, Softmax};

    /// Central differences with step 1e-6 against the analytic gradient, on random θ and x.
    fn check_fd(m: &dyn Model, y: f64, seed: u64) {
        let mut rng = chunk_rng(seed, 1);
        let p = m.n_params();
        let theta: Vec<f64> = (0..p).map(|_| rng.random::<f64>() - 0.5).collect();
        let x: Vec<f64> = (0..m.n_features())
            .map(|_| 2.0 * rng.random::<f64>() - 1.0)
            .collect();
        let mut g = vec![0.0; p];
        let mut s = vec![0.0; m.scratch_len()];
        let l = m.loss_grad(&theta, &x, y, &mut g, &mut s);
        let mut g2 = vec![0.0; p];
        m.grad(&theta, &x, y, &mut g2, &mut s);
        assert_eq!(g, g2);
        assert!((l - m.loss(&theta, &x, y, &mut s)).abs() <= 1e-15 * l.abs().max(1.0));
        let h = 1e-6;
        for i in 0..p {
            let mut tp = theta.clone();
            tp[i] += h;
            let mut tm = theta.clone();
            tm[i] -= h;
            let fd = (m.loss(&tp, &x, y, &mut s) - m.loss(&tm, &x, y, &mut s)) / (2.0 * h);
            // central-difference truncation O(h²) plus rounding O(ε/h): ~1e-9 here.
            assert!(
                (fd - g[i]).abs() <= 1e-8 * (1.0 + g[i].abs()),
                "{} param {i}: analytic {} vs finite difference {fd}",
                m.name(),
                g[i]
            );
        }
    }

    #[test]
    fn gradients_match_finite_differences() {
        for (y, s) in [(1.0, 1), (-1.0, 2)] {
            check_fd(&Logistic::new(5).unwrap(), y, s);
        }
        for y in 0..4 {
            check_fd(&Softmax::new(6, 4).unwrap(), f64::from(y), 10 + y as u64);
        }
        for y in 0..3 {
            check_fd(&Mlp::new(5, 7, 3).unwrap(), f64::from(y), 20 + y as u64);
        }
    }

    #[test]
    fn labels_and_shapes_are_checked() {
        assert!(Logistic::new(0).is_err());
        assert!(Softmax::new(3, 1).is_err());
        assert!(Mlp::new(3, 0, 2).is_err());
        assert!(Logistic::new(2).unwrap().check_label(0.0).is_err());
        assert!(Softmax::new(2, 3).unwrap().check_label(3.0).is_err());
        assert!(Mlp::new(2, 2, 3).unwrap().check_label(1.5).is_err());
        assert_eq!(Mlp::new(64, 32, 10).unwrap().n_params(), 32 * 65 + 10 * 33);
    }

    #[test]
    fn softplus_and_sigmoid_are_stable() {
        assert_eq!(softplus(-1000.0), 0.0);
        assert_eq!(softplus(1000.0), 1000.0);
        assert_eq!(sigmoid(-1000.0), 0.0);
        assert_eq!(sigmoid(1000.0), 1.0);
    }
}
