"""tools/bench/killer-survey without a GPU: its pair table names modes the samples have, and
its verdicts, from stand-in programs whose times are known."""
import importlib.machinery
import importlib.util
import pathlib
import re
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
SURVEY = ROOT / "tools" / "bench" / "killer-survey"


def load_survey():
    loader = importlib.machinery.SourceFileLoader("killer_survey", str(SURVEY))
    spec = importlib.util.spec_from_loader("killer_survey", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def sample_modes(program):
    """The names in a sample's mode table: entries written {"name", ...}."""
    source = (ROOT / "tests" / "samples" / f"{program}.cu").read_text()
    return set(re.findall(r'\{"([a-z0-9-]+)",', source))


def test_every_pair_runs_modes_its_sample_has():
    survey = load_survey()
    names = [p.name for p in survey.PAIRS]
    assert len(names) == len(set(names)), names
    for p in survey.PAIRS:
        for side in (p.killer, p.twin):
            assert side.args[0] in sample_modes(side.program), (p.name, side)


# A stand-in sample: 10 ms, 13 ms for the modes named slow; a checksum line where asked;
# exit 3 for the mode named broken. The jitter is small and deterministic.
FAKE = textwrap.dedent("""\
    #!{python}
    import os, sys
    mode = sys.argv[1]
    if mode == "broken":
        print("boom", file=sys.stderr)
        sys.exit(3)
    ms = 10.0 + (3.0 if mode.startswith("slow") else 0.0) + 0.01 * (os.getpid() % 3)
    print("# device: stand-in")
    print(f"# mode {{mode}} measured itself")
    print(f"mode={{mode}} steps=1 ms={{ms:.3f}}")
    if mode != "nosum":
        print("result: checksum=" + ("00aa" if mode != "other" else "00bb"))
""")


def run_survey(tmp_path, pairs):
    samples = tmp_path / "build" / "tests" / "samples"
    samples.mkdir(parents=True)
    fake = samples / "fake"
    fake.write_text(FAKE.format(python=sys.executable))
    fake.chmod(0o755)
    driver = tmp_path / "driver.py"
    driver.write_text(textwrap.dedent(f"""\
        import importlib.machinery, importlib.util, sys
        loader = importlib.machinery.SourceFileLoader("s", {str(SURVEY)!r})
        spec = importlib.util.spec_from_loader("s", loader)
        s = importlib.util.module_from_spec(spec)
        loader.exec_module(s)
        side = s.side
        s.PAIRS = [s.Pair(n, side("fake", k), side("fake", t), "rule-" + n)
                   for n, k, t in {pairs!r}]
        sys.exit(s.main())
        """))
    return subprocess.run([sys.executable, str(driver), "--reps", "3", "--warmup", "0",
                           str(tmp_path / "build")], capture_output=True, text=True, timeout=120)


def row(stdout, name):
    for line in stdout.splitlines():
        if line.startswith(f"| {name} |"):
            return [c.strip() for c in line.strip("|").split("|")]
    raise AssertionError(f"no row for {name}:\n{stdout}")


def test_verdicts_from_known_times(tmp_path):
    p = run_survey(tmp_path, [("costly", "slow-a", "fast-a"), ("free", "fast-b", "fast-c"),
                              ("twin-costly", "fast-d", "slow-d"),
                              ("different", "fast-e", "other"), ("no-sums", "nosum", "nosum")])
    assert p.returncode == 0, p.stdout + p.stderr
    costly = row(p.stdout, "costly")
    # pair | killer | twin | killer ms | twin ms | saving ms | spread ms | saving | slower in |
    # real | same result | rule
    assert costly[1] == "`fake slow-a`" and costly[2] == "`fake fast-a`"
    assert abs(float(costly[5]) - 3.0) < 0.05 and costly[8] == "3/3", costly
    assert costly[9] == "yes" and costly[10] == "yes" and costly[11] == "rule-costly", costly
    assert row(p.stdout, "free")[9] == "no"
    assert row(p.stdout, "twin-costly")[9] == "twin slower"
    assert row(p.stdout, "different")[10] == "no"
    assert row(p.stdout, "no-sums")[10] == "-"
    # what the programs measured themselves is kept, per side
    assert "# mode slow-a measured itself" in p.stdout and "# mode fast-a measured itself" in p.stdout


def test_a_failing_run_fails_its_pair_only(tmp_path):
    p = run_survey(tmp_path, [("bad", "broken", "fast-a"), ("good", "slow-b", "fast-b")])
    assert p.returncode == 1, p.stdout + p.stderr
    assert "failed: `fake broken` exited 3: boom" in row(p.stdout, "bad")[9]
    assert row(p.stdout, "good")[9] == "yes"
