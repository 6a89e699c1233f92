#!/usr/bin/env python3
"""Save a bench guest to a file once it says it is ready; resume a restore.

usage: bench/state.py save --qmp SOCK --result FILE --state OUT [--timeout S] [--pid P]
       bench/state.py resume --qmp SOCK --go-file F --go-line L [--timeout S] [--pid P]

save:

Waits (up to S seconds, default 1800, and only while process P, the QEMU
that runs the guest, lives) for the line "bench: state-ready" on
the guest's result channel FILE (guest/jobs/bench.sh), then
over QEMU's QMP socket SOCK: pauses the guest, migrates its whole state
(RAM, devices, the icount clock) to OUT with QEMU's exec: migration, and
quits QEMU.  The guest busy-polls while it waits (guest/jobs/bench.sh), so
that little guest time passes before the pause: an idle guest under
-icount sleep=off would race through virtual time.  OUT is written as OUT.tmp and renamed once the whole stream is
written, so a state file that exists is whole.  
resume: a restore is QEMU started with the same command line plus
`-incoming "exec:cat OUT"` and a QMP socket (bench/run.sh); the state was
saved paused, so it arrives paused: wait for the incoming migration to end,
write L into F, the file behind the guest's ivshmem device (the migration
has just written the saved memory there), and let the guest go on ("cont").

Exit 0 on success; 1 with one "state: error: ..." line otherwise.
"""
import argparse
import json
import os
import shlex
import socket
import sys
import time

READY = "bench: state-ready"


def fail(msg):
    print(f"state: error: {msg}", file=sys.stderr)
    sys.exit(1)


class Qmp:
    """The few QMP calls needed here, one command at a time."""

    def __init__(self, path, deadline, pid=0):
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.time() > deadline or not alive(pid):
                    fail(f"no QMP socket at {path}")
                time.sleep(0.05)
        self.buf = b""
        self.read_reply()   # greeting
        self.cmd("qmp_capabilities")

    def read_reply(self):
        """The next message that is not an asynchronous event."""
        while True:
            while b"\n" not in self.buf:
                data = self.sock.recv(65536)
                if not data:
                    fail("QEMU closed the QMP socket")
                self.buf += data
            line, _, self.buf = self.buf.partition(b"\n")
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def cmd(self, name, **args):
        req = {"execute": name}
        if args:
            req["arguments"] = args
        self.sock.sendall(json.dumps(req).encode() + b"\n")
        reply = self.read_reply()
        if "error" in reply:
            fail(f"{name}: {reply['error'].get('desc', reply['error'])}")
        return reply.get("return")


def alive(pid):
    if not pid:
        return True
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def wait_ready(result, deadline, pid):
    start = time.time()
    while time.time() < deadline:
        if not alive(pid):
            fail(f"the guest ended before '{READY}' (see {result})")
        try:
            # A result file from before this guest started is not its own.
            if os.stat(result).st_mtime < start - 1:
                raise FileNotFoundError
            with open(result, errors="replace") as f:
                if any(line.strip() == READY for line in f):
                    return
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    fail(f"no '{READY}' in {result} in time")


def save(a, deadline):
    wait_ready(a.result, deadline, a.pid)
    qmp = Qmp(a.qmp, deadline, a.pid)
    qmp.cmd("stop")
    tmp = a.state + ".tmp"
    # The rename runs in the exec child once cat has written everything.
    qmp.cmd("migrate", uri="exec:cat > %s && mv %s %s"
            % (shlex.quote(tmp), shlex.quote(tmp), shlex.quote(a.state)))
    while True:
        status = qmp.cmd("query-migrate").get("status")
        if status == "completed":
            break
        if status in ("failed", "cancelled"):
            fail(f"migration {status}")
        if time.time() > deadline:
            fail("migration did not complete in time")
        time.sleep(0.2)
    while not os.path.exists(a.state):
        if time.time() > deadline:
            fail(f"{a.state} not written")
        time.sleep(0.2)
    try:
        qmp.cmd("quit")
    except SystemExit:
        pass    # QEMU may close the socket before it answers


def resume(a, deadline):
    qmp = Qmp(a.qmp, deadline, a.pid)
    while True:
        status = qmp.cmd("query-status").get("status")
        if status == "paused" or status == "postmigrate":
            break
        if status == "running":
            fail("restored guest runs before its go line was written")
        if status not in ("inmigrate", "prelaunch"):
            fail(f"restored guest is in state '{status}'")
        if time.time() > deadline:
            fail("incoming migration did not end in time")
        time.sleep(0.05)
    with open(a.go_file, "r+b") as f:
        f.write(a.go_line.encode() + b"\n\0")
    qmp.cmd("cont")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("save", "resume"))
    ap.add_argument("--qmp", required=True)
    ap.add_argument("--result")
    ap.add_argument("--state")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--pid", type=int, default=0)
    ap.add_argument("--go-file")
    ap.add_argument("--go-line")
    a = ap.parse_args()
    deadline = time.time() + a.timeout
    if a.mode == "save":
        if not a.result or not a.state:
            fail("save needs --result and --state")
        save(a, deadline)
    else:
        if not a.go_file or not a.go_line:
            fail("resume needs --go-file and --go-line")
        resume(a, deadline)


if __name__ == "__main__":
    main()
