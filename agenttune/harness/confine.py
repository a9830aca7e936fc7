"""Confine this process, then exec the sandboxed program (:mod:`agenttune.harness.sandbox` starts it).

It runs as pid 1 of a new PID namespace, in new mount, network, IPC and UTS namespaces made by util-linux's
``unshare`` (with a user namespace when the caller is not root), holding the capabilities of that namespace's root.
It uses the standard library only (it runs as ``python -I -S confine.py SPEC``) and, in order:

1. builds a new root: a small tmpfs holding read-only binds of the paths the program needs (system libraries,
   the Python installation), ``/dev/null``, ``/dev/zero``, ``/dev/urandom``, a ``/proc`` of the new PID namespace
   (it shows only the sandbox's processes) and ``/scratch``, a size-limited tmpfs, the only writable place
   (``/tmp`` points to it);
2. pivots into that root and detaches the old one, so nothing else of the host's file system stays reachable;
3. gives up every privilege: as real root it first switches to an unprivileged uid; then it enters a user
   namespace of its own that maps only that uid, which locks the mounts, and the ``execve`` below leaves a non-root
   uid no capability; ``no_new_privs`` is set;
4. limits processes (counted in that user namespace, so per sandbox), address space and core dumps;
5. execs the program in ``/scratch`` with the environment given in the spec and nothing else.

A failure prints ``agenttune-sandbox: <step>: <error>`` on stderr and exits with :data:`SETUP_FAILED`.

The spec (JSON, the only argument): ``root`` (an empty host folder to mount the new root on), ``read_only``
(absolute host paths, none inside another), ``scratch_mb``, ``memory_mb``, ``max_processes``, ``uid`` (the
unprivileged uid to switch to when run as real root, else null), ``argv`` and ``env`` of the program.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import resource
import sys

SETUP_FAILED = 125
MARKER = "agenttune-sandbox"
SANDBOX_UID = 65534  # the uid the program runs as inside its user namespace ("nobody")
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom")

# from <sys/mount.h>, <sched.h> and <linux/prctl.h>
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 1024, 2048, 4096, 16384
MS_PRIVATE, MS_RELATIME = 1 << 18, 1 << 21
MNT_DETACH = 2
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 4, 38
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
# statvfs f_flag bits -> mount flags a bind remount must repeat (the kernel keeps them locked in a user namespace)
KEPT_FLAGS = {1: MS_RDONLY, 2: MS_NOSUID, 4: MS_NODEV, 8: MS_NOEXEC, 1024: MS_NOATIME, 2048: MS_NODIRATIME,
              4096: MS_RELATIME}  # fmt: skip

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, call: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{call}: {os.strerror(errno)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    encode = lambda value: None if value is None else value.encode()  # noqa: E731
    _check(
        _libc.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)),
        f"mount {target}",
    )


def _bind_read_only(source: str, target: str) -> None:
    """``source`` at ``target``, read-only (a symlink is copied as a symlink)."""
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.islink(source):
        os.symlink(os.readlink(source), target)
        return
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        open(target, "w").close()  # noqa: SIM115 - an empty file to mount over
    _mount(source, target, None, MS_BIND | MS_REC)
    kept = sum(flag for bit, flag in KEPT_FLAGS.items() if os.statvfs(target).f_flag & bit)
    _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | kept)


def build_root(spec: dict) -> None:
    root = spec["root"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here propagates to the host
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    for path in [*spec["read_only"], *DEVICES]:
        _bind_read_only(path, root + path)
    os.makedirs(root + "/proc")
    _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.makedirs(root + "/scratch")
    owner = "" if spec["uid"] is None else f",uid={spec['uid']},gid={spec['uid']}"
    options = f"size={spec['scratch_mb']}m,mode=0700{owner}"
    _mount("tmpfs", root + "/scratch", "tmpfs", MS_NOSUID | MS_NODEV, options)
    if not os.path.lexists(root + "/tmp"):  # a Python installed under /tmp already made it (read-only)
        os.symlink("/scratch", root + "/tmp")


def enter_root(root: str) -> None:
    """Make ``root`` the file system's root and detach the old one."""
    number = SYS_PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise OSError(f"pivot_root: no system call number known for {platform.machine()}")
    os.chdir(root)
    _check(_libc.syscall(number, b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", MNT_DETACH), "umount old root")
    os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def drop_privileges(uid: int | None) -> None:
    if uid is not None:  # real root: become an unprivileged user of the host first
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        # changing uid made the process undumpable, which gives /proc/self to root: take it back to write the maps
        _check(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "prctl dumpable")
    outer_uid, outer_gid = os.geteuid(), os.getegid()
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare user namespace")
    for name, line in (("setgroups", "deny"), ("uid_map", f"{SANDBOX_UID} {outer_uid} 1"),
                       ("gid_map", f"{SANDBOX_UID} {outer_gid} 1")):  # fmt: skip
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(line)
    os.setresgid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID)
    os.setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID)
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl no_new_privs")


def set_limits(spec: dict) -> None:
    memory = spec["memory_mb"] * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_NPROC, (spec["max_processes"], spec["max_processes"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def start(spec: dict) -> None:
    os.chdir("/scratch")
    os.execve(spec["argv"][0], spec["argv"], spec["env"])


def main() -> None:
    spec = json.loads(sys.argv[1])
    steps = [
        ("build the root", lambda: build_root(spec)),
        ("enter the root", lambda: enter_root(spec["root"])),
        ("drop privileges", lambda: drop_privileges(spec["uid"])),
        ("set limits", lambda: set_limits(spec)),
        ("start the program", lambda: start(spec)),
    ]
    for name, step in steps:
        try:
            step()
        except OSError as error:
            print(f"{MARKER}: {name}: {error}", file=sys.stderr)
            sys.exit(SETUP_FAILED)


if __name__ == "__main__":
    main()
