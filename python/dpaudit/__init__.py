"""dpaudit: certified privacy accounting, certified privacy quantities and sample audits.

Python bindings of the dpaudit Rust library (see the repository's
README.md and docs/python.md). Everything is computed by the library in arbitrary precision;
every number this module returns is either

* a **certified bracket** (:class:`Bracket`): the exact value lies in ``[lo, hi]``; the ends are
  given as decimal strings and as floats, both rounded outwards, so the statement survives the
  conversion; or
* a **certified value** (:class:`Value`): a decimal string whose first ``digits`` significant
  digits are certified (relative error below ``10**-digits``).

When the requested digits cannot be certified the call raises :class:`DpauditError` instead of
returning a guess. Bad input raises :class:`DpauditError` (a ``ValueError``) whose message names
the parameter and its value.

Numbers may be given as ``int``, ``float`` or decimal ``str``: a string is the exact decimal
written (``"1e-5"`` is exactly 10⁻⁵), an int is exact, a float is the shortest decimal that
round-trips to it (``1e-5`` is also exactly 10⁻⁵).

Accounting (Poisson-subsampled Gaussian / DP-SGD, add/remove or substitution neighbours):
:func:`eps_for_delta`, :func:`delta_for_eps`, :func:`calibrate_sigma`, :func:`calibrate_steps`,
:func:`calibrate_batch_size`, :func:`dpsgd_q_steps` and the Opacus-style :class:`Accountant`.
The ``dpaudit eval`` quantities: :func:`evaluate`. Audits of two sample sets:
:func:`audit_samples`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _dpaudit as _ext
from ._dpaudit import DpauditError

__all__ = [
    "DpauditError",
    "Bracket",
    "Composed",
    "SigmaCalibration",
    "StepsCalibration",
    "BatchCalibration",
    "Value",
    "Accountant",
    "eps_for_delta",
    "delta_for_eps",
    "calibrate_sigma",
    "calibrate_steps",
    "calibrate_batch_size",
    "dpsgd_q_steps",
    "evaluate",
    "SamplesAudit",
    "audit_samples",
    "quantities",
    "families",
]

__version__ = "0.1.0"

Number = Union[int, float, str]
"""A number: int (exact), float (its shortest round-trip decimal) or decimal string (exact)."""

NEIGHBOURS = ("add_remove", "substitution")


@dataclass(frozen=True)
class Bracket:
    """A certified bracket: the exact value lies in ``[lo, hi]``.

    Attributes:
        lo: lower end, a decimal string rounded down (at least 17 significant digits).
        hi: upper end, a decimal string rounded up.
        mid: the midpoint with the ``digits`` significant digits the width certifies.
        digits: significant digits of ``mid`` certified by the width,
            ⌊−log₁₀(width / 2 / |mid|)⌋ (60 for a point).
        lo_float: ``lo`` as a float, rounded down (a valid lower bound).
        hi_float: ``hi`` as a float, rounded up (a valid upper bound: the one to report as a
            privacy guarantee).
        rel_width: (hi − lo) / |mid|.
    """

    lo: str
    hi: str
    mid: str
    digits: int
    lo_float: float
    hi_float: float
    rel_width: float

    def __contains__(self, x: float) -> bool:
        """Whether the float ``x`` lies in ``[lo_float, hi_float]``."""
        return self.lo_float <= x <= self.hi_float

    def __str__(self) -> str:
        return f"[{self.lo}, {self.hi}] (mid {self.mid}, {self.digits} digits)"


def _bracket(d: Mapping[str, Any]) -> Bracket:
    return Bracket(**d)


@dataclass(frozen=True)
class Composed:
    """Result of :func:`eps_for_delta` / :func:`delta_for_eps`.

    Attributes:
        value: the mechanism's bracket (the worse of the two neighbour directions).
        remove: bracket of the remove direction, D(P^T ‖ Q^T).
        add: bracket of the add direction, D(Q^T ‖ P^T).
        route: how it was computed: ``"gaussian closed form"``, ``"mgf inversion"``,
            ``"mgf inversion of 1 - delta"`` (ε(δ) for δ > 1/2), ``"total variation bound"``,
            ``"small-T nested integration"`` (or its ``" (double precision)"`` form),
            ``"discretised convolution (double precision)"`` or
            ``"discretised convolution of 1 - delta (double precision)"`` (ε(δ) for δ ≥ 1/2)
            (docs/accounting.md).
    """

    value: Bracket
    remove: Bracket
    add: Bracket
    route: str

    def __str__(self) -> str:
        return f"{self.value} via {self.route}"


def _composed(d: Mapping[str, Any]) -> Composed:
    return Composed(
        value=_bracket(d["value"]),
        remove=_bracket(d["remove"]),
        add=_bracket(d["add"]),
        route=d["route"],
    )


def _parts(
    q: Optional[Number],
    sigma: Optional[Number],
    steps: Optional[int],
    schedule: Optional[Sequence[Tuple[Optional[Number], Number, int]]],
) -> list:
    """The (kind, q, sigma, count) parts of the compiled module from either form."""
    if schedule is not None:
        if sigma is not None or steps is not None or q is not None:
            raise DpauditError(
                "invalid parameter schedule: give either schedule=[(q, sigma, count), ...] or "
                "q, sigma and steps, not both"
            )
        if isinstance(schedule, (str, bytes)) or not hasattr(schedule, "__iter__"):
            raise DpauditError(
                f"invalid parameter schedule = {schedule!r}: must be a list of "
                "(q, sigma, count) tuples (q = None for a full-batch Gaussian release)"
            )
        out = []
        for i, item in enumerate(schedule):
            try:
                q_i, sigma_i, count_i = item
            except (TypeError, ValueError):
                raise DpauditError(
                    f"invalid parameter schedule[{i}] = {item!r}: must be a tuple "
                    "(q, sigma, count)"
                ) from None
            kind = "gaussian" if q_i is None else "subsampled_gaussian"
            out.append((kind, q_i, sigma_i, count_i))
        return out
    if sigma is None:
        raise DpauditError("missing parameter sigma (needed by the accounting)")
    if steps is None:
        raise DpauditError("missing parameter steps (needed by the accounting)")
    kind = "gaussian" if q is None else "subsampled_gaussian"
    return [(kind, q, sigma, steps)]


def eps_for_delta(
    delta: Number,
    *,
    q: Optional[Number] = None,
    sigma: Optional[Number] = None,
    steps: Optional[int] = None,
    schedule: Optional[Sequence[Tuple[Optional[Number], Number, int]]] = None,
    neighbours: str = "add_remove",
    digits: int = 20,
    max_seconds: Optional[float] = None,
) -> Composed:
    """Certified ε(δ) of a composition of (Poisson-subsampled) Gaussian releases.

    The release is ``steps`` steps of DP-SGD with sampling rate ``q`` and noise multiplier
    ``sigma`` (sensitivity 1), or any ``schedule`` of ``(q, sigma, count)`` parts mixing rates
    and noise levels (``q = None``: a full-batch Gaussian release). The result is a two-sided
    certified bracket [ε_lo, ε_hi] ∋ ε(δ) for the mechanism (the worse neighbour direction),
    computed by inverting the composed privacy loss's moment generating function
    (docs/accounting.md#composition), the closed form of Balle & Wang (2018, Thm 8) for purely
    Gaussian schedules, or nested integration for one or two steps.

    Args:
        delta: δ in (0, 1).
        q: sampling rate in (0, 1] (``None``: no subsampling).
        sigma: noise multiplier σ > 0.
        steps: number of steps T ≥ 1.
        schedule: instead of q/sigma/steps, a list of ``(q, sigma, count)``.
        neighbours: ``"add_remove"`` (Opacus' convention) or ``"substitution"``.
        digits: significant digits requested of δ inside the inversion (1–50); the ε bracket
            follows and its own certified digits are in ``Bracket.digits``.
        max_seconds: time limit; past it the call raises :class:`DpauditError`.

    Returns:
        :class:`Composed`; ``result.value.hi_float`` is the ε to report.

    Raises:
        DpauditError: invalid input (the message names the parameter), or the bracket could not
            be certified (e.g. very small q with moderate T; the message says why).
    """
    parts = _parts(q, sigma, steps, schedule)
    return _composed(
        _ext.eps_for_delta(parts, schedule is None, neighbours, delta, digits, max_seconds)
    )


def delta_for_eps(
    eps: Number,
    *,
    q: Optional[Number] = None,
    sigma: Optional[Number] = None,
    steps: Optional[int] = None,
    schedule: Optional[Sequence[Tuple[Optional[Number], Number, int]]] = None,
    neighbours: str = "add_remove",
    digits: int = 20,
    max_seconds: Optional[float] = None,
) -> Composed:
    """Certified δ(ε) (hockey-stick divergence) of a composition; arguments as
    :func:`eps_for_delta`, with ``eps`` ≥ 0 in place of ``delta``.

    Returns:
        :class:`Composed` whose brackets contain δ(ε); ``value.hi_float`` is the δ to report.
    """
    parts = _parts(q, sigma, steps, schedule)
    return _composed(
        _ext.delta_for_eps(parts, schedule is None, neighbours, eps, digits, max_seconds)
    )


@dataclass(frozen=True)
class SigmaCalibration:
    """Result of :func:`calibrate_sigma`.

    Attributes:
        sigma: the noise multiplier found; its certified ε_hi is ≤ the target.
        eps: the ε bracket at ``sigma``.
        sigma_below: a smaller σ (within ``rel_tol``) whose certified ε_lo exceeds the target.
        eps_below: the ε bracket at ``sigma_below``.
        evaluations: composition brackets computed.
    """

    sigma: float
    eps: Bracket
    sigma_below: float
    eps_below: Bracket
    evaluations: int


def calibrate_sigma(
    target_eps: Number,
    delta: Number,
    *,
    q: Number,
    steps: int,
    neighbours: str = "add_remove",
    rel_tol: float = 1e-3,
    max_seconds: Optional[float] = None,
) -> SigmaCalibration:
    """The smallest noise multiplier σ (to relative tolerance ``rel_tol``) for which ``steps``
    steps at sampling rate ``q`` are (target_eps, delta)-DP, by bisection on log σ over the
    certified bracket: σ is returned only once ε_hi(σ) ≤ target is certified, and a
    σ' ≥ σ(1 − rel_tol) with certified ε_lo(σ') > target has been seen
    (docs/accounting.md#calibration). The analogue of Opacus' ``get_noise_multiplier``.

    Raises:
        DpauditError: invalid input, a target out of reach (σ > 10⁶ or < 10⁻³), or a bracket
            that straddles the target (the answer would be a guess).
    """
    d = _ext.calibrate_sigma(target_eps, delta, neighbours, q, steps, rel_tol, max_seconds)
    return SigmaCalibration(
        sigma=d["sigma"],
        eps=_bracket(d["eps"]),
        sigma_below=d["sigma_below"],
        eps_below=_bracket(d["eps_below"]),
        evaluations=d["evaluations"],
    )


@dataclass(frozen=True)
class StepsCalibration:
    """Result of :func:`calibrate_steps`.

    Attributes:
        steps: the largest T whose certified ε_hi is ≤ the target.
        eps: the ε bracket at ``steps``.
        eps_next: the ε bracket at ``steps + 1`` (its ε_lo exceeds the target), or at ``steps``
            again when ``max_steps`` was reached.
    """

    steps: int
    eps: Bracket
    eps_next: Bracket


def calibrate_steps(
    target_eps: Number,
    delta: Number,
    *,
    q: Number,
    sigma: Number,
    max_steps: int = 10**9,
    neighbours: str = "add_remove",
    max_seconds: Optional[float] = None,
) -> StepsCalibration:
    """The largest number of steps T ≤ ``max_steps`` at sampling rate ``q`` and noise multiplier
    ``sigma`` that is (target_eps, delta)-DP (certified ε_hi(T) ≤ target).

    Raises:
        DpauditError: invalid input, or even one step exceeds the target.
    """
    d = _ext.calibrate_steps(target_eps, delta, neighbours, q, sigma, max_steps, max_seconds)
    return StepsCalibration(
        steps=d["steps"], eps=_bracket(d["eps"]), eps_next=_bracket(d["eps_next"])
    )


@dataclass(frozen=True)
class BatchCalibration:
    """Result of :func:`calibrate_batch_size`.

    Attributes:
        batch_size: the largest expected batch size B whose certified ε_hi is ≤ the target.
        q: B / dataset_size as a decimal string (40 significant digits).
        steps: T = ⌈epochs · dataset_size / B⌉.
        eps: the ε bracket at B.
        next: ``(B + 1, q, steps, eps bracket)``, whose ε_lo exceeds the target, or ``None``
            when B = dataset_size.
        evaluations: composition brackets computed.
    """

    batch_size: int
    q: str
    steps: int
    eps: Bracket
    next: Optional[Tuple[int, str, int, Bracket]]
    evaluations: int


def calibrate_batch_size(
    target_eps: Number,
    delta: Number,
    *,
    dataset_size: int,
    epochs: Number,
    sigma: Number,
    neighbours: str = "add_remove",
    max_seconds: Optional[float] = None,
) -> BatchCalibration:
    """The largest expected (Poisson) batch size B ≤ ``dataset_size`` for which ``epochs``
    epochs of DP-SGD with noise multiplier ``sigma`` are (target_eps, delta)-DP.

    What is certified: ε_hi(B) ≤ target and ε_lo(B + 1) > target. ε is not proved monotone in
    B (docs/accounting.md#calibration).
    """
    d = _ext.calibrate_batch_size(
        target_eps, delta, neighbours, dataset_size, epochs, sigma, max_seconds
    )
    n = d["next"]
    return BatchCalibration(
        batch_size=d["batch_size"],
        q=d["q"],
        steps=d["steps"],
        eps=_bracket(d["eps"]),
        next=None
        if n is None
        else (n["batch_size"], n["q"], n["steps"], _bracket(n["eps"])),
        evaluations=d["evaluations"],
    )


def dpsgd_q_steps(dataset_size: int, batch_size: int, epochs: Number) -> Tuple[str, int]:
    """DP-SGD bookkeeping: ``(q, T)`` with q = batch_size / dataset_size (a decimal string, 40
    significant digits; Poisson sampling with that expected batch) and
    T = ⌈epochs · dataset_size / batch_size⌉ (an epoch is N/B expected batches, as in Opacus)."""
    return _ext.dpsgd_q_steps(dataset_size, batch_size, epochs)


class Accountant:
    """A privacy accountant with the interface of Opacus' accountants, backed by dpaudit's
    certified composition bracket.

    Use it where an Opacus training loop uses ``RDPAccountant`` / ``PRVAccountant``::

        acc = dpaudit.Accountant()
        for batch in loader:
            ...  # clip, add noise, step
            acc.step(noise_multiplier=sigma, sample_rate=q)
        eps = acc.get_epsilon(delta=1e-5)          # certified upper bound (float)
        bracket = acc.get_epsilon_bracket(1e-5)    # the whole certified bracket

    ``history`` is Opacus' list of ``(noise_multiplier, sample_rate, num_steps)``; consecutive
    steps with the same parameters are merged. ``get_epsilon`` returns the **upper** end of the
    certified bracket, so it is a valid guarantee (not an estimate); with the bracket's width
    typically 10⁻¹⁵ relative or less, it is also the exact ε to that many digits.

    Args:
        neighbours: ``"add_remove"`` (Opacus' convention) or ``"substitution"``.
        digits: digits requested of each bracket (1–50; 12 is plenty for reporting).
        max_seconds: time limit of each query.
    """

    def __init__(
        self,
        neighbours: str = "add_remove",
        digits: int = 12,
        max_seconds: Optional[float] = None,
    ) -> None:
        if neighbours not in NEIGHBOURS:
            raise DpauditError(
                f"invalid parameter neighbours = {neighbours!r}: must be one of "
                + ", ".join(repr(n) for n in NEIGHBOURS)
            )
        self.neighbours = neighbours
        self.digits = digits
        self.max_seconds = max_seconds
        self.history: list = []
        self._last: Optional[Tuple[tuple, Composed]] = None

    @staticmethod
    def mechanism() -> str:
        """The accountant's name (Opacus' ``mechanism()``)."""
        return "dpaudit"

    def step(self, *, noise_multiplier: Number, sample_rate: Number) -> None:
        """Records one step of DP-SGD with this noise multiplier and sampling rate (a
        ``sample_rate`` of 1 is a full-batch Gaussian step)."""
        if self.history and self.history[-1][:2] == (noise_multiplier, sample_rate):
            s, q, n = self.history[-1]
            self.history[-1] = (s, q, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        """Number of steps recorded."""
        return sum(n for _, _, n in self.history)

    def _schedule(self) -> list:
        if not self.history:
            raise DpauditError("no steps recorded: call step() before asking for epsilon")
        return [(q, s, n) for s, q, n in self.history]

    def get_epsilon_bracket(self, delta: Number) -> Composed:
        """The certified ε(δ) bracket of the steps recorded so far (the last answer is reused
        while no step was recorded since)."""
        key = (tuple(self.history), repr(delta), self.neighbours, self.digits)
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        r = eps_for_delta(
            delta,
            schedule=self._schedule(),
            neighbours=self.neighbours,
            digits=self.digits,
            max_seconds=self.max_seconds,
        )
        self._last = (key, r)
        return r

    def get_epsilon(self, delta: Number) -> float:
        """ε(δ) of the steps so far: the upper end of the certified bracket (a float rounded
        up), i.e. a guarantee."""
        return self.get_epsilon_bracket(delta).value.hi_float

    def get_delta(self, eps: Number) -> float:
        """δ(ε) of the steps so far: the upper end of the certified bracket."""
        return delta_for_eps(
            eps,
            schedule=self._schedule(),
            neighbours=self.neighbours,
            digits=self.digits,
            max_seconds=self.max_seconds,
        ).value.hi_float


@dataclass(frozen=True)
class Value:
    """A certified value from :func:`evaluate`.

    Attributes:
        value: decimal string with ``digits + 5`` significant digits; the first ``digits`` are
            certified, the trailing five only keep the printout's rounding below the certified
            error (as ``dpaudit eval`` prints it).
        digits: certified significant digits (relative error < 10^-digits).
        float: the value as the nearest float.
    """

    value: str
    digits: int
    float: float

    def __float__(self) -> float:
        return self.float

    def __str__(self) -> str:
        return f"{self.value} ({self.digits} digits)"


def evaluate(
    quantity: str,
    family: str,
    params: Union[Mapping[str, Number], str],
    digits: int = 30,
    method: str = "auto",
    max_seconds: Optional[float] = 60.0,
) -> Value:
    """One row of ``dpaudit eval``: a certified privacy quantity of a mechanism family.

    Args:
        quantity: one of :func:`quantities` (``renyi``, ``kl``, ``fisher``,
            ``hockey_stick_delta``, ``eps_for_delta``, ``rdp_eps_for_delta``,
            ``rgm_theorem1_eps``, ...).
        family: one of :func:`families` (``gaussian``, ``rgm``, ``rectified``, ``truncated``,
            ``stochastic_sign``, ``laplace``, ``subsampled_gaussian``, ...).
        params: the row's parameters, as a dict (``{"mu1": 0, "mu2": 1, "sigma": 5,
            "alpha": 10}``) or as the CSV form ``"mu1=0;mu2=1;sigma=5;alpha=10"``. The
            vocabulary is the one of ``dpaudit eval`` (src/eval.rs, README).
        digits: significant digits to certify (1–2000).
        method: ``"auto"``, ``"closed-form"`` or ``"quadrature"``.
        max_seconds: time limit (``None``: none); past it :class:`DpauditError` is raised.

    Returns:
        :class:`Value`.

    Raises:
        DpauditError: unknown quantity/family/parameter, a parameter out of its domain (named
            with its value), a theorem outside its validity range, or digits not certified.
    """
    v, d, f = _ext.evaluate(quantity, family, params, digits, method, max_seconds)
    return Value(value=v, digits=d, float=f)


def quantities() -> list:
    """The quantity names :func:`evaluate` accepts."""
    return list(_ext.quantities())


def families() -> list:
    """The family names :func:`evaluate` accepts."""
    return list(_ext.families())


@dataclass(frozen=True)
class SamplesAudit:
    """Result of :func:`audit_samples`.

    Attributes:
        eps_lb: lower bound on the ε(δ) of the mechanism that produced the samples, holding
            with probability ≥ ``confidence`` (0 when the samples show nothing).
        eps_lb_strict: the same region's bound at confidence 1 − 10⁻⁶: the verdict's figure.
        verdict: ``"VIOLATION"`` when ``eps_lb_strict`` exceeds the claimed ε (the claim is
            refuted), else ``"ok"`` (which proves nothing: an audit only gives lower bounds).
        eps_claimed, delta, confidence: the claim and the confidence of ``eps_lb``.
        statistic: the statistic used (``auto`` resolved: ``value`` for 1-D samples,
            ``projection`` for d > 1).
        n_a, n_b, main_a, main_b: samples per side, and those in the audited main part (the
            rest is the pilot that chose the statistic's region).
        details: the library's whole result (``dpaudit::audit::samples::SamplesAudit``): the
            split, how the statistic was fitted, the region (threshold, tail, direction,
            counts, Clopper–Pearson bounds), ...
    """

    eps_lb: float
    eps_lb_strict: float
    verdict: str
    eps_claimed: float
    delta: float
    confidence: float
    statistic: str
    n_a: int
    n_b: int
    main_a: int
    main_b: int
    details: dict

    @property
    def violation(self) -> bool:
        """Whether the claim is refuted (``verdict == "VIOLATION"``)."""
        return self.verdict == "VIOLATION"


def _samples(name: str, x: Any) -> "np.ndarray":
    try:
        arr = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    except (TypeError, ValueError) as e:
        raise DpauditError(
            f"invalid parameter {name}: must be an array of numbers, 1-D (n,) or 2-D (n, d) "
            f"({e})"
        ) from None
    if arr.ndim not in (1, 2):
        raise DpauditError(
            f"invalid parameter {name} = an array of shape {arr.shape}: must be 1-D (n,) or "
            "2-D (n, d)"
        )
    return arr


def audit_samples(
    a: Any,
    b: Any,
    eps: Number,
    delta: Number,
    confidence: float = 0.95,
    statistic: str = "auto",
    pilot_fraction: float = 0.2,
    seed: int = 0,
) -> SamplesAudit:
    """Audits a claimed (ε, δ)-DP guarantee from outputs of *your* mechanism: ``a`` drawn on
    an input x, ``b`` on a neighbouring input x′ (NumPy arrays, shape (n,) or (n, d); converted
    to float64).

    Each side is split by a seeded permutation into a pilot part (``pilot_fraction``) and a main
    part; the statistic's rejection region (threshold, tail, direction) is chosen on the pilot
    only, and audited on the main parts with Clopper–Pearson bounds: ``eps_lb`` ≤ ε(δ) with
    probability ≥ ``confidence``. Same arrays and seed → the same result, bit for bit.

    Args:
        a, b: the two sample sets (same d).
        eps, delta: the claim to check.
        confidence: confidence of ``eps_lb``, in (0.5, 1).
        statistic: ``"auto"``, ``"value"`` (1-D), ``"score"`` (a precomputed 1-D score),
            ``"norm"``, ``"projection"`` or ``"exact-bits"`` (pilot-learned log-ratios of the
            floating-point representation: tests the implementation's bits, see the
            repository's docs/samples.md).
        pilot_fraction: fraction of each side in the pilot, in (0, 1).
        seed: seed of the pilot/main split.

    Returns:
        :class:`SamplesAudit`.

    Raises:
        DpauditError: bad arrays (shape, NaN under a numeric statistic, different d), bad
            options (named with their value), too few samples for the split.
    """
    aa, bb = _samples("a", a), _samples("b", b)
    doc = json.loads(
        _ext.audit_samples(aa, bb, eps, delta, confidence, statistic, pilot_fraction, seed)
    )
    return SamplesAudit(
        eps_lb=doc["eps_lb"],
        eps_lb_strict=doc["eps_lb_strict"],
        verdict=doc["verdict"],
        eps_claimed=doc["eps_claimed"],
        delta=doc["delta"],
        confidence=doc["confidence"],
        statistic=doc["statistic"],
        n_a=doc["n_a"],
        n_b=doc["n_b"],
        main_a=doc["main_a"],
        main_b=doc["main_b"],
        details=doc,
    )
