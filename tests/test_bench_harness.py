"""The benchmark harness (``bench/harness.py``) keeps the rules its figures rest on, and ``python -m bench`` runs the
suites through it: rounds interleaved in rotating order, the cap and repeat budget of the slow peers, the value of
every contender checked, ours failing the run when wrong. A fake clock makes the timing rules exact."""

from __future__ import annotations

import gc
import json
import sys
import weakref
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

if not (Path(__file__).resolve().parent.parent / "bench" / "harness.py").exists():  # an sdist carries tests/ only
    pytest.skip("bench/ is not beside tests/", allow_module_level=True)

from bench import harness, workloads
from bench.__main__ import main
from bench.harness import Contender, NotApplicable, Stopped, Timed
from bench.suites import SUITES

# Each test runs a suite or the harness's rounds: seconds apiece, for the benchmarks rather than the library.
pytestmark = pytest.mark.slow


class FakeClock:
    """A clock that moves only when a contender says how long its run took."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def taking(clock: FakeClock, seconds: float, value: Any = "v", log: list[str] | None = None, name: str = "") -> Any:
    def run(case: Any, deadline: float) -> Any:
        clock.now += seconds
        if log is not None:
            log.append(name)
        return value

    return run


def test_rounds_rotate_the_order_and_cells_are_medians() -> None:
    clock, log = FakeClock(), []
    contenders = [Contender(name, taking(clock, seconds, log=log, name=name)) for name, seconds in (("a", 1), ("b", 2))]
    results = harness.measure(contenders, rounds=3, expected="v", clock=clock)
    assert log == ["a", "b", "b", "a", "a", "b"]
    assert results["a"].times == [1, 1, 1] and results["b"].median == 2
    assert results["a"].cell() == "1 s"


def test_a_contenders_value_is_freed_before_the_next_one_is_timed() -> None:
    # Freeing a large final value (a 1.2 MB document) costs milliseconds: it must not count in the next one's time.
    class Value:
        pass

    alive: list[weakref.ref[Value]] = []
    seen_alive: list[bool] = []

    def builds(case: Any, deadline: float) -> Any:
        value = Value()
        alive.append(weakref.ref(value))
        return value

    def looks(case: Any, deadline: float) -> Any:
        seen_alive.append(any(ref() is not None for ref in alive))
        return "v"

    harness.measure([Contender("builds", builds), Contender("looks", looks)], rounds=4, check=False)
    assert seen_alive == [False, False, False, False]


def test_a_capped_peer_is_stopped_with_its_share_and_skipped_on_larger_sizes() -> None:
    def stopped(case: Any, deadline: float) -> Any:
        assert deadline < float("inf")
        raise Stopped(25, 100)

    def ours(case: Any, deadline: float) -> Any:
        assert deadline == float("inf")  # ours run to the end
        return "v"

    contenders = [Contender("peer", stopped), Contender("ours", ours, ours=True, capped=False), Contender("big", ours)]
    results = harness.measure(contenders, rounds=2, cap=10, expected="v", skip={"big": "> 10 s at a smaller size"})
    assert (results["peer"].status, results["peer"].cell()) == ("stopped", "> 10 s (25% done)")
    assert results["peer"].median is None and results["ours"].median is not None
    assert (results["big"].status, results["big"].cell()) == ("skipped", "> 10 s at a smaller size")
    value, bound = harness.ratio(results["peer"], results["ours"], cap=10)
    assert bound and value == pytest.approx(10 / results["ours"].median)  # type: ignore[operator]
    assert harness.format_ratio(value, bound).startswith(">")


def test_a_slow_contender_is_not_repeated_past_the_cap_unless_it_is_unbudgeted() -> None:
    clock = FakeClock()
    contenders = [
        Contender("slow", taking(clock, 6)),
        Contender("unbudgeted", taking(clock, 6), budgeted=False),
        Contender("first-round-only", taking(clock, 1), rounds=1),
    ]
    results = harness.measure(contenders, rounds=5, cap=10, expected="v", clock=clock)
    assert results["slow"].times == [6, 6]  # 12 s > the 10 s cap after its second run
    assert len(results["unbudgeted"].times) == 5
    assert results["first-round-only"].times == [1]


def test_wrong_values_errors_and_cases_a_contender_cannot_take_are_reported_not_timed() -> None:
    def raises(case: Any, deadline: float) -> Any:
        raise KeyError("boom")

    def cannot(case: Any, deadline: float) -> Any:
        raise NotApplicable("takes a model only")

    answers = iter(["v", "changed"])
    contenders = [
        Contender("wrong", lambda case, deadline: "w", ours=True),
        Contender("raises", raises),
        Contender("cannot", cannot),
        Contender("drifts", lambda case, deadline: next(answers)),
        Contender("events", lambda case, deadline: ["e"], to_value=lambda events: "v"),
        harness.contender("missing", lambda: import_module("no_such_peer_anywhere")),  # type: ignore[arg-type,return-value]
    ]
    results = harness.measure(contenders, rounds=2, expected="v", check_every_run=True)
    assert results["wrong"].status == "MISMATCH" and results["raises"].status == "ERROR"
    assert "KeyError" in results["raises"].detail
    assert (results["cannot"].status, results["cannot"].cell()) == ("n/a", "takes a model only")
    assert results["drifts"].status == "MISMATCH"  # its second run changed: every run is checked when asked
    assert len(results["events"].times) == 2  # checked through to_value
    assert results["missing"].status == "n/a" and "ModuleNotFoundError" in results["missing"].detail
    assert harness.failed([results], contenders)  # "wrong" is ours
    assert not harness.failed([results], contenders[1:])


def test_a_contender_checked_apart_is_checked_once_untimed_and_timed_keeping_nothing() -> None:
    clock, log = FakeClock(), []

    def timed(case: Any, deadline: float) -> Any:
        clock.now += 1
        log.append("timed")
        return None  # keeps nothing: what a timed run returns is not compared

    def check(case: Any, deadline: float) -> Any:
        log.append("check")
        return "v"

    def stopped(case: Any, deadline: float) -> Any:
        assert deadline < float("inf")  # a capped peer's check run has the cap too
        raise Stopped(3, 4)

    contenders = [
        Contender("fair", timed, check=check),
        Contender("wrong", timed, check=lambda case, deadline: "w", ours=True),
        Contender("slow", timed, check=stopped),
    ]
    results = harness.measure(contenders, rounds=2, cap=10, expected="v", clock=clock)
    assert results["fair"].times == [1, 1] and log[0] == "check"  # the check run is not timed, and comes first
    assert log.count("check") == 1 and log.count("timed") == 2
    assert results["wrong"].status == "MISMATCH" and harness.failed([results], contenders)
    assert results["slow"].cell() == "> 10 s (75% done)"  # a peer stopped at the cap while checked is not timed


def test_the_reference_suites_timed_replay_keeps_no_value_alive() -> None:
    # A contender's heap of kept results slows its collector (V8's most): a timed replay drops each call's value when
    # the next call starts, and the checking replay keeps them all.
    from bench import replay_child

    class Value:
        pass

    alive: list[weakref.ref[Value]] = []
    seen_alive: list[int] = []

    class Parser:
        def append(self, piece: str) -> None:
            gc.collect()  # (PyPy frees what nothing holds only when its collector runs)
            seen_alive.append(sum(ref() is not None for ref in alive))

        def snapshot(self) -> Value:
            value = Value()
            alive.append(weakref.ref(value))
            return value

    calls = [["a", "b"], ["c"], ["d", "e"]]
    assert replay_child.replay_dropping(Parser, calls) == 3
    assert max(seen_alive) == 1  # at most the previous piece's snapshot, never an earlier call's value
    finals = replay_child.replay(Parser, calls)
    assert len(finals) == 3 and all(isinstance(value, Value) for value in finals)


def test_a_paired_child_alternates_contender_and_floor_and_reports_the_median_ratio(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The floor targets are judged on adjacent runs: the two alternate in ABBA order (neither always first), and the
    # ratio is the median of each pair's, so one slow run of either moves it by one place, not by its size.
    from bench import replay_child

    now = [0.0]
    monkeypatch.setattr(replay_child, "perf_counter", lambda: now[0])
    log: list[str] = []
    floor_costs = iter([9.0, 9.0, 9.0, 2.0, 2.0, 2.0, 2.0, 50.0])  # warm-up (3), then one pair's floor run is slow

    def ours(calls: list[list[str]]) -> None:
        log.append("ours")
        now[0] += 3.0

    def floor(calls: list[list[str]]) -> None:
        log.append("floor")
        now[0] += next(floor_costs)

    out = replay_child.paired(ours, floor, [["x"]], {"warmup": 3, "pairs": 5})
    assert log[6:] == ["ours", "floor", "floor", "ours", "ours", "floor", "floor", "ours", "ours", "floor"]
    assert out["ratios"] == [0.06, 1.5, 1.5, 1.5, 1.5] and out["ratio"] == 1.5
    assert out["seconds"] == 3.0 and out["floor_seconds"] == 2.0


def test_a_child_warms_up_for_its_time_as_well_as_its_count_of_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # A JIT (V8 for the reference) optimises on a background thread: a count of runs is not enough where runs are
    # short, so a child warms up until both its count and its time are reached, whichever comes last.
    from bench import replay_child

    now = [0.0]
    monkeypatch.setattr(replay_child, "perf_counter", lambda: now[0])
    runs: list[float] = []

    def run(calls: list[list[str]]) -> None:
        runs.append(now[0])
        now[0] += 3.0

    replay_child.warm_up({"warmup": 1, "warmup_seconds": 10}, run, [["x"]])
    assert runs == [0.0, 3.0, 6.0, 9.0]
    runs.clear()
    replay_child.warm_up({"warmup": 5, "warmup_seconds": 1}, run, [["x"]])
    assert len(runs) == 5
    runs.clear()
    replay_child.warm_up({"warmup": 2}, run, [["x"]])  # cases written before the time was given
    assert len(runs) == 2


def test_the_paired_child_runs_on_a_backend_and_keeps_the_contenders_values(tmp_path: Path) -> None:
    case = tmp_path / "case.json"
    pieces = [['{"results": [1, ', '{"a": "b"}', "]}"]]
    case.write_text(json.dumps({"calls": pieces, "warmup": 1, "runs": 1, "pairs": 3, "items_at": ["results"]}))
    script = str(harness.ROOT / "bench" / "replay_child.py")
    for contender, finals in (("pure-no-changes", [{"results": [1, {"a": "b"}]}]), ("iter-items", [[1, {"a": "b"}]])):
        out = harness.child_json([sys.executable, script, str(case), contender, "json.loads"])
        assert out["finals"] == finals and len(out["ratios"]) == 3
        assert out["ratio"] == sorted(out["ratios"])[1] and out["seconds"] > 0 and out["floor_seconds"] > 0


def test_a_runner_that_times_itself_gives_its_own_seconds() -> None:
    results = harness.measure([Contender("self", lambda case, deadline: Timed(0.25, "v"))], rounds=3, expected="v")
    assert results["self"].times == [0.25, 0.25, 0.25]


def test_each_round_can_build_its_own_case() -> None:
    seen: list[Any] = []
    contenders = [Contender("reader", lambda case, deadline: seen.append(case) or case)]
    harness.measure(contenders, rounds=3, check=False, round_case=lambda number: f"round {number}")
    assert seen == ["round 0", "round 1", "round 2"]


def test_a_child_reports_its_json_from_the_repository_root() -> None:
    script = "import json, os, bench; print('warming up'); print(json.dumps({'cwd': os.getcwd()}))"
    assert harness.child_json([sys.executable, "-c", script]) == {"cwd": str(harness.ROOT)}
    with pytest.raises(RuntimeError, match="the child broke"):
        harness.child_json([sys.executable, "-c", "import sys; sys.exit('the child broke')"])


def test_tables_targets_and_the_environment() -> None:
    assert (
        harness.table(["key", "time"], [["1", "2 ms"]], markdown=True) == "| key | time |\n| --- | --- |\n| 1 | 2 ms |"
    )
    assert harness.table(["key", "time"], [["1", "2 ms"]]).splitlines() == ["key  time", "---  ----", "1    2 ms"]
    targets = harness.Targets()
    assert targets.judge(31.0, ">=", 30) == " ok (>=30)"
    assert targets.judge(5.0, "<=", 4) == " MISS (<=4)"
    assert targets.judge(2.0, ">=", 30, bound=True) == " ? (>=30)"  # a lower bound under the target settles nothing
    assert targets.summary() == "Targets: 1 ok, 1 missed"
    env = harness.environment(["pytest", "no-such-distribution"])
    assert env["packages"] == {"pytest": pytest.__version__, "no-such-distribution": None}
    line = harness.environment_line(env)
    assert f"pytest {pytest.__version__}" in line and "no-such-distribution missing" in line
    assert "streaming_json" in line and env["python"] in line


def test_the_workloads_read_the_corpus_the_tests_read() -> None:
    assert workloads.CORPUS.resolve() == (Path(__file__).parent / "data" / "llm_tool_calls.jsonl").resolve()
    corpus = workloads.build("8", 1 / 100)
    assert corpus is not None and len(corpus.calls) == 9
    assert all(json.loads(call.text) is not None for call in corpus.calls)


@pytest.mark.parametrize("name", sorted(SUITES))
def test_every_listed_suite_gives_the_harness_what_it_needs(name: str) -> None:
    module = import_module(SUITES[name].module)
    assert module.__doc__ and isinstance(module.PACKAGES, tuple) and isinstance(module.MARKDOWN, bool)
    assert callable(module.add_arguments) and callable(module.run)


def test_python_m_bench_lists_the_suites(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert listed == list(SUITES)
    with pytest.raises(SystemExit):
        main(["no-such-suite"])


def test_the_peers_suite_runs_through_the_harness(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "peers.json"
    status = main(["peers", "--quick", "--only", "1", "--repeats", "1", "--cap", "0.2", "--json", str(out)])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert "Median time per workload" in printed and "Targets:" in printed
    document = json.loads(out.read_text())
    assert document["suite"] == "peers" and document["options"]["only"] == "1"
    assert set(document["environment"]["packages"]) >= {"jiter", "orjson"}
    results = document["results"]["workloads"]["1"]["results"]
    assert results["pure"]["median"] is not None  # ours ran and gave json.loads's value
    assert results["json.loads"]["median"] is not None


def test_a_wrong_parser_of_ours_fails_the_peers_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    peers = import_module("bench.suites.peers")
    made = peers.make_contenders

    def with_a_wrong_parser() -> list[Contender]:
        found = made()
        found[1] = Contender("pure", lambda case, deadline: [None] * len(case.calls), ours=True, capped=False)
        return found

    monkeypatch.setattr(peers, "make_contenders", with_a_wrong_parser)
    assert main(["peers", "--quick", "--only", "6", "--repeats", "1", "--cap", "0.1"]) == 1


def test_the_call_floor_parses_each_call_in_timed_runs_too() -> None:
    # The floor the compiled core is judged against (peers: at most 4x) is a loop over the pieces plus one fast parse
    # of each call's text: a timed run keeps nothing, but it must still parse, or the floor is a loop alone.
    from bench.suites import peers

    parsed: list[str] = []
    workload = workloads.Workload(
        "t", "two calls", [workloads.Call('{"a": 1}', ['{"a"', ": 1}"]), workloads.Call("[]", ["[]"])]
    )
    for keep in (False, True):
        parsed.clear()
        finals = peers.call_floor(lambda text: parsed.append(text) or json.loads(text), keep)(workload, float("inf"))
        assert parsed == ['{"a": 1}', "[]"]
        assert finals == ([{"a": 1}, []] if keep else [])


@pytest.mark.parametrize("key", ["write", "edit"])
def test_the_sdk_suites_floor_and_parser_append_the_text_our_adapter_reads(key: str) -> None:
    # The sdk suite's figure is (ours - floor) / events: it means something only where the floor and the parser
    # baseline append, out of every API's events, the very text our adapter writes for the call, and the events are
    # the ones the SDK's client builds.
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    pytest.importorskip("google.genai")
    pytest.importorskip("cohere")
    pytest.importorskip("ollama")
    from bench import events as event_streams
    from bench.suites import sdk

    stream = sdk.streams(workloads.write_file(1, 0.02) if key == "write" else workloads.edit_call(0.02))
    expected = json.loads(stream.text)
    build = event_streams.builders()
    assert {api for api, _ in sdk.READINGS} == set(event_streams.APIS) == set(sdk.ACCUMULATORS)
    for api, shape in sdk.READINGS:
        read = list(sdk.fresh_events(stream, api, build[shape][api]))
        assert len(read) > len(stream.pieces) // 2, (api, shape)  # a piece an event, near enough (Gemini decodes)
        calls = sdk.ACCUMULATORS[api]()
        for event, _ in read:
            calls.feed(event)
        calls.finish()
        (call,) = calls.calls
        assert call.arguments == expected, (api, shape)
        assert "".join(piece for _, piece in read if piece is not None) == call.text, (api, shape)
        for reader in (sdk.run_floor(api, shape), sdk.run_parser(api)):
            seconds, arguments = reader(stream, read)
            assert arguments == expected and seconds > 0, (api, shape)
    # The floor reads each piece out of the event itself: an event whose piece is gone fails it.
    read = list(sdk.fresh_events(stream, "chat", build["dicts"]["chat"]))
    del read[1][0]["choices"][0]["delta"]["tool_calls"]
    with pytest.raises(KeyError):
        sdk.run_floor("chat", "dicts")(stream, read)
