"""Type stubs of the compiled module `dpaudit._dpaudit` (python/src/lib.rs). Use the documented
wrappers of `dpaudit` instead of calling these directly."""

from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

_Number = Union[int, float, str]
_Part = Tuple[str, Optional[_Number], _Number, int]

class DpauditError(ValueError):
    """A dpaudit error; the message names the parameter and its value."""

def eps_for_delta(
    parts: List[_Part],
    single: bool,
    neighbours: str,
    delta: _Number,
    digits: int,
    max_seconds: Optional[float],
) -> Dict[str, Any]: ...
def delta_for_eps(
    parts: List[_Part],
    single: bool,
    neighbours: str,
    eps: _Number,
    digits: int,
    max_seconds: Optional[float],
) -> Dict[str, Any]: ...
def calibrate_sigma(
    target_eps: _Number,
    delta: _Number,
    neighbours: str,
    q: _Number,
    steps: int,
    rel_tol: _Number,
    max_seconds: Optional[float],
) -> Dict[str, Any]: ...
def calibrate_steps(
    target_eps: _Number,
    delta: _Number,
    neighbours: str,
    q: _Number,
    sigma: _Number,
    max_steps: int,
    max_seconds: Optional[float],
) -> Dict[str, Any]: ...
def calibrate_batch_size(
    target_eps: _Number,
    delta: _Number,
    neighbours: str,
    dataset_size: int,
    epochs: _Number,
    sigma: _Number,
    max_seconds: Optional[float],
) -> Dict[str, Any]: ...
def dpsgd_q_steps(dataset_size: int, batch_size: int, epochs: _Number) -> Tuple[str, int]: ...
def evaluate(
    quantity: str,
    family: str,
    params: Union[Dict[str, _Number], str],
    digits: int,
    method: str,
    max_seconds: Optional[float],
) -> Tuple[str, int, float]: ...
def audit_samples(
    a: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    eps: _Number,
    delta: _Number,
    confidence: _Number,
    statistic: str,
    pilot_fraction: _Number,
    seed: int,
) -> str: ...
def quantities() -> List[str]: ...
def families() -> List[str]: ...
