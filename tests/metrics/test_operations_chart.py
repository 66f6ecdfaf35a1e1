"""docs/operations.md's chart, rendered from metrics scraped over a known workload (issue 36, item 4).

The workload runs on an in-process queue manager with a fake clock, so the chart is the same at every run: a
producer puts 40 messages a minute for 8 minutes, a consumer that starts 3 minutes late gets 30 a minute, then
60 a minute once the producer stops. Each minute the metrics are scraped (prometheus_client's exposition, read
back with its parser) and ``ibmmq_queue_depth`` and ``ibmmq_queue_oldest_message_age`` are drawn as a small SVG.
The test fails when docs/operations-depth.svg differs from what it renders; ``SYNCPOINT_WRITE_DOCS=1`` writes it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from syncpoint.engine import FakeClock
from syncpoint.metrics import QueueManagerCollector

CHART = Path(__file__).resolve().parents[2] / "docs" / "operations-depth.svg"


def _value(text: str, name: str, queue: str) -> float:
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and s.labels.get("queue") == queue:
                return float(s.value)
    raise AssertionError(f"{name}{{queue={queue}}} was not scraped")


def svg_chart(title: str, series: list[tuple[str, str, list[float]]], x_label: str) -> str:
    """A line chart as SVG text: each series (name, colour, values at x = 0, 1, …) on its own scale, drawn
    against the left axis (the first series) or the right one (the second)."""
    width, height, left, right, top, bottom = 640, 300, 60, 60, 40, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    n = max(len(values) for _, _, values in series)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}"'
        ' font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2:.0f}" y="20" text-anchor="middle" font-size="14">{title}</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="black"/>',
        f'<text x="{left + plot_w / 2:.0f}" y="{height - 12}" text-anchor="middle">{x_label}</text>',
    ]
    for i in range(n):
        x = left + plot_w * i / (n - 1)
        out.append(f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{i}</text>')
    for k, (name, colour, values) in enumerate(series):
        top_value = max(max(values), 1.0)
        axis_x = left if k == 0 else left + plot_w
        anchor = "end" if k == 0 else "start"
        offset = -6 if k == 0 else 6
        out.append(f'<line x1="{axis_x}" y1="{top}" x2="{axis_x}" y2="{top + plot_h}" stroke="{colour}"/>')
        for frac in (0.0, 0.5, 1.0):
            y = top + plot_h * (1 - frac)
            out.append(
                f'<text x="{axis_x + offset}" y="{y + 4:.1f}" text-anchor="{anchor}" fill="{colour}">'
                f"{top_value * frac:.0f}</text>"
            )
        points = " ".join(
            f"{left + plot_w * i / (n - 1):.1f},{top + plot_h * (1 - v / top_value):.1f}" for i, v in enumerate(values)
        )
        out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{left + 10 + 260 * k}" y="{top - 8}" fill="{colour}">{name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def test_the_operations_chart_is_rendered_from_metrics_scraped_over_a_known_workload(
    connect: Callable[..., Any], clock: FakeClock
) -> None:
    qm = connect()
    qm.admin("define", "QLOCAL", "APP.ORDERS", {"DESCR": "orders"})
    q = qm.open("APP.ORDERS")
    registry = CollectorRegistry(auto_describe=False)
    registry.register(QueueManagerCollector("QM1", lambda: connect(appl_name="metrics"), channels=False))
    depth: list[float] = []
    age: list[float] = []
    for minute in range(15):
        text = generate_latest(registry).decode()
        depth.append(_value(text, "ibmmq_queue_depth", "APP.ORDERS"))
        age.append(_value(text, "ibmmq_queue_oldest_message_age", "APP.ORDERS"))
        for second in range(60):
            if minute < 8 and second % 3 == 0:
                q.put(b"order")  # 20 a minute ...
                q.put(b"order")  # ... twice: 40 a minute
            if minute >= 3 and second % (2 if minute < 8 else 1) == 0 and q.depth:
                q.get()  # 30 a minute, then 60
            clock.advance(1)
    assert depth[:4] == [0, 40, 80, 120]  # the producer alone
    assert depth[8] == 120 + 5 * 10  # then 10 a minute more than the consumer takes
    assert depth[-1] == 0 and age[-1] == 0  # drained
    assert max(age) > 0
    chart = svg_chart(
        "APP.ORDERS: ibmmq_queue_depth and ibmmq_queue_oldest_message_age",
        [("depth (messages, left)", "#1f77b4", depth), ("oldest message age (s, right)", "#d62728", age)],
        "minutes",
    )
    if os.environ.get("SYNCPOINT_WRITE_DOCS") == "1":
        CHART.write_text(chart)
    assert CHART.read_text() == chart, "docs/operations-depth.svg is out of date: SYNCPOINT_WRITE_DOCS=1 rewrites it"
