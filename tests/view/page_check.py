"""The built-in page in headless Chromium (Debian's chromium, chromium-driver,
python3-selenium) on a fleet of three emulated Kobukis that botwire view
drives in one world:
- a screenshot shows the three robots in the room (its pixels: each robot's
  colour where the page says it drew it, inside the room's walls);
- ArrowUp held moves the selected robot straight forward by its emulator's
  true pose, at the page's speed by its driver's measure, and only that
  robot; released, the page's zero reaches the view and the robot stops;
- closing the page while the key is held stops the robot (the server's stop
  when the client that drove goes, not the page's own);
- the chosen robot has a blue ring outside its outline (not the orange of
  a cliff); the map says why it is empty once the view has gone;
- a robot on a pty whose emulator ends is drawn OFFLINE, in red, on the
  map (its link lost: the base's own word, online false).
usage: page_check.py BOTWIRE [SCREENSHOT]   (prints ok:/FAIL: lines)
Waits are for a condition, polled, with a deadline only as a guard against
a hang (GUARD s: no working build on a loaded machine comes near it).
Nothing is judged by how long a key was held: a loaded machine delivers
the key's events, the page's commands and the view's messages late, and
the robot drives as long as they say.
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
GUARD = 30


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


def chromium(tmp):
    """Headless Chromium, 1280x800 at one pixel a pixel, its profile in tmp."""
    opts = Options()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1280,800", "--force-device-scale-factor=1",
              f"--user-data-dir={tmp}/profile"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or
                                            "/usr/bin/chromedriver"), options=opts)


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
        driver = chromium(tmp)
        driver.get(url)
        js = driver.execute_script
        guard = WebDriverWait(driver, GUARD, poll_frequency=0.05)
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
        # The chosen robot (the first): its ring, 5 px outside its outline,
        # in the selection's blue on the screenshot, to its right.
        sel = js("""const r = botwire.robots[botwire.selected], p = r.state.truth;
                    const rad = Math.max(r.state.radius * view.s, 4);
                    return {name: r.name, x: X(p.x) + rad + 5, y: Y(p.y), waiting: botwire.waiting};""")
        rx, ry = int(round(sel["x"])), int(round(sel["y"]))
        ring = [px[ry][x] for x in range(rx - 1, rx + 2)]
        if any(near(c, (0x15, 0x65, 0xc0)) for c in ring) and sel["waiting"] == "":
            ok(f"{sel['name']}, the chosen one, has its blue ring (pixels {ring} at x {rx - 1}..{rx + 1})")
        else:
            fail(f"{sel['name']}'s ring: pixels {ring} at ({rx}, {ry}), the map says {sel['waiting']!r}")
        # Every dock of the world drawn where it stands, in its green.
        docks = js("return botwire.world.docks.map(d => [X(d.x), Y(d.y)])")
        for dx, dy in docks:
            got = px[int(round(dy))][int(round(dx))]
            if near(got, (0x2e, 0x7d, 0x32)):
                ok(f"a dock is drawn at ({dx:.0f}, {dy:.0f})")
            else:
                fail(f"no dock at ({dx:.0f}, {dy:.0f}): pixel {got}")
        if not docks:
            fail("the world sent no docks (the built-in room has one)")

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

        def zero_since(name, since):
            """The robot's state once the view says its command is zero,
            set at or after `since` (this machine's clock, as the view's
            stamps): the state's stamp less the command's age. None
            before."""
            st = js(f"return botwire.robots['{name}'].state")
            c = st.get("command") or {}
            if c.get("v") != 0 or c.get("age") is None:
                return None
            stamp = st["timestamp"]["sec"] + st["timestamp"]["nsec"] / 1e9
            return st if stamp - c["age"] >= since - 1e-3 else None

        driver.find_element(By.CSS_SELECTOR, "[data-robot='robot2'] .name").click()
        guard.until(lambda d: js("return botwire.selected") == "robot2")
        want_v = js("return speed()")
        before = {n: truth(n) for n in ("robot1", "robot2", "robot3")}
        p0 = before["robot2"]

        def ahead(p):
            return (p["x"] - p0["x"]) * math.cos(p0["theta"]) + (p["y"] - p0["y"]) * math.sin(p0["theta"])

        # Held until the robot is truly 0.1 m ahead. Meanwhile the page
        # keeps, of every robot2 state it receives, the largest speed its
        # driver measured and the largest command the view holds (kept as
        # the page gets them, not as this script polls: a loaded machine
        # polls seldom).
        js("""botwire.top = { v: 0, command: 0 };
              const data0 = window.data;
              window.data = (ch, m) => {
                data0(ch, m);
                if (ch.topic !== "/robot2/state") return;
                botwire.top.v = Math.max(botwire.top.v, m.v || 0);
                botwire.top.command = Math.max(botwire.top.command, (m.command || {}).v || 0);
              };""")
        ActionChains(driver).key_down(Keys.ARROW_UP).perform()
        guard.until(lambda d: ahead(truth("robot2")) >= 0.1)
        top = js("return botwire.top")
        released = time.time()
        ActionChains(driver).key_up(Keys.ARROW_UP).perform()
        guard.until(lambda d: zero_since("robot2", released))
        guard.until(lambda d: settled("robot2"))
        after = {n: truth(n) for n in ("robot1", "robot2", "robot3")}
        p1 = after["robot2"]
        fwd = ahead(p1)
        side = -(p1["x"] - p0["x"]) * math.sin(p0["theta"]) + (p1["y"] - p0["y"]) * math.cos(p0["theta"])
        # Straight: a noiseless emulated Kobuki driven at no turn rate goes
        # nowhere aside. The command the view got is the page's speed, to
        # the digit; the speed the driver measured, within 10% of it (its
        # odometry's speed, a frame's encoder counts apart): the robot gets
        # to it, as the view holds each command half a second and the
        # emulator's 1 m/s^2 takes 0.2 s to reach it, however late the
        # page's commands come. A command scaled wrong (cm for m, the cap
        # for the speed) is off by far more.
        if abs(side) < 0.02 and abs(top["command"] - want_v) < 1e-9 and \
                abs(top["v"] - want_v) <= 0.1 * want_v:
            ok(f"ArrowUp: robot2 went {fwd:.3f} m forward ({side:+.3f} m aside) at up to "
               f"{top['v']:.3f} m/s, commanded {top['command']} m/s (the page's {want_v} m/s); "
               f"on release the view's command was zero and it stopped")
        else:
            fail(f"ArrowUp: robot2 went {fwd:.3f} m forward, {side:+.3f} m aside, at up to "
                 f"{top['v']:.3f} m/s, commanded {top['command']} m/s (the page's {want_v} m/s)")
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
        closed = time.time()
        driver.close()
        driver.switch_to.window(observer)
        # The view's stop, as the observer sees it: the first state that
        # says robot2's command went to zero after the page closed. From
        # the true pose it gives, the robot only brakes: 0.02 m from 0.2
        # m/s at the emulator's 1 m/s^2, and 0.05 m more for the view held
        # back a quarter second before the robot hears it. A stop that did
        # not reach the robot leaves it on the page's last command until
        # the view's own 0.5 s hold runs out: 0.1 m and more.
        at_stop = guard.until(lambda d: zero_since("robot2", closed))["truth"]
        settled.prev = None
        guard.until(lambda d: settled("robot2"))
        stop = truth("robot2")
        run_on = math.hypot(stop["x"] - at_stop["x"], stop["y"] - at_stop["y"])
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
        if run_on < 0.07:
            ok(f"page closed with the key held ({sent} commands sent): robot2 stopped "
               f"{run_on:.3f} m after the view's stop")
        else:
            fail(f"page closed with the key held: robot2 went on {run_on:.3f} m after the view's stop")

        # The view ends: the page says so on its map, in red, not a map
        # that looks as if the robots stood still.
        view.send_signal(2)
        view.wait(timeout=GUARD)
        said = guard.until(lambda d: js("return botwire.waiting.startsWith('connection lost') && "
                                        "botwire.waiting"))
        w, h, px = png_pixels(driver.get_screenshot_as_png())
        red = sum(1 for y in range(h // 2 - 8, h // 2 + 8) for c in px[y] if near(c, (0xbb, 0, 0), 60))
        if red > 20:
            ok(f"the view gone, the map says {said!r} ({red} red pixels across its middle)")
        else:
            fail(f"the view gone, the map says {said!r} but shows {red} red pixels across its middle")
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


def offline_check(bw):
    """botwire view on a Kobuki served by `botwire sim --pty`; the emulator
    ends; the page draws the robot OFFLINE (its label, in red pixels)."""
    tmp = tempfile.mkdtemp()
    link = f"{tmp}/kobuki"
    sim = subprocess.Popen([bw, "sim", "kobuki", "--pty", link, "--for", "120"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    view = driver = None
    try:
        if not sim.stdout.readline().startswith("botwire sim: kobuki on "):
            fail("offline: the emulator did not start")
            return
        view = subprocess.Popen([bw, "view", f"kobuki:{link}", "--listen", "127.0.0.1:0"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = view.stdout.readline().strip()
        if not line.startswith("botwire view: serving http://127.0.0.1:"):
            fail(f"offline: the view did not announce itself: {line} {view.stderr.read()}")
            return
        driver = chromium(tmp)
        driver.get(line.split("serving ")[1].split(" ")[0])
        js = driver.execute_script
        guard = WebDriverWait(driver, GUARD, poll_frequency=0.05)
        guard.until(lambda d: js("return window.botwire && botwire.drawn === 1 && "
                                 "botwire.robots.robot1.label === 'robot1'"))
        sim.send_signal(2)
        sim.wait(timeout=GUARD)
        guard.until(lambda d: js("const r = botwire.robots.robot1; return r.state.online === false "
                                 "&& r.label === 'robot1 OFFLINE'"))
        at = js("return botwire.robots.robot1.labelAt")
        w, h, px = png_pixels(driver.get_screenshot_as_png())
        x0, y0 = int(at[0]), int(at[1])
        red = sum(1 for y in range(max(0, y0 - 7), min(h, y0 + 7))
                  for x in range(max(0, x0), min(w, x0 + 160)) if near(px[y][x], (0xbb, 0, 0), 60))
        if red > 20:
            ok(f"its emulator gone, robot1 is drawn 'robot1 OFFLINE' ({red} red pixels at its label)")
        else:
            fail(f"its emulator gone, robot1's label shows {red} red pixels at ({x0}, {y0})")
    except Exception as e:  # a guard that ran out, a page that broke
        fail(f"offline: {type(e).__name__}: {e}")
    finally:
        if driver:
            driver.quit()
        for p in (view, sim):
            if p and p.poll() is None:
                p.send_signal(2)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


main()
offline_check(sys.argv[1])
if failures:
    print(f"{failures} failure(s)")
    sys.exit(1)
print("all page checks passed")
