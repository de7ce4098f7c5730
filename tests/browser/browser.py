"""What the browser scenarios in tests/browser share: the system Chromium under Playwright, the
axe-core check, the check that a page cannot be framed, screenshots at a phone's and a desktop's
width, and a runner that turns a failed expectation into a clear message and a non-zero exit.
tests/api/browser.rs runs the scenarios."""

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

from playwright.sync_api import Browser, Page, sync_playwright

# axe-core, as tests/browser/package-lock.json pins it (scripts/test runs npm ci).
AXE = Path(__file__).parent / "node_modules/axe-core/axe.min.js"

# Nothing the browser does on its own may reach the network or depend on the machine's GPU.
# Playwright's launch gives each browser a fresh temporary user-data dir (it refuses
# --user-data-dir among the args), so no run sees another's cookies or cache.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# The widths of a small phone and of a desktop.
WIDTHS = (375, 1280)

# The axe impacts that fail a scenario; `moderate` and `minor` are left to judgement.
FAILING_IMPACTS = ("serious", "critical")


class Failed(Exception):
    pass


def expect(condition: Any, message: str) -> None:
    if not condition:
        raise Failed(message)


@contextlib.contextmanager
def launch() -> Iterator[Browser]:
    """The system Chromium that scripts/test installs (KIOKU_CHROMIUM): Playwright's own browser
    builds are a download, which this project's machines cannot make."""
    chromium = os.environ.get("KIOKU_CHROMIUM")
    expect(chromium, "KIOKU_CHROMIUM is unset: run the tests with scripts/test")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def goto(page: Page, url: str) -> dict[str, str]:
    """Opens `url`, expects a 200, and returns the response's headers (names in lower case)."""
    response = page.goto(url)
    expect(response is not None, f"{url}: no response")
    expect(response.status == 200, f"{url}: status {response.status}")
    return response.all_headers()


def console_errors(page: Page) -> list[str]:
    """The errors the page logs from now on, kept in the returned list: among them what its CSP
    refuses to load, which a page that still renders would otherwise hide."""
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def check_accessibility(page: Page, label: str) -> None:
    """Runs axe-core on the page and fails on any serious or critical violation.

    The script goes in through page.evaluate, which Chromium runs over the DevTools protocol:
    a page's CSP governs the scripts the page itself loads or evaluates, not those, so axe runs
    under kioku's `default-src 'none'` as served (a <script> tag would be refused), without
    bypass_csp, which would change the page being checked."""
    violations = page.evaluate(
        AXE.read_text()
        + """;
        axe.run(document, {resultTypes: ["violations"]}).then(results =>
            results.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                targets: v.nodes.map(n => n.target.join(" ")),
            })))"""
    )
    failing = [v for v in violations if v["impact"] in FAILING_IMPACTS]
    expect(
        not failing,
        f"{label}: axe-core found accessibility violations:\n"
        + "\n".join(
            f"  {v['id']} ({v['impact']}): {v['help']}; at {', '.join(v['targets'])}"
            for v in failing
        ),
    )


def check_cannot_be_framed(browser: Browser, url: str, heading: str) -> None:
    """A page of another origin frames `url`, whose `heading` shows when it renders: Chromium
    must refuse it (kioku sends frame-ancestors 'none' and X-Frame-Options DENY), so that no
    page can overlay kioku to trick a click. The refusal is told from an unreachable server by
    its error code."""
    page = browser.new_page()
    failures: dict[str, str | None] = {}
    page.on("requestfailed", lambda request: failures.update({request.url: request.failure}))
    # set_content returns on the load event, which waits for the frame to load or fail.
    page.set_content(f'<iframe src="{url}" title="kioku"></iframe>')
    frame = page.query_selector("iframe").content_frame()
    expect(frame is not None, "the framing page has no frame")
    shown = frame.get_by_role("heading", name=heading, exact=True).count()
    expect(shown == 0, f"{url} rendered inside another site's frame ({frame.url})")
    failure = failures.get(url)
    expect(
        failure == "net::ERR_BLOCKED_BY_RESPONSE",
        f"framing {url} failed with {failure!r}, not the refusal net::ERR_BLOCKED_BY_RESPONSE",
    )
    page.close()


def screenshots(page: Page, artifacts: Path, name: str) -> None:
    """Writes the whole page at each width in WIDTHS, as <name>-<width>.png."""
    artifacts.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        page.screenshot(path=artifacts / f"{name}-{width}.png", full_page=True)


def run(scenario: Callable[[Browser, str, Path], None]) -> None:
    """Runs `scenario(browser, base_url, artifacts)` with the command line's --base-url and
    --artifacts; on a failed expectation prints it and exits 1."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True, help="the running kioku's root URL")
    parser.add_argument("--artifacts", required=True, type=Path, help="where screenshots go")
    args = parser.parse_args()
    try:
        with launch() as browser:
            scenario(browser, args.base_url.rstrip("/"), args.artifacts)
    except Failed as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
