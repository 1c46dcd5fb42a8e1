"""Peer figures for substitution (replace-one) neighbours of the Poisson-subsampled Gaussian.

dp_accounting's PLD accountant with NeighboringRelation.REPLACE_ONE builds, for a
PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), the pair mu_upper = (1-q)N(0,s^2) + qN(-1,s^2)
against mu_lower = (1-q)N(0,s^2) + qN(1,s^2) (privacy_loss_mechanism.py, AdjacencyType.REPLACE)
-- the reflection of our pair, same divergences. Its RDP accountant refuses REPLACE_ONE for
Poisson sampling. We record the PLD's pessimistic and optimistic eps(delta) (discretisation
1e-4), and the ADD_OR_REMOVE_ONE figure for comparison. The Rust test
(tests/accounting_substitution.rs) reads the CSV: dpaudit's certified eps bracket must lie
inside [optimistic, pessimistic] for every row (one step and T steps).
Run: /work/venv/bin/python benches/peers_substitution.py
"""
import csv
import time
import importlib.metadata as md
import dp_accounting
from dp_accounting.pld import pld_privacy_accountant as pa
from dp_accounting import privacy_accountant as acc

CASES = [  # q, sigma, steps, delta
    ("0.1", "1", 1, "1e-5"),
    ("0.01", "1", 1, "1e-6"),
    ("0.5", "2", 1, "1e-3"),
    ("0.1", "1", 100, "1e-5"),
    ("0.01", "1", 1000, "1e-5"),
    ("0.04", "1.5", 1000, "1e-5"),
    ("0.5", "2", 10, "1e-3"),
    ("0.01", "1", 10000, "1e-5"),
]


def eps(q, s, t, d, rel, pessimistic):
    a = pa.PLDAccountant(neighboring_relation=rel, value_discretization_interval=1e-4)
    if not pessimistic:
        # optimistic PLD: build it directly
        from dp_accounting.pld import privacy_loss_distribution as pld
        p = pld.from_gaussian_mechanism(float(s), pessimistic_estimate=False,
                                        value_discretization_interval=1e-4,
                                        sampling_prob=float(q), neighboring_relation=rel)
        return p.self_compose(t).get_epsilon_for_delta(float(d))
    a.compose(dp_accounting.PoissonSampledDpEvent(float(q), dp_accounting.GaussianDpEvent(float(s))), t)
    return a.get_epsilon(float(d))


def main():
    R = acc.NeighboringRelation
    ver = md.version("dp-accounting")
    rows = []
    for q, s, t, d in CASES:
        t0 = time.time()
        pes = eps(q, s, t, d, R.REPLACE_ONE, True)
        opt = eps(q, s, t, d, R.REPLACE_ONE, False)
        ar = eps(q, s, t, d, R.ADD_OR_REMOVE_ONE, True)
        rows.append((q, s, t, d, repr(pes), repr(opt), repr(ar), f"{time.time() - t0:.1f}"))
        print(rows[-1], flush=True)
    with open("benches/peers_substitution.csv", "w", newline="") as fh:
        fh.write(f"# benches/peers_substitution.py, dp-accounting {ver}, value_discretization_interval 1e-4\n")
        w = csv.writer(fh)
        w.writerow(["q", "sigma", "steps", "delta", "pld_replace_one_pessimistic",
                    "pld_replace_one_optimistic", "pld_add_remove_pessimistic", "seconds"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
