"""The jail, written once: used unchanged by the native slot server and the Docker executor.

Standard library only: it runs on the toolchain's Python on the host and inside the runtime
image. The host imports ``sandbox.jail.protocol`` to speak to it; inside a jail the modules
are installed from source by ``sandbox.jail.boot`` (no file of ours is on the jail's disk,
so no host path shows in a traceback).

Modules:
  protocol  the typed host<->jail boundary: limits, the job, the facts, binary frames
  sys       the few syscalls the standard library lacks (mount, pivot_root, prctl, seccomp)
  steps     the per-execution steps, in order (cgroup, root, network, rlimits, credentials,
            fds, environment, seccomp, exec)
  zygote    the warm Python interpreter a Python program is forked from
  supervise wall time, output draining and capping, the result descriptor
  server    the loop: read a header, fork a fresh supervisor that alone reads the job
See docs/jail.md.
"""
