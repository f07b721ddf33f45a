#!/usr/bin/env python3
"""Runs the inspector's shell recipe, as docs/inspector.md writes it ("JSON endpoints"), against a running
inspector: InspectorDemo's, a process running requests.

    scripts/inspector_recipe_check.py [--demo .build/debug/InspectorDemo]

The recipe's first line (URL='…', "what start() printed") gets the demo's URL; every other line runs as
written, in bash with pipefail, after the lines that set variables, in a temporary folder. Each must exit 0
and print something (the HAR line: write a HAR file). The event stream's line never ends by itself: its curl
gets `--max-time 5`, and curl's timeout (exit 28) is its expected end. Needs curl and jq. Exits non-zero,
naming the failed line, on the first failure. Standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    raise SystemExit(1)


def recipe(path):
    """The commands of the first sh block under "## JSON endpoints", continuation lines joined."""
    text = open(path, encoding="utf-8").read()
    section = text[text.index("## JSON endpoints"):]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    if not block:
        fail(f"{path}: no sh block under JSON endpoints")
    commands, current = [], ""
    for line in block.group(1).splitlines():
        current += line[:-1] + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            commands.append(current.strip())
            current = ""
    return commands


def wait_for_history(base, token):
    """Until the demo has ended a run and failed one (the recipe reads both)."""
    deadline = time.time() + 60
    while time.time() < deadline:
        request = urllib.request.Request(f"{base}/api/history?limit=1000", headers={"X-Inspector-Token": token})
        records = [h["record"] for h in json.load(urllib.request.urlopen(request, timeout=10))]
        if any(r["outcome"] == "failed" for r in records):
            return
        time.sleep(0.2)
    fail("the demo ended no failed run within 60 s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", default=".build/debug/InspectorDemo")
    parser.add_argument("--doc", default="docs/inspector.md")
    options = parser.parse_args()
    commands = recipe(options.doc)
    if not commands or not commands[0].startswith("URL="):
        fail(f"the recipe's first line does not set URL: {commands[:1]}")
    if not os.path.exists(options.demo):
        fail(f"{options.demo} is missing: run swift build first")
    demo = subprocess.Popen([options.demo], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    try:
        url = demo.stdout.readline().strip()
        found = re.fullmatch(r"(http://127\.0\.0\.1:\d+)/\?token=(\S+)", url)
        if not found:
            fail(f"the demo printed no inspector URL: {url!r}")
        wait_for_history(found.group(1), found.group(2))
        setup = [f"URL='{url}'"]
        for command in commands[1:]:
            if re.fullmatch(r"[A-Z_]+=\S+(; [A-Z_]+=\S+)*(\s+#.*)?", command):
                setup.append(command)
        shown = subprocess.run(["bash", "-c", "\n".join(setup) + '\necho "$BASE $TOKEN"'],
                               capture_output=True, text=True).stdout.split()
        if shown != [found.group(1), found.group(2)]:
            fail(f"the recipe's variables are {shown}, not the inspector's address and token")
        print(f"ok: BASE and TOKEN are {shown[0]} and the token")
        with tempfile.TemporaryDirectory(prefix="inspector-recipe-") as folder:
            for command in commands[1:]:
                if command in setup:
                    continue
                run(command, setup, folder)
    finally:
        demo.kill()
        demo.wait()
    print("PASS: the inspector's shell recipe against a running inspector")


def run(command, setup, folder):
    streaming = "/api/events" in command
    script = command.replace("curl -sN ", "curl -sN --max-time 5 ") if streaming else command
    result = subprocess.run(["bash", "-c", "\n".join(["set -euo pipefail", *setup, script])],
                            capture_output=True, text=True, cwd=folder, timeout=60)
    expected = (0, 28) if streaming else (0,)
    if result.returncode not in expected:
        fail(f"exit {result.returncode}: {command}\n{result.stderr[-2000:]}")
    if " -o " in command:
        written = re.search(r" -o (\S+)", command).group(1)
        document = json.load(open(os.path.join(folder, written)))
        if "log" not in document:
            fail(f"{written} is not a HAR document: {command}")
    elif not result.stdout.strip() or result.stdout.strip() == "null":
        fail(f"printed nothing: {command}\n{result.stderr[-2000:]}")
    first = (result.stdout.strip().splitlines() or ["(a file)"])[0]
    print(f"ok: {command[:90]}{'…' if len(command) > 90 else ''}\n    {first[:120]}")


if __name__ == "__main__":
    main()
