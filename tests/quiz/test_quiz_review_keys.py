"""On the review page, `a` or Enter where no rule suggests a score says so (type a score) and scores nothing:
a teacher pressing Enter through a question never believes a group scored that is not."""
from __future__ import annotations

import yaml

from autograder.quiz.review import REVIEW_FILE
from tests.quiz.test_quiz_review_page import CURRENT, browser, launched, served  # noqa: F401  (a fixture)


def test_a_or_enter_without_a_suggestion_asks_for_a_score(served):  # noqa: F811
    sync_playwright = browser()
    server, _, out = served
    before = (out / REVIEW_FILE).read_text(encoding="utf-8")
    with sync_playwright() as driver:
        chromium = launched(driver)
        try:
            page = chromium.new_page()
            page.set_default_timeout(60_000)
            page.goto(server.url)
            page.wait_for_selector(".group.current")
            group = page.evaluate(CURRENT)
            assert group["suggested"] is None and group["hint"]  # a rubric's hint, which no key takes
            for key in ("a", "Enter"):
                page.evaluate("document.getElementById('status').textContent = ''")
                page.keyboard.press(key)
                page.wait_for_function("document.getElementById('status').textContent !== ''")
                assert page.inner_text("#status") == ("no suggested score for this group: type one (0 to 2, "
                                                      "f full, h half, n none, e exact)")
            assert page.evaluate("document.body.dataset.pending") == "2"
        finally:
            chromium.close()
    assert (out / REVIEW_FILE).read_text(encoding="utf-8") == before
    assert all(g["score"] is None for g in yaml.safe_load(before)["attention_score"]["sc-01"]["groups"])
