"""A stand-in for scenes/studio/worker.py in the fast studio tests: the same event lines, no render.

It plays ``$FAKE_PLAYS`` animations ``$FAKE_DELAY`` seconds apart, then reports done; on SIGTERM it
reports cancelled and exits 143, as the real worker does; each run appends its topic and params to
``$FAKE_LOG`` with its pid (a test counts the children started). With ``--serve-frames`` it answers
frames requests, one a line, as the studio's kept frames child does; each frame comes
``$FAKE_FRAMES_DELAY`` seconds after the one before (0: at once).
"""

import json
import os
import signal
import sys
import time


def stop(signum, frame):
    print(json.dumps({"event": "cancelled", "error": "interrupted by SIGTERM; nothing was published"}), flush=True)
    sys.exit(143)


def logged(request):
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(json.dumps([request["topic"], request["params"], os.getpid()]) + "\n")
    return request


def frames():
    """The step-end frames: two, then done."""
    print(json.dumps({"event": "start", "total": None, "steps": 0}), flush=True)
    for i, step in enumerate(("first", "second")):
        time.sleep(float(os.environ.get("FAKE_FRAMES_DELAY", "0")))
        print(json.dumps({"event": "frame", "index": i, "step": step, "path": f".cache/frames/{i + 1:02d}_{step}.png"}),
              flush=True)
    print(json.dumps({"event": "done", "manifest": None, "files": [], "skipped": False, "seconds": 0}), flush=True)


signal.signal(signal.SIGTERM, stop)
if sys.argv[1:2] == ["--serve-frames"]:  # the kept frames child: one request a line
    for line in sys.stdin:
        logged(json.loads(line))
        frames()
    sys.exit(0)
request = logged(json.loads(sys.stdin.read()))
plays, delay = int(os.environ.get("FAKE_PLAYS", "4")), float(os.environ.get("FAKE_DELAY", "0.05"))
if request.get("mode") == "frames":
    frames()
    sys.exit(0)
print(json.dumps({"event": "start", "total": plays, "steps": 2}), flush=True)
for i in range(plays):
    time.sleep(delay)
    step = "first" if i < plays // 2 else "second"
    print(json.dumps({"event": "play", "index": i, "step": step, "cached": i % 2 == 0,
                      "progress": min((i + 1) / plays, 0.99)}), flush=True)
if os.environ.get("FAKE_FAIL"):
    print(json.dumps({"event": "failed", "error": os.environ["FAKE_FAIL"]}), flush=True)
    sys.exit(1)
print(json.dumps({"event": "done", "manifest": {"steps": []}, "files": ["residual/residual.mp4"],
                  "skipped": False, "seconds": 0.1}), flush=True)
