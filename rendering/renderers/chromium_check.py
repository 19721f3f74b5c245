"""`python -m rendering.renderers.chromium_check [PATH]`: start Chromium the way a worker
does (Playwright's driver, the launch flags, the bundled fonts), ask it a CDP question,
stop it. Exit status 0 when it answered; otherwise the first line of what went wrong (a
missing shared library of the driver or the browser shows here, not in a failed job)."""

from __future__ import annotations

import sys
from pathlib import Path

from rendering.renderers.chromium_browser import DEFAULT_EXECUTABLE, ChromiumService


def main(argv: list[str]) -> int:
    executable = Path(argv[0]) if argv else DEFAULT_EXECUTABLE
    service = ChromiumService(executable=executable, max_jobs=1, memory_mb=256)
    try:
        service.start_browser(timeout=60)
        if not service.ping(timeout=10):
            print("Chromium started but is not connected", file=sys.stderr)
            return 1
    except Exception as exc:
        text = str(exc).strip().splitlines()
        print(text[0] if text else type(exc).__name__, file=sys.stderr)
        return 1
    finally:
        service.close()
    print(f"Chromium at {executable} started and answered")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
