"""The memory page (/app) in Chromium, as its person uses it: sign in with a token (by
keyboard); see the threads saved through the API listed by their words; pick a time zone
(kept; an unknown one refused); open a thread on its own page and see which app saved a
summary; search and open a result's thread; forget one summary after confirming (its thread's
link then says it is gone); meet a mistyped path in Japanese; write the profile, keep a draft
through a rewrite made meanwhile (shown with who saved it and when), restore an earlier
version (listed with its time and writer) and forget the profile; tell two apps of one name
apart, disconnect the one that saved and forget what it saved; and sign out, after which the
old cookie opens nothing. A form posted without its CSRF token, one whose token was changed,
and a framed page are refused. Each view passes axe-core and is screenshot at a phone's and a
desktop's width. Run by tests/api/browser.rs, which saved the memories and connected the apps
first and checks the store afterwards: memory_page.py --base-url URL --artifacts DIR, with
KIOKU_PAGE_TOKEN, KIOKU_PAGE_FORGET (the summary to forget), KIOKU_PAGE_KEEP (one to keep, which
the search must not find), KIOKU_PAGE_PROFILE (the profile to write), KIOKU_PAGE_APP (the
connected apps' name), KIOKU_PAGE_APP_SAVED (the summary the first saved) and
KIOKU_PAGE_NAMESPACE (the token's label) in the environment."""

import os
import re
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qs, urlparse
from zoneinfo import ZoneInfo

from playwright.sync_api import Browser, Page

from browser import check_accessibility, check_cannot_be_framed, console_errors, expect, run
from browser import screenshots

TOKEN = os.environ["KIOKU_PAGE_TOKEN"]
FORGET = os.environ["KIOKU_PAGE_FORGET"]
KEEP = os.environ["KIOKU_PAGE_KEEP"]
PROFILE = os.environ["KIOKU_PAGE_PROFILE"]
APP = os.environ["KIOKU_PAGE_APP"]
APP_SAVED = os.environ["KIOKU_PAGE_APP_SAVED"]
NS = os.environ["KIOKU_PAGE_NAMESPACE"]
BROWSER_ZONE = "Europe/Berlin"


def view(page: Page, artifacts: Path, name: str) -> None:
    """The view now shown: accessible, and screenshot."""
    check_accessibility(page, name)
    screenshots(page, artifacts, name)


def shows(page: Page, text: str) -> bool:
    return page.get_by_text(text, exact=True).count() > 0


def sign_in(page: Page, base: str, artifacts: Path) -> None:
    page.goto(f"{base}/app?lang=en")
    expect(page.get_by_role("heading", level=1).inner_text() == "Sign in to see your memory",
           f"/app without a session is not the sign-in page: {page.content()}")
    view(page, artifacts, "sign-in")
    # By keyboard alone: past the language switch to the token, then Enter.
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.id")
    expect(focused == "token", f"the second Tab reached {focused!r}, not the token field")
    page.keyboard.type(TOKEN)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/app")
    expect(shows(page, FORGET) and shows(page, KEEP) and shows(page, APP_SAVED),
           f"the threads saved through the API are not shown: {page.content()}")
    choose_zone(page, base, artifacts)
    # Threads listed as links named by their newest summary's words (each here holds one),
    # each opening the thread on a page of its own.
    for summary in (FORGET, KEEP, APP_SAVED):
        expect(page.get_by_role("link", name=summary, exact=True).count() == 1,
               f"no thread is listed as {summary!r}")
    view(page, artifacts, "memory")
    open_thread(page, APP_SAVED)
    by_app = page.get_by_role("listitem").filter(has_text=APP_SAVED).locator(".writer")
    expect(by_app.inner_text() == f"saved by {APP}",
           f"the app's summary does not name it: {by_app.inner_text()!r}")
    expect(not shows(page, KEEP), "another thread is shown on a thread's page")
    view(page, artifacts, "thread")
    page.get_by_role("link", name="Show every thread").click()


def open_thread(page: Page, heading: str) -> None:
    page.get_by_role("link", name=heading, exact=True).click()
    page.get_by_role("heading", name="This thread").wait_for()


def written(stamp: str, zone: str, form: str) -> str:
    return datetime.fromisoformat(stamp).astimezone(ZoneInfo(zone)).strftime(form)


def choose_zone(page: Page, base: str, artifacts: Path) -> None:
    """Times in the server's zone (the tests' saves in Asia/Tokyo) until the person picks
    another, as English writes them; the zone picked is kept."""
    time = page.get_by_role("listitem").filter(has_text=APP_SAVED).locator("time")
    stamp = time.get_attribute("datetime")
    english = "%b %-d, %Y, %-I:%M %p"
    expect(time.inner_text() == written(stamp, "Asia/Tokyo", english),
           f"{time.inner_text()!r} is not {stamp} in Tokyo, in English")
    offer = page.locator("#zone-offer")
    expect(offer.is_visible() and offer.inner_text()
           == f"Your browser is in {BROWSER_ZONE}: show times there",
           f"the browser's zone is not offered: {offer.inner_text()!r}")
    expect(offer.get_by_role("link").get_attribute("href")
           == f"/app?zone={BROWSER_ZONE.replace('/', '%2F')}", "the offer links elsewhere")
    page.get_by_text("Times in Asia/Tokyo").click()
    page.get_by_label("Time zone, as in America/New_York").fill("America/New_York")
    page.get_by_role("button", name="Show times in it").click()
    page.wait_for_url(f"{base}/app?zone=America%2FNew_York")
    page.goto(f"{base}/app")
    expect(time.inner_text() == written(stamp, "America/New_York", english),
           f"the zone chosen is not kept: {time.inner_text()!r}")
    expect(shows(page, "Times in America/New_York"), "the zone shown is not the one chosen")
    expect(page.locator("#zone-offer").count() == 0, "a zone is offered once one was chosen")


def unknown_zone_refused(page: Page, base: str) -> None:
    """A zone no one has: said so, and the one chosen before kept."""
    page.goto(f"{base}/app?zone=Mars/Olympus")
    alert = page.get_by_role("alert").inner_text()
    expect(alert.startswith("No time zone has that name."), f"an unknown zone: {alert!r}")
    expect(shows(page, "Times in America/New_York"), "an unknown zone changed the one chosen")
    page.goto(f"{base}/app")


def search(page: Page, artifacts: Path) -> None:
    word = FORGET.split()[0]
    page.get_by_label("Search your memory").fill(word)
    page.get_by_role("button", name="Search", exact=True).click()
    page.get_by_role("heading", name="The summaries closest to your search").wait_for()
    expect(shows(page, FORGET), f"searching {word!r} did not find {FORGET!r}")
    expect(not shows(page, KEEP), f"searching {word!r} found {KEEP!r} too")
    # What was searched for first, the profile after it.
    after = page.evaluate("""document.getElementById("memories").compareDocumentPosition(
        document.getElementById("profile-heading")) & Node.DOCUMENT_POSITION_FOLLOWING""")
    expect(after, "the profile comes before the search's results")
    view(page, artifacts, "search")
    # The result opens its whole thread, alone.
    page.get_by_role("listitem").filter(has_text=FORGET).get_by_role(
        "link", name=f"in the thread “{FORGET}”").click()
    page.get_by_role("heading", name="This thread").wait_for()
    expect(shows(page, FORGET) and not shows(page, KEEP), "the result's thread is not shown alone")
    page.get_by_role("link", name="Show every thread").click()


def thread_of(page: Page, heading: str) -> str:
    """The id of the thread listed as `heading`, from its link."""
    link = page.get_by_role("link", name=heading, exact=True).get_attribute("href")
    return parse_qs(urlparse(link).query)["thread"][0]


def forget_one(page: Page, base: str, artifacts: Path) -> str:
    """Forgets FORGET's summary, alone in its thread: returns that thread's id."""
    thread = thread_of(page, FORGET)
    open_thread(page, FORGET)
    item = page.get_by_role("listitem").filter(has_text=FORGET)
    item.get_by_role("button", name="Forget this summary").click()
    page.get_by_role("heading", name="Forget this for good?").wait_for()
    expect(shows(page, FORGET), "the confirmation does not show what would be forgotten")
    view(page, artifacts, "confirm")
    page.get_by_role("button", name="Forget", exact=True).click()
    page.wait_for_url(f"{base}/app?done=forgotten")
    expect(not shows(page, FORGET), f"{FORGET!r} is still shown after forgetting it")
    expect(shows(page, KEEP), f"{KEEP!r} went too")
    return thread


def stale_link_and_mistyped_path(page: Page, base: str, artifacts: Path, gone: str) -> None:
    """A link to a thread forgotten since says so and shows the rest; a path under /app that
    is no page says so in the person's language (Japanese here), with the way back."""
    page.goto(f"{base}/app?thread={gone}")
    notice = page.get_by_role("status").inner_text()
    expect(notice == "That thread is no longer in your memory. Here is the rest of it.",
           f"a stale thread link says {notice!r}")
    expect(shows(page, KEEP), "a stale thread link does not show the rest")
    view(page, artifacts, "stale-thread")
    page.goto(f"{base}/app?lang=ja")
    answer = page.goto(f"{base}/app/memroy")
    expect(answer is not None and answer.status == 404, "a mistyped path is not 404")
    expect(shows(page, "そのようなページはありません。記憶のページは /app です。"),
           f"a mistyped path in Japanese: {page.content()}")
    view(page, artifacts, "no-such-page-ja")
    page.goto(f"{base}/app?lang=en")


def shown_profile(page: Page) -> str:
    """The profile as the page shows it when not in its form."""
    return page.get_by_role("region", name="Profile").locator("#profile-shown").inner_text()


def edit_profile(page: Page, base: str) -> None:
    """No profile yet: said so, with a link that opens the form; saved, it is shown as text."""
    expect(shows(page, "No profile is saved yet."), "an empty profile is not said to be")
    expect(page.get_by_label("Profile text").count() == 0, "the form is open unasked")
    page.get_by_role("link", name="Write a profile").click()
    page.get_by_label("Profile text").fill(PROFILE)
    page.get_by_role("button", name="Save the profile").click()
    page.wait_for_url(f"{base}/app?done=profile")
    expect(page.get_by_role("status").inner_text() == "Profile saved.", "no word that it saved")
    expect(shown_profile(page) == PROFILE, "the profile shown is not the one written")
    writer = page.get_by_role("region", name="Profile").locator(".writer").inner_text()
    expect(writer == "saved by this page", f"the profile's writer is shown as {writer!r}")


def conflict_then_restore(page: Page, base: str, artifacts: Path) -> None:
    """An assistant rewrites the profile while the page is open: the person's draft stays in
    the box beside the assistant's text; they keep the assistant's, then restore version 1,
    the one they wrote, from the list of earlier versions."""
    rival = "written by an assistant meanwhile"
    page.get_by_role("link", name="Edit the profile").click()
    answer = page.request.get(f"{base}/", params={"mode": "profile", "profile": rival},
                              headers={"Authorization": f"Bearer {TOKEN}"})
    expect(answer.status == 200, f"the assistant's rewrite answered {answer.status}")
    draft = "a draft the person must not lose"
    page.get_by_label("Profile text").fill(draft)
    page.get_by_role("button", name="Save the profile").click()
    region = page.get_by_role("region", name="Profile")
    alert = region.get_by_role("alert").inner_text()
    expect(alert.startswith("The profile was rewritten since you opened this page"),
           f"no conflict shown: {alert!r}")
    expect(page.get_by_label("Profile text").input_value() == draft, "the draft was lost")
    expect(region.get_by_text(rival, exact=True).count() == 1, "the assistant's text is not shown")
    saved = region.locator("#rival-heading + .meta").inner_text()
    when = r"\w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M"
    expect(re.fullmatch(f"version 2 · {when} · saved by API token {NS}", saved),
           f"the rewrite does not say when and by whom: {saved!r}")
    view(page, artifacts, "profile-conflict")
    page.get_by_role("link", name="Keep that version").click()
    page.wait_for_url(f"{base}/app#profile-heading")
    expect(shown_profile(page) == rival, "theirs was not kept")
    versions = page.get_by_role("region", name="Profile").locator("details.versions")
    versions.locator("summary").click()
    first = versions.get_by_role("listitem").filter(has_text="version 1 ")
    expect(first.inner_text().endswith("saved by this page"),
           f"version 1 does not say when and by whom: {first.inner_text()!r}")
    first.get_by_role("link", name="version 1", exact=True).click()
    expect(page.get_by_label("Profile text").input_value() == PROFILE,
           "version 1 did not open in the box")
    page.get_by_role("button", name="Save the profile").click()
    page.wait_for_url(f"{base}/app?done=profile")
    expect(shown_profile(page) == PROFILE, "version 1 not restored")


def forget_profile(page: Page, base: str, artifacts: Path) -> None:
    """The profile forgotten, every version, once the page that shows it is confirmed."""
    page.get_by_role("button", name="Forget the profile").click()
    page.get_by_role("heading", name="Forget this for good?").wait_for()
    expect(shows(page, PROFILE), "the confirmation does not show the profile")
    view(page, artifacts, "confirm-profile")
    page.get_by_role("button", name="Forget", exact=True).click()
    page.wait_for_url(f"{base}/app?done=profile_forgotten")
    expect(page.get_by_role("status").inner_text() == "Profile forgotten.", "no word of it")
    expect(shows(page, "No profile is saved yet."), "the profile is still shown")


def disconnect(page: Page, base: str, artifacts: Path) -> None:
    """Two apps of one name, told apart; the first connected, which saved, disconnected."""
    apps = page.get_by_role("region", name="Connected apps")
    expect(apps.get_by_text(APP, exact=True).count() == 2, f"{APP!r} is not listed twice")
    told = [item.inner_text() for item in apps.get_by_role("listitem").all()]
    expect(len(set(told)) == 2 and all(" · connected " in t for t in told),
           f"two apps of one name are not told apart: {told}")
    apps.get_by_role("listitem").first.get_by_role("button", name="Disconnect").click()
    page.get_by_role("heading", name="Disconnect this app?").wait_for()
    expect(shows(page, "Summaries it saved here: 1. Keep them, or forget them for good as it goes."),
           f"the confirmation does not count what the app saved: {page.content()}")
    view(page, artifacts, "disconnect")
    page.get_by_role("button", name="Disconnect and forget what it saved").click()
    page.wait_for_url(f"{base}/app?done=disconnected_forgotten")
    expect(page.get_by_role("region", name="Connected apps").get_by_text(APP).count() == 1,
           f"not one {APP!r} is listed after disconnecting the other")
    expect(not shows(page, APP_SAVED), f"{APP_SAVED!r} is still shown after forgetting it")
    expect(shows(page, KEEP), f"{KEEP!r} went with the app's summary")
    view(page, artifacts, "after-changes")


def csrf_less_post_refused(page: Page, base: str) -> None:
    """The browser's own cookies, a form without the page's CSRF token: refused, as a form
    another site posted would be."""
    thread = thread_of(page, KEEP)
    answer = page.request.post(f"{base}/app/forget",
                               form={"thread_id": thread, "confirm": "yes"}, max_redirects=0)
    expect(answer.status == 403, f"a CSRF-less forget answered {answer.status}")
    page.reload()
    expect(shows(page, KEEP), "a CSRF-less forget forgot")


def tampered_form_refused(page: Page, artifacts: Path) -> None:
    """The page's own search form with its CSRF token changed: refused, on a page that says
    what to do."""
    page.locator("form[role=search] input[name=csrf]").evaluate("input => input.value = 'x'")
    page.get_by_label("Search your memory").fill("anything")
    page.get_by_role("button", name="Search", exact=True).click()
    alert = page.get_by_role("alert").inner_text()
    expect(alert == "This form has expired. Reload the page and try again.",
           f"a tampered form was not refused: {alert!r}")
    view(page, artifacts, "refused")
    page.get_by_role("link", name="Back to your memory").click()


def sign_out(page: Page, base: str) -> None:
    session = [c for c in page.context.cookies() if c["name"] == "kioku_session"]
    expect(len(session) == 1, "no session cookie while signed in")
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{base}/app?done=signed_out")
    expect(page.get_by_role("status").inner_text() == "You are signed out.", "no word of it")
    # The old cookie, put back as someone who copied it would: the page stays closed.
    page.context.add_cookies(session)
    answer = page.goto(f"{base}/app")
    expect(answer is not None and answer.status == 401,
           f"the old cookie answered {answer and answer.status}")
    expect(not shows(page, KEEP), "the old cookie still opens the memory")
    expect(page.get_by_role("heading", level=1).inner_text() == "Sign in to see your memory",
           "the old cookie does not lead to the sign-in page")


def scenario(browser: Browser, base: str, artifacts: Path) -> None:
    # A browser in a zone neither the server's nor the one the person picks.
    page = browser.new_page(timezone_id=BROWSER_ZONE)
    errors = console_errors(page)
    sign_in(page, base, artifacts)
    search(page, artifacts)
    forgotten = forget_one(page, base, artifacts)
    edit_profile(page, base)
    disconnect(page, base, artifacts)
    csrf_less_post_refused(page, base)
    check_cannot_be_framed(browser, f"{base}/app", "Sign in to see your memory")
    # The same views in Japanese.
    page.goto(f"{base}/app?lang=ja")
    heading = page.get_by_role("heading", level=1).inner_text()
    expect(heading == "あなたの記憶", f"the Japanese page's heading is {heading!r}")
    time = page.get_by_role("listitem").filter(has_text=KEEP).locator("time")
    japanese = written(time.get_attribute("datetime"), "America/New_York", "%Y年%-m月%-d日 %-H:%M")
    expect(time.inner_text() == japanese, f"{time.inner_text()!r} is not written {japanese!r}")
    view(page, artifacts, "memory-ja")
    page.goto(f"{base}/app?lang=en")
    # Before the refusals, which the browser logs as failed loads, rightly.
    expect(not errors, f"the page logged errors: {errors}")
    unknown_zone_refused(page, base)
    stale_link_and_mistyped_path(page, base, artifacts, forgotten)
    conflict_then_restore(page, base, artifacts)
    forget_profile(page, base, artifacts)
    tampered_form_refused(page, artifacts)
    sign_out(page, base)
    page.close()


if __name__ == "__main__":
    run(scenario)
