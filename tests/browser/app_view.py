"""kioku's MCP Apps view in Chromium, inside a host page built on the official ext-apps
app-bridge and MCP client (app_host.mjs): a search shows the memories found with their thread,
time in the host's zone and writer; an entry is forgotten through the view (and is gone from a
later load); the profile is corrected, meets a rewrite made meanwhile, and is saved over it;
Japanese and dark by the host's context; axe-core on the view; screenshots at 375 and 760 px.
Run by tests/api/browser.rs: app_view.py --base-url URL --artifacts DIR, with KIOKU_VIEW_*."""

import os
import subprocess
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any, Callable
from zoneinfo import ZoneInfo

from playwright.sync_api import Browser, Frame, Page

from browser import check_accessibility, console_errors, expect, run

HERE = Path(__file__).parent
TOKEN = os.environ.get("KIOKU_VIEW_TOKEN", "")
FORGET = os.environ.get("KIOKU_VIEW_FORGET", "")
FORGET_STAMP = os.environ.get("KIOKU_VIEW_FORGET_STAMP", "")
KEEP = os.environ.get("KIOKU_VIEW_KEEP", "")
QUERY = os.environ.get("KIOKU_VIEW_QUERY", "")
PROFILE = os.environ.get("KIOKU_VIEW_PROFILE", "")
WRITER = os.environ.get("KIOKU_VIEW_WRITER", "")

# The host page, served at kioku's origin (as a host's own page would call its MCP server).
HOST_PATH = "/__view-host/"
HOST_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A chat</title>
<style>body{margin:0;padding:8px;font-family:sans-serif}
iframe{width:100%;border:1px solid #888;border-radius:8px;height:200px}</style></head>
<body><main><p>Loading the view…</p></main><script type="module" src="host.js"></script>
</body></html>"""

# The widths of a phone and of a chat column on a desktop.
WIDTHS = (375, 760)
ZONE = "America/New_York"


def bundle() -> str:
    """app_host.mjs with the packages it imports, as one script for the page."""
    with tempfile.TemporaryDirectory() as out:
        target = Path(out) / "host.js"
        subprocess.run(
            [HERE / "node_modules/.bin/esbuild", HERE / "app_host.mjs", "--bundle",
             "--format=esm", "--platform=browser", f"--outfile={target}", "--log-level=warning"],
            check=True,
        )
        return target.read_text()


def open_host(browser: Browser, base: str, script: str, width: int) -> Page:
    page = browser.new_page(viewport={"width": width, "height": 900})
    files = {"": ("text/html", HOST_PAGE), "host.js": ("text/javascript", script)}

    def serve(route: Any) -> None:
        name = route.request.url.split(HOST_PATH, 1)[1]
        content_type, body = files[name]
        route.fulfill(status=200, content_type=content_type, body=body)

    page.route(f"{base}{HOST_PATH}**", serve)
    page.goto(f"{base}{HOST_PATH}")
    return page


def view_errors(page: Page) -> Callable[[], list[str]]:
    """What reads the errors the page and the view logged since, but the one a 405 to the client's GET
    of /mcp logs: the client asks for a stream of server messages, which a stateless server
    refuses as the transport specifies ("Listening for Messages from the Server"). Any other
    refused request is among them."""
    errors = console_errors(page)
    kept: list[str] = []

    def refused(response: Any) -> None:
        request = response.request
        if response.status == 405 and not (request.method == "GET" and request.url.endswith("/mcp")):
            kept.append(f"405 to {request.method} {request.url}")

    page.on("response", refused)

    return lambda: kept + [error for error in errors if "status of 405" not in error]


def show(page: Page, tool: str, args: dict, context: dict) -> tuple[dict, Frame]:
    read = page.evaluate(
        "(call) => window.host.show(call)",
        {"token": TOKEN, "tool": tool, "args": args, "context": context},
    )
    frame = page.query_selector("iframe").content_frame()
    expect(frame is not None, "the view has no frame")
    return read, frame


def http(page: Page, base: str, params: dict) -> dict:
    answer = page.request.get(f"{base}/", params=params,
                              headers={"Authorization": f"Bearer {TOKEN}"})
    expect(answer.status == 200, f"{params} answered {answer.status}: {answer.text()}")
    return answer.json()


def shot(page: Page, artifacts: Path, name: str) -> None:
    artifacts.mkdir(parents=True, exist_ok=True)
    page.locator("iframe").screenshot(path=artifacts / f"{name}.png")


def search(page: Page, frame: Frame, read: dict) -> None:
    expect(read["mimeType"] == "text/html;profile=mcp-app", f"the view's MIME type: {read}")
    expect(read["named"] == ["load_memories", "load_profile"],
           f"the tools naming the view: {read['named']}")
    frame.get_by_role("heading", name=f"Found for “{QUERY}”").wait_for()
    found = frame.get_by_role("listitem").filter(has_text=FORGET)
    found.get_by_role("button", name="Forget this summary").wait_for()
    item = found.inner_text()
    expect(f"in the thread “{FORGET}”" in item, f"the result names no thread: {item!r}")
    expect(f"by API token {WRITER}" in item, f"the result names no writer: {item!r}")
    saved = datetime.fromisoformat(FORGET_STAMP).astimezone(ZoneInfo(ZONE))
    local = f"{saved.hour % 12 or 12}:{saved.minute:02d}"
    expect(local in item, f"the time is not shown in {ZONE} ({local}): {item!r}")
    expect(frame.get_by_text(KEEP, exact=True).count() == 1, f"{KEEP!r} is not shown")
    # The view asks for the profile after the results are shown: waited for, not counted.
    profile = frame.get_by_role("region", name="Profile")
    profile.get_by_text(PROFILE, exact=True).wait_for()
    expect("version 1" in profile.inner_text(), f"no version: {profile.inner_text()!r}")


def forget(page: Page, frame: Frame, base: str) -> None:
    found = frame.get_by_role("listitem").filter(has_text=FORGET)
    found.get_by_role("button", name="Forget this summary").click()
    found.get_by_role("button", name="Forget", exact=True).click()
    frame.get_by_role("status").filter(has_text="Forgotten.").wait_for()
    expect(frame.get_by_text(FORGET, exact=True).count() == 0, "the forgotten entry is shown")
    loaded = http(page, base, {"mode": "load"})
    kept = [e["summary"] for entries in loaded["data"].values() for e in entries]
    expect(kept == [KEEP], f"after forgetting through the view, a load finds {kept}")


def correct_profile(page: Page, frame: Frame, base: str, artifacts: Path) -> None:
    """The person corrects the profile while an assistant rewrites it: their text stays in the
    box beside the assistant's, and saving again puts theirs over it."""
    profile = frame.get_by_role("region", name="Profile")
    profile.get_by_role("button", name="Correct the profile").click()
    mine = "Writes Rust; answers in short sentences."
    frame.get_by_label("Profile text").fill(mine)
    rival = "rewritten by an assistant meanwhile"
    http(page, base, {"mode": "profile", "profile": rival})
    profile.get_by_role("button", name="Save", exact=True).click()
    alert = profile.get_by_role("alert").inner_text()
    expect("rewritten since it was loaded" in alert, f"no conflict shown: {alert!r}")
    expect(frame.get_by_label("Profile text").input_value() == mine, "the draft was lost")
    expect(profile.get_by_text(rival, exact=True).count() == 1, "the current text is not shown")
    expect("version 2" in profile.inner_text(), f"no version 2: {profile.inner_text()!r}")
    shot(page, artifacts, "view-conflict-en-760")
    profile.get_by_role("button", name="Save", exact=True).click()
    frame.get_by_role("status").filter(has_text="Profile saved.").wait_for()
    stored = http(page, base, {"mode": "profile"})
    expect(stored["profile"] == mine and stored["version"] == 3, f"stored: {stored}")
    expect(profile.get_by_text(mine, exact=True).count() == 1, "the saved text is not shown")


def forget_thread_by_keyboard(page: Page, frame: Frame, base: str) -> None:
    """The last thread forgotten with the keyboard alone: the confirmation takes the focus, and
    once the thread is gone the focus is on the word that it is."""
    frame.get_by_role("button", name="このスレッドを忘れる").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    status = frame.get_by_role("status")
    status.filter(has_text="忘れました。").wait_for()
    focused = frame.evaluate("document.activeElement.id")
    expect(focused == "status", f"after forgetting, the focus is on {focused!r}")
    loaded = http(page, base, {"mode": "load"})
    expect(loaded["count"] == 0, f"after forgetting the thread, a load finds {loaded}")


def japanese_and_dark(browser: Browser, base: str, script: str, artifacts: Path) -> None:
    context = {"locale": "ja-JP", "theme": "dark", "timeZone": "Asia/Tokyo"}
    for width in WIDTHS:
        page = open_host(browser, base, script, width)
        errors = view_errors(page)
        _, frame = show(page, "load_memories", {}, context)
        frame.get_by_role("heading", name="スレッド（新しく保存した順）").wait_for()
        expect(frame.locator("html").get_attribute("lang") == "ja", "the view is not in Japanese")
        frame.get_by_role("region", name="プロフィール").wait_for()
        check_accessibility(frame, f"the Japanese dark view at {width} px")
        frame.get_by_role("button", name="記憶のページを開く").click()
        page.wait_for_function("window.host.opened.length > 0")
        opened = page.evaluate("window.host.opened")
        expect(opened == [f"{base}/app"], f"the view asked to open {opened}")
        shot(page, artifacts, f"view-ja-dark-{width}")
        if width == WIDTHS[-1]:
            forget_thread_by_keyboard(page, frame, base)
        expect(not errors(), f"the view logged errors: {errors()}")
        page.close()


def scenario(browser: Browser, base: str, artifacts: Path) -> None:
    script = bundle()
    context = {"locale": "en-US", "theme": "light", "timeZone": ZONE}
    for width in WIDTHS:
        page = open_host(browser, base, script, width)
        errors = view_errors(page)
        read, frame = show(page, "load_memories", {"q": QUERY}, context)
        if width == WIDTHS[0]:
            search(page, frame, read)
        frame.get_by_role("heading", name=f"Found for “{QUERY}”").wait_for()
        check_accessibility(frame, f"the English search view at {width} px")
        shot(page, artifacts, f"view-en-{width}")
        if width == WIDTHS[-1]:
            forget(page, frame, base)
            correct_profile(page, frame, base, artifacts)
        expect(not errors(), f"the view logged errors: {errors()}")
        page.close()
    japanese_and_dark(browser, base, script, artifacts)


if __name__ == "__main__":
    run(scenario)
