"""Makes docs/view.png, the README's picture of the live view: three emulated
robots in the built-in room (a Pioneer with its sonar, an iRobot Create,
a Kobuki; wheel slip on), each driven a little from the page with the arrow
keys so they have trails and the odometry has drifted from the truth.
usage: screenshot.py BOTWIRE OUT.png [URL...]   (not a test: run by hand; with
URLs, a picture of those robots as they are)
"""
import shutil
import subprocess
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

bw, out = sys.argv[1], sys.argv[2]
urls = sys.argv[3:] or ["sim:p2os?fleet=room&noise=3&start=1.0,1.0,0",
        "sim:create?fleet=room&noise=3&start=1.2,2.2,0",
        "sim:kobuki?fleet=room&noise=3&start=2.2,3.2,-30"]
view = subprocess.Popen([bw, "view", *urls, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE,
                        text=True)
url = view.stdout.readline().split("serving ")[1].split(" ")[0]
tmp = tempfile.mkdtemp()
opts = Options()
opts.binary_location = shutil.which("chromium")
for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,760",
          "--force-device-scale-factor=1", f"--user-data-dir={tmp}/p"):
    opts.add_argument(a)
d = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
try:
    d.get(url)
    WebDriverWait(d, 20).until(lambda d: d.execute_script(
        "return window.botwire && botwire.drawn === %d && botwire.publish" % len(urls)))
    for name, moves in () if len(urls) != 3 else (("robot1", [("up", 3.0), ("left", 1.2), ("up", 2.5)]),
                        ("robot2", [("up", 2.0), ("right", 0.8), ("up", 2.0)]),
                        ("robot3", [("up", 1.5), ("left", 0.6), ("up", 1.0)])):
        d.find_element(By.CSS_SELECTOR, f"[data-robot='{name}'] .name").click()
        a = ActionChains(d)
        for key, t in moves:
            k = {"up": Keys.ARROW_UP, "left": Keys.ARROW_LEFT, "right": Keys.ARROW_RIGHT}[key]
            a.key_down(k).pause(t).key_up(k)
        a.perform()
    d.find_element(By.CSS_SELECTOR, "[data-robot='robot1'] .name").click()
    WebDriverWait(d, 10).until(lambda d: d.execute_script(
        "return botwire.order.every(n => Math.abs(botwire.robots[n].state.v) < 1e-3)"))
    d.save_screenshot(out)
finally:
    d.quit()
    view.send_signal(2)
    view.wait()
    shutil.rmtree(tmp, ignore_errors=True)
