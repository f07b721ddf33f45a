#!/usr/bin/env python3
"""The mutation check: each file in Tests/Mutations/ breaks one promise of the library, and the tests its
filter names must then fail. A mutation that survives (its tests still pass) is a failure: a test whose
name claims that promise does not hold it.

    scripts/mutations.sh [--rotate COUNT] [--changed-since REV [--max N]] [--check] [--keep-going] [NAME ...]

Without arguments every mutation runs. NAME picks mutations by file name (without `.mutation`); `--rotate
COUNT` runs COUNT of them, spread over the sorted list from an offset taken from the commit's hash, so that
successive commits run different ones (CI). `--changed-since REV` adds every mutation whose `file:` changed
between REV and HEAD (all of `git log REV..HEAD`), so that a change cannot weaken the tests of what it
touched unseen; `--max N` (default 8) caps them, keeping those of the most recently changed files and
naming the rest. Alone (no NAME, no `--rotate`), `--changed-since` runs only those. `--check` only verifies
that every mutation still applies.

One scratch copy of the tree, in `.build/mutations/tree` (`MUTATIONS_SCRATCH` overrides), keeps its own
warm `.build`: the tree's files are copied over it when they differ, it is built once, then for each
mutation the script applies it, builds incrementally, runs the filter's tests with a time limit, and puts
the file back. Logs go to `.build/mutations/logs/`.

A mutation file:

    promise: what the library promises (one line)
    file: Sources/ConnectionKit/...swift
    filter: the `swift test --filter` regular expression whose tests must fail
    transport: libcurl            (optional: runs with CONNECTIONKIT_TEST_TRANSPORT=libcurl)
    timeout: 300                  (optional: seconds for the test run; default 300)
    @@ original
    the exact lines of the file, which must occur exactly once
    @@ mutated
    what they become
    @@ end

A file may hold several `@@ original` / `@@ mutated` / `@@ end` blocks (all in the same file). When the
original text no longer occurs exactly once, the script stops with "mutation X no longer applies": update
the mutation to the code as it is now, never delete it to make the check pass.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTATIONS = ROOT / "Tests" / "Mutations"
KNOWN_KEYS = {"promise", "file", "filter", "transport", "timeout"}


class MutationError(Exception):
    pass


@dataclass
class Mutation:
    name: str
    promise: str
    file: str
    filter: str
    transport: str | None
    timeout: int
    edits: list[tuple[str, str]] = field(default_factory=list)


def parse(path: Path) -> Mutation:
    name = path.stem
    keys: dict[str, str] = {}
    edits: list[tuple[str, str]] = []
    section = None
    original: list[str] = []
    mutated: list[str] = []
    for number, line in enumerate(path.read_text().split("\n"), start=1):
        marker = line.rstrip()
        if marker == "@@ original":
            if section is not None:
                raise MutationError(f"{path.name}:{number}: '@@ original' inside a block")
            section, original, mutated = "original", [], []
        elif marker == "@@ mutated":
            if section != "original":
                raise MutationError(f"{path.name}:{number}: '@@ mutated' without '@@ original'")
            section = "mutated"
        elif marker == "@@ end":
            if section != "mutated":
                raise MutationError(f"{path.name}:{number}: '@@ end' without '@@ mutated'")
            edits.append(("\n".join(original), "\n".join(mutated)))
            section = None
        elif section == "original":
            original.append(line)
        elif section == "mutated":
            mutated.append(line)
        elif line.strip() and not line.startswith("#"):
            key, sep, value = line.partition(":")
            if not sep or key.strip() not in KNOWN_KEYS:
                raise MutationError(f"{path.name}:{number}: expected one of {sorted(KNOWN_KEYS)}, got {line!r}")
            keys[key.strip()] = value.strip()
    if section is not None:
        raise MutationError(f"{path.name}: the last block has no '@@ end'")
    for key in ("promise", "file", "filter"):
        if not keys.get(key):
            raise MutationError(f"{path.name}: no '{key}:' line")
    if not edits:
        raise MutationError(f"{path.name}: no '@@ original' block")
    for original_text, mutated_text in edits:
        if not original_text.strip() or original_text == mutated_text:
            raise MutationError(f"{path.name}: a block is empty or changes nothing")
    transport = keys.get("transport")
    if transport not in (None, "libcurl", "urlsession"):
        raise MutationError(f"{path.name}: transport must be libcurl or urlsession")
    return Mutation(name, keys["promise"], keys["file"], keys["filter"], transport,
                    int(keys.get("timeout", "300")), edits)


def mutate(mutation: Mutation, text: str) -> str:
    for original, mutated in mutation.edits:
        count = text.count(original)
        if count != 1:
            where = "no longer occurs" if count == 0 else f"occurs {count} times"
            first = original.strip().splitlines()[0].strip()
            raise MutationError(
                f"mutation {mutation.name} no longer applies: in {mutation.file} its original text "
                f"{where} (first line: {first!r}); update Tests/Mutations/{mutation.name}.mutation")
        text = text.replace(original, mutated)
    return text


def tracked_files() -> list[str]:
    output = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, check=True, capture_output=True).stdout.decode()
    return [name for name in output.split("\0") if name and (ROOT / name).is_file()]


def sync(scratch: Path) -> None:
    """Copies the tree over the scratch copy, touching only files that differ, so its build stays warm."""
    names = tracked_files()
    wanted = set(names)
    changed = 0
    for name in names:
        source, target = ROOT / name, scratch / name
        if target.is_file() and target.read_bytes() == source.read_bytes():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        shutil.copymode(source, target)
        changed += 1
    removed = 0
    for folder in ("Sources", "Tests", "Package.swift"):
        base = scratch / folder
        paths = [base] if base.is_file() else (base.rglob("*") if base.exists() else [])
        for path in list(paths):
            if path.is_file() and str(path.relative_to(scratch)) not in wanted:
                path.unlink()
                removed += 1
    print(f"scratch copy {scratch}: {changed} file(s) copied, {removed} removed", flush=True)


def run(command: list[str], cwd: Path, log: Path, timeout: int | None = None,
        env: dict[str, str] | None = None) -> tuple[int | None, float]:
    """Runs a command with its output in a log; returns (exit status or None on timeout, seconds)."""
    started = time.monotonic()
    with open(log, "w") as out:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                   env=env, start_new_session=True)
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
            status = None
    return status, time.monotonic() - started


def test_env(mutation: Mutation) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("CONNECTIONKIT_TEST_TRANSPORT", None)
    if mutation.transport == "libcurl":
        env["CONNECTIONKIT_TEST_TRANSPORT"] = "libcurl"
    return env


def failed_tests(logs: Path, mutation: Mutation) -> str:
    """The tests that failed under the mutation, as the report names them."""
    log = logs / f"{mutation.name}.log"
    if not log.exists():
        return ""
    found = re.findall(r'Test (?:"([^"]+)"|(\S+\(\S*\)))(?: with [0-9]+ test cases?)? failed after',
                       log.read_text(errors="replace"))
    names = [quoted or bare for quoted, bare in found]
    if not names:
        return ""
    return f": {len(names)} failed, e.g. \"{names[0]}\""


def changed_files(since: str) -> list[str]:
    """The files changed between `since` and HEAD, the most recently changed first. `since` may be missing
    from a shallow clone: then the oldest commit there is stands in for it, and a note says so."""
    def git(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *arguments], cwd=ROOT, capture_output=True, text=True)

    if git("rev-parse", "--verify", "--quiet", f"{since}^{{commit}}").returncode != 0:
        roots = git("rev-list", "--max-parents=0", "HEAD").stdout.split()
        shallow = (ROOT / ".git" / "shallow").exists() or git("rev-parse", "--is-shallow-repository").stdout.strip() == "true"
        oldest = git("rev-list", "--reverse", "HEAD").stdout.split()[:1]
        print(f"note: {since} is not in this clone ({'shallow' if shallow else 'short history'}); "
              f"changes since {(oldest or roots or ['HEAD'])[0][:12]} are used", flush=True)
        since = (oldest or roots or ["HEAD"])[0]
    log = git("log", "--format=", "--name-only", f"{since}..HEAD").stdout.splitlines()
    seen: dict[str, None] = {}
    for name in log:
        if name.strip():
            seen.setdefault(name.strip(), None)
    return list(seen)


def select_changed(all_mutations: list[Mutation], since: str, maximum: int) -> list[Mutation]:
    """The mutations whose file changed since `since`: those of the most recently changed files first, at
    most `maximum` (the rest are named, so that a run that skipped some says which)."""
    order = {name: index for index, name in enumerate(changed_files(since))}
    touched = sorted((m for m in all_mutations if m.file in order), key=lambda m: (order[m.file], m.name))
    if len(touched) > maximum:
        skipped = ", ".join(m.name for m in touched[maximum:maximum + 5])
        skipped += ", …" if len(touched) > maximum + 5 else ""
        print(f"note: {len(touched)} mutations target files changed since {since}; the {maximum} of the most "
              f"recently changed files run, not: {skipped}", flush=True)
    print(f"changed since {since}: {min(len(touched), maximum)} mutations "
          f"({', '.join(m.name for m in touched[:maximum]) or 'none'})", flush=True)
    return touched[:maximum]


def select(all_mutations: list[Mutation], names: list[str], rotate: int | None) -> list[Mutation]:
    if names:
        by_name = {m.name: m for m in all_mutations}
        unknown = [n for n in names if n not in by_name]
        if unknown:
            sys.exit(f"no mutation named {', '.join(unknown)} (see Tests/Mutations/)")
        return [by_name[n] for n in names]
    if rotate is None or rotate >= len(all_mutations):
        return all_mutations
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    offset = int(head.strip()[:8] or "0", 16) % len(all_mutations)
    picked = sorted({(offset + i * len(all_mutations) // rotate) % len(all_mutations) for i in range(rotate)})
    return [all_mutations[i] for i in picked]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutations to run (file names without .mutation)")
    parser.add_argument("--rotate", type=int, metavar="COUNT", help="run COUNT mutations chosen by the commit")
    parser.add_argument("--changed-since", metavar="REV",
                        help="also run every mutation whose file changed between REV and HEAD (CI: HEAD~20)")
    parser.add_argument("--max", type=int, default=8, metavar="N",
                        help="run at most N of the --changed-since mutations, those of the most recently "
                             "changed files first (default 8)")
    parser.add_argument("--check", action="store_true", help="only check that every mutation applies")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip running each filter on the unmutated build first")
    parser.add_argument("--in-place", action="store_true",
                        help="mutate this checkout and use its own .build instead of a scratch copy (CI, after "
                             "its build: saves the scratch copy's first build); every file is put back")
    parser.add_argument("--warnings-as-errors", action="store_true",
                        help="build with -Xswiftc -warnings-as-errors (the flags of the build to reuse in place)")
    args = parser.parse_args()

    files = sorted(MUTATIONS.glob("*.mutation"))
    try:
        all_mutations = [parse(path) for path in files]
        for mutation in all_mutations:
            mutate(mutation, (ROOT / mutation.file).read_text())
    except (MutationError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.check:
        folders = sorted({str(Path(m.file).parent) for m in all_mutations})
        print(f"{len(all_mutations)} mutations apply, over {len(folders)} folders:")
        for folder in folders:
            print(f"  {folder}: {sum(1 for m in all_mutations if str(Path(m.file).parent) == folder)}")
        return 0
    chosen = select(all_mutations, args.names, args.rotate)
    if args.changed_since:
        if args.rotate is None and not args.names:
            chosen = []
        extra = select_changed(all_mutations, args.changed_since, args.max)
        chosen += [m for m in extra if m not in chosen]
        if not chosen:
            print("no mutation to run")
            return 0

    if args.in_place:
        scratch, logs = ROOT, ROOT / ".build" / "mutations" / "logs"
    else:
        scratch = Path(os.environ.get("MUTATIONS_SCRATCH", ROOT / ".build" / "mutations" / "tree"))
        logs = scratch.parent / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    if not args.in_place:
        scratch.mkdir(parents=True, exist_ok=True)
        sync(scratch)
    build = ["swift", "build", "--build-tests"]
    if args.warnings_as_errors:
        build += ["-Xswiftc", "-warnings-as-errors"]
    status, seconds = run(build, scratch, logs / "build.log")
    print(f"built the unmutated copy in {seconds:.0f} s", flush=True)
    if status != 0:
        print(f"error: the unmutated copy does not build (see {logs / 'build.log'})", file=sys.stderr)
        return 1

    # Each filter first runs on the unmutated copy: a test that fails anyway (or a filter that selects no
    # test) would make its mutation look killed.
    broken: dict[str, str] = {}
    if not args.no_baseline:
        for mutation in chosen:
            log = logs / f"{mutation.name}.baseline.log"
            status, seconds = run(["swift", "test", "--skip-build", "--filter", mutation.filter], scratch, log,
                                  mutation.timeout, test_env(mutation))
            text = log.read_text(errors="replace")
            if "Test run with 0 tests" in text:
                broken[mutation.name] = "ERROR (filter selects no test)"
            elif status != 0:
                broken[mutation.name] = "ERROR (fails unmutated)"
            if mutation.name in broken:
                print(f"error: {mutation.name}: {broken[mutation.name]} (see {log})", file=sys.stderr, flush=True)
        print(f"baseline: {len(chosen) - len(broken)} of {len(chosen)} filters pass on the unmutated copy",
              flush=True)

    killed = 0
    results = []
    started_all = time.monotonic()
    for index, mutation in enumerate(chosen, start=1):
        if mutation.name in broken:
            results.append((mutation, broken[mutation.name], 0.0, 0.0))
            print(f"[{index}/{len(chosen)}] {broken[mutation.name]:<22} {mutation.name}", flush=True)
            continue
        path = scratch / mutation.file
        original = path.read_text()
        path.write_text(mutate(mutation, original))
        try:
            build_log = logs / f"{mutation.name}.build.log"
            build_status, build_seconds = run(build, scratch, build_log)
            if build_status == 0 and f"{Path(mutation.file).name}:" in "".join(
                    line for line in build_log.read_text(errors="replace").splitlines(True) if "warning:" in line):
                # A mutation must also build where warnings are errors (--in-place in CI).
                print(f"note: {mutation.name} makes the compiler warn (see {build_log})", flush=True)
            if build_status != 0:
                verdict, test_seconds = "ERROR (does not build)", 0.0
            else:
                log = logs / f"{mutation.name}.log"
                status, test_seconds = run(["swift", "test", "--skip-build", "--filter", mutation.filter],
                                           scratch, log, mutation.timeout, test_env(mutation))
                if status is None:
                    verdict = "killed (timed out)"
                elif status != 0:
                    verdict = "killed"
                else:
                    verdict = "SURVIVED"
        finally:
            # Written back with a new time stamp, so the next build compiles the file again.
            path.write_text(original)
            now = time.time()
            os.utime(path, (now, now))
        if verdict.startswith("killed"):
            killed += 1
        results.append((mutation, verdict, build_seconds, test_seconds))
        transport = f" [{mutation.transport}]" if mutation.transport else ""
        print(f"[{index}/{len(chosen)}] {verdict:<22} {mutation.name}{transport}  "
              f"(build {build_seconds:.0f} s, test {test_seconds:.0f} s){failed_tests(logs, mutation)}", flush=True)

    total = time.monotonic() - started_all
    if args.in_place:
        # The checkout's .build matches its files again, for whatever runs next.
        status, seconds = run(build, scratch, logs / "build.log")
        print(f"rebuilt the unmutated checkout in {seconds:.0f} s", flush=True)
        if status != 0:
            print(f"error: the checkout does not build after the run (see {logs / 'build.log'})", file=sys.stderr)
            return 1
    print(f"\nkilled {killed} of {len(chosen)} in {total:.0f} s "
          f"({total / max(len(chosen), 1):.0f} s per mutation)")
    for mutation, verdict, _, _ in results:
        if not verdict.startswith("killed"):
            print(f"  {verdict}: {mutation.name}: {mutation.promise}\n"
                  f"    {mutation.file}; filter {mutation.filter!r}; logs in {logs}")
    return 0 if killed == len(chosen) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(1)
