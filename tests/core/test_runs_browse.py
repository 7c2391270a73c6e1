"""Stored runs as view models: the listing, a run's case table and its filters, one case, two runs compared.

The runs are real: the demo golden set through the reference hub, then through the buggy hub (which
cites passages it never retrieved and answers must-abstain cases), stored as `qaeval run` stores them.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.running.runner import store_run
from qaeval_tui.core.runs.compare import compare_runs, side, word_diff
from qaeval_tui.core.runs.views import CaseFilter, case_detail, list_runs, parse_slice, resolve_run, run_table
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.configured import plan_run
from qaeval_tui.core.usecases.prepare import ensure_prepared
from tests.conftest import DEMO_GOLDEN

BUGGY = "qaeval_tui.bundled.buggy_hub:make_buggy_hub"
REFERENCE, BROKEN = "run-ref-0001", "run-bug-0002"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("runs") / "runs.db"
    config = Config()
    reference = plan_run(config, [DEMO_GOLDEN]).run()
    buggy = plan_run(config, [DEMO_GOLDEN], adapter=BUGGY).run()
    with Store.open(path) as store:
        store_run(store, replace(reference, run_id=REFERENCE, finished_at="2026-10-01T09:00:00Z"))
        store_run(store, replace(buggy, run_id=BROKEN, finished_at="2026-10-02T09:00:00Z"))
    return path


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Iterator[Store]:
    path = tmp_path / "runs.db"
    shutil.copyfile(template, path)
    with Store.open(path) as opened:
        yield opened


def test_the_listing_is_newest_first_with_system_judge_and_headline_metrics(store: Store) -> None:
    runs = list_runs(store)
    assert [run.run_id for run in runs] == [BROKEN, REFERENCE]
    assert [run.adapter for run in runs] == ["buggy-hub", "reference-hub"]
    assert runs[0].judge == "mechanical/token-overlap-1" and runs[0].n_cases == 39
    assert runs[1].metrics["deterministic_pass_rate"] == 1.0
    assert runs[0].metrics["deterministic_pass_rate"] is not None and runs[0].metrics["deterministic_pass_rate"] < 0.5


def test_a_run_is_named_by_id_unique_prefix_latest_or_previous(store: Store) -> None:
    assert resolve_run(store, "latest").run_id == BROKEN
    assert resolve_run(store, "previous").run_id == REFERENCE
    assert resolve_run(store, "run-bug").run_id == BROKEN
    with pytest.raises(UsageError, match="ambiguous"):
        resolve_run(store, "run-")
    with pytest.raises(UsageError, match="no run 'run-zzz'"):
        resolve_run(store, "run-zzz")


def test_the_case_table_has_each_case_status_checks_values_and_judge_scores(store: Store) -> None:
    table = run_table(store, BROKEN)
    assert table.total == 39 and len(table.rows) == 39
    rows = {row.case_id: row for row in table.rows}
    cited_unretrieved = rows["spec-usable-capacity-01"]
    assert cited_unretrieved.status == "fail"
    assert cited_unretrieved.checks["citation_resolvability"] == "fail"
    assert cited_unretrieved.values["citation_precision"] == 0.0
    assert set(cited_unretrieved.scores) == {"faithfulness", "citation_correctness", "answer_correctness"}
    assert cited_unretrieved.outcome == "faithful"
    assert table.axes == ("faithfulness", "citation_correctness", "answer_correctness")


def test_filters_keep_a_slice_failing_cases_one_check_and_combine(store: Store) -> None:
    every = run_table(store, BROKEN).rows
    failing = run_table(store, BROKEN, CaseFilter(failing=True)).rows
    assert failing and all(not row.passed for row in failing) and len(failing) == sum(not r.passed for r in every)
    abstention = run_table(store, BROKEN, CaseFilter(check="abstention")).rows
    assert {row.case_id for row in abstention} == {r.case_id for r in every if r.checks.get("abstention") == "fail"}
    assert "financing-plans-01" in {row.case_id for row in abstention}
    multi = run_table(store, BROKEN, CaseFilter(slice=parse_slice("difficulty=multi_hop"), failing=True)).rows
    assert multi and all(row.slices["difficulty"] == "multi_hop" and not row.passed for row in multi)
    assert run_table(store, REFERENCE, CaseFilter(judge_errors=True)).rows == ()
    with pytest.raises(UsageError, match="--slice"):
        parse_slice("colour=red")
    with pytest.raises(UsageError, match="no such check"):
        run_table(store, BROKEN, CaseFilter(check="nope"))


def test_one_case_shows_the_answer_citations_sources_in_rank_order_and_each_check_reason(store: Store) -> None:
    detail = case_detail(store, BROKEN, "spec-usable-capacity-01")
    assert detail.answer.startswith("The Tidewell HB-10 home battery stores 10.8 kWh")
    assert [c["source_id"] for c in detail.citations] == ["s1"]
    first, *rest = detail.sources
    assert first.id == "s2" and first.retrieved_rank == 1 and first.gold and not first.cited
    s1 = next(source for source in rest if source.id == "s1")
    assert s1.retrieved_rank is None and s1.cited  # what the check below fails on
    reasons = {check.name: check.detail for check in detail.checks}
    assert reasons["citation_resolvability"] == "cites 's1', which was never retrieved"
    assert {axis.axis for axis in detail.verdict} == set(detail.row.scores)
    with pytest.raises(UsageError, match="no case"):
        case_detail(store, BROKEN, "no-such-case")


def test_opening_a_case_records_the_viewers_exposure_to_their_own_item_only(store: Store) -> None:
    ensure_prepared(store, Config(), [DEMO_GOLDEN], "ana")  # ana's queue: the latest run's items
    item = case_detail(store, BROKEN, "spec-usable-capacity-01").row.item_id
    assert store.exposures(person="ana") == []
    case_detail(store, BROKEN, "spec-usable-capacity-01", viewer="ana")
    case_detail(store, BROKEN, "spec-usable-capacity-01", viewer="zoe")  # not zoe's item: nothing recorded
    seen = store.exposures()
    assert [(e.item_id, e.person, e.view) for e in seen] == [(item, "ana", "run browser")]


def test_comparing_two_runs_lists_what_changed_with_per_case_deltas(store: Store) -> None:
    diff = compare_runs(store, REFERENCE, BROKEN)
    assert diff.same_suite and diff.a.run_id == REFERENCE and diff.b.run_id == BROKEN
    changes = {change.case_id: change for change in diff.changes}
    regressed = changes["financing-plans-01"]
    assert (regressed.change, regressed.status_a, regressed.status_b) == ("regressed", "pass", "fail")
    assert regressed.deltas["abstention_recall"] == -1.0
    assert regressed.answer_a != regressed.answer_b
    assert diff.changed[0].change == "regressed"  # regressions first
    assert diff.counts["regressed"] == sum(1 for c in diff.changes if c.status_a == "pass" and c.status_b != "pass")
    assert diff.metric_deltas["deterministic_pass_rate"] == pytest.approx(
        diff.b.metrics["deterministic_pass_rate"] - 1.0  # type: ignore[operator]
    )
    back = compare_runs(store, BROKEN, REFERENCE)
    assert {c.case_id for c in back.changes if c.change == "fixed"} == {
        c.case_id for c in diff.changes if c.change == "regressed"
    }


def test_a_case_in_one_run_only_is_listed_as_such(tmp_path: Path) -> None:
    config = Config()
    result = plan_run(config, [DEMO_GOLDEN]).run()
    fewer = replace(result, run_id="run-short", cases=result.cases[:-1])
    with Store.open(tmp_path / "s.db") as store:
        store_run(store, replace(result, run_id="run-whole", finished_at="2026-10-01T09:00:00Z"))
        store_run(store, replace(fewer, finished_at="2026-10-02T09:00:00Z"))
        diff = compare_runs(store, "run-whole", "run-short")
    dropped = result.cases[-1].case_id
    assert [(c.case_id, c.change) for c in diff.changed] == [(dropped, "only in A")]


def test_the_word_diff_marks_the_changed_words_and_keeps_both_texts() -> None:
    pieces = word_diff("The HB-10 stores 10.2 kWh.", "The HB-10 stores 10.8 kWh.")
    assert [(p.kind, p.text) for p in pieces] == [
        ("same", "The HB-10 stores "),
        ("removed", "10.2"),
        ("added", "10.8"),
        ("same", " kWh."),
    ]
    # A short stretch in common between two changes reads as part of one change.
    pieces = word_diff("I can't answer that from the sources.", "Tidewell sells two batteries from the shop.")
    assert [p.kind for p in pieces] == ["removed", "added"]


@given(st.text(max_size=60), st.text(max_size=60))
def test_each_side_of_a_word_diff_is_its_answer_exactly(before: str, after: str) -> None:
    pieces = word_diff(before, after)
    assert "".join(p.text for p in side(pieces, "A")) == before
    assert "".join(p.text for p in side(pieces, "B")) == after
