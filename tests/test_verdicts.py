"""Every verdict in every installed language, through the library entry point."""

from __future__ import annotations

import pytest

from sandbox import Checker, CheckerCompare, Limits, RunRequest, TestCase, Verdict
from sandbox.languages import detect_toolchains

# language -> verdict -> program. Each reads "a b" and should print a+b.
PROGRAMS: dict[str, dict[str, str]] = {
    "python": {
        "AC": "a, b = map(int, input().split())\nprint(a + b)\n",
        "WA": "a, b = map(int, input().split())\nprint(a - b)\n",
        "RE": "raise SystemExit(3)\n",
        "TLE": "while True:\n    pass\n",
        "MLE": "x = b'a' * (400 << 20)\nprint(len(x))\n",
        "OLE": "while True:\n    print('y' * 4096)\n",
    },
    "c": {
        "AC": '#include <stdio.h>\nint main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);return 0;}',
        "WA": '#include <stdio.h>\nint main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a-b);return 0;}',
        "RE": '#include <stdio.h>\nint main(){int *p=0; *p=1; return 0;}',
        "TLE": 'int main(){volatile unsigned long x=0; for(;;) x++; return 0;}',
        "MLE": '#include <stdio.h>\n#include <stdlib.h>\nint main(){long n=400L<<20; char*p=malloc(n); long s=0;'
               'for(long i=0;i<n;i+=4096)p[i]=(char)i; for(long i=0;i<n;i+=4096)s+=p[i]; printf("%ld\\n",s);}',
        "OLE": '#include <stdio.h>\nint main(){for(;;) puts("yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");}',
        "CE": 'int main(){ this is not C }',
    },
    "cpp": {
        "AC": '#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}',
        "WA": '#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a*b<<"\\n";}',
        "RE": '#include <stdexcept>\nint main(){throw std::runtime_error("boom");}',
        "TLE": 'int main(){volatile unsigned long x=0; for(;;) x++;}',
        "MLE": '#include <vector>\nint main(){std::vector<char> v(400<<20, 1); return v[7];}',
        "OLE": '#include <cstdio>\nint main(){for(;;) std::puts("yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");}',
        "CE": 'int main(){ return undeclared_name; }',
    },
    "java": {
        "AC": "import java.util.*;\npublic class Main{public static void main(String[] a){Scanner s=new Scanner(System.in);"
              "System.out.println(s.nextLong()+s.nextLong());}}",
        "WA": "public class Main{public static void main(String[] a){System.out.println(41);}}",
        "RE": "public class Main{public static void main(String[] a){throw new RuntimeException(\"boom\");}}",
        "TLE": "public class Main{public static void main(String[] a){long x=0;while(true){x++;}}}",
        "MLE": "import java.util.*;\npublic class Main{public static void main(String[] a){List<long[]> l=new ArrayList<>();"
               "while(true){l.add(new long[1<<20]);}}}",
        # 4 KiB a line, as the other languages write: under gVisor a 16-byte println (one write
        # each) reached 64 KiB only after about 1 s of CPU, and the 1 s limit judged it TLE first.
        "OLE": "public class Main{public static void main(String[] a){String y=\"y\".repeat(4096);"
               "while(true){System.out.println(y);}}}",
        "CE": "public class Main{public static void main(String[] a){int x = \"no\";}}",
    },
    "javascript": {
        "AC": "const [a,b]=require('fs').readFileSync(0,'utf8').trim().split(/\\s+/).map(Number);console.log(a+b);",
        "WA": "console.log(0);",
        "RE": "null.x;",
        "TLE": "for(;;){}",
        "MLE": "const a=[];for(;;){a.push(new Array(1e6).fill(1.5));}",
        "OLE": "const fs=require('fs');for(;;){fs.writeSync(1,'y'.repeat(4096)+'\\n');}",
    },
    "rust": {
        "AC": "use std::io::*;fn main(){let mut s=String::new();stdin().read_to_string(&mut s).unwrap();"
              "let v:Vec<i64>=s.split_whitespace().map(|x|x.parse().unwrap()).collect();println!(\"{}\",v[0]+v[1]);}",
        "WA": "fn main(){println!(\"7\");}",
        "RE": "fn main(){let v: Vec<i32> = Vec::new(); println!(\"{}\", v[3]);}",
        "TLE": "fn main(){let mut x: u64 = 1; loop { x = x.wrapping_mul(3).wrapping_add(1); if x == 0 { println!(\"{}\", x); } }}",
        "MLE": "fn main(){let v = vec![1u8; 400<<20]; println!(\"{}\", v.iter().map(|&x| x as u64).sum::<u64>());}",
        "OLE": "fn main(){loop { println!(\"yyyyyyyyyyyyyyyyyyyyyyyyyyyy\"); }}",
        "CE": "fn main(){ let x: i32 = \"no\"; }",
    },
    "bash": {"AC": "read a b; echo $((a+b))", "WA": "echo 0", "RE": "exit 4"},
    "perl": {"AC": "my @a = split ' ', <STDIN>; print $a[0]+$a[1], \"\\n\";", "WA": "print 0;", "RE": "die 'x';"},
}

INSTALLED = detect_toolchains()
CASES = [(lang, v) for lang, progs in PROGRAMS.items() for v in progs if lang in INSTALLED]
TEST = TestCase(stdin="20 22\n", expected_stdout="42\n")


@pytest.mark.parametrize("language,verdict", CASES, ids=[f"{l}-{v}" for l, v in CASES])
def test_verdict(sandbox, language, verdict):
    if language not in sandbox.toolchains:
        pytest.skip(f"{language} is not on the {sandbox.backend.name} backend")
    # The JVM gets the 256 MiB judges usually grant it (its own footprint is most of 128 MiB).
    limits = Limits(time_s=1, wall_time_s=3, memory_mb=256 if language == "java" else 128, output_kb=64)
    req = RunRequest(language=language, code=PROGRAMS[language][verdict], tests=[TEST], limits=limits)
    res = sandbox.run(req)
    if verdict == "CE":
        assert res.verdict == Verdict.CE and not res.compile.ok and res.compile.stderr
        assert res.tests == []
        return
    assert res.tests[0].verdict.value == verdict, res.tests[0]
    assert res.verdict.value == verdict
    t = res.tests[0]
    if verdict == "AC":
        assert t.stdout == "42\n" and t.exit_code == 0 and t.memory_kb > 0
    if verdict == "RE":
        assert t.exit_code not in (0, None) or t.signal is not None
    if verdict == "TLE":
        assert t.time_s >= 0.9 or t.wall_time_s >= 2.9
    if verdict == "OLE":
        assert t.truncated and len(t.stdout.encode()) <= 64 * 1024


# Programs that never stop: on one process, on four at once, and one that ignores the SIGXCPU
# RLIMIT_CPU sends (its backstop, the limit rounded down plus a second, then SIGKILL a second later).
SPINNERS = {
    "one process": "while True:\n    pass\n",
    "SIGXCPU ignored": "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass\n",
    "four processes": "import os\nos.fork()\nos.fork()\nwhile True:\n    pass\n",
}


@pytest.mark.parametrize("name", SPINNERS)
def test_a_program_is_stopped_at_its_cpu_limit_not_a_second_past_it(sandbox, name):
    """A TLE costs the machine the limit's CPU, not the backstop's: natively a program that never
    stopped ran on to 2 s of CPU under a 1 s limit until the supervisor sampled the cgroup's CPU,
    so every infinite loop of a training step cost twice what it should."""
    limits = Limits(time_s=1, wall_time_s=5)
    res = sandbox.run(RunRequest(language="python", code=SPINNERS[name], tests=[TestCase(stdin="")], limits=limits))
    t = res.tests[0]
    assert t.verdict == Verdict.TLE, t
    assert 1.0 <= t.time_s < 1.5, t


def test_skipped_after_first_failure(sandbox):
    tests = [TestCase(stdin="1 1\n", expected_stdout="2\n"), TestCase(stdin="1 1\n", expected_stdout="3\n")] + \
            [TestCase(stdin="2 2\n", expected_stdout="4\n")] * 6
    res = sandbox.run(RunRequest(language="python", code=PROGRAMS["python"]["AC"], tests=tests,
                                 stop_on_first_failure=True))
    assert [t.verdict for t in res.tests[:2]] == [Verdict.AC, Verdict.WA]
    assert all(t.verdict == Verdict.SKIPPED for t in res.tests[2:])
    assert res.verdict == Verdict.WA and res.passed == 1 and res.total == 8


def test_overall_verdict_is_first_failure_in_order(sandbox):
    code = "n = int(input())\nif n == 2: raise SystemExit(1)\nprint(n)\n"
    tests = [TestCase(stdin="1\n", expected_stdout="1\n"), TestCase(stdin="3\n", expected_stdout="4\n"),
             TestCase(stdin="2\n", expected_stdout="2\n")]
    res = sandbox.run(RunRequest(language="python", code=code, tests=tests))
    assert [t.verdict for t in res.tests] == [Verdict.AC, Verdict.WA, Verdict.RE]
    assert res.verdict == Verdict.WA and res.passed == 1


def test_no_tests_runs_once_on_empty_stdin(sandbox):
    res = sandbox.run(RunRequest(language="python", code="import sys\nprint(repr(sys.stdin.read()))\n"))
    assert res.verdict == Verdict.AC and res.total == 1 and res.tests[0].stdout == "''\n"
    bad = sandbox.run(RunRequest(language="python", code="raise ValueError('x')\n"))
    assert bad.verdict == Verdict.RE and "ValueError" in bad.tests[0].stderr


def test_compile_once_for_many_tests(sandbox):
    code = PROGRAMS["c"]["AC"] + "\n// compile-once probe\n"
    before = sandbox.stats["compiles"]
    res = sandbox.run(RunRequest(language="c", code=code, tests=[TEST] * 10))
    assert res.verdict == Verdict.AC and res.passed == 10
    assert sandbox.stats["compiles"] == before + 1 and not res.compile.cached
    again = sandbox.run(RunRequest(language="c", code=code, tests=[TEST]))
    assert again.compile.cached and sandbox.stats["compiles"] == before + 1


@pytest.mark.parametrize("mode,out,expected,verdict", [
    ("exact", "42\n", "42", "WA"),
    ("exact", "42\n", "42\n", "AC"),
    ("whitespace", "1   2\n\n", "1 2", "AC"),
    ("whitespace", "1 2 3", "1 2", "WA"),
    ("float", "0.3333334\n", "0.33333333", "AC"),
    ("float", "0.334\n", "0.33333333", "WA"),
])
def test_compare_modes(sandbox, mode, out, expected, verdict):
    code = f"import sys\nsys.stdout.write({out!r})\n"
    res = sandbox.run(RunRequest(language="python", code=code, compare=mode, float_tol=1e-6,
                                 tests=[TestCase(expected_stdout=expected)]))
    assert res.verdict.value == verdict


CHECKER_TESTLIB = """
import sys
inp, out, ans = (open(p).read().split() for p in sys.argv[1:4])
# any permutation of the answer is accepted
sys.exit(0 if sorted(out) == sorted(ans) else 1)
"""
CHECKER_KATTIS = r"""
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
int main(int argc, char** argv){
    std::ifstream ans(argv[2]); std::multiset<long long> want, got; long long x;
    while (ans >> x) want.insert(x);
    while (std::cin >> x) got.insert(x);
    // Kattis checkers write their judgement into the feedback folder: it must be writable.
    FILE* f = std::fopen((std::string(argv[3]) + "/judgemessage.txt").c_str(), "w");
    if (!f) return 1;
    std::fputs(want == got ? "ok" : "multisets differ", f);
    std::fclose(f);
    return want == got ? 42 : 43;
}
"""


@pytest.mark.parametrize("protocol,lang,checker", [("testlib", "python", CHECKER_TESTLIB),
                                                   ("kattis", "cpp", CHECKER_KATTIS)])
def test_checker_accepts_many_right_answers(sandbox, protocol, lang, checker):
    if lang not in INSTALLED:
        pytest.skip(f"{lang} not installed")
    compare = CheckerCompare(checker=Checker(language=lang, code=checker, protocol=protocol))
    tests = [TestCase(stdin="3\n", expected_stdout="1 2 3\n")]
    good = sandbox.run(RunRequest(language="python", code="print(3, 1, 2)", tests=tests, compare=compare))
    bad = sandbox.run(RunRequest(language="python", code="print(3, 1, 1)", tests=tests, compare=compare))
    assert good.verdict == Verdict.AC, good
    assert bad.verdict == Verdict.WA, bad


# "return any index of a largest element": the checker reads the three JSON files
CHECKER_FUNCTION_TESTLIB = """
import json, sys
(xs,), got, _ans = (json.load(open(p)) for p in sys.argv[1:4])
ok = type(got) is int and 0 <= got < len(xs) and xs[got] == max(xs)
sys.exit(0 if ok else 1)
"""
CHECKER_FUNCTION_KATTIS = """
import json, sys
(xs,), _ans, got = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), json.load(sys.stdin)
sys.exit(42 if type(got) is int and 0 <= got < len(xs) and xs[got] == max(xs) else 43)
"""


@pytest.mark.parametrize("protocol,checker", [("testlib", CHECKER_FUNCTION_TESTLIB),
                                              ("kattis", CHECKER_FUNCTION_KATTIS)])
def test_checker_judges_a_functions_returned_value(sandbox, protocol, checker):
    # Before, a function test's checker was compiled and never asked: the value was compared with
    # `expected` exactly, and the last index of a tied maximum was WA.
    compare = CheckerCompare(checker=Checker(language="python", code=checker, protocol=protocol))
    tests = [TestCase(args=[[3, 9, 1, 9]], expected=1), TestCase(args=[[5]], expected=0)]
    last = "def argmax(xs):\n    return len(xs) - 1 - xs[::-1].index(max(xs))\n"
    wrong = "def argmax(xs):\n    return xs.index(min(xs))\n"
    off = "def argmax(xs):\n    return len(xs)\n"
    for code, verdicts in ((last, [Verdict.AC, Verdict.AC]), (wrong, [Verdict.WA, Verdict.AC]),
                           (off, [Verdict.WA, Verdict.WA])):
        res = sandbox.run(RunRequest(language="python", code=code, entry_point="argmax", tests=tests, compare=compare))
        assert [t.verdict for t in res.tests] == verdicts, (code, res)


def test_a_function_checker_that_crashes_is_se(sandbox):
    compare = CheckerCompare(checker=Checker(language="python", code="import sys\nsys.exit(5)\n"))
    res = sandbox.run(RunRequest(language="python", code="def f():\n    return 1\n", entry_point="f",
                                 tests=[TestCase(args=[], expected=1)], compare=compare))
    assert res.tests[0].verdict == Verdict.SE and "checker" in res.tests[0].message, res


def test_broken_checker_is_se_not_the_programs_fault(sandbox):
    compare = CheckerCompare(checker=Checker(language="python", code="raise SystemExit(7)"))
    res = sandbox.run(RunRequest(language="python", code="print(1)", compare=compare,
                                 tests=[TestCase(expected_stdout="1\n")]))
    assert res.verdict == Verdict.SE and "checker" in res.tests[0].message


def test_function_call_tests(sandbox):
    code = "def add(a, b):\n    return a + b\n\nif __name__ == '__main__':\n    print(input())\n"
    tests = [TestCase(args=[1, 2], expected=3), TestCase(args=[0.1, 0.2], expected=0.3),
             TestCase(args=[[1], [2]], expected=[1, 2]), TestCase(args=[1, 1], expected=3)]
    res = sandbox.run(RunRequest(language="python", code=code, entry_point="add", tests=tests))
    assert [t.verdict for t in res.tests] == [Verdict.AC, Verdict.AC, Verdict.AC, Verdict.WA]
    assert res.tests[0].stdout == "3"


def test_function_call_tuple_and_exception(sandbox):
    code = "def f(x):\n    if x < 0:\n        raise ValueError('neg')\n    return (x, [x])\n"
    res = sandbox.run(RunRequest(language="python", code=code, entry_point="f",
                                 tests=[TestCase(args=[2], expected=[2, [2]]), TestCase(args=[-1], expected=None)]))
    assert [t.verdict for t in res.tests] == [Verdict.AC, Verdict.RE]


def test_java_without_public_class_runs_its_main_class(sandbox):
    if "java" not in sandbox.toolchains:
        pytest.skip("java not installed")
    code = "import java.util.*;\nclass Helper { static int two() { return 2; } }\n" \
           "class TestHello { public static void main(String[] a) { System.out.println(40 + Helper.two()); } }\n"
    res = sandbox.run(RunRequest(language="java", code=code, tests=[TEST]))
    assert res.verdict == Verdict.AC, res
