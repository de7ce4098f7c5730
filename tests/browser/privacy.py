"""/privacy in Chromium: each language's page renders its heading with nothing refused by its
CSP, passes axe-core, is screenshot at a phone's and a desktop's width, and cannot be framed by
another page. Run by tests/api/browser.rs: privacy.py --base-url URL --artifacts DIR."""

from pathlib import Path

from playwright.sync_api import Browser

from browser import check_accessibility, check_cannot_be_framed, console_errors, expect, goto, run
from browser import screenshots

# Each language's page and its top heading.
HEADINGS = {"en": "Privacy policy", "ja": "プライバシーポリシー"}


def check_renders(browser: Browser, base: str, artifacts: Path) -> None:
    page = browser.new_page()
    errors = console_errors(page)
    for lang, heading in HEADINGS.items():
        path = f"/privacy?lang={lang}"
        headers = goto(page, base + path)
        # The checks below hold under the policy kioku serves, or they say nothing of it.
        csp = headers.get("content-security-policy", "")
        expect("default-src 'none'" in csp, f"{path}: content-security-policy is {csp!r}")
        headings = page.get_by_role("heading", level=1, name=heading, exact=True)
        expect(headings.count() == 1, f"{path}: no heading {heading!r} in {page.content()}")
        check_accessibility(page, path)
        screenshots(page, artifacts, f"privacy-{lang}")
    expect(not errors, f"/privacy logged errors: {errors}")
    page.close()


def scenario(browser: Browser, base: str, artifacts: Path) -> None:
    check_renders(browser, base, artifacts)
    check_cannot_be_framed(browser, f"{base}/privacy", HEADINGS["en"])


if __name__ == "__main__":
    run(scenario)
