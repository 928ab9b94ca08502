"""The day's hourly rates keep the average, reach the peak in the peak hour, never go negative,
follow a given profile, and a bad profile file says what is wrong."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.finance.demand import (
    HOURS,
    ProfileError,
    profile_for,
    read_profiles,
    replicas_by_hour,
    workload_rates,
)

averages = st.floats(min_value=0.01, max_value=1e5, allow_nan=False)
ratios = st.floats(min_value=1.0, max_value=20.0, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(avg=averages, ratio=ratios, peak_hour=st.integers(min_value=0, max_value=23))
def test_synthetic_day_keeps_mean_and_peak(avg: float, ratio: float, peak_hour: int) -> None:
    rates = workload_rates(avg, avg * ratio, peak_hour=peak_hour)
    assert rates.shape == (HOURS,)
    assert (rates >= 0).all()
    assert rates.mean() == pytest.approx(avg, rel=1e-9)
    assert rates.max() == pytest.approx(avg * ratio, rel=1e-6)
    if ratio > 1 + 1e-6:
        assert int(np.argmax(rates)) == peak_hour


@settings(max_examples=40, deadline=None)
@given(avg=averages, weights=st.lists(st.floats(min_value=0, max_value=100), min_size=24,
                                      max_size=24).filter(lambda w: sum(w) > 1e-6))
def test_a_profile_is_followed_at_the_average(avg: float, weights: list[float]) -> None:
    rates = workload_rates(avg, profile=weights)
    assert rates.mean() == pytest.approx(avg, rel=1e-9)
    w = np.asarray(weights)
    assert np.allclose(rates * w.sum(), w * avg * HOURS, rtol=1e-9, atol=1e-9)


def test_a_flat_day_and_bad_rates() -> None:
    assert np.allclose(workload_rates(5.0), 5.0)
    with pytest.raises(ValueError, match="below avg_qps"):
        workload_rates(5.0, 4.0)
    with pytest.raises(ValueError, match="24 weights"):
        workload_rates(5.0, profile=[1.0] * 23)


def test_autoscaled_replicas_follow_the_rate_above_the_floor() -> None:
    rates = workload_rates(10.0, 20.0)  # ratio 2: the night touches zero
    replicas = replicas_by_hour(rates, 20.0, 8, 2)
    assert replicas.max() == 8 and replicas.min() == 2
    assert replicas.sum() < 8 * HOURS


def test_profile_file_is_read_and_checked(tmp_path: Path) -> None:
    good = tmp_path / "profiles.csv"
    good.write_text("profile,hour,weight\n" + "".join(
        f"Chat Bot,{h},{1 + (h >= 9) * 2}\n" for h in range(24)), encoding="utf-8")
    profiles = read_profiles(good)
    chat = profile_for(profiles, "  chat   bot ")
    assert chat is not None and chat[9] == 3 and chat[0] == 1
    bad = tmp_path / "bad.csv"
    bad.write_text("profile,hour,weight\nx,24,1\nx,1,-2\nx,2,1\nx,2,1\n", encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        read_profiles(bad)
    text = str(caught.value)
    assert "row 2, column hour: '24'" in text and "row 3, column weight: '-2'" in text
    assert "hour 2 of profile 'x' given twice" in text and "no weight for hour(s)" in text
