#!/usr/bin/env python3
"""Summarise a run of the peer comparison (`cargo bench` in benches/peers).

Reads criterion's results, TARGET/criterion/<group>/<bench>/new/estimates.json
(the median's point estimate, in nanoseconds), and prints for each workload
every contender's median, its ratio to the hand-written baseline, and for our
contenders the ratio to the fastest comparable peer (see `sort_of`).
Optionally writes the same as a markdown section and as an SVG bar chart of
median / baseline on a log scale.

    report.py TARGET [--flags FLAGS] [--note TEXT] [--svg FILE] [--markdown FILE]

Contenders are told apart by name: `ours…` (or `ecs…`) is this crate, `baseline…` a
hand-written baseline (`baseline` itself is the one ratios are taken to),
anything else a peer. A contender whose name ends in `_prepared` or `_cached`
keeps its query across passes; the others make it per pass (or have no
query); in simple_insert, one-at-a-time spawns and batch spawns are two
sorts too (`OPERATIONS`). Ours of one sort is compared with peers of the
same sort. Python 3 standard library only.
"""

import argparse
import datetime
import html
import json
import math
import os
import platform
import re
import subprocess
import sys

# Workloads in the order they are shown; others found are appended.
WORKLOADS = [
    "simple_insert",
    "simple_iter",
    "frag_iter",
    "add_remove",
    "heavy_compute",
    "schedule",
    "hierarchy_spawn",
    "hierarchy_despawn",
    "hierarchy_walk",
    "hierarchy_propagate",
    "particles",
    "particles_sum",
]

# Workloads whose `ours` cannot be written yet, and what it waits for.
PENDING = {
    "heavy_compute": "par_for_each_mut",
    "schedule": "Schedule and systems",
}

def kind(name):
    # `ecs…` too, so that the workspace's own benches can be read as well.
    if name.startswith(("ours", "ecs")):
        return "ours"
    if name.startswith("baseline"):
        return "baseline"
    return "peer"


def kept(name):
    """Whether the contender keeps its query from one pass to the next."""
    return name.endswith(("_prepared", "_cached"))


# Workloads whose contenders do one of several operations, by name; a
# contender not named here does the workload's first. In simple_insert,
# `ours`, `hecs_spawn`, `bevy_spawn` and `gecs_spawn` spawn one entity at a
# time and `ours_batch`, `hecs` and `bevy` use a batch spawn; `ours_reserved`
# and `gecs_reserved` spawn one at a time after making room for all. Each is
# compared with the peers that do the same, not with a peer's batch.
OPERATIONS = {
    "simple_insert": {
        "ours_batch": "batch",
        "hecs": "batch",
        "bevy": "batch",
        "ours_reserved": "reserved",
        "gecs_reserved": "reserved",
    },
}


def sort_of(workload, name):
    """What contender `name` of `workload` is compared by: whether it keeps
    its query across passes, and which of the workload's operations it does."""
    return (kept(name), OPERATIONS.get(workload, {}).get(name))


def comparable_peer(workload, name, peers):
    """The fastest peer to compare our contender `name` with: of the peers
    of its sort (see `sort_of`); of all peers where that sort has none.
    (name, median) or None."""
    mine = sort_of(workload, name)
    like = {n: t for n, t in peers.items() if sort_of(workload, n) == mine} or peers
    return min(like.items(), key=lambda kv: kv[1]) if like else None


# Contenders in the order the benches define them; others go after their kind.
ORDER = [
    "ours",
    "ours_batch",
    "ours_reserved",
    "ours_prepared",
    "ours_for_each",
    "ours_for_each_reversed",
    "ours_for",
    "ours_iter_for_each",
    "ours_soa",
    "ours_soa_table",
    "ours_view",
    "ours_query_get",
    "ours_world_get",
    "hecs",
    "hecs_view",
    "hecs_get",
    "hecs_prepared",
    "hecs_spawn",
    "bevy",
    "bevy_cached",
    "bevy_spawn",
    "bevy_world_get",
    "gecs_spawn",
    "gecs_reserved",
    "baseline",
    "baseline_par",
    "baseline_recursive",
    # The workspace's own benches.
    "ecs_spawn",
    "ecs_spawn_batch",
    "ecs_for_each",
    "ecs_for",
    "ecs_iter_for_each",
]


def sort_key(name):
    rank = {"ours": 0, "peer": 1, "baseline": 2}[kind(name)]
    return (rank, ORDER.index(name) if name in ORDER else len(ORDER), name)


def load(target):
    """{workload: {contender: median ns}} from a cargo target directory."""
    root = os.path.join(target, "criterion")
    if not os.path.isdir(root):
        sys.exit(f"report.py: no criterion results under {root}")
    results = {}
    for dirpath, _dirnames, filenames in os.walk(root):
        if os.path.basename(dirpath) != "new" or "estimates.json" not in filenames:
            continue
        with open(os.path.join(dirpath, "estimates.json")) as f:
            median = json.load(f)["median"]["point_estimate"]
        # criterion records the names it was given; the directory names are
        # the same names made safe for a file system.
        group = bench = None
        meta = os.path.join(dirpath, "benchmark.json")
        if os.path.exists(meta):
            with open(meta) as f:
                info = json.load(f)
            group, bench = info.get("group_id"), info.get("function_id")
        if group is None or bench is None:
            rel = os.path.relpath(os.path.dirname(dirpath), root).split(os.sep)
            group, bench = rel[0], "/".join(rel[1:])
        results.setdefault(group, {})[bench] = median
    return results


def ordered_workloads(results):
    known = [w for w in WORKLOADS if w in results]
    return known + sorted(w for w in results if w not in WORKLOADS)


def fmt_time(ns):
    """Three significant digits (four from 1000 up) in a unit that fits."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1.0)):
        if ns >= scale or unit == "ns":
            v = ns / scale
            digits = 2 if v < 10 else 1 if v < 100 else 0
            return f"{v:.{digits}f} {unit}"


def fmt_ratio(r):
    return f"{r:.2f}×" if r < 10 else f"{r:.1f}×"


def summarise(results):
    """Rows per workload: (contender, median, ÷ baseline, (÷ peer, peer)),
    the last for our contenders only (see `comparable_peer`)."""
    summary = []
    for workload in ordered_workloads(results):
        benches = results[workload]
        base = benches.get("baseline")
        peers = {n: t for n, t in benches.items() if kind(n) == "peer"}
        rows = []
        for name in sorted(benches, key=sort_key):
            t = benches[name]
            vs_base = t / base if base else None
            peer = comparable_peer(workload, name, peers) if kind(name) == "ours" else None
            vs_peer = (t / peer[1], peer[0]) if peer else None
            rows.append((name, t, vs_base, vs_peer))
        summary.append((workload, rows))
    return summary


def print_text(summary, meta):
    print(f"# {meta['title']}")
    print(f"# {meta['caption']}")
    for workload, rows in summary:
        print(f"\n{workload}")
        width = max([16] + [len(name) + 1 for name, *_ in rows])
        print(f"  {'contender':<{width}}{'median':>12}{'÷ baseline':>13}  ÷ best comparable peer")
        for name, t, vs_base, vs_peer in rows:
            b = fmt_ratio(vs_base) if vs_base is not None else "-"
            p = f"{fmt_ratio(vs_peer[0])} (vs {vs_peer[1]})" if vs_peer is not None else ""
            print(f"  {name:<{width}}{fmt_time(t):>12}{b:>13}  {p}")
        if not any(kind(n) == "ours" for n, *_ in rows):
            waits = PENDING.get(workload)
            print("  ours: pending" + (f" ({waits})" if waits else ""))


def markdown(summary, meta):
    lines = [
        f"### {meta['flags_title']}",
        "",
        meta["caption"] + ".",
        "",
        "| workload | contender | median | ÷ baseline | ours ÷ best comparable peer |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for workload, rows in summary:
        first = True
        for name, t, vs_base, vs_peer in rows:
            label = f"`{workload}`" if first else ""
            first = False
            b = fmt_ratio(vs_base) if vs_base is not None else "–"
            p = f"{fmt_ratio(vs_peer[0])} (vs {vs_peer[1]})" if vs_peer is not None else ""
            lines.append(f"| {label} | {name} | {fmt_time(t)} | {b} | {p} |")
        if not any(kind(n) == "ours" for n, *_ in rows):
            waits = PENDING.get(workload)
            lines.append(f"| | ours | pending{f' ({waits})' if waits else ''} | | |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# SVG chart: per workload a group of bars, each the contender's median divided
# by the workload's baseline, on a log scale. Bars start at 1× (the baseline)
# and go up when slower, down when faster.

OURS_COLOURS = ["#0d3b78", "#1f64b8", "#4f8fd8", "#8cb9ec", "#c0dbf7"]
COLOURS = {
    "hecs": "#e07b1a",
    "hecs_prepared": "#b35900",
    "hecs_spawn": "#f3b77a",
    "bevy": "#3a9a3a",
    "bevy_cached": "#1e6b1e",
    "bevy_spawn": "#8fd18f",
    "baseline": "#555555",
}
OTHER_BASELINE = "#a8a8a8"
OTHER_PEER = "#9467bd"


def colour(name, ours_names):
    if kind(name) == "ours":
        return OURS_COLOURS[min(ours_names.index(name), len(OURS_COLOURS) - 1)]
    if name in COLOURS:
        return COLOURS[name]
    return OTHER_BASELINE if kind(name) == "baseline" else OTHER_PEER


def esc(text):
    return html.escape(str(text), quote=True)


def svg_chart(summary, meta):
    bar_w, bar_gap, group_gap = 22, 4, 34
    left, right, top, bottom = 70, 20, 78, 150
    plot_h = 320

    groups = []
    notes = []
    for workload, rows in summary:
        # Under the workload's name: our fastest variant against its
        # comparable peer.
        ours = [(t, n, p) for n, t, _, p in rows if kind(n) == "ours" and p]
        if ours:
            _t, name, (ratio, peer) = min(ours)
            notes.append([f"{name} ÷ {peer}", f"= {fmt_ratio(ratio)}"])
        else:
            notes.append([])
        base = dict((n, t) for n, t, _, _ in rows).get("baseline")
        bars = [(n, vb) for n, _t, vb, _p in rows if vb is not None and n != "baseline"]
        groups.append((workload, bars, base is not None, workload in PENDING and not any(kind(n) == "ours" for n, _ in bars)))

    # The axis runs between steps of 1, 2, 5 times a power of ten.
    ratios = [r for _, bars, _, _ in groups for _, r in bars] + [1.0]
    steps = [m * 10.0**e for e in range(-4, 5) for m in (1, 2, 5)]
    lo = max(s for s in steps if s <= min(ratios) / 1.15)
    hi = min(s for s in steps if s >= max(ratios) * 1.15)

    def y(r):
        return top + plot_h * (math.log10(hi) - math.log10(r)) / (math.log10(hi) - math.log10(lo))

    widths = []
    for _w, bars, _b, pending in groups:
        n = len(bars) + (1 if pending else 0)
        widths.append(max(n, 2) * (bar_w + bar_gap) - bar_gap)
    # Room for the title and caption, however few the groups.
    spare = max(0, 680 - (sum(widths) + group_gap * (len(groups) + 1)))
    group_gap += spare // (len(groups) + 1)
    plot_w = sum(widths) + group_gap * (len(groups) + 1)
    width, height = left + plot_w + right, top + plot_h + bottom

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="16" font-weight="bold">{esc(meta["title"])}</text>',
        f'<text x="{width / 2}" y="44" text-anchor="middle" font-size="12">median time ÷ hand-written baseline, log scale; below 1× is faster than the baseline, lower is better</text>',
        f'<text x="{width / 2}" y="62" text-anchor="middle" font-size="12" fill="#333">{esc(meta["flags_title"])}</text>',
    ]

    # Grid lines at the steps; the baseline's 1× line stronger.
    for r in (s for s in steps if lo <= s <= hi):
        yy = y(r)
        stroke, stroke_w = ("#000", 1.5) if r == 1.0 else ("#ddd", 1)
        out.append(
            f'<line x1="{left}" y1="{yy:.1f}" x2="{left + plot_w}" y2="{yy:.1f}" '
            f'stroke="{stroke}" stroke-width="{stroke_w}"/>'
        )
        out.append(
            f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end" font-size="11">{r:g}×</text>'
        )
    out.append(
        f'<text x="16" y="{top + plot_h / 2}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 16 {top + plot_h / 2})">median ÷ baseline</text>'
    )

    # One colour per contender name across all groups and the legend.
    all_names = sorted({n for _, bars, _, _ in groups for n, _ in bars}, key=sort_key)
    ours_names = [n for n in all_names if kind(n) == "ours"]
    x = left + group_gap
    for (workload, bars, has_base, pending), w, note in zip(groups, widths, notes):
        bx = x
        for name, r in bars:
            y1, y0 = y(max(r, 1.0)), y(min(r, 1.0))
            h = max(y0 - y1, 1.0)
            out.append(
                f'<rect x="{bx}" y="{y1:.1f}" width="{bar_w}" height="{h:.1f}" '
                f'fill="{colour(name, ours_names)}"><title>{esc(workload)} / {esc(name)}: {r:.3f}× baseline</title></rect>'
            )
            ty = y1 - 4 if r >= 1 else y0 + 11
            out.append(
                f'<text x="{bx + bar_w / 2}" y="{ty:.1f}" text-anchor="middle" font-size="9">{r:.{2 if r < 10 else 1}f}</text>'
            )
            bx += bar_w + bar_gap
        if pending:
            yy = y(1.0)
            out.append(
                f'<rect x="{bx}" y="{yy - 40:.1f}" width="{bar_w}" height="80" fill="none" '
                f'stroke="{OURS_COLOURS[0]}" stroke-dasharray="3,3"/>'
            )
            out.append(
                f'<text x="{bx + bar_w / 2}" y="{yy:.1f}" font-size="9" fill="{OURS_COLOURS[0]}" '
                f'text-anchor="middle" transform="rotate(-90 {bx + bar_w / 2} {yy:.1f})">ours: pending</text>'
            )
        label_y = top + plot_h + 18
        out.append(
            f'<text x="{x + w / 2}" y="{label_y}" text-anchor="middle" font-size="12" font-weight="bold">{esc(workload)}</text>'
        )
        below = list(note)
        if not has_base:
            below.append("(no baseline)")
        for i, line in enumerate(below):
            out.append(
                f'<text x="{x + w / 2}" y="{label_y + 14 * (i + 1)}" text-anchor="middle" font-size="10">{esc(line)}</text>'
            )
        x += w + group_gap

    # Legend: one swatch per contender name.
    lx, ly = left, top + plot_h + 76
    for name in all_names:
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{colour(name, ours_names)}"/>')
        out.append(f'<text x="{lx + 16}" y="{ly}" font-size="11">{esc(name)}</text>')
        lx += 28 + 7 * len(name)
        if lx > width - 120:
            lx, ly = left, ly + 18
    out.append(
        f'<text x="{lx}" y="{ly}" font-size="11">(baseline = the 1× line)</text>'
    )

    # Caption, wrapped by hand.
    cy = ly + 26
    for line in wrap(meta["caption"], max(60, (width - 2 * left) // 6)):
        out.append(f'<text x="{left}" y="{cy}" font-size="11" fill="#333">{esc(line)}</text>')
        cy += 15
    out[0] = out[0].replace(f'height="{height}"', f'height="{cy}"', 1).replace(
        f"0 0 {width} {height}", f"0 0 {width} {cy}", 1
    )
    out[1] = f'<rect width="{width}" height="{cy}" fill="white"/>'
    out.append("</svg>")
    return "\n".join(out) + "\n"


def wrap(text, limit):
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > limit:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


# ---------------------------------------------------------------------------


def versions(lock_path):
    """{crate: version} for hecs and bevy_ecs from the package's Cargo.lock."""
    found = {}
    try:
        with open(lock_path) as f:
            text = f.read()
    except OSError:
        return found
    for name, version in re.findall(r'name = "([^"]+)"\nversion = "([^"]+)"', text):
        if name in ("hecs", "bevy_ecs"):
            found[name] = version
    return found


def rustc_version():
    try:
        return subprocess.run(
            ["rustc", "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "rustc (version unknown)"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", help="the CARGO_TARGET_DIR of the run")
    parser.add_argument(
        "--flags",
        default=os.environ.get("RUSTFLAGS", ""),
        help="the RUSTFLAGS of the run, for the labels (default: $RUSTFLAGS)",
    )
    parser.add_argument("--note", default="", help="appended to the caption")
    parser.add_argument("--svg", help="write the bar chart here")
    parser.add_argument("--markdown", help="write a markdown section here")
    parser.add_argument(
        "--lock",
        default=os.path.join(here, "Cargo.lock"),
        help="Cargo.lock to read the peers' versions from",
    )
    args = parser.parse_args()

    results = load(args.target)
    summary = summarise(results)

    v = versions(args.lock)
    peers = ", ".join(f"{n} {v[n]}" for n in ("hecs", "bevy_ecs") if n in v) or "peers"
    flags = args.flags.strip() or "none"
    date = datetime.date.today().isoformat()
    cores = os.cpu_count()
    caption = (
        f"Measured {date} on {cores} logical cores ({platform.machine()}, {platform.system()}), "
        f"{rustc_version()}, cargo bench profile, RUSTFLAGS: {flags}"
    )
    if args.note:
        caption += f". {args.note}"
    meta = {
        "title": f"ecs vs {peers}",
        "flags_title": f"RUSTFLAGS: {flags}; {cores} cores; {date}",
        "caption": caption,
    }

    print_text(summary, meta)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(summary, meta))
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(svg_chart(summary, meta))


if __name__ == "__main__":
    main()
