"""Drives headless Chromium through selenium for notebooks/browser_test.go.

    browser.py [options] notebook URL...   runs each notebook through the UI
    browser.py [options] page URL...       only measures the charts of a page

For each URL it prints one JSON line to stdout with the facts the Go test
judges (the judging is in Go, where it is unit-tested):

  url, seconds     the URL and the time it took
  error            why the page could not be driven (a timeout, a dialog)
  charts           per go-echarts chart div: its size, whether echarts drew
                   into it (a canvas or svg of non-zero size), and the
                   bounding rectangles of the chart and of its output area
  console          the page's console errors (SEVERE)
  requests         every URL the page asked for: Chrome's performance log
                   (CDP Network.requestWillBeSent, webSocketCreated) and the
                   page's own resource timing entries
  notebook         (notebook mode) where the notebook as the browser holds
                   it after the run (Jupyter.notebook.toJSON()) was written
  screenshots      the PNG files written under --out

A notebook is run as a student runs it in Jupyter Notebook 6: open its page,
wait for the kernel, click Cell > Run All, wait until no cell shows In [*].
Chromium resolves no host but 127.0.0.1 (--host-resolver-rules), so a
request to another host fails at once but is still logged.
"""

import argparse
import json
import os
import sys
import time
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

# The facts about every chart in the page: go-echarts charts sit in
# <div class="bpinn-chart"><div id=...></div></div> (pkg/viz chartHTML). The
# output area is the closest notebook output element (Notebook 6 or
# JupyterLab), else the chart's parent's parent (a plain page).
MEASURE_CHARTS = """
const rect = (el) => {
  const r = el.getBoundingClientRect();
  return {left: r.left, right: r.right, width: r.width, height: r.height};
};
return Array.from(document.querySelectorAll('.bpinn-chart > div')).map((el) => {
  const area = el.closest('.output_subarea, .jp-OutputArea-output') ||
      el.parentElement.parentElement;
  // What echarts drew: its canvases (or svg), which may be wider than the
  // div when a flex container shrank the div.
  let drawn = 0, drawing = null;
  for (const c of el.querySelectorAll('canvas, svg')) {
    const r = rect(c);
    if (r.width <= 0 || r.height <= 0) continue;
    drawn++;
    drawing = drawing ? {
      left: Math.min(drawing.left, r.left), right: Math.max(drawing.right, r.right),
      height: Math.max(drawing.height, r.height)} : r;
  }
  if (drawing) drawing.width = drawing.right - drawing.left;
  // The width the chart was made for (pkg/viz sets it in px on the div; a
  // flex row may shrink the div below it), and how far right its panels
  // reach (grids placed in px, as pkg/viz places them).
  const declared = /^[0-9.]+px$/.test(el.style.width) ? parseFloat(el.style.width) : 0;
  let gridRight = 0;
  const inst = window.echarts && echarts.getInstanceByDom(el);
  if (inst) {
    for (const g of (inst.getOption().grid || [])) {
      const l = String(g.left), w = String(g.width);
      if (/^[0-9.]+(px)?$/.test(l) && /^[0-9.]+(px)?$/.test(w)) {
        gridRight = Math.max(gridRight, parseFloat(l) + parseFloat(w));
      }
    }
  }
  return {
    declared: declared,
    grid_right: gridRight,
    echarts_width: inst ? inst.getWidth() : 0,
    id: el.id,
    instance: el.hasAttribute('_echarts_instance_'),
    drawn: drawn,
    text: el.innerText.slice(0, 200),
    chart: rect(el),
    drawing: drawing,
    area: rect(area),
  };
});
"""

# Whether every chart has either drawn or given up (pkg/viz writes why into
# the div after 10 s without echarts).
CHARTS_SETTLED = """
return Array.from(document.querySelectorAll('.bpinn-chart > div')).every(
  (el) => el.hasAttribute('_echarts_instance_') || el.innerText.trim() !== '');
"""

RESOURCES = "return performance.getEntriesByType('resource').map((e) => e.name);"

# Notebook 6: the page's state while it runs.
NB_STATE = """
const nb = window.Jupyter && Jupyter.notebook;
if (!nb || !nb._fully_loaded) return {loaded: false};
const k = nb.kernel;
const prompts = nb.get_cells().filter((c) => c.cell_type === 'code')
  .map((c) => String(c.input_prompt_number));
const modal = Array.from(document.querySelectorAll('.modal.in .modal-body'))
  .map((m) => m.innerText.trim()).join(' | ');
return {
  loaded: true,
  kernel: !!(k && k.is_connected()),
  busy: !!(k && nb.kernel_busy),
  running: prompts.filter((p) => p === '*').length,
  unrun: prompts.filter((p) => p === 'undefined' || p === 'null').length,
  cells: prompts.length,
  modal: modal,
};
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--chromedriver", required=True)
    ap.add_argument("--out", required=True, help="directory for screenshots and notebooks")
    ap.add_argument("--size", default="1366x1200", help="window size in CSS pixels")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per notebook run")
    ap.add_argument("mode", choices=["notebook", "page"])
    ap.add_argument("urls", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    driver = start(args)
    try:
        for url in args.urls:
            start_time = time.monotonic()
            res = {"url": url}
            try:
                visit(driver, args, url, res)
            except Exception as e:  # report, and go on with the next URL
                res["error"] = f"{type(e).__name__}: {e}".strip()
                shot(driver, args.out, name_of(url) + "-error", res)
            res["requests"] = requests(driver, res.get("requests", []))
            res["console"] = console_errors(driver)
            res["seconds"] = round(time.monotonic() - start_time, 1)
            print(json.dumps(res), flush=True)
    finally:
        driver.quit()


def start(args):
    w, h = (int(v) for v in args.size.split("x"))
    opts = webdriver.ChromeOptions()
    opts.binary_location = args.chromium
    for a in [
        "--headless=new",
        f"--window-size={w},{h}",
        "--no-sandbox",  # as root in a container there is no user namespace
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-default-apps",
        "--disable-sync",
        "--disable-extensions",
        "--hide-scrollbars",
        # No DNS for anything but the loopback server: a foreign request
        # fails at once (and is logged) instead of leaving the machine.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ]:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=args.chromedriver), options=opts)
    driver.set_page_load_timeout(60)
    return driver


def name_of(url):
    base = os.path.basename(urlsplit(url).path) or "page"
    return base.removesuffix(".ipynb").removesuffix(".html")


def visit(driver, args, url, res):
    name = name_of(url)
    driver.get(url)
    if args.mode == "notebook":
        run_notebook(driver, args, res)
    wait(lambda: driver.execute_script(CHARTS_SETTLED), 15, "the charts to draw or give up")
    res["charts"] = driver.execute_script(MEASURE_CHARTS)
    if args.mode == "notebook":
        path = os.path.join(args.out, name + ".ipynb")
        with open(path, "w") as f:
            json.dump(driver.execute_script("return Jupyter.notebook.toJSON();"), f, indent=1)
        res["notebook"] = path
    screenshots(driver, args.out, name, res)


def wait(cond, seconds, what):
    deadline = time.monotonic() + seconds
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {seconds:.0f} s for {what}")
        time.sleep(0.25)


def run_notebook(driver, args, res):
    state = lambda: driver.execute_script(NB_STATE)

    def ready():
        s = state()
        if s.get("modal"):
            raise RuntimeError(f"Jupyter shows a dialog: {s['modal']}")
        return s.get("loaded") and s.get("kernel") and not s.get("busy")

    wait(ready, 60, "the notebook page and its kernel")
    # Cell > Run All, with the mouse.
    driver.find_element(By.ID, "celllink").click()
    driver.find_element(By.ID, "run_all_cells").click()

    def done():
        s = state()
        if s.get("modal"):
            raise RuntimeError(f"Jupyter shows a dialog: {s['modal']}")
        if not s.get("kernel"):
            raise RuntimeError("the kernel disconnected (died?)")
        return s["running"] == 0 and not s["busy"] and s
    s = wait(done, args.timeout, "Run All to finish (a cell still shows In [*])")
    res["cells"], res["unrun"] = s["cells"], s["unrun"]


def screenshots(driver, out, name, res):
    """The notebook scrolled a window height at a time (Notebook 6 scrolls
    #site, a plain page the window), then each chart on its own."""
    scroller = "document.getElementById('site') || document.scrollingElement"
    height = driver.execute_script(f"return ({scroller}).scrollHeight;")
    view = driver.execute_script(f"return ({scroller}).clientHeight;")
    step = max(view - 60, 100)
    top, i = 0, 0
    while True:
        driver.execute_script(f"({scroller}).scrollTop = arguments[0];", top)
        time.sleep(0.1)
        shot(driver, out, f"{name}-{i:02d}", res)
        if top + view >= height or i >= 60:
            break
        top, i = top + step, i + 1
    for j, el in enumerate(driver.find_elements(By.CSS_SELECTOR, ".bpinn-chart > div")):
        path = os.path.join(out, f"{name}-chart{j:02d}.png")
        driver.execute_script("arguments[0].scrollIntoView();", el)
        try:
            el.screenshot(path)
            res.setdefault("screenshots", []).append(path)
        except WebDriverException as e:  # a zero-size chart has no screenshot
            res.setdefault("screenshot_errors", []).append(f"{path}: {e.msg}")


def shot(driver, out, name, res):
    path = os.path.join(out, name + ".png")
    try:
        driver.save_screenshot(path)
        res.setdefault("screenshots", []).append(path)
    except WebDriverException as e:
        res.setdefault("screenshot_errors", []).append(f"{path}: {e.msg}")


def console_errors(driver):
    """The page's console messages of level SEVERE (uncaught exceptions,
    failed loads) since the last call."""
    try:
        return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    except WebDriverException as e:
        return [f"reading the console: {e.msg}"]


def requests(driver, seen):
    """Every URL requested since the last call, from the performance log,
    and those of the page's resource timing entries."""
    urls = list(seen)
    try:
        for entry in driver.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            p = msg.get("params", {})
            if msg.get("method") == "Network.requestWillBeSent":
                urls.append(p["request"]["url"])
            elif msg.get("method") == "Network.webSocketCreated":
                urls.append(p["url"])
        urls += driver.execute_script(RESOURCES)
    except WebDriverException as e:
        urls.append(f"error: reading the requests: {e.msg}")
    # data: URLs carry whole images; their scheme is all that matters.
    return sorted({u[:40] + "..." if u.startswith("data:") else u for u in urls})


if __name__ == "__main__":
    sys.exit(main())
