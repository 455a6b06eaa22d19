"""Test synthesis: the generator-validator pipeline and test-suite evaluation.

    from testgen.pipeline import Settings, synthesize   # one problem record -> suite record
    from testgen.batch import run_batch                 # a problems file -> a suites file (resumable)
    from testgen.evaluate import evaluate               # suites + labelled programs -> TPR / TNR
    from testgen.runner import LocalRunner, HttpRunner  # where the code runs: always a sandbox

See docs/testgen.md. Nothing here starts a process itself: every program runs through a Runner.
"""

# What a record's C++ programs ("language": "cpp") compile as: the sandbox's ``cpp`` (gnu++17,
# SandboxFusion's) or ``cpp20`` (gnu++20, DOMjudge's default at ICPC contests, what Kattis /
# DOMjudge packages were judged with). Chosen by ``--cpp-dialect``; applied by testgen.problem.
CPP_DIALECTS = ("cpp", "cpp20")
