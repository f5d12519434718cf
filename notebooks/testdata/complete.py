"""Asks a GoNB kernel for a completion and for inline help, as Jupyter's Tab
and Shift-Tab do (complete_request, inspect_request), after running a setup
cell. Prints one JSON object: the complete_reply and inspect_reply contents
and the seconds until gopls answered. Run by notebooks_test.go's
TestKernelCompletion with Jupyter's own python (jupyter_client).

    python3 complete.py SETUP_CELL CODE
"""
import json
import os
import sys
import time

from jupyter_client.manager import start_new_kernel

setup, code = sys.argv[1], sys.argv[2]
km, kc = start_new_kernel(kernel_name="gonb", startup_timeout=120)
out = {}
try:
    reply = kc.execute_interactive(setup, timeout=300, output_hook=lambda msg: None)
    out["setup"] = reply["content"]["status"]
    t0 = time.time()
    # gopls loads the module's packages first: ask until it answers.
    while True:
        kc.complete(code, len(code))
        reply = kc.get_shell_msg(timeout=120)
        if reply["content"].get("matches") or time.time() - t0 > 180:
            break
        time.sleep(1)
    out["complete"] = reply["content"]
    out["seconds"] = round(time.time() - t0, 1)
    word = code + out["complete"]["matches"][0][len(code) - out["complete"]["cursor_start"]:] if out["complete"].get("matches") else code
    kc.inspect(word, len(word) - 1)
    out["inspect"] = kc.get_shell_msg(timeout=120)["content"]
finally:
    kc.stop_channels()
    # A shutdown request, not a kill: GoNB then stops the gopls it started
    # (in a process group of its own, so a killed kernel leaves it running;
    # the test ends whatever is left, see internal/reap).
    km.shutdown_kernel(now=False)
print(json.dumps(out))
sys.stdout.flush()
os._exit(0)  # skip jupyter_client's noisy finalizers
