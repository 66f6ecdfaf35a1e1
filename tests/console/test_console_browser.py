"""The web console in a real browser, as a person uses it: Debian's headless Chromium driven by Selenium, against a
real queue manager server (``strmqm`` with ``rest = true``) — one server and one browser for the module (per
worker, should xdist spread its tests).

Each test takes a screenshot of the page it used; with ``SYNCPOINT_CONSOLE_SCREENSHOTS=1`` they are written to
``docs/images/`` (where docs/console.md shows them), otherwise to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from tests.servers import servers_of, start_server, syncpoint_run
from tests.waiting import wait_for_file

import syncpoint
from syncpoint.dlq import dead_letter
from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C

pytestmark = pytest.mark.xdist_group("console_browser")

QM = "QM1"
USER, PASSWORD = "app", "s3cret"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


@dataclass
class Console:
    home: Path
    url: str  # http://127.0.0.1:port/ibmmq/console/
    shots: Path

    def qm(self) -> syncpoint.QueueManager:
        return syncpoint.connect(QM, home=self.home, user=USER, password=PASSWORD)


# session scope (per worker), as tests/rest/test_rest_server.py's server: xdist may run other modules' tests between
# this module's, which would end and start again a module-scoped server and browser.
@pytest.fixture(scope="session")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    home = tmp_path_factory.mktemp("console")
    with servers_of(home):
        for args, stdin in (
            (("crtmqm", QM), None),
            (("passwd", QM, USER), PASSWORD + "\n"),
            (("setmqini", QM, "rest=true", "rest-port=0"), None),
        ):
            done = syncpoint_run(home, *args, input=stdin)
            assert done.returncode == 0, done.stdout + done.stderr
        start_server(home, QM)
        # the console's user administers the queue manager (IBM: MQWebAdmin and mqm), which the authority checks
        # see after REFRESH SECURITY, as IBM's operating-system groups
        for args, stdin in (
            (("group", "-m", QM, "-g", "mqm", "-a", USER), None),
            (("runmqsc", QM), "REFRESH SECURITY\n"),
        ):
            done = syncpoint_run(home, *args, input=stdin)
            assert done.returncode == 0, done.stdout + done.stderr
        rest_json = home / "qmgrs" / QM / "rest.json"
        wait_for_file(rest_json)
        root = json.loads(rest_json.read_text())["url"].removesuffix("/ibmmq/rest/v3")
        shots = IMAGES if os.environ.get("SYNCPOINT_CONSOLE_SCREENSHOTS") else home / "shots"
        shots.mkdir(parents=True, exist_ok=True)
        c = Console(home, root + "/ibmmq/console/", shots)
        with c.qm() as qm:
            if not qm.admin("lookup", "QLOCAL", DLQ):
                qm.admin("define", "QLOCAL", DLQ, {"MAXDEPTH": 100_000})
            qm.admin("alter_qmgr", {"DEADQ": DLQ})
            qm.admin("define", "QLOCAL", "APP.ORDERS", {"DESCR": "Orders from the shop"})
            qm.admin("define", "QLOCAL", "APP.XSS", {"DESCR": "<script>document.title='pwned'</script>"})
        yield c


@pytest.fixture(scope="session")
def browser() -> Iterator[WebDriver]:
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.fail("Debian's chromium and chromium-driver are not installed: apt-get install chromium chromium-driver")
    profile = tempfile.mkdtemp(prefix="console-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1280,900",
    ):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(autouse=True)
def _leave_the_page(browser: WebDriver) -> Iterator[None]:
    """After each test the browser leaves the console, whose pages poll every two seconds (the browser lives on)."""
    yield
    browser.get("about:blank")


def wait(driver: WebDriver, cond: object, what: str, timeout: float = 30) -> object:
    """Wait for ``cond``; the live pages redraw their tables every two seconds, so an element read while it is
    replaced is read again."""
    waiting = WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,))
    return waiting.until(cond, message=what)  # type: ignore[arg-type]


def click(driver: WebDriver, css: str) -> None:
    """Click the element, again if the page redrew it under the click."""
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, css).click() or True, f"a click on {css}")


def text_of(driver: WebDriver, element_id: str) -> str:
    return str(driver.find_element(By.ID, element_id).text)


def log_in(driver: WebDriver, console: Console, password: str = PASSWORD) -> None:
    driver.get(console.url)
    driver.find_element(By.ID, "user").clear()
    driver.find_element(By.ID, "user").send_keys(USER)
    driver.find_element(By.ID, "password").clear()
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "login-button").click()


def tab(driver: WebDriver, name: str) -> None:
    driver.find_element(By.CSS_SELECTOR, f"nav button[data-tab='{name}']").click()


def queue_row(driver: WebDriver, name: str) -> list[str]:
    for tr in driver.find_elements(By.CSS_SELECTOR, "#queue-table tbody tr"):
        cells = [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        if cells and cells[0] == name:
            return cells
    return []


def open_queue(driver: WebDriver, name: str) -> None:
    """Click the queue's row (the list is redrawn every two seconds: a row may go stale under the click)."""

    def click_row(d: WebDriver) -> bool:
        for tr in d.find_elements(By.CSS_SELECTOR, "#queue-table tbody tr"):
            if tr.find_element(By.TAG_NAME, "td").text == name:
                tr.click()
                return True
        return False

    wait(driver, click_row, f"{name} to open")


def test_a_wrong_password_is_refused_and_shows_no_queue(browser: WebDriver, console: Console) -> None:
    log_in(browser, console, password="not-the-password")
    wait(browser, lambda d: "Refused" in text_of(d, "login-error"), "the refusal")  # after the throttle's delay
    assert "wrong user or password" in text_of(browser, "login-error")
    assert not browser.find_element(By.ID, "queues").is_displayed()
    browser.save_screenshot(str(console.shots / "console-login-refused.png"))


def test_a_queues_depth_changes_on_the_page_after_a_put(browser: WebDriver, console: Console) -> None:
    log_in(browser, console)
    wait(browser, lambda d: queue_row(d, "APP.ORDERS")[1:2] == ["0"], "the queue list: APP.ORDERS empty")
    with console.qm() as qm, qm.open("APP.ORDERS", C.MQOO_OUTPUT) as q:
        for i in range(3):
            q.put(json.dumps({"order": i, "item": "widget"}).encode(), md=MQMD(Format=C.MQFMT_STRING))
    wait(browser, lambda d: queue_row(d, "APP.ORDERS")[1] == "3", "the depth to become 3 (live update)")
    browser.save_screenshot(str(console.shots / "console-queues.png"))


def test_a_queue_description_with_script_is_shown_as_text_never_run(browser: WebDriver, console: Console) -> None:
    log_in(browser, console)
    shown = "<script>document.title='pwned'</script>"
    wait(browser, lambda d: queue_row(d, "APP.XSS")[6:7] == [shown], "the description shown as text")
    assert browser.title == "syncpoint console"  # the script did not run
    assert not browser.find_elements(By.CSS_SELECTOR, "#queue-table script")


def test_browsing_a_message_shows_its_mqmd_and_whole_body_as_text_json_and_hex(
    browser: WebDriver, console: Console
) -> None:
    payload = '{"order": 42, "note": "<script>document.title=\'pwned\'</script>", "pad": "' + "z" * 2000 + '"}'
    with console.qm() as qm:
        qm.admin("define", "QLOCAL", "APP.BROWSE", {})
        with qm.open("APP.BROWSE", C.MQOO_OUTPUT) as q:
            props = {"note": "<script>document.title='pwned'</script>", "count": (C.MQTYPE_INT32, 3)}
            q.put(payload.encode(), md=MQMD(Format=C.MQFMT_STRING), properties=props)
    log_in(browser, console)
    wait(browser, lambda d: queue_row(d, "APP.BROWSE"), "the queue list")
    open_queue(browser, "APP.BROWSE")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#message-table tbody tr"), "the message list")
    click(browser, "#message-table tbody tr")
    wait(browser, lambda d: d.find_element(By.ID, "message-detail").is_displayed(), "the message")
    assert text_of(browser, "detail-body") == payload  # the whole body (IBM's console stops at 1 KB), as text
    md_rows = {
        tr.find_elements(By.TAG_NAME, "td")[0].text: tr.find_elements(By.TAG_NAME, "td")[1].text
        for tr in browser.find_elements(By.CSS_SELECTOR, "#detail-md tbody tr")
    }
    assert md_rows["Format"] == "MQSTR" and md_rows["PutApplName"]
    # the message's properties (name, type, value), a value of <script> shown as text, never run
    prop_rows = [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in browser.find_elements(By.CSS_SELECTOR, "#detail-props tbody tr")
    ]
    assert prop_rows == [["note", "STRING", "<script>document.title='pwned'</script>"], ["count", "INT32", "3"]]
    assert not browser.find_elements(By.CSS_SELECTOR, "#message-detail script")
    browser.find_element(By.CSS_SELECTOR, "[data-view='json']").click()
    assert json.loads(text_of(browser, "detail-body"))["order"] == 42
    browser.find_element(By.CSS_SELECTOR, "[data-view='hex']").click()
    assert text_of(browser, "detail-body").startswith("00000000  7b 22 6f 72")  # {"or
    browser.find_element(By.CSS_SELECTOR, "[data-view='text']").click()
    assert browser.title == "syncpoint console"  # the body's script was shown, not run
    browser.save_screenshot(str(console.shots / "console-message.png"))


def test_an_mqsc_command_runs_and_its_answer_is_shown(browser: WebDriver, console: Console) -> None:
    log_in(browser, console)
    wait(browser, lambda d: d.find_element(By.ID, "tabs").is_displayed(), "the console")
    tab(browser, "mqsc")
    box = browser.find_element(By.ID, "mqsc-command")
    box.clear()
    box.send_keys("DEFINE QLOCAL(APP.FROM.MQSC) DESCR('made in the console')")
    browser.find_element(By.ID, "mqsc-run").click()
    wait(browser, lambda d: "AMQ8006I" in text_of(d, "mqsc-answer"), "AMQ8006I: queue created")
    box.clear()
    box.send_keys("DISPLAY QLOCAL(APP.FROM.MQSC) DESCR")
    browser.find_element(By.ID, "mqsc-run").click()
    wait(browser, lambda d: "made in the console" in text_of(d, "mqsc-answer"), "the DISPLAY's answer")
    assert "AMQ8409I" in text_of(browser, "mqsc-answer")
    browser.save_screenshot(str(console.shots / "console-mqsc.png"))


def test_three_dead_letters_retried_from_the_workbench_arrive_on_their_queue(
    browser: WebDriver, console: Console
) -> None:
    with console.qm() as qm:
        qm.admin("define", "QLOCAL", "APP.RETRY", {})
        qm.admin("define", "QLOCAL", "APP.DELETED", {})
        ids = []
        for i in range(3):
            md = dead_letter(qm, MQMD(Format=C.MQFMT_STRING), f"retry me {i}".encode(), C.MQRC_Q_FULL,
                             dest_q="APP.RETRY", syncpoint=False)  # fmt: skip
            ids.append(bytes(md.MsgId).hex())
        orphan = dead_letter(qm, MQMD(Format=C.MQFMT_STRING), b"nowhere to go", C.MQRC_PUT_INHIBITED,
                             dest_q="APP.DELETED", syncpoint=False)  # fmt: skip
        qm.admin("delete", "QLOCAL", "APP.DELETED")
    log_in(browser, console)
    wait(browser, lambda d: d.find_element(By.ID, "tabs").is_displayed(), "the console")
    tab(browser, "dlq")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#dlq-table input.pick")) >= 4, "the dead letters")
    assert "MQRC_Q_FULL: 3" in text_of(browser, "dlq-reasons")
    assert browser.find_elements(By.CSS_SELECTOR, "#dlq-chart rect.bar")  # the arrivals chart is drawn
    browser.save_screenshot(str(console.shots / "console-dlq.png"))
    for msg_id in [*ids, bytes(orphan.MsgId).hex()]:
        click(browser, f"#dlq-table input[data-msgid='{msg_id}']")
    browser.find_element(By.ID, "dlq-rules").click()
    wait(browser, lambda d: "ACTION(RETRY)" in text_of(d, "dlq-rules-text"), "the rules table")
    assert "DESTQ('APP.RETRY') REASON(2053)" in text_of(browser, "dlq-rules-text")
    browser.find_element(By.ID, "dlq-retry").click()
    wait(browser, lambda d: "retry: 3 done" in text_of(d, "dlq-result"), "the retry's outcome")
    result = text_of(browser, "dlq-result")
    assert f"{bytes(orphan.MsgId).hex()} stays on the dead-letter queue: 2085 MQRC_UNKNOWN_OBJECT_NAME" in result
    browser.save_screenshot(str(console.shots / "console-dlq-retried.png"))
    with console.qm() as qm:
        with qm.open("APP.RETRY", C.MQOO_BROWSE) as q:
            arrived = [m.data for m in q.browse_all()]
        with qm.open(DLQ, C.MQOO_BROWSE) as q:
            left = [m.data[C.MQDLH_LENGTH_1 :] for m in q.browse_all()]
    assert arrived == [b"retry me 0", b"retry me 1", b"retry me 2"]  # MQDLH removed, in order
    assert left == [b"nowhere to go"]
    # the one left, browsed: its MQDLH decoded field by field
    tab(browser, "queues")
    # the list pages by 50 in name order (IBM's SYSTEM.ADMIN queues come first): narrowed by name, as a person would
    box = browser.find_element(By.ID, "queue-filter")
    box.clear()
    box.send_keys("SYSTEM.DEAD*" + Keys.TAB)
    wait(browser, lambda d: queue_row(d, DLQ), "the queue list")
    open_queue(browser, DLQ)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#message-table tbody tr"), "the message list")
    click(browser, "#message-table tbody tr")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "table.header-MQDLH"), "the decoded MQDLH")
    dlh = {
        tr.find_elements(By.TAG_NAME, "td")[0].text: tr.find_elements(By.TAG_NAME, "td")[1].text
        for tr in browser.find_elements(By.CSS_SELECTOR, "table.header-MQDLH tr")
    }
    assert dlh["Reason"] == str(C.MQRC_PUT_INHIBITED) and dlh["ReasonName"] == "MQRC_PUT_INHIBITED"
    assert dlh["DestQName"] == "APP.DELETED" and dlh["Format"] == "MQSTR"
    browser.save_screenshot(str(console.shots / "console-mqdlh.png"))


def test_the_queue_manager_page_shows_its_dead_letter_queue_and_channels(browser: WebDriver, console: Console) -> None:
    from syncpoint.mqsc import MqscProcessor

    with console.qm() as qm:
        answer = MqscProcessor(qm, echo=False).execute("DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR) TRPTYPE(TCP)")
        assert answer.ok, answer.lines
    log_in(browser, console)
    wait(browser, lambda d: d.find_element(By.ID, "tabs").is_displayed(), "the console")
    tab(browser, "qmgr")
    wait(browser, lambda d: "QM1.TO.QM2" in text_of(d, "channels"), "the channel list")
    assert text_of(browser, "qmgr-dlq") == DLQ
    browser.save_screenshot(str(console.shots / "console-qmgr.png"))


def test_the_console_api_refuses_bad_input_and_changes_nothing(console: Console) -> None:
    import httpx

    api = console.url + "api"
    good, csrf = (USER, PASSWORD), {"ibm-mq-rest-csrf-token": "x"}
    with httpx.Client(timeout=60) as c:
        anonymous = c.get(f"{api}/queues")
        assert anonymous.status_code == 401 and "www-authenticate" not in anonymous.headers  # the page's refusal
        assert c.get(f"{api}/queues", auth=(USER, "wrong")).status_code == 401
        assert c.post(f"{api}/mqsc", auth=good, json={"command": "DISPLAY QMGR"}).status_code == 403  # no CSRF
        other_site = c.post(
            f"{api}/mqsc",
            auth=good,
            json={"command": "DELETE QLOCAL(APP.ORDERS)"},
            headers={**csrf, "Origin": "http://evil.example"},
        )
        assert other_site.status_code == 403
        malformed = c.post(f"{api}/mqsc", auth=good, content=b"{not json", headers=csrf)
        assert malformed.status_code == 400 and "not JSON" in malformed.json()["error"]
        unknown = c.get(f"{api}/messages", params={"queue": "NO.SUCH.QUEUE"}, auth=good)
        assert unknown.status_code == 404 and unknown.json()["reason"] == C.MQRC_UNKNOWN_OBJECT_NAME
        assert c.get(f"{api}/message", params={"queue": "APP.ORDERS", "msgId": "zz"}, auth=good).status_code == 400
        assert c.get(f"{api}/queues", params={"offset": "x"}, auth=good).status_code == 400
        for body in (
            {"action": "explode", "msgIds": ["00" * 24]},
            {"action": "move", "msgIds": ["00" * 24]},  # move needs a target
            {"action": "retry", "msgIds": []},
            {"action": "retry", "msgIds": ["00" * 23]},
        ):
            assert c.post(f"{api}/dlq/action", auth=good, json=body, headers=csrf).status_code == 400, body
        page = c.get(console.url)
        assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    with console.qm() as qm:
        assert qm.admin("lookup", "QLOCAL", "APP.ORDERS") is not None  # the cross-site DELETE did nothing


def test_wrong_console_passwords_are_answered_late_and_counted_with_the_rest_apis(console: Console) -> None:
    # issue 37, Bad input: "wrong credentials (401, throttled as the native protocol's failures are)": the console
    # checks passwords with the REST API's authenticator, so a failure waits its turn (0.1 s after an address's
    # first, doubling up to auth-delay-max) and the REST API's next failure from the address waits longer still
    import httpx

    with httpx.Client(timeout=60) as c:
        start = time.monotonic()
        assert c.get(console.url + "api/qmgr", auth=(USER, "wrong")).status_code == 401
        console_took = time.monotonic() - start
        start = time.monotonic()
        rest = console.url.removesuffix("console/") + "rest/v3/admin/qmgr"
        assert c.get(rest, auth=(USER, "wrong")).status_code == 401
        rest_took = time.monotonic() - start
        assert c.get(console.url + "api/qmgr", auth=(USER, PASSWORD)).status_code == 200  # a right one: at once
    assert console_took >= 0.1
    assert rest_took >= 0.2  # at least the second failure of this address: counted together


def test_dlqmsg_retries_discards_or_keeps_one_dead_letter_by_its_msgid(console: Console) -> None:
    with console.qm() as qm:
        qm.admin("define", "QLOCAL", "APP.CLI", {})
        qm.admin("define", "QLOCAL", "APP.CLI.GONE", {})
        put = [
            dead_letter(qm, MQMD(Format=C.MQFMT_STRING), body, C.MQRC_Q_FULL, dest_q=dest, syncpoint=False)
            for body, dest in ((b"cli 1", "APP.CLI"), (b"cli 2", "APP.CLI"), (b"cli 3", "APP.CLI.GONE"))
        ]
        qm.admin("delete", "QLOCAL", "APP.CLI.GONE")
    one, two, orphan = (bytes(md.MsgId).hex() for md in put)
    done = syncpoint_run(console.home, "dlqmsg", "retry", one, "-m", QM)
    assert done.returncode == 0 and f"Message {one} retried to APP.CLI on {QM}." in done.stdout, done.stdout
    kept = syncpoint_run(console.home, "dlqmsg", "retry", orphan, "-m", QM)
    assert kept.returncode == 20
    assert "reason 2085 (MQRC_UNKNOWN_OBJECT_NAME); it stays on SYSTEM.DEAD.LETTER.QUEUE" in kept.stdout
    assert syncpoint_run(console.home, "dlqmsg", "discard", two, "-m", QM).returncode == 0
    bad = syncpoint_run(console.home, "dlqmsg", "retry", "12345", "-m", QM)
    assert bad.returncode == 20 and "48 hexadecimal digits" in bad.stdout
    with console.qm() as qm:
        with qm.open("APP.CLI", C.MQOO_BROWSE) as q:
            assert [m.data for m in q.browse_all()] == [b"cli 1"]
        with qm.open(DLQ, C.MQOO_BROWSE) as q:
            ids = {bytes(m.md.MsgId).hex() for m in q.browse_all()}
    assert orphan in ids and one not in ids and two not in ids


def test_dead_letters_moved_or_discarded_from_the_workbench(browser: WebDriver, console: Console) -> None:
    with console.qm() as qm:
        qm.admin("define", "QLOCAL", "APP.HOLD", {})
        moved, dropped = (
            bytes(
                dead_letter(qm, MQMD(Format=C.MQFMT_STRING), body, C.MQRC_Q_FULL, dest_q="APP.X", syncpoint=False).MsgId
            ).hex()
            for body in (b"to hold", b"to drop")
        )
    log_in(browser, console)
    wait(browser, lambda d: d.find_element(By.ID, "tabs").is_displayed(), "the console")
    tab(browser, "dlq")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"input[data-msgid='{dropped}']"), "the dead letters")
    click(browser, f"#dlq-table input[data-msgid='{moved}']")
    browser.find_element(By.ID, "dlq-move-to").send_keys("APP.HOLD")
    browser.find_element(By.ID, "dlq-move").click()
    wait(browser, lambda d: "move: 1 done" in text_of(d, "dlq-result"), "the move's outcome")
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, f"input[data-msgid='{moved}']"), "the row to go")
    click(browser, f"#dlq-table input[data-msgid='{dropped}']")
    browser.find_element(By.ID, "dlq-discard").click()
    wait(browser, lambda d: "discard: 1 done" in text_of(d, "dlq-result"), "the discard's outcome")
    with console.qm() as qm:
        with qm.open("APP.HOLD", C.MQOO_BROWSE) as q:
            held = [m.data for m in q.browse_all()]
        with qm.open(DLQ, C.MQOO_BROWSE) as q:
            ids = {bytes(m.md.MsgId).hex() for m in q.browse_all()}
    assert len(held) == 1 and held[0][:4] == C.MQDLH_STRUC_ID and held[0].endswith(b"to hold")  # moved whole
    assert moved not in ids and dropped not in ids
