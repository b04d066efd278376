#!/usr/bin/env python3
"""One slow-link haptic run as a JSON row (from the loop's --json report and the device
recording), or the Markdown table of bench/results/slow-link.json (--table FILE)."""
import csv
import json
import sys


def row(report_path, recording_path, rtt, jitter, loss, passivity, reach="auto",
        contact_problem="upper-float"):
    report = json.load(open(report_path))
    rows = list(csv.reader(open(recording_path)))
    index = {k: i for i, k in enumerate(rows[0])}
    data = [list(map(float, r)) for r in rows[1:] if r and not r[0].startswith("#")]
    delivered = absorbed = 0.0
    held = []
    for k in range(len(data) - 1):
        work = sum(data[k][index["f" + a]] * (data[k + 1][index[a]] - data[k][index[a]])
                   for a in "xyz")
        delivered += work
        absorbed += max(0.0, -work)
        if 3.5 <= data[k][index["t"]] <= 5.0:  # the hold's last 1.5 s (after 1 s hovering)
            held.append(data[k][index["fy"]])
    return {
        "rtt_ms": float(rtt), "jitter_ms": float(jitter), "loss": float(loss),
        "passivity": passivity,
        "reach": reach,
        "largest_candidate_reach_m": report.get("largest_candidate_reach_m", 0),
        "achieved_rate_hz": report["achieved_rate_hz"],
        "period_p99_us": report["period_us"].get("p99", 0),
        "round_trip_ms": {k: report["round_trip_ms"].get(k, 0) for k in ("p50", "p99")},
        "model_age_p99_ms": report["model_age_ms"].get("p99", 0),
        "swap_disagreement_n": {k: report["model_swap_force_jump_n"].get(k, 0)
                                for k in ("p99", "max")},
        "largest_rendered_swap_step_n": report["model_swap_largest_rendered_step_n"],
        "held_force_n": sum(held) / len(held) if held else 0,
        "held_force_range_n": [min(held), max(held)] if held else [0, 0],
        "energy_to_user_j": delivered,
        "energy_from_user_j": absorbed,
        "passivity_dissipated_j": report["passivity_dissipated_j"],
        "watchdog_ticks": report["watchdog_ticks"],
        "model_age_p50_ms": report["model_age_ms"].get("p50", 0),
        "contact_problem": contact_problem,
        "contact_problem_bytes_mean": report.get("contact_problem_bytes_mean", 0),
        "contact_problems_received": report.get("contact_problems_received", 0),
    }


def table(path):
    runs = json.load(open(path))
    direct = next((r["held_force_n"] for r in runs
                   if r["rtt_ms"] == 0 and r["passivity"] == "on" and r.get("reach", "auto") == "auto"),
                  None)
    print("| RTT ms (jitter) | loss | reach (largest mm) | passivity | contact problem (kB) | rate Hz | "
          "measured RTT p50 / p99 ms | model age p50 / p99 ms | swap disagreement p99 / max N | "
          "largest rendered swap step N | held force N (vs direct) | energy to user / from user mJ |")
    print("|---|---:|---|---|---|---:|---|---|---|---:|---|---|")
    for r in runs:
        versus = f"{100 * (r['held_force_n'] / direct - 1):+.2f} %" if direct else "no direct run"
        print(f"| {r['rtt_ms']:.0f} (±{r['jitter_ms']:.0f}) | {100 * r['loss']:.0f} % | "
              f"{r.get('reach', 'auto')} ({1e3 * r.get('largest_candidate_reach_m', 0):.1f}) | "
              f"{r['passivity']} | {r.get('contact_problem', 'full')} "
              f"({1e-3 * r.get('contact_problem_bytes_mean', 0):.1f}) | {r['achieved_rate_hz']:.0f} | "
              f"{r['round_trip_ms']['p50']:.1f} / {r['round_trip_ms']['p99']:.1f} | "
              f"{r.get('model_age_p50_ms', 0):.0f} / {r['model_age_p99_ms']:.0f} | "
              f"{r['swap_disagreement_n']['p99']:.2f} / {r['swap_disagreement_n']['max']:.2f} | "
              f"{r['largest_rendered_swap_step_n']:.3f} | {r['held_force_n']:.4f} ({versus}) | "
              f"{1e3 * r['energy_to_user_j']:+.2f} / {1e3 * r['energy_from_user_j']:.2f} |")


if __name__ == "__main__":
    if sys.argv[1] == "--table":
        table(sys.argv[2])
    else:
        print(json.dumps(row(*sys.argv[1:9]), indent=1))
