"""The built-in page in headless Chromium (Debian's chromium, chromium-driver,
python3-selenium) on a fleet of three emulated Kobukis that botwire view
drives in one world:
- a screenshot shows the three robots in the room (its pixels: each robot's
  colour where the page says it drew it, inside the room's walls);
- ArrowUp held for one second moves the selected robot forward 0.1-0.3 m by
  its emulator's true pose, and only that robot;
- closing the page while the key is held stops the robot (the server's stop
  when the client that drove goes, not the page's own).
usage: page_check.py BOTWIRE [SCREENSHOT]   (prints ok:/FAIL: lines)
Waits are for a condition, polled, with a deadline only as a guard.
"""
import math
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

failures = 0


def ok(msg):
    print(f"ok: {msg}", flush=True)


def fail(msg):
    global failures
    print(f"FAIL: {msg}", flush=True)
    failures += 1


def png_pixels(data):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    pos, width, height, ctype, idat = 8, 0, 0, 0, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    bpp = 4 if ctype == 6 else 3
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def near(c, want, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(c, want))


def main():
    bw = sys.argv[1]
    shot_to = sys.argv[2] if len(sys.argv) > 2 else None
    tmp = tempfile.mkdtemp()
    starts = [(1.0, 1.0), (1.0, 1.7), (1.0, 2.4)]
    urls = [f"sim:kobuki?fleet=room&start={x},{y},0" for x, y in starts]
    view = subprocess.Popen([bw, "view", *urls, "--listen", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    driver = None
    try:
        line = view.stdout.readline().strip()
        if not line.startswith("botwire view: serving http://127.0.0.1:"):
            fail(f"the view did not announce itself: {line} {view.stderr.read()}")
            return
        ok(line)
        url = line.split("serving ")[1].split(" ")[0]
        opts = Options()
        opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=1280,800", "--force-device-scale-factor=1",
                  f"--user-data-dir={tmp}/profile"):
            opts.add_argument(a)
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or
                                                  "/usr/bin/chromedriver"), options=opts)
        driver.get(url)
        js = driver.execute_script
        guard = WebDriverWait(driver, 20, poll_frequency=0.05)
        guard.until(lambda d: js("return window.botwire && botwire.drawn === 3 && "
                                 "botwire.world !== null && botwire.publish"))
        ok("the page drew 3 robots and the world; it may command")

        # The screenshot's pixels: each robot's colour where it is drawn,
        # within the room's walls, and the walls' colour on its outline.
        spots = js("""
            const out = [];
            for (const n of botwire.order) {
              const r = botwire.robots[n], p = r.state.truth;
              const rad = r.state.radius * view.s;
              out.push({name: n, color: r.color, x: X(p.x) - rad / 2, y: Y(p.y) + rad / 2});
            }
            const e = botwire.world.extent;
            return {robots: out, room: [X(e[0]), Y(e[3]), X(e[2]), Y(e[1])],
                    wall: [X(e[0]), Y((e[1] + e[3]) / 2)]};""")
        png = driver.get_screenshot_as_png()
        with open(f"{tmp}/page.png", "wb") as f:
            f.write(png)
        if shot_to:
            shutil.copy(f"{tmp}/page.png", shot_to)
        w, h, px = png_pixels(png)
        bg = (0xf4, 0xf4, 0xf0)
        x0, y0, x1, y1 = spots["room"]
        seen = 0
        for r in spots["robots"]:
            want = tuple(int(r["color"][i:i + 2], 16) for i in (1, 3, 5))
            # drawn at alpha 0xdd over the background
            blend = tuple(round(a * 0xdd / 255 + b * (1 - 0xdd / 255)) for a, b in zip(want, bg))
            x, y = int(round(r["x"])), int(round(r["y"]))
            got = px[y][x] if 0 <= x < w and 0 <= y < h else None
            inside = x0 < x < x1 and y0 < y < y1
            if got and near(got, blend) and inside:
                seen += 1
            else:
                fail(f"{r['name']}: pixel {got} at ({x}, {y}), wanted {blend} inside {spots['room']}")
        wx, wy = (int(round(v)) for v in spots["wall"])
        wall = px[wy][wx]
        if near(wall, (0x37, 0x47, 0x4f)):
            ok(f"the room's wall is drawn (pixel {wall} at ({wx}, {wy}))")
        else:
            fail(f"no wall at ({wx}, {wy}): pixel {wall}")
        if seen == 3:
            ok(f"the screenshot ({w}x{h}) shows the 3 robots in the room")

        def truth(name):
            return js(f"return botwire.robots['{name}'].state.truth")

        def speed(name):
            return js(f"return botwire.robots['{name}'].state.v")

        def settled(name):
            # still: the driver measures no motion, and the true pose
            # agrees with the one before
            t = truth(name)
            settled.prev, was = t, settled.prev
            return abs(speed(name)) < 1e-3 and was is not None and \
                math.hypot(t["x"] - was["x"], t["y"] - was["y"]) < 1e-4
        settled.prev = None

        driver.find_element(By.CSS_SELECTOR, "[data-robot='robot2'] .name").click()
        guard.until(lambda d: js("return botwire.selected") == "robot2")
        before = {n: truth(n) for n in ("robot1", "robot2", "robot3")}
        ActionChains(driver).key_down(Keys.ARROW_UP).pause(1.0).key_up(Keys.ARROW_UP).perform()
        guard.until(lambda d: settled("robot2"))
        after = {n: truth(n) for n in ("robot1", "robot2", "robot3")}
        p0, p1 = before["robot2"], after["robot2"]
        fwd = (p1["x"] - p0["x"]) * math.cos(p0["theta"]) + (p1["y"] - p0["y"]) * math.sin(p0["theta"])
        side = -(p1["x"] - p0["x"]) * math.sin(p0["theta"]) + (p1["y"] - p0["y"]) * math.cos(p0["theta"])
        if 0.1 <= fwd <= 0.3 and abs(side) < 0.02:
            ok(f"ArrowUp for 1 s: robot2's true pose went {fwd:.3f} m forward ({side:+.3f} m aside), "
               f"and stopped on release")
        else:
            fail(f"ArrowUp for 1 s: robot2 went {fwd:.3f} m forward, {side:+.3f} m aside")
        for n in ("robot1", "robot3"):
            d = math.hypot(after[n]["x"] - before[n]["x"], after[n]["y"] - before[n]["y"])
            if d < 1e-3:
                ok(f"{n} did not move ({d:.4f} m)")
            else:
                fail(f"{n} moved {d:.3f} m")

        # Closing the page while the key is held: the server stops the robot
        # the page drove (the page's own stop on hiding is turned off, so it
        # is the server's). An observer page watches.
        driving = driver.current_window_handle
        driver.switch_to.new_window("tab")
        driver.get(url)
        guard.until(lambda d: js("return window.botwire && botwire.drawn === 3"))
        observer = driver.current_window_handle
        driver.switch_to.window(driving)
        js("botwire.stopOnHide = false")
        ActionChains(driver).key_down(Keys.ARROW_UP).perform()
        guard.until(lambda d: speed("robot2") > 0.05)
        sent = js("return botwire.commandsSent")
        at_close = truth("robot2")
        driver.close()
        driver.switch_to.window(observer)
        settled.prev = None
        guard.until(lambda d: settled("robot2"))
        stop = truth("robot2")
        run_on = math.hypot(stop["x"] - at_close["x"], stop["y"] - at_close["y"])
        # Within the driver's own timeout: at 0.2 m/s the base's 0.5 s
        # command timeout and its deceleration allow 0.14 m; the server
        # stops it sooner, when the page's connection goes, and says so.
        said = js("return document.getElementById('log').textContent")
        # The hint for Foxglove clients (advertise /ROBOT/cmd_vel) is not
        # the page's: it drives with its keys (it was in its Events box).
        if "advertising" in said:
            fail(f"the page shows the Foxglove clients' hint: {said!r}")
        else:
            ok("no hint meant for Foxglove clients in the page's events")
        if "robot2: stopped: the client driving it went away" in said:
            ok("the view stopped robot2 when the page that drove it went away")
        else:
            fail(f"no stop when the page went away in the observer's log: {said!r}")
        if run_on < 0.14:
            ok(f"page closed with the key held ({sent} commands sent): robot2 stopped "
               f"{run_on:.3f} m on")
        else:
            fail(f"page closed with the key held: robot2 went on {run_on:.3f} m")
    except Exception as e:  # a guard that ran out, a page that broke
        fail(f"{type(e).__name__}: {e}")
    finally:
        if driver:
            driver.quit()
        view.send_signal(2)
        out, err = view.communicate(timeout=30)
        for line in err.splitlines():
            print("  " + line)
        shutil.rmtree(tmp, ignore_errors=True)


main()
if failures:
    print(f"{failures} failure(s)")
    sys.exit(1)
print("all page checks passed")
