"""tools/bench/accuracy's confidence interval of the measured saving's median, checked
against the binomial coverage it claims, computed here independently."""
import importlib.machinery
import importlib.util
import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "bench"))


def load_accuracy():
    path = str(ROOT / "tools" / "bench" / "accuracy")
    loader = importlib.machinery.SourceFileLoader("accuracy", path)
    spec = importlib.util.spec_from_loader("accuracy", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_too_few_runs_give_no_interval():
    acc = load_accuracy()
    # 5 runs: even (min, max) holds the median with only 1 - 2/32 = 93.75%
    assert acc.median_interval([5.0, 1.0, 4.0, 2.0, 3.0]) is None


def test_the_narrowest_order_statistics_with_95_percent():
    acc = load_accuracy()
    # 7 runs: (min, max) 98.4%; the next pair in 87.5%: (min, max) it is
    assert acc.median_interval([7, 1, 6, 2, 5, 3, 4]) == (1, 7)
    # 9 runs: 2nd and 8th 96.1%, 3rd and 7th 82.0%
    assert acc.median_interval(list(range(9, 0, -1))) == (2, 8)


def test_coverage_is_at_least_95_percent_by_simulation():
    """Draws from a skewed distribution whose median is known: the interval holds it in at
    least 95% of 4000 trials (binomial coverage does not depend on the distribution)."""
    acc = load_accuracy()
    rng = random.Random(7)
    true_median = 2 ** 0.5      # the median of sqrt(2) * lognormal(0, 1)
    held = trials = 0
    for _ in range(4000):
        xs = [true_median * rng.lognormvariate(0, 1) for _ in range(9)]
        lo, hi = acc.median_interval(xs)
        trials += 1
        held += lo <= true_median <= hi
    assert held / trials >= 0.95, held / trials
