"""`make profile`: cProfile of one sample's render (template, charts, layout), top functions
by own time, plus the total. `--without-accel` hides rl_accel's `_rl_accel` to show the fallback."""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("slug", nargs="?", default="operations-review")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--without-accel", action="store_true")
    parser.add_argument("--sort", default="tottime", help="pstats sort key (cumulative…)")
    parser.add_argument("--save", help="write the raw pstats here")
    args = parser.parse_args()
    if args.without_accel:
        sys.modules["_rl_accel"] = None  # type: ignore[assignment]  # an import then fails
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    django.setup()
    from rendering.options import parse_options
    from rendering.report import TemplateSource, report_render
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    html, css, data = sample_files(args.slug)
    source = TemplateSource(engine="handlebars", html=html, css=css)
    options, limits = parse_options({}), limits_from_settings()

    def render() -> None:
        report_render(source=source, data=data, options=options, limits=limits)

    render()  # warm: imports, chart cache, fonts
    started = time.perf_counter()
    render()
    wall = time.perf_counter() - started
    profiler = cProfile.Profile()
    profiler.enable()
    render()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    if args.save:
        stats.dump_stats(args.save)
    stats.sort_stats(args.sort).print_stats(args.top)
    print(f"{args.slug}: {wall:.3f} s unprofiled, {stats.total_tt:.3f} s under cProfile")  # type: ignore[attr-defined]
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:6000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
