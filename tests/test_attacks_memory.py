"""Issue 11, finding 1: no execution can read the memory of an earlier one.

Random secrets (uuid4 hex) are planted in the source, stdin, expected output, checker source and
checker answer of one job, and in its output; then programs in every installed language scan
every readable mapping of their own memory (/proc/self/maps + /proc/self/mem), their environment,
argv, cwd and the files they can see, and print every ``ctsecret-<hex>`` they find. None of the
planted secrets may appear. Each scanner first finds a control secret it put in its own memory,
so a scan that reads nothing cannot pass. And the copy-the-previous-output trick (print the most
recent correct-looking answer found in memory, never read the input) must get WA.
"""

from __future__ import annotations

import hashlib
import re
import uuid

import pytest

from sandbox import Checker, CheckerCompare, Limits, RunRequest, TestCase, Verdict
from conftest import BACKENDS, own_sandbox, run_one

MARK = "ctsecret-"

# Every scanner: reads a control hex from stdin, keeps MARK+control in its own memory, then prints
# "found <hex>" for each MARK+32 hex it finds in memory, environment, argv, cwd (and, for Python,
# the files it can see), and "scanned <bytes>".
SCAN_PY = r'''
import os, re, sys
mark = ("ct" + "secret-").encode()
control = (mark.decode() + sys.stdin.readline().strip()).encode()
pat = re.compile(re.escape(mark) + rb"([0-9a-f]{32})")
found = set()
def scan(b):
    for m in pat.finditer(b):
        found.add(m.group(1).decode())
total = 0
try:
    mem = os.open("/proc/self/mem", os.O_RDONLY)
    with open("/proc/self/maps") as f:
        maps = f.read().splitlines()
except OSError as e:
    print("memdenied", e)
    maps = []
for line in maps:
    addr, perms = line.split()[:2]
    if perms[0] != "r" or line.endswith("[vvar]") or line.endswith("[vsyscall]"):
        continue
    lo, hi = (int(x, 16) for x in addr.split("-"))
    tail = b""
    while lo < hi:
        n = min(hi - lo, 1 << 22)
        try:
            chunk = os.pread(mem, n, lo)
        except OSError:
            break
        if not chunk:
            break
        total += len(chunk)
        scan(tail + chunk)
        tail = chunk[-64:]
        lo += len(chunk)
scan("\0".join(f"{k}={v}" for k, v in os.environ.items()).encode())
scan("\0".join(sys.argv).encode() + os.getcwd().encode())
for top in {"/work", "/tmp", "/prog", "/dev/shm", "/run", "/var", "/home", "/root", "/etc", "/mnt", os.getcwd()}:
    for root, dirs, files in os.walk(top):
        for name in files:
            p = os.path.join(root, name)
            scan(p.encode())
            try:
                if os.path.getsize(p) < (4 << 20):
                    with open(p, "rb") as f:
                        scan(f.read())
            except OSError:
                pass
for h in sorted(found):
    print("found", h)
print("scanned", total)
'''

SCAN_C = r'''
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
extern char **environ;
static char seen[4096][33];
static int nseen = 0;
static char mark[16];
static void note(const char *h) {
    for (int i = 0; i < nseen; i++) if (!memcmp(seen[i], h, 32)) return;
    if (nseen < 4096) { memcpy(seen[nseen], h, 32); seen[nseen][32] = 0; nseen++; }
}
static int ishex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
static void scan(const char *b, size_t n) {
    size_t m = strlen(mark);
    for (size_t i = 0; i + m + 32 <= n; i++) {
        if (b[i] == 'c' && !memcmp(b + i, mark, m)) {
            int ok = 1;
            for (size_t j = 0; j < 32; j++) if (!ishex(b[i + m + j])) { ok = 0; break; }
            if (ok) note(b + i + m);
        }
    }
}
int main(int argc, char **argv) {
    strcpy(mark, "ct"); strcat(mark, "secret-");
    char line[128] = {0};
    if (!fgets(line, sizeof line, stdin)) return 3;
    line[strcspn(line, "\n")] = 0;
    char *control = (char *)malloc(256);
    strcpy(control, mark); strcat(control, line);
    FILE *maps = fopen("/proc/self/maps", "r");
    int mem = open("/proc/self/mem", O_RDONLY);
    if (!maps || mem < 0) { perror("open"); return 4; }
    size_t cap = 1 << 22;
    char *buf = (char *)malloc(cap + 64);
    unsigned long long total = 0;
    char l[4096];
    static unsigned long los[8192], his[8192];
    int nm = 0;
    while (fgets(l, sizeof l, maps) && nm < 8192) {
        unsigned long lo, hi; char perms[8];
        if (sscanf(l, "%lx-%lx %7s", &lo, &hi, perms) != 3) continue;
        if (perms[0] != 'r' || strstr(l, "[vvar]") || strstr(l, "[vsyscall]")) continue;
        if (lo == (unsigned long)buf || (lo <= (unsigned long)buf && (unsigned long)buf < hi && hi - lo <= cap + 8192)) {}
        los[nm] = lo; his[nm] = hi; nm++;
    }
    for (int k = 0; k < nm; k++) {
        unsigned long lo = los[k], hi = his[k];
        size_t keep = 0;
        while (lo < hi) {
            size_t n = hi - lo < cap ? hi - lo : cap;
            ssize_t r = pread(mem, buf + keep, n, (off_t)lo);
            if (r <= 0) break;
            total += r;
            scan(buf, keep + r);
            size_t t = keep + r < 64 ? keep + r : 64;
            memmove(buf, buf + keep + r - t, t);
            keep = t;
            lo += r;
        }
    }
    for (char **e = environ; *e; e++) scan(*e, strlen(*e));
    for (int i = 0; i < argc; i++) scan(argv[i], strlen(argv[i]));
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) scan(cwd, strlen(cwd));
    for (int i = 0; i < nseen; i++) printf("found %s\n", seen[i]);
    printf("scanned %llu\n", total);
    return control[0] == 'c' ? 0 : 5;
}
'''

SCAN_RUST = r'''
use std::fs::File;
use std::io::{BufRead, Read};
use std::os::unix::fs::FileExt;
use std::collections::BTreeSet;
fn scan(b: &[u8], mark: &[u8], found: &mut BTreeSet<String>) {
    let m = mark.len();
    if b.len() < m + 32 { return; }
    for i in 0..=(b.len() - m - 32) {
        if b[i] == mark[0] && &b[i..i + m] == mark {
            let h = &b[i + m..i + m + 32];
            if h.iter().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c)) {
                found.insert(String::from_utf8_lossy(h).to_string());
            }
        }
    }
}
fn main() {
    let mark = format!("{}{}", "ct", "secret-").into_bytes();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).unwrap();
    let control = format!("{}{}", String::from_utf8_lossy(&mark), line.trim());
    let mut found = BTreeSet::new();
    let mut maps = String::new();
    File::open("/proc/self/maps").unwrap().read_to_string(&mut maps).unwrap();
    let mem = File::open("/proc/self/mem").unwrap();
    let mut total: u64 = 0;
    let cap: u64 = 1 << 22;
    let mut buf = vec![0u8; (cap + 64) as usize];
    for l in maps.lines() {
        let mut it = l.split_whitespace();
        let range = it.next().unwrap();
        let perms = it.next().unwrap();
        if !perms.starts_with('r') || l.ends_with("[vvar]") || l.ends_with("[vsyscall]") { continue; }
        let mut r = range.split('-');
        let mut lo = u64::from_str_radix(r.next().unwrap(), 16).unwrap();
        let hi = u64::from_str_radix(r.next().unwrap(), 16).unwrap();
        let mut keep = 0usize;
        while lo < hi {
            let n = std::cmp::min(hi - lo, cap) as usize;
            let got = match mem.read_at(&mut buf[keep..keep + n], lo) { Ok(g) if g > 0 => g, _ => break };
            total += got as u64;
            scan(&buf[..keep + got], &mark, &mut found);
            let t = std::cmp::min(keep + got, 64);
            buf.copy_within(keep + got - t..keep + got, 0);
            keep = t;
            lo += got as u64;
        }
    }
    for (k, v) in std::env::vars_os() {
        scan(format!("{:?}={:?}", k, v).as_bytes(), &mark, &mut found);
    }
    for a in std::env::args() { scan(a.as_bytes(), &mark, &mut found); }
    if let Ok(c) = std::env::current_dir() { scan(c.to_string_lossy().as_bytes(), &mark, &mut found); }
    for h in &found { println!("found {}", h); }
    println!("scanned {}", total);
    if control.is_empty() { std::process::exit(5); }
}
'''

SCAN_JAVA = r'''
import java.io.*;
import java.nio.file.*;
import java.util.*;
public class Main {
    static TreeSet<String> found = new TreeSet<>();
    static byte[] mark;
    static boolean hex(byte c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
    static void scan(byte[] b, int n) {
        int m = mark.length;
        outer:
        for (int i = 0; i + m + 32 <= n; i++) {
            if (b[i] != mark[0]) continue;
            for (int j = 1; j < m; j++) if (b[i + j] != mark[j]) continue outer;
            for (int j = 0; j < 32; j++) if (!hex(b[i + m + j])) continue outer;
            found.add(new String(b, i + m, 32));
        }
    }
    public static void main(String[] args) throws Exception {
        mark = ("ct" + "secret-").getBytes();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String control = new String(mark) + in.readLine().trim();
        List<String> maps = Files.readAllLines(Paths.get("/proc/self/maps"));
        RandomAccessFile mem = new RandomAccessFile("/proc/self/mem", "r");
        long total = 0;
        int cap = 1 << 22;
        byte[] buf = new byte[cap + 64];
        for (String l : maps) {
            String[] f = l.trim().split("\\s+");
            if (f[1].charAt(0) != 'r' || l.endsWith("[vvar]") || l.endsWith("[vsyscall]")) continue;
            String[] r = f[0].split("-");
            long lo = Long.parseUnsignedLong(r[0], 16), hi = Long.parseUnsignedLong(r[1], 16);
            int keep = 0;
            while (lo < hi) {
                int n = (int) Math.min(hi - lo, cap);
                int got;
                try { mem.seek(lo); got = mem.read(buf, keep, n); } catch (IOException e) { break; }
                if (got <= 0) break;
                total += got;
                scan(buf, keep + got);
                int t = Math.min(keep + got, 64);
                System.arraycopy(buf, keep + got - t, buf, 0, t);
                keep = t;
                lo += got;
            }
        }
        for (Map.Entry<String, String> e : System.getenv().entrySet()) {
            byte[] b = (e.getKey() + "=" + e.getValue()).getBytes(); scan(b, b.length);
        }
        byte[] cwd = System.getProperty("user.dir").getBytes(); scan(cwd, cwd.length);
        for (String a : args) { byte[] b = a.getBytes(); scan(b, b.length); }
        for (String h : found) System.out.println("found " + h);
        System.out.println("scanned " + total);
        if (control.isEmpty()) System.exit(5);
    }
}
'''

SCAN_JS = r'''
const fs = require("fs");
const mark = Buffer.from("ct" + "secret-");
const control = Buffer.from(mark.toString() + fs.readFileSync(0, "utf8").split("\n")[0].trim());
const found = new Set();
const re = new RegExp(mark.toString() + "([0-9a-f]{32})", "g");
function scan(b) { const s = b.toString("latin1"); let m; while ((m = re.exec(s)) !== null) found.add(m[1]); }
const maps = fs.readFileSync("/proc/self/maps", "utf8").split("\n").filter(Boolean);
const mem = fs.openSync("/proc/self/mem", "r");
let total = 0;
const cap = 1 << 22;
const buf = Buffer.alloc(cap + 64);
for (const l of maps) {
  const f = l.trim().split(/\s+/);
  if (f[1][0] !== "r" || l.endsWith("[vvar]") || l.endsWith("[vsyscall]")) continue;
  let [lo, hi] = f[0].split("-").map((x) => parseInt(x, 16));
  // Node reserves several 1 GiB read-write regions (V8's cage, thread arenas) at start, untouched:
  // this process's own fresh reservations, never a carrier of earlier data. gVisor commits what is
  // read through /proc/self/mem, so reading them all would be an MLE of the scanner itself.
  if (hi - lo >= (256 << 20)) continue;
  let keep = 0;
  while (lo < hi) {
    const n = Math.min(hi - lo, cap);
    let got;
    try { got = fs.readSync(mem, buf, keep, n, lo); } catch (e) { break; }
    if (got <= 0) break;
    total += got;
    scan(buf.subarray(0, keep + got));
    const t = Math.min(keep + got, 64);
    buf.copy(buf, 0, keep + got - t, keep + got);
    keep = t;
    lo += got;
  }
}
for (const [k, v] of Object.entries(process.env)) scan(Buffer.from(k + "=" + v));
scan(Buffer.from(process.argv.join("\0") + process.cwd()));
for (const h of [...found].sort()) console.log("found " + h);
console.log("scanned " + total);
if (control.length === 0) process.exit(5);
'''

SCAN_PERL = r'''
use strict; use warnings; use Cwd;
my $mark = "ct" . "secret-";
my $line = <STDIN>; chomp $line;
my $control = $mark . $line;
my %found;
sub scan { my ($b) = @_; while ($b =~ /\Q$mark\E([0-9a-f]{32})/g) { $found{$1} = 1; } }
open(my $maps, "<", "/proc/self/maps") or die "maps: $!";
my @maps = <$maps>; close $maps;
open(my $mem, "<:raw", "/proc/self/mem") or die "mem: $!";
my $total = 0;
for my $l (@maps) {
    my ($range, $perms) = split /\s+/, $l;
    next if substr($perms, 0, 1) ne "r" or $l =~ /\[(vvar|vsyscall)\]/;
    my ($lo, $hi) = map { hex } split /-/, $range;
    my $tail = "";
    while ($lo < $hi) {
        my $n = $hi - $lo < 4194304 ? $hi - $lo : 4194304;
        sysseek($mem, $lo, 0) or last;
        my $chunk;
        my $got = sysread($mem, $chunk, $n);
        last unless $got;
        $total += $got;
        scan($tail . $chunk);
        $tail = substr($chunk, -64);
        $lo += $got;
    }
}
scan(join("\0", map { "$_=$ENV{$_}" } keys %ENV));
scan(join("\0", $0, @ARGV, getcwd()));
print "found $_\n" for sort keys %found;
print "scanned $total\n";
exit(length($control) ? 0 : 5);
'''

SCANNERS = {"python": SCAN_PY, "c": SCAN_C, "cpp": SCAN_C, "rust": SCAN_RUST, "java": SCAN_JAVA,
            "javascript": SCAN_JS, "perl": SCAN_PERL}


def _secret() -> str:
    return uuid.uuid4().hex


def _plant(sb) -> set[str]:
    """Jobs whose every input and output carries secrets; returns the secrets' hex."""
    planted: set[str] = set()
    for round_ in range(2 * sb.backend.slots):  # every slot gets several
        src, stdin, expected, chk, out = (_secret() for _ in range(5))
        planted |= {src, stdin, expected, chk, out}
        checker = ("import sys\n"
                   f"# {MARK}{chk}\n"
                   "got = open(sys.argv[2]).read().split(); want = open(sys.argv[3]).read().split()\n"
                   "sys.exit(0 if got[-1:] == want[-1:] else 1)\n")
        code = (f"# {MARK}{src}\n"
                "import sys\n"
                "line = sys.stdin.readline()\n"
                f"print(line.strip(), '{MARK}' + '{out}', line.split('-')[-1].strip())\n")
        req = RunRequest(language="python", code=code,
                         tests=[TestCase(stdin=f"{MARK}{stdin}\n", expected_stdout=f"x {MARK}{expected} {stdin}\n")],
                         compare=CheckerCompare(checker=Checker(language="python", code=checker)))
        res = sb.run(req)
        assert res.verdict == Verdict.AC, res
        # The same secrets through a compiled program and the plain comparison.
        if round_ == 0 and "c" in sb.toolchains:
            csrc, cin, cexp = _secret(), _secret(), _secret()
            planted |= {csrc, cin, cexp}
            ccode = (f'/* {MARK}{csrc} */\n#include <stdio.h>\n'
                     'int main(void){char b[256]; if(!fgets(b,sizeof b,stdin)) return 1; fputs(b,stdout); return 0;}\n')
            t = run_one(sb, ccode, stdin=f"{MARK}{cin}\n", language="c", expected=f"{MARK}{cin}\n")
            assert t.verdict == Verdict.AC, t
            t = run_one(sb, ccode, stdin=f"{MARK}{cexp}\n", language="c", expected=f"{MARK}{cexp}\n")
            assert t.verdict == Verdict.AC, t
    return planted


@pytest.mark.parametrize("language", list(SCANNERS))
def test_no_secret_of_an_earlier_job_is_readable(sandbox, language):
    if language not in sandbox.toolchains:
        pytest.skip(f"{language} toolchain not installed on this backend")
    planted = _plant(sandbox)
    for _ in range(2 * sandbox.backend.slots):  # every slot, after the planting jobs
        control = _secret()
        t = run_one(sandbox, SCANNERS[language], stdin=control + "\n", language=language,
                    time_s=20, wall_time_s=60, memory_mb=1024, output_kb=4096)
        assert t.verdict == Verdict.AC, (t.verdict, t.stderr[-3000:], t.message)
        found = set(re.findall(r"^found ([0-9a-f]{32})$", t.stdout, re.M))
        scanned = int(re.search(r"^scanned (\d+)$", t.stdout, re.M).group(1))
        if "memdenied" not in t.stdout:  # a jail may deny reading one's own memory: nothing to find then
            assert control in found, f"the scanner did not find its own control secret (scanned {scanned} bytes)"
        leaked = found & planted
        assert not leaked, f"{language} program read {len(leaked)} secret(s) of earlier jobs from its memory/env/files"


# The copy-the-previous-output trick: a policy that never reads its input but prints the most
# recent correct-looking answer found in its own memory must not earn AC.
VICTIM = ("import hashlib, sys\n"
          "x = sys.stdin.readline().strip()\n"
          "print('ANSWER', hashlib.sha256(x.encode()).hexdigest())\n")
TOKEN_CHECKER = ("import sys\n"
                 "sys.exit(0 if open(sys.argv[2]).read().split() == open(sys.argv[3]).read().split() else 1)\n")
CHEAT_PY = r'''
import os, re
pat = re.compile(("ANS" + "WER ").encode() + rb"([0-9a-f]{64})")
last = None
mem = os.open("/proc/self/mem", os.O_RDONLY)
for line in open("/proc/self/maps").read().splitlines():
    addr, perms = line.split()[:2]
    if perms[0] != "r" or line.endswith("[vvar]") or line.endswith("[vsyscall]"):
        continue
    lo, hi = (int(x, 16) for x in addr.split("-"))
    try:
        chunk = os.pread(mem, hi - lo, lo)
    except OSError:
        continue
    for m in pat.finditer(chunk):
        last = m.group(1).decode()
print("ANSWER", last or "none")
'''
CHEAT_C = r'''
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void) {
    char mark[16]; strcpy(mark, "ANS"); strcat(mark, "WER ");
    FILE *maps = fopen("/proc/self/maps", "r");
    int mem = open("/proc/self/mem", O_RDONLY);
    char l[4096], last[65] = "none";
    static unsigned long los[8192], his[8192]; int nm = 0;
    while (fgets(l, sizeof l, maps) && nm < 8192) {
        unsigned long lo, hi; char perms[8];
        if (sscanf(l, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' || strstr(l, "[vvar]") || strstr(l, "[vsyscall]")) continue;
        los[nm] = lo; his[nm] = hi; nm++;
    }
    for (int k = 0; k < nm; k++) {
        size_t n = his[k] - los[k];
        if (n > (256u << 20)) continue;
        char *b = (char *)malloc(n);
        ssize_t r = pread(mem, b, n, (off_t)los[k]);
        for (ssize_t i = 0; i + 7 + 64 <= r; i++) {
            if (b[i] == 'A' && !memcmp(b + i, mark, 7)) {
                int ok = 1;
                for (int j = 0; j < 64; j++) { char c = b[i + 7 + j]; if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) { ok = 0; break; } }
                if (ok) { memcpy(last, b + i + 7, 64); last[64] = 0; }
            }
        }
        free(b);
    }
    printf("ANSWER %s\n", last);
    return 0;
}
'''


@pytest.mark.parametrize("language", ["python", "c"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_copying_the_previous_output_gets_wa(backend, language):
    # A sandbox of its own: the victim's jobs are the first its slots see, as on a fresh service.
    with own_sandbox(backend) as sb:
        if language not in sb.toolchains:
            pytest.skip(f"{language} toolchain not installed")
        _copy_trick(sb, language)


def _copy_trick(sandbox, language):
    x = _secret()
    want = f"ANSWER {hashlib.sha256(x.encode()).hexdigest()}\n"
    # The problem is judged by a checker, so its answer file travels into the jail as checkers' do.
    compare = CheckerCompare(checker=Checker(language="python", code=TOKEN_CHECKER))
    victim = RunRequest(language="python", code=VICTIM, compare=compare,
                        tests=[TestCase(stdin=x + "\n", expected_stdout=want) for _ in range(2 * sandbox.backend.slots)])
    cheat = CHEAT_PY if language == "python" else CHEAT_C
    verdicts, outs = [], []
    for _ in range(3):  # victims and cheaters interleaved, every slot each time
        res = sandbox.run(victim)
        assert res.verdict == Verdict.AC, res
        res = sandbox.run(RunRequest(language=language, code=cheat, compare=compare,
                                     limits=Limits(time_s=10, wall_time_s=30, memory_mb=1024),
                                     tests=[TestCase(stdin=x + "\n", expected_stdout=want)
                                            for _ in range(2 * sandbox.backend.slots)]))
        verdicts += [t.verdict for t in res.tests]
        outs += [t.stdout for t in res.tests]
    assert Verdict.AC not in verdicts, f"the copy trick earned AC: {outs}"
    # WA; or RE where the jail keeps a program from reading its own memory at all.
    assert set(verdicts) <= {Verdict.WA, Verdict.RE}, verdicts
