"""Headless Chromium for the viewer's tests: Debian's `chromium` and `chromium-driver`,
installed here when missing and this process may (root with apt-get, as on CI's fresh
machine), driven through selenium. Without them the tests skip and say why."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

PACKAGES = ("chromium", "chromium-driver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1000", "--hide-scrollbars")


def _binaries() -> tuple[str | None, str | None]:
    return shutil.which("chromium"), shutil.which("chromedriver")


def _apt_install() -> str | None:
    """Install the packages; None when done, else why not."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return "chromium and chromedriver are not installed and apt-get cannot be run as root here"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    # One installer at a time on this machine (parallel test processes, other checkouts).
    with open("/tmp/harness-chromium-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if all(_binaries()):
            return None
        for attempt in ("install", "update-then-install"):
            if attempt == "update-then-install":
                subprocess.run(["apt-get", "update"], env=env, capture_output=True, timeout=600)
            done = subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", *PACKAGES],
                                  env=env, capture_output=True, text=True, timeout=900)
            if done.returncode == 0 and all(_binaries()):
                return None
    tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
    return f"apt-get install {' '.join(PACKAGES)} failed: {tail[0]}"


@pytest.fixture(scope="session")
def chromium() -> tuple[str, str]:
    """The chromium and chromedriver executables, installed if need be."""
    if not all(_binaries()):
        why = _apt_install()
        if why is not None:
            pytest.skip(why)
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[dev]')")
    return _binaries()


@pytest.fixture
def browser(chromium, tmp_path):
    """A fresh headless Chromium with its own profile folder; quit after the test."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = chromium
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def screenshot(driver, path: Path) -> Path:
    """The whole page, not only the window."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, min(max(int(height), 600), 8000))
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 1000
    return path


def follow(driver, element, timeout: float = 30.0) -> None:
    """Click a link or a submit button and wait until the next page has replaced this one:
    a click returns before the browser navigates, and a lookup made in between would read
    (or miss an element on) the old page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    old = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, timeout).until(expected_conditions.staleness_of(old))
