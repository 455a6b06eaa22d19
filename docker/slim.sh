#!/bin/sh
# Remove from the runtime image what no language, library or test runner uses at run time.
# Run by docker/Dockerfile.runtime in the same layer as the apt-get install (a deletion in a
# later layer would not make the image smaller). Each line names what goes and why it is safe;
# tests/test_languages.py (CODETEST_TEST_BACKENDS=docker:runc,docker:runsc, CODETEST_DOCKER_IMAGE=the
# new tag) runs programs of every language, its libraries and test runners in the slimmed image.
#
# Kept on purpose although large: Boost's headers (pulled in by python3-scipy -> pythran, but the
# native backend has them too, so a C++ program including <boost/...> gets one verdict on both),
# gcc's lto1, LLVM (ldc), the JDK's lib/modules, Go's precompiled standard library.
set -eu

# The JDK's jmods are only read by jlink (building custom runtimes); javac and java use lib/modules.
rm -rf /usr/lib/jvm/*/jmods

# Static archives nothing links: programs link dynamically, except D (ldc's default, non-debug,
# phobos/druntime stay). OpenBLAS/LAPACK .a come with libopenblas-dev (pythran -> scipy), libpython
# .a with python3-dev (numpy); the -debug D libraries serve only -link-debuglib.
rm -f /usr/lib/x86_64-linux-gnu/openblas-pthread/*.a \
      /usr/lib/python3.11/config-3.11-x86_64-linux-gnu/libpython3.11*.a \
      /usr/lib/x86_64-linux-gnu/libphobos2-ldc-debug* /usr/lib/x86_64-linux-gnu/libdruntime-ldc-debug*
# GCC's sanitizer runtimes: the compile commands (sandbox/languages.py) never pass -fsanitize.
rm -f /usr/lib/x86_64-linux-gnu/libasan.so* /usr/lib/x86_64-linux-gnu/libtsan.so* \
      /usr/lib/x86_64-linux-gnu/liblsan.so* /usr/lib/x86_64-linux-gnu/libubsan.so* \
      /usr/lib/x86_64-linux-gnu/libhwasan.so* /usr/lib/gcc/x86_64-linux-gnu/*/lib*san*.a

# Java archives: keep the closure (over manifest Class-Path) of what the JVM languages put on a
# classpath: kotlinc's and scala's lib folders, JUnit's console launcher and javatuples
# (sandbox/languages.py: JUNIT_JAR, JAVA_LIBS). The rest came with Debian's build-tool dependencies
# of kotlin and junit5 (Maven, Ant, Doxia, FOP, Batik, Guice, the split Kotlin module jars and the
# embeddable copy of the compiler, for Gradle) and is
# on no classpath a program or compiler gets; so is /usr/share/maven-repo (Maven's view of them).
python3 - <<'PY'
import glob, os, zipfile

def class_path(jar):
    try:
        with zipfile.ZipFile(jar) as z:
            text = z.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile):
        return []
    text = text.replace("\r\n ", "").replace("\n ", "")
    for line in text.splitlines():
        if line.startswith("Class-Path:"):
            return [os.path.join(os.path.dirname(jar), p) for p in line.split(":", 1)[1].split()]
    return []

roots = glob.glob("/usr/share/kotlin/kotlinc/lib/*.jar") + glob.glob("/usr/share/scala*/lib/*.jar") + \
    ["/usr/share/java/junit-platform-console-standalone.jar", "/usr/share/java/javatuples.jar"]
keep, todo = set(), [os.path.realpath(r) for r in roots]
while todo:
    jar = todo.pop()
    if jar not in keep and os.path.exists(jar):
        keep.add(jar)
        todo += [os.path.realpath(p) for p in class_path(jar)]
for jar in glob.glob("/usr/share/java/**/*.jar", recursive=True):
    if not os.path.islink(jar) and os.path.realpath(jar) not in keep:
        os.unlink(jar)
PY
rm -rf /usr/share/maven-repo
find /usr/share/java /usr/share/kotlin /usr/share/scala* -xtype l -delete 2>/dev/null || true

# Go: the Go project's own test suite and API lists, std's tests and testdata, and the
# profiling/debugging tools (pprof, trace and the binutils they drive); `go build`, `go test`
# and `go vet` use compile, link, asm, cgo, pack, buildid, cover, vet and test2json.
for g in /usr/share/go-*; do
  [ -d "$g" ] || continue
  rm -rf "$g/test" "$g/api" "$g/misc"
  find "$g/src" -name testdata -type d -prune -exec rm -rf {} +
  find "$g/src" -name '*_test.go' -type f -delete
done
# The compiled packages of Go's own commands (cmd/compile/internal/..., 140 MB): only rebuilding
# the toolchain reads them, and no program may import cmd/.
rm -rf /usr/lib/go-*/pkg/linux_amd64/cmd
for t in /usr/lib/go-*/pkg/tool/*; do
  [ -d "$t" ] || continue
  rm -f "$t/pprof" "$t/trace" "$t/doc" "$t/fix" "$t/api" "$t/dist" "$t/addr2line" "$t/nm" "$t/objdump"
done

# Python: the libraries' own test suites (numpy.testing and pandas._testing stay).
for p in numpy scipy pandas; do
  d=/usr/lib/python3/dist-packages/$p
  [ -d "$d" ] && find "$d" -name tests -type d -prune -exec rm -rf {} +
done

# Racket: the GUI boot image (racket runs without it), documentation, games and the Redex
# examples and benchmarks, sources and compiled code alike.
rm -f /usr/lib/racket/gracket
for p in /usr/share/racket/pkgs/*-doc /usr/share/racket/pkgs/games /usr/share/racket/pkgs/redex-benchmark \
         /usr/share/racket/pkgs/redex-examples; do
  [ -e "$p" ] || continue
  rm -rf "$p" "/usr/lib/racket/compiled$p"
done
rm -rf /usr/share/doc/racket

# Caches and logs.
rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/cache/debconf/*-old /var/log/apt /var/log/dpkg.log \
       /usr/share/doc/* /usr/share/man/* /usr/share/info/* /root/.cache
