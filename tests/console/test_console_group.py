"""The console of a member of a queue-sharing group, in a real browser (issue 37, item 3: "queue managers (members
of a group …)"): two members, real server processes on a real PostgreSQL, the console of one in Debian's headless
Chromium (the browser of test_console_browser.py, shared on its xdist worker). The queue-manager page lists the
group's members as z/OS's DISPLAY GROUP does — ACTIVE while a member runs, INACTIVE once it has ended — and when
each one's latest session started.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from tests.console.test_console_browser import (  # noqa: F401  (browser, _leave_the_page: fixtures)
    IMAGES,
    PASSWORD,
    USER,
    Console,
    _leave_the_page,
    browser,
    log_in,
    tab,
    wait,
)
from tests.servers import servers_of, start_server, syncpoint_run
from tests.waiting import wait_for_file

pytestmark = pytest.mark.xdist_group("console_browser")


@pytest.fixture
def group_console(tmp_path: Path, postgres_url: str) -> Iterator[Console]:
    home = tmp_path / "home"
    home.mkdir()
    with servers_of(home):
        for args, stdin in (
            (("crtmqm", "-qsg", "SPG", "--shared", postgres_url, "QMA"), None),
            (("crtmqm", "-qsg", "SPG", "--shared", postgres_url, "QMB"), None),
            (("passwd", "QMA", USER), PASSWORD + "\n"),
            (("setmqini", "QMA", "rest=true", "rest-port=0"), None),
        ):
            done = syncpoint_run(home, *args, input=stdin)
            assert done.returncode == 0, done.stdout + done.stderr
        start_server(home, "QMA")
        start_server(home, "QMB")
        for args, stdin in (
            (("group", "-m", "QMA", "-g", "mqm", "-a", USER), None),
            (("runmqsc", "QMA"), "REFRESH SECURITY\n"),
        ):
            done = syncpoint_run(home, *args, input=stdin)
            assert done.returncode == 0, done.stdout + done.stderr
        rest_json = home / "qmgrs" / "QMA" / "rest.json"
        wait_for_file(rest_json)
        root = json.loads(rest_json.read_text())["url"].removesuffix("/ibmmq/rest/v3")
        shots = IMAGES if os.environ.get("SYNCPOINT_CONSOLE_SCREENSHOTS") else home / "shots"
        shots.mkdir(parents=True, exist_ok=True)
        yield Console(home, root + "/ibmmq/console/", shots)


def members(driver: WebDriver) -> dict[str, list[str]]:
    rows = [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in driver.find_elements(By.CSS_SELECTOR, "#qmgr-members tbody tr")
    ]
    return {r[0]: r[1:] for r in rows if r}


def test_the_queue_manager_page_lists_the_groups_members_active_then_inactive(
    browser: WebDriver,  # noqa: F811
    group_console: Console,
) -> None:
    log_in(browser, group_console)
    wait(browser, lambda d: d.find_element(By.ID, "tabs").is_displayed(), "the console")
    tab(browser, "qmgr")
    wait(browser, lambda d: set(members(d)) == {"QMA", "QMB"}, "the group's members")
    assert browser.find_element(By.ID, "qmgr-qsg").text == "SPG"
    shown = members(browser)
    assert shown["QMA"][0] == "ACTIVE" and shown["QMB"][0] == "ACTIVE"
    assert shown["QMB"][1] != "never"  # when its session started
    browser.save_screenshot(str(group_console.shots / "console-qmgr-group.png"))
    done = syncpoint_run(group_console.home, "endmqm", "-i", "QMB")
    assert done.returncode == 0, done.stdout + done.stderr
    # the live page follows: QMB's lock is free once its connections to PostgreSQL are gone
    wait(browser, lambda d: members(d).get("QMB", [""])[0] == "INACTIVE", "QMB shown INACTIVE after endmqm")
    assert members(browser)["QMA"][0] == "ACTIVE"
