"""DP-SGD in NumPy with dpaudit as its privacy accountant, the way Opacus is used.

Logistic regression on synthetic data, trained with Poisson sampling (each record joins a
batch independently with probability q), per-example gradient clipping to norm C and Gaussian
noise of standard deviation sigma * C on the clipped sum (Abadi et al. 2016). Opacus is not
needed: what this shows is the accountant's part of an Opacus loop,

* before training, the noise multiplier is calibrated for a target (eps, delta) over the
  planned number of steps (Opacus: ``get_noise_multiplier``; here ``dpaudit.calibrate_sigma``,
  whose answer is certified: eps_hi(sigma) <= target);
* during training, every optimizer step is recorded (Opacus: ``accountant.step(
  noise_multiplier=..., sample_rate=...)``, here the same call on ``dpaudit.Accountant``);
* after each epoch, ``accountant.get_epsilon(delta)`` reports the privacy spent so far: the
  upper end of dpaudit's certified two-sided bracket, printed beside it.

Run from the repository root after ``pip install .``:

    python examples/opacus_style_training.py            # about a minute on 2 cores

Its output is in docs/python.md.
"""

import argparse
import time
from decimal import Decimal

import numpy as np

import dpaudit


def make_data(rng, n, d):
    """Synthetic logistic-regression data: x ~ N(0, I_d), P(y = 1 | x) = sigmoid(<w*, x>)."""
    w_true = rng.normal(0.0, 1.0, d) / np.sqrt(d) * 3.0
    x = rng.normal(0.0, 1.0, (n, d))
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-x @ w_true))).astype(float)
    return x, y


def loss_and_accuracy(w, x, y):
    z = x @ w
    loss = np.mean(np.logaddexp(0.0, z) - y * z)
    return loss, np.mean((z > 0) == (y == 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000, help="dataset size N")
    ap.add_argument("--batch-size", type=int, default=500, help="expected batch size B")
    ap.add_argument("--epochs", type=float, default=10, help="epochs (an epoch is N/B steps)")
    ap.add_argument("--target-eps", type=float, default=2.0)
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--clip", type=float, default=1.0, help="per-example clipping norm C")
    ap.add_argument("--lr", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    d = 20
    x, y = make_data(rng, args.n, d)

    # DP-SGD bookkeeping, as Opacus: q = B/N, T = ceil(epochs * N / B).
    q, steps = dpaudit.dpsgd_q_steps(args.n, args.batch_size, args.epochs)
    steps_per_epoch = args.n // args.batch_size
    print(f"N = {args.n}, expected batch {args.batch_size}: q = {float(q)}, T = {steps} steps")

    # Noise calibrated up front for the target (Opacus: get_noise_multiplier).
    t0 = time.time()
    cal = dpaudit.calibrate_sigma(args.target_eps, args.delta, q=q, steps=steps, rel_tol=1e-3)
    sigma = cal.sigma
    print(
        f"calibrated noise multiplier sigma = {sigma:.6f} for (eps, delta) = "
        f"({args.target_eps}, {args.delta}): eps(sigma) in {cal.eps}; "
        f"sigma = {cal.sigma_below:.6f} would give eps >= {cal.eps_below.lo_float:.6f} "
        f"({cal.evaluations} certified brackets, {time.time() - t0:.1f} s)"
    )

    accountant = dpaudit.Accountant()  # Opacus: RDPAccountant() / PRVAccountant()
    w = np.zeros(d)
    loss, acc = loss_and_accuracy(w, x, y)
    print(f"epoch  0: loss {loss:.4f}  accuracy {acc:.4f}")
    step = 0
    epoch = 0
    while step < steps:
        for _ in range(min(steps_per_epoch, steps - step)):
            # Poisson sampling: every record joins the batch with probability q.
            batch = rng.random(args.n) < float(q)
            xb, yb = x[batch], y[batch]
            # Per-example gradients of the logistic loss, clipped to norm C.
            p = 1.0 / (1.0 + np.exp(-(xb @ w)))
            g = (p - yb)[:, None] * xb
            norms = np.linalg.norm(g, axis=1)
            g *= np.minimum(1.0, args.clip / np.maximum(norms, 1e-12))[:, None]
            # Gaussian noise on the clipped sum, normalised by the expected batch size.
            noisy = g.sum(axis=0) + rng.normal(0.0, sigma * args.clip, d)
            w -= args.lr * noisy / args.batch_size
            accountant.step(noise_multiplier=sigma, sample_rate=q)
            step += 1
        epoch += 1
        loss, acc = loss_and_accuracy(w, x, y)
        t0 = time.time()
        eps = accountant.get_epsilon(delta=args.delta)  # the certified upper end
        b = accountant.get_epsilon_bracket(args.delta).value  # the same bracket, reused
        print(
            f"epoch {epoch:2d}: loss {loss:.4f}  accuracy {acc:.4f}  steps {len(accountant):4d}  "
            f"eps = {eps:.6f}  (exact: {Decimal(b.mid):f}, {b.digits} certified digits; "
            f"{time.time() - t0:.1f} s)"
        )

    # For reference: the non-private optimum (full-batch gradient descent, no clipping/noise).
    w_np = np.zeros(d)
    for _ in range(500):
        w_np -= x.T @ (1.0 / (1.0 + np.exp(-(x @ w_np))) - y) / args.n
    loss_np, acc_np = loss_and_accuracy(w_np, x, y)
    print(f"non-private reference: loss {loss_np:.4f}  accuracy {acc_np:.4f}")

    final = accountant.get_epsilon_bracket(args.delta)
    verdict = "met" if final.value.hi_float <= args.target_eps else "NOT met"
    print(
        f"final: ({final.value.hi_float:.6f}, {args.delta})-DP after {len(accountant)} steps; "
        f"target eps {args.target_eps} {verdict} (certified upper end {final.value.hi})"
    )


if __name__ == "__main__":
    main()
